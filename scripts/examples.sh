#!/usr/bin/env bash
# Runs every solr-client example against the local Solr; each checks its answer and exits
# non-zero (the reason on stderr) when it is wrong. Built once for the whole workspace, so
# each example has the features it needs (the workspace turns every solr-client feature on)
# and the build shares its dependencies with the benches' build in scripts/test.sh. An
# example's output is shown only when it fails. Uses the e2e tests' Solr instances (a
# standalone node `e2e`, a leader/follower pair `e2e-pair`, and for the examples that need
# SolrCloud (streaming expressions, SQL: listed in `cloud_examples`) the two-node cloud
# `e2e-cloud`), starting them when they are not running. Called by scripts/test.sh.
#
#   bash scripts/examples.sh [NAME...]
#
# With NAMEs (example file names without `.rs`), runs only those, and starts only the
# instances they need.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

node_url() { awk -v n="$1" '$1=="node" && $2==n {print $3; exit}'; }

only=" $* "
for ex in "$@"; do
  [ -f "solr-client/examples/$ex.rs" ] || { echo "no example $ex" >&2; exit 2; }
done
# wanted NAME...: whether one of the NAMEs is to run.
wanted() {
  local ex
  [ "$only" = "  " ] && return 0
  for ex in "$@"; do [[ "$only" == *" $ex "* ]] && return 0; done
  return 1
}
# The examples that need SolrCloud: they run against a cloud node.
cloud_examples=" stream sql "

cargo build -q --workspace --examples
bin="${CARGO_TARGET_DIR:-target}/debug/examples"
url=$(bash local-solr/solr.sh start standalone --name e2e | node_url node1)
if wanted replication_lag; then
  pair=$(bash local-solr/solr.sh start pair --name e2e-pair --poll-interval 1)
fi
# shellcheck disable=SC2086 # the list splits into names
if wanted $cloud_examples; then
  cloud=$(bash local-solr/solr.sh start cloud --name e2e-cloud | node_url node1)
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# run NAME [VAR=VALUE...]: one example, quiet unless it fails.
run() {
  local ex="$1" rc=0
  shift
  env SOLR_URL="$url" "$@" "$bin/$ex" >"$out" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    cat "$out"
    echo "example $ex: FAILED (status $rc)" >&2
    return 1
  fi
  echo "example $ex: ok"
}

# Every example in the directory: a new one cannot be left out.
for f in solr-client/examples/*.rs; do
  ex=$(basename "$f" .rs)
  wanted "$ex" || continue
  if [ "$ex" = replication_lag ]; then
    run "$ex" LEADER_URL="$(node_url leader <<<"$pair")" \
      FOLLOWER_URL="$(node_url follower <<<"$pair")" PROBES=3 POLL_SECS=1
  elif [[ "$cloud_examples" == *" $ex "* ]]; then
    run "$ex" SOLR_URL="$cloud"
  else
    run "$ex"
  fi
done
