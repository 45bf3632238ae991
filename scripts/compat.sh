#!/usr/bin/env bash
# Runs the e2e smoke set (client API, response formats, updates, cloud routing, admin)
# against several Apache Solr releases and prints a table release x module -> passed /
# failed / skipped, then a one-line verdict. Exit status 1 when any module failed (or a
# release's launcher could not be built or started).
#
#   scripts/compat.sh [VERSIONS...]      default: 9.4.1 9.7.0 9.10.1
#   scripts/compat.sh 10.0.0             Solr 10 (by script only, not in CI: it needs Java 21+,
#                                        which solr.sh finds by itself, and a first launcher
#                                        build of a few minutes; docs/compat.md)
#   COMPAT_MODULES="client:: admin::" scripts/compat.sh 9.4.1
#   COMPAT_E2E_BIN=path/to/e2e-HASH scripts/compat.sh   an e2e test binary built before (no
#                                                       cargo; it runs against this checkout)
#
# Each release's launcher is built on first use (local-solr/solr.sh setup --solr-version V,
# Maven Central), the tests read the release from SOLR_VERSION (a feature the release lacks
# is a recorded skip, named in the table), and every Solr of this worktree is stopped after
# each release (instances restart fresh for the next one). Skips also go to SKIP_LEDGER when
# scripts/test.sh set one.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/skips.sh

versions=("$@")
[ ${#versions[@]} -gt 0 ] || versions=(9.4.1 9.7.0 9.10.1)
read -r -a modules <<<"${COMPAT_MODULES:-client:: response_formats:: updates:: cloud_routing:: admin::}"
work=$(mktemp -d "${TMPDIR:-/tmp}/compat.XXXXXX")
outer_ledger="${SKIP_LEDGER:-}"
trap 'bash local-solr/solr.sh stop --all >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

if [ -z "${COMPAT_E2E_BIN:-}" ]; then
  cargo test -q -p e2e-tests --no-run 2>"$work/build.log" || { cat "$work/build.log" >&2; exit 1; }
fi

# e2e FILTER: the e2e tests matching FILTER (SOLR_VERSION and SKIP_LEDGER from the caller).
e2e() {
  if [ -n "${COMPAT_E2E_BIN:-}" ]; then
    SOLR_BENCH_ROOT="$ROOT" "$COMPAT_E2E_BIN" "$1"
  else
    cargo test -q -p e2e-tests -- "$1"
  fi
}

# cell LOG LEDGER: "passed N", "FAILED F of N" or "passed N, skipped S" for one module run.
cell() {
  local log="$1" ledger="$2" passed failed skipped
  # Summed over every harness cargo runs (the package's empty ones say 0).
  passed=$(awk '/^test result:/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^passed/) n += $i; seen = 1 }
    END { if (seen) print n + 0 }' "$log")
  failed=$(awk '/^test result:/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^failed/) n += $i }
    END { print n + 0 }' "$log")
  skipped=$(skip_count "$ledger")
  if [ -z "$passed" ]; then echo "FAILED (no result)"; return; fi
  if [ "$((passed + failed))" -eq 0 ]; then echo "FAILED (0 tests: the filter matches none)"; return; fi
  if [ "$failed" != 0 ]; then echo "FAILED $failed of $((passed + failed))"; return; fi
  if [ "$skipped" -gt 0 ]; then echo "passed $passed, skipped $skipped"; else echo "passed $passed"; fi
}

# run_version V: one row of the table (tab-separated cells) into $work/rows.
run_version() {
  local v="$1" m log ledger c row="$1"
  if ! bash local-solr/solr.sh setup --solr-version "$v" >"$work/setup-$v.log" 2>&1; then
    tail -5 "$work/setup-$v.log" >&2
    for m in "${modules[@]}"; do row+=$'\t'"FAILED (launcher)"; done
    echo "$row" >>"$work/rows"; return
  fi
  for m in "${modules[@]}"; do
    log="$work/$v-${m%::}.log"; ledger="$work/$v-${m%::}.skips"; : >"$ledger"
    echo "compat: Solr $v: e2e tests $m" >&2
    SOLR_VERSION="$v" SKIP_LEDGER="$ledger" e2e "$m" >"$log" 2>&1 || true
    c="$(cell "$log" "$ledger")"; row+=$'\t'"$c"
    # This module's failure lines (under pipefail a grep that finds none would end the script).
    if [[ "$c" == FAILED* ]]; then grep -E '^(---- |thread .* panicked|cannot start)' "$log" | head -5 >&2 || true; fi
    [ -z "$outer_ledger" ] || cat "$ledger" >>"$outer_ledger"
    cat "$ledger" >>"$work/skips"
  done
  echo "$row" >>"$work/rows"
  bash local-solr/solr.sh stop --all >/dev/null 2>&1 || true
}

: >"$work/rows"; : >"$work/skips"
for v in "${versions[@]}"; do run_version "$v"; done

{
  printf 'Solr'; printf '\t%s' "${modules[@]%::}"; printf '\n'
  cat "$work/rows"
} | column -t -s $'\t'
if [ -s "$work/skips" ]; then echo "skipped: $(skip_list "$work/skips")"; fi
if grep -q FAILED "$work/rows"; then
  echo "compat: FAILED on $(grep FAILED "$work/rows" | cut -f1 | tr '\n' ' ')(${#versions[@]} releases x ${#modules[@]} modules)"
  exit 1
fi
echo "compat: every module passed on ${versions[*]} ($(skip_count "$work/skips") skipped)"
