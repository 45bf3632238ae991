#!/usr/bin/env bash
# scripts/export-bench.sh [DOCS]: solr-client's `export_as::<T>` beside SolrJ's streaming API
# (`SolrStream` over /export) on the same documents of a local standalone Solr.
#
# Starts its own node (`local-solr/solr.sh start standalone --name export-bench`), loads DOCS
# (default 1000000) generated documents into the `bench` core (numeric ids 0..DOCS plus the
# docValues fields category, price, popularity; CSV batches, one commit), then runs ROUNDS
# (default 3) interleaved rounds, each client in a fresh process per round:
#   solr-client  solr-client/benches/export_stream.rs (pooled transport, current-thread runtime)
#   SolrJ        local-solr/launcher/src/main/java/dev/solrbench/ExportStream.java (fresh JVM)
# Each reads `q=*:*, fl=id,category,price,popularity, sort=id asc` and reports documents read,
# the sum and xor of the ids (every id of 0..numFound exactly once), wall seconds, docs/s,
# client CPU seconds (its own process) and peak RSS growth. Prints a side-by-side table of
# medians with ratios and a verdict against the goals (docs/s >= SolrJ's; RSS growth <= 32 MiB
# at 1M documents). Exits non-zero when any count or id check is wrong. Stops its Solr.
#
# Then the same documents in a 2-shard SolrCloud (`solr.sh start cloud --name
# export-bench-cloud --shards 2 --replicas 1`, loaded through node1) read by a cloud client
# (`CLOUD=1`: one /export per shard, merged by the sort), ROUNDS rounds: a third column, with
# the same id checks. EXPORT_BENCH_CLOUD=0 skips it; with EXPORT_BENCH_PROFILE=test it is
# skipped unless EXPORT_BENCH_CLOUD=1.
#
# EXPORT_BENCH_PROFILE=test builds the Rust side in the test profile (what scripts/test.sh
# already compiled) instead of release: for a quick correctness run, not for figures.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

docs="${1:-1000000}"
rounds="${ROUNDS:-3}"
[[ "$docs" =~ ^[0-9]+$ && "$docs" -gt 0 ]] || { echo "usage: $0 [DOCS > 0]" >&2; exit 2; }
name=export-bench
work=$(mktemp -d)
cloud_name=export-bench-cloud
# The cloud column is on by default, off in the quick test-profile run (a 2-shard cloud
# takes one to two minutes to start: the CI run stays fast; e2e cloud_export:: covers it).
if [[ "${EXPORT_BENCH_PROFILE:-release}" == test ]]; then
  with_cloud="${EXPORT_BENCH_CLOUD:-0}"
else
  with_cloud="${EXPORT_BENCH_CLOUD:-1}"
fi
cleanup() {
  bash local-solr/solr.sh stop "$name" >/dev/null 2>&1 || true
  if [[ "$with_cloud" == 1 ]]; then bash local-solr/solr.sh stop "$cloud_name" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

log() { echo "export-bench: $*" >&2; }

# The Rust bench binary, built once.
if [[ "${EXPORT_BENCH_PROFILE:-release}" == test ]]; then
  build=(cargo test -q -p solr-client --bench export_stream --no-run --message-format=json)
else
  build=(cargo build -q --release -p solr-client --bench export_stream --message-format=json)
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
run_rust() { SOLR_URL="$url" COLLECTION=bench "$rust_bin" | grep '^EXPORTJSON ' >>"$results"; }
run_solrj() {
  java -Xmx512m "@$argfile" dev.solrbench.ExportStream "$core" 2>"$work/solrj.log" \
    | grep '^EXPORTJSON ' >>"$results" || { cat "$work/solrj.log" >&2; return 1; }
}
# One untimed read: Solr's docValues and OS page cache warm for both.
SOLR_URL="$url" COLLECTION=bench "$rust_bin" >/dev/null
: >"$results"
for ((r = 0; r < rounds; r++)); do
  if ((r % 2 == 0)); then run_rust; run_solrj; else run_solrj; run_rust; fi
done

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
    CLOUD=1 SOLR_URL="$cloud_url" COLLECTION=bench "$rust_bin" | grep '^EXPORTJSON ' >>"$results"
  done
fi

python3 - "$results" "$found" "$rounds" "$load_s" <<'PY'
import json, statistics, sys
path, found, rounds, load_s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
runs = [json.loads(l.split(" ", 1)[1]) for l in open(path)]
want_sum = found * (found - 1) // 2
want_xor = 0
for i in range(found):
    want_xor ^= i
bad = [r for r in runs if (r["docs"], r["id_sum"], r["id_xor"]) != (found, want_sum, want_xor)]
clients = ["solr-client", "solrj"] + (["solr-client-cloud"] if any(r["client"] == "solr-client-cloud" for r in runs) else [])
by = {c: [r for r in runs if r["client"] == c] for c in clients}
if any(len(v) != rounds for v in by.values()):
    print(f"missing runs: {[(c, len(v)) for c, v in by.items()]}", file=sys.stderr)
    sys.exit(1)
med = {c: {k: statistics.median(r[k] for r in v) for k in ("wall_s", "docs_per_s", "cpu_s", "rss_growth_kib")} for c, v in by.items()}
print(f"/export of {found} documents (fl=id,category,price,popularity, sort=id asc), load {load_s} s, "
      f"{rounds} interleaved rounds, fresh process each, medians")
cloud = "solr-client-cloud" in by
print(f"{'':<14}{'solr-client':>14}{'SolrJ':>14}{'ratio':>9}" + (f"{'cloud 2 shards':>16}" if cloud else ""))
rows = [("wall s", "wall_s", 1, "{:.3f}"), ("docs/s", "docs_per_s", 1, "{:.0f}"),
        ("CPU s", "cpu_s", 1, "{:.3f}"), ("RSS +MiB", "rss_growth_kib", 1024, "{:.1f}")]
for label, k, div, fmt in rows:
    a, b = med["solr-client"][k] / div, med["solrj"][k] / div
    ratio = f"{a / b:.2f}" if b else "-"
    extra = f"{fmt.format(med['solr-client-cloud'][k] / div):>16}" if cloud else ""
    print(f"{label:<14}{fmt.format(a):>14}{fmt.format(b):>14}{ratio:>9}{extra}")
for c in clients:
    print(f"  {c} runs: " + ", ".join(f"{r['docs_per_s']:.0f}/s {r['cpu_s']:.2f}cpu {r['rss_growth_kib'] / 1024:.1f}MiB" for r in by[c]))
rust, solrj = med["solr-client"], med["solrj"]
rss_mib = rust["rss_growth_kib"] / 1024
# The 32 MiB goal is stated at 1M documents; at other sizes it is shown, not judged.
rss_goal = "n/a (goal stated at 1M docs)" if found != 1_000_000 else ("met" if rss_mib <= 32 else "MISSED")
speed = "met" if rust["docs_per_s"] >= solrj["docs_per_s"] else "MISSED"
counts = "all counts exact" if not bad else f"{len(bad)} WRONG COUNTS"
print(f"verdict: docs/s >= SolrJ's: {speed} ({rust['docs_per_s'] / solrj['docs_per_s']:.2f}x); "
      f"RSS growth <= 32 MiB: {rss_goal} ({rss_mib:.1f} MiB); {counts}")
if bad:
    for r in bad:
        print(f"wrong: {r}, expected docs={found} id_sum={want_sum} id_xor={want_xor}", file=sys.stderr)
    sys.exit(1)
PY
