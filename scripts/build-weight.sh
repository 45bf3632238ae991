#!/usr/bin/env bash
# Measures the build weight of solr-client for a small app: for each feature set (default,
# http-only = gzip without TLS, rustls-ring) it lays a scratch app OUTSIDE the repository
# (path dependency on solr-client, the workspace's Cargo.lock as its lock, its own target
# dir), fetches the crates, then times a first debug `cargo build` and counts the crates of
# `cargo tree` (distinct name+version) and the C builds among them (cc, cmake, *-sys, ring).
#
#   scripts/build-weight.sh [DIR [SET...]]   DIR default /tmp/weight-app (wiped per set);
#                                             SETs default: default http-only rustls-ring
#
# Prints one tab-separated line per set: set, wall s, user+sys CPU s, crates, C builds.
# CARGO_BUILD_JOBS is taken from the environment (default 2). The wall time depends on the
# machine's load: the line ends with the 1-minute load average at the start of the build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BASE="${1:-/tmp/weight-app}"
shift || true
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(default http-only rustls-ring)
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}" CARGO_INCREMENTAL=0
unset RUSTC_WRAPPER

# dep_line SET: the [dependencies] line of solr-client for the set.
dep_line() {
  case "$1" in
    default) echo "solr-client = { path = \"$ROOT/solr-client\" }" ;;
    http-only) echo "solr-client = { path = \"$ROOT/solr-client\", default-features = false, features = [\"gzip\"] }" ;;
    rustls-ring) echo "solr-client = { path = \"$ROOT/solr-client\", default-features = false, features = [\"gzip\", \"rustls-ring\"] }" ;;
    *) echo "build-weight: unknown set '$1'" >&2; exit 2 ;;
  esac
}

lay_app() {
  local set="$1" dir="$BASE/$1"
  rm -rf "$dir"; mkdir -p "$dir/src"
  cat >"$dir/Cargo.toml" <<TOML
[package]
name = "weight-$set"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
$(dep_line "$set")
tokio = { version = "1", features = ["macros", "rt-multi-thread"] }

[workspace]
TOML
  cat >"$dir/src/main.rs" <<'RS'
//! A small app: one select against the node named on the command line.
use solr_client::{Select, SolrClient};

#[tokio::main]
async fn main() -> solr_client::Result<()> {
    let url = std::env::args().nth(1).unwrap_or_else(|| "http://127.0.0.1:8983/solr".into());
    let client = SolrClient::builder(&url).collection("bench").build()?;
    let r = client.select(&Select::new("*:*").rows(1)).await?;
    println!("{} hits", r.num_found());
    Ok(())
}
RS
  cp "$ROOT/Cargo.lock" "$dir/Cargo.lock"
}

measure() {
  local set="$1" dir="$BASE/$1" t0 t1 times crates cbuilds load
  lay_app "$set"
  (cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo fetch -q)
  load="$(cut -d' ' -f1 /proc/loadavg)"
  t0=$(date +%s.%N)
  times=$( { cd "$dir" && TIMEFORMAT='%U %S' && time CARGO_TARGET_DIR="$dir/target" cargo build -q >/dev/null 2>"$dir/build.log" || true; } 2>&1 )
  t1=$(date +%s.%N)
  if [ ! -x "$dir/target/debug/weight-$set" ]; then
    echo "build-weight: the $set build failed:" >&2; tail -20 "$dir/build.log" >&2; exit 1
  fi
  crates=$(cd "$dir" && cargo tree -e normal,build --prefix none | sed 's/ (\*)//; s/ (proc-macro)//' | awk '{print $1, $2}' | sort -u | wc -l)
  cbuilds=$(cd "$dir" && cargo tree -e normal,build --prefix none | awk '{print $1}' | sort -u \
    | { grep -E '^(cc|cmake|ring|.*-sys)$' || true; } | tr '\n' ' ')
  printf '%s\t%.0f\t%.0f\t%s\t%s\tload %s\n' "$set" "$(echo "$t1 - $t0" | bc)" \
    "$(echo "$times" | tail -1 | awk '{print $1 + $2}')" "$crates" "${cbuilds:-none}" "$load"
}

for set in "${sets[@]}"; do measure "$set"; done
