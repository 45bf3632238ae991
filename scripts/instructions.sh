#!/usr/bin/env bash
# scripts/instructions.sh: user-space instructions per search of solr-client against the
# equal-work raw hyper loop, counted by callgrind, on a local standalone Solr.
#
# Starts its own node (`local-solr/solr.sh start standalone --name instructions`), indexes
# 2000 documents into the `bench` core (solr-client/benches/instructions.rs `seed`), then runs
# that bench binary under `valgrind --tool=callgrind` for each path at LO and HI searches
# (default 200 and 600, after 20 untimed ones) and takes the slope, (I(HI) - I(LO)) / (HI - LO):
# instructions per search, without the process start, the connection and the warm-up.
#   pooled     SolrClient::select (pooled transport, untyped documents)
#   raw        one hyper HTTP/1.1 keep-alive connection, the body into a serde_json::Value
#   typed      SolrClient::select_as::<Hit>
#   raw-typed  the raw loop, the body into SelectResponse<Hit> through serde_json
# The raw loops send the exact path and query the client would, built before the searches;
# the client builds each request from its Select (that cost is the client's).
# Prints one line per path, then exactly
#   pooled vs raw hyper: N.NNx
#   typed vs raw typed hyper: N.NNx
# and whether each is within the goal (<= 1.05x). A benchmark, not a test: the exit status
# says only whether every search succeeded and callgrind ran.
#
# INSTRUCTIONS_PROFILE=test builds the bench in the test profile (what scripts/test.sh already
# compiled) and counts 20 vs 60 searches: a quick check that the script works, not figures.
# LO, HI, WARMUP override the counts. INSTRUCTIONS_KEEP=DIR keeps the callgrind files there
# (for `callgrind_annotate DIR/typed-600.out`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { echo "instructions: $*" >&2; }
command -v valgrind >/dev/null || { log "valgrind is not installed (scripts/setup.sh installs it)"; exit 1; }

if [[ "${INSTRUCTIONS_PROFILE:-release}" == test ]]; then
  lo="${LO:-20}" hi="${HI:-60}"
  build=(cargo test -q -p solr-client --bench instructions --no-run --message-format=json)
else
  lo="${LO:-200}" hi="${HI:-600}"
  build=(cargo build -q --release -p solr-client --bench instructions --message-format=json)
fi
[[ "$lo" =~ ^[0-9]+$ && "$hi" =~ ^[0-9]+$ && "$hi" -gt "$lo" ]] || { log "need 0 <= LO < HI"; exit 2; }
export WARMUP="${WARMUP:-20}"

name=instructions
work="${INSTRUCTIONS_KEEP:-$(mktemp -d)}"
mkdir -p "$work"
cleanup() {
  bash local-solr/solr.sh stop "$name" >/dev/null 2>&1 || true
  [[ -n "${INSTRUCTIONS_KEEP:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT

bin=$("${build[@]}" | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "instructions" and m.get("executable"):
        print(m["executable"])')
[[ -x "$bin" ]] || { log "no instructions binary built"; exit 1; }

url=$(bash local-solr/solr.sh start standalone --name "$name" | awk '$1=="node" {print $3; exit}')
export SOLR_URL="$url" COLLECTION=bench
"$bin" seed >/dev/null

# Instructions of one run of PATH with N searches (callgrind's total over every thread).
count() {
  local path=$1 n=$2 out="$work/$1-$2.out"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$path" "$n" \
    >"$work/$path-$n.log" 2>&1 || { cat "$work/$path-$n.log" >&2; log "$path $n failed"; exit 1; }
  awk '/^(summary|totals):/ {print $2; exit}' "$out"
}

declare -A per
for path in raw pooled raw-typed typed; do
  a=$(count "$path" "$lo")
  b=$(count "$path" "$hi")
  per[$path]=$(( (b - a) / (hi - lo) ))
  printf '%-10s %9d instructions/search (%d at %d searches, %d at %d)\n' \
    "$path" "${per[$path]}" "$a" "$lo" "$b" "$hi"
done

python3 - "${per[pooled]}" "${per[raw]}" "${per[typed]}" "${per[raw-typed]}" <<'PY'
import sys
pooled, raw, typed, raw_typed = map(int, sys.argv[1:])
for label, a, b in (("pooled vs raw hyper", pooled, raw), ("typed vs raw typed hyper", typed, raw_typed)):
    print(f"{label}: {a / b:.2f}x")
for label, a, b in (("pooled", pooled, raw), ("typed", typed, raw_typed)):
    print(f"goal {label} <= 1.05x: {'met' if a / b <= 1.05 else 'MISSED'}")
PY
