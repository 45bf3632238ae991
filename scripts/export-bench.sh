#!/usr/bin/env bash
# scripts/export-bench.sh [DOCS]: solr-client's `export_as::<T>` beside SolrJ's streaming API
# (`SolrStream` over /export) and curl, on the same documents of a local standalone Solr.
#
# Starts its own node (`local-solr/solr.sh start standalone --name export-bench`), loads DOCS
# (default 1000000) generated documents into the `bench` core (numeric ids 0..DOCS plus the
# docValues fields category, price, popularity; CSV batches, one commit), then runs ROUNDS
# (default 7; 2 with EXPORT_BENCH_PROFILE=test) interleaved rounds of eight readers, each once
# per round, the order rotating (scripts/export-bench-rounds.py):
#   solr-client-h1/-h2  solr-client/benches/export_stream.rs, pooled HTTP/1.1 / http2 (h2c)
#                       transport, a fresh process per read
#   solrj-h1/-h2        local-solr/launcher/src/main/java/dev/solrbench/ExportStream.java:
#                       SolrStream over Jetty's HTTP/1.1 / HTTP/2 client (Http2SolrClient,
#                       useHttp1_1), one JVM each kept for all rounds (warm)
#   solrj-h1/-h2-cold   the same in a fresh JVM per read, client construction timed
#   curl-h1/-h2         curl -o FILE --http1.1 / --http2-prior-knowledge on the same URL
# Each reads `q=*:*, fl=id,category,price,popularity, sort=id asc` and reports documents read,
# the sum and xor of the ids (every id of 0..numFound exactly once), wall seconds, docs/s,
# CPU seconds (its own process) and peak RSS growth. Prints per reader the median [min-max]
# over the rounds, solr-client's docs/s as per-round ratios to every other reader, and a
# verdict against the goals (>= warm SolrJ's docs/s on the same protocol, >= 0.9x curl's; peak
# RSS growth <= 32 MiB at 1M documents). A read with a wrong count fails loudly; the script
# then exits non-zero. Stops its Solr.
#
# Then the same documents in a 2-shard SolrCloud (`solr.sh start cloud --name
# export-bench-cloud --shards 2 --replicas 1`, loaded through node1) read by a cloud client
# (`CLOUD=1`: one /export per shard, merged by the sort), ROUNDS reads: one more row, with
# the same id checks. EXPORT_BENCH_CLOUD=0 skips it; with EXPORT_BENCH_PROFILE=test it is
# skipped unless EXPORT_BENCH_CLOUD=1.
#
# EXPORT_BENCH_PROFILE=test builds the Rust side in the test profile (what scripts/test.sh
# already compiled) instead of release: for a quick correctness run, not for figures.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

docs="${1:-1000000}"
[[ "$docs" =~ ^[0-9]+$ && "$docs" -gt 0 ]] || { echo "usage: $0 [DOCS > 0]" >&2; exit 2; }
name=export-bench
work=$(mktemp -d)
cloud_name=export-bench-cloud
# The cloud column is on by default, off in the quick test-profile run (a 2-shard cloud
# takes one to two minutes to start: the CI run stays fast; e2e cloud_export:: covers it).
if [[ "${EXPORT_BENCH_PROFILE:-release}" == test ]]; then
  with_cloud="${EXPORT_BENCH_CLOUD:-0}"
  rounds="${ROUNDS:-2}"
else
  with_cloud="${EXPORT_BENCH_CLOUD:-1}"
  rounds="${ROUNDS:-7}"
