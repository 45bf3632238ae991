#!/usr/bin/env bash
# Runs every solr-client example against the local Solr, on a collection made from
# local-solr/configsets/default (a stand-in for Solr's `_default` configset: managed schema,
# schemaless, the documented dynamic fields), not the project's `bench` schema: each example
# gets SOLR_URL and SOLR_COLLECTION=default, as a user would point it at their own Solr.
# Each checks its answer and exits non-zero (the reason on stderr) when it is wrong; status 3
# means the example could not run on this Solr (its reason is printed), reported as not run,
# never as passed. Built once for the whole workspace, so each example has the features it
# needs (the workspace turns every solr-client feature on) and the build shares its
# dependencies with the benches' build in scripts/test.sh. An example's output is shown only
# when it fails or does not run. Instances, started when they are not running: a standalone
# node `examples` (core `default`); for the examples that need SolrCloud (streaming
# expressions, SQL: listed in `cloud_examples`) the two-node cloud `examples-cloud`
# (collection `default`); for replication_lag, which needs leader/follower replication
# configured in solrconfig.xml (which `_default` lacks), the e2e tests' pair `e2e-pair`
# (core `bench`). Called by scripts/test.sh, which stops every instance at the end.
#
#   bash scripts/examples.sh [NAME...]
#
# With NAMEs (example file names without `.rs`), runs only those, and starts only the
# instances they need. The last line sums up: passed, not run (with names), failed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/skips.sh"
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
# The collection (and configset) every example but replication_lag runs on.
collection=default

cargo build -q --workspace --examples
bin="${CARGO_TARGET_DIR:-target}/debug/examples"
url=$(bash local-solr/solr.sh start standalone --name examples --configset "$collection" | node_url node1)
if wanted replication_lag; then
  pair=$(bash local-solr/solr.sh start pair --name e2e-pair --poll-interval 1)
fi
# shellcheck disable=SC2086 # the list splits into names
if wanted $cloud_examples; then
  cloud=$(bash local-solr/solr.sh start cloud --name examples-cloud --configset "$collection" | node_url node1)
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT

passed=0 failed=() not_run=()
# run NAME [VAR=VALUE...]: one example, quiet unless it fails or does not run.
run() {
  local ex="$1" rc=0
  shift
  env SOLR_URL="$url" SOLR_COLLECTION="$collection" "$@" "$bin/$ex" >"$out" 2>&1 || rc=$?
  case "$rc" in
    0) echo "example $ex: ok"; passed=$((passed + 1)) ;;
    3)
      # Not run is a skip, never a pass: test.sh's last line lists it.
      skip_record "example $ex" "$(grep -m1 '^not run: ' "$out" | sed 's/^not run: //')" no
      not_run+=("$ex")
      ;;
    *)
      cat "$out"
      echo "example $ex: FAILED (status $rc)" >&2
      failed+=("$ex")
      ;;
  esac
}

# Every example in the directory: a new one cannot be left out.
for f in solr-client/examples/*.rs; do
  ex=$(basename "$f" .rs)
  wanted "$ex" || continue
  if [ "$ex" = replication_lag ]; then
    run "$ex" SOLR_COLLECTION=bench LEADER_URL="$(node_url leader <<<"$pair")" \
      FOLLOWER_URL="$(node_url follower <<<"$pair")" PROBES=3 POLL_SECS=1
  elif [[ "$cloud_examples" == *" $ex "* ]]; then
    run "$ex" SOLR_URL="$cloud"
  else
    run "$ex"
  fi
done
echo "examples: $passed passed, ${#not_run[@]} not run${not_run[*]:+ (${not_run[*]})}, ${#failed[@]} failed${failed[*]:+ (${failed[*]})}"
[ "${#failed[@]}" -eq 0 ]
