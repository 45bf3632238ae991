#!/usr/bin/env bash
# Benchmark (not a test) of the Python clients on one local standalone Solr: pysolr,
# solr_client.Solr, solr_client.Client (pooled, http2) and solrstice, in interleaved rounds
# (solr-client-py/bench/bench.py). Builds the solr_client wheel in release mode into
# .venv-py first. Figures: docs/findings/python.md. Arguments go to bench.py
# (--rounds, default 7; --searches; --bulk, 0 to skip). JSON in results/py-bench-<time>.json.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY_PROFILE=release bash scripts/py-setup.sh
trap 'bash local-solr/solr.sh stop py-bench >/dev/null 2>&1 || true' EXIT
node=$(bash local-solr/solr.sh start standalone --name py-bench | awk '$1 == "node" { print $3; exit }')
mkdir -p results
out="results/py-bench-$(date -u +%Y%m%dT%H%M%SZ).json"
.venv-py/bin/python solr-client-py/bench/bench.py "$node" --json "$out" "$@"
echo "py-bench: $out"