fi
[[ "$rounds" =~ ^[0-9]+$ && "$rounds" -gt 0 ]] || { echo "ROUNDS must be a number > 0" >&2; exit 2; }
cleanup() {
  bash local-solr/solr.sh stop "$name" >/dev/null 2>&1 || true
  if [[ "$with_cloud" == 1 ]]; then bash local-solr/solr.sh stop "$cloud_name" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

log() { echo "export-bench: $*" >&2; }

# The Rust bench binary, built once (with the http2 transport).
if [[ "${EXPORT_BENCH_PROFILE:-release}" == test ]]; then
  build=(cargo test -q -p solr-client --features http2 --bench export_stream --no-run --message-format=json)
else
  build=(cargo build -q --release -p solr-client --features http2 --bench export_stream --message-format=json)
fi
rust_bin=$("${build[@]}" | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "export_stream" and m.get("executable"):
        print(m["executable"])')
[[ -x "$rust_bin" ]] || { log "no export_stream binary built"; exit 1; }

url=$(bash local-solr/solr.sh start standalone --name "$name" | awk '$1=="node" {print $3; exit}')
core="$url/bench"
argfile=local-solr/launcher/target/java-cp.args
[[ -f local-solr/launcher/target/classes/dev/solrbench/ExportStream.class ]] \
  || { log "ExportStream is not built: run bash local-solr/solr.sh setup"; exit 1; }

# Load: CSV batches of 200000 documents, committed once at the end.
t0=$(date +%s.%N)
python3 - "$docs" "$work" <<'PY'
import sys
n, work = int(sys.argv[1]), sys.argv[2]
cats = ["search", "systems", "jvm", "storage", "network"]
batch = 200_000
for b, start in enumerate(range(0, n, batch)):
    with open(f"{work}/batch-{b:04d}.csv", "w") as f:
        f.write("id,category,price,popularity\n")
        for i in range(start, min(n, start + batch)):
            f.write(f"{i},{cats[i % 5]},{(i % 1000) / 4 + 0.25},{(i * 7919) % 100000}\n")
PY
for f in "$work"/batch-*.csv; do
  curl -fsS -o /dev/null -H 'Content-Type: application/csv' --data-binary "@$f" "$core/update" \
    || { log "loading $f failed"; exit 1; }
done
curl -fsS -o /dev/null "$core/update?commit=true" || { log "commit failed"; exit 1; }
found=$(curl -fsS "$core/select?q=*:*&rows=0&wt=json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["response"]["numFound"])')
load_s=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)")
log "loaded $found documents in $load_s s"
[[ "$found" == "$docs" ]] || { log "numFound $found, expected $docs"; exit 1; }

results="$work/results"
: >"$results"
echo "export-bench: $(date -u '+%F %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg) before the rounds;" \
  "Solr $(sed -n 's:.*<solr.version>\(.*\)</solr.version>.*:\1:p' local-solr/launcher/pom.xml) (SolrJ the same)," \
  "$(java -version 2>&1 | head -1), $(curl --version | head -1 | cut -d' ' -f1-2), $(rustc --version)," \
  "$(nproc) cores"
rounds_rc=0
python3 scripts/export-bench-rounds.py rounds "$results" --rust-bin "$rust_bin" --core "$core" \
  --argfile "$argfile" --work "$work" --found "$found" --rounds "$rounds" || rounds_rc=$?
echo "export-bench: load average $(cut -d' ' -f1-3 /proc/loadavg) after the rounds"

# The cloud column: the same CSV batches into a 2-shard collection, read by a cloud client.
if [[ "$with_cloud" == 1 ]]; then
  bash local-solr/solr.sh stop "$name" >/dev/null 2>&1 || true
  cloud_url=$(bash local-solr/solr.sh start cloud --name "$cloud_name" --shards 2 --replicas 1 \
    | awk '$1=="node" {print $3; exit}')
  for f in "$work"/batch-*.csv; do
    curl -fsS -o /dev/null -H 'Content-Type: application/csv' --data-binary "@$f" "$cloud_url/bench/update" \
      || { log "loading $f into the cloud failed"; exit 1; }
  done
  curl -fsS -o /dev/null "$cloud_url/bench/update?commit=true" || { log "cloud commit failed"; exit 1; }
  cloud_found=$(curl -fsS "$cloud_url/bench/select?q=*:*&rows=0&wt=json" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["response"]["numFound"])')
  [[ "$cloud_found" == "$docs" ]] || { log "cloud numFound $cloud_found, expected $docs"; exit 1; }
  CLOUD=1 SOLR_URL="$cloud_url" COLLECTION=bench "$rust_bin" >/dev/null
  for ((r = 0; r < rounds; r++)); do
    CLOUD=1 SOLR_URL="$cloud_url" COLLECTION=bench "$rust_bin" | grep '^EXPORTJSON ' \
      | sed 's/^EXPORTJSON //' >>"$results"
  done
fi

report_rc=0
python3 scripts/export-bench-rounds.py report "$results" --found "$found" --rounds "$rounds" \
  --load-s "$load_s" || report_rc=$?
((rounds_rc == 0 && report_rc == 0)) || { log "FAILED: a reader read a wrong count or failed (see above)"; exit 1; }
