#!/usr/bin/env bash
# The Python package's checks (after scripts/py-setup.sh): mypy --strict on the examples
# (through the shipped stubs), then pytest against real local Solr nodes the tests start
# and stop (a standalone node and a 2-shard SolrCloud), pysolr side by side, and
# `transport-bench watch` on the Python client (needs the transport-bench binary; built here
# when missing).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv-py"
[ -x "$VENV/bin/python" ] || bash scripts/py-setup.sh
"$VENV/bin/python" -m mypy --strict --no-incremental solr-client-py/examples solr-client-py/python/solr_client
cargo build -q -p transport-bench --bin transport-bench
export TRANSPORT_BENCH="${CARGO_TARGET_DIR:-$ROOT/target}/debug/transport-bench"
cd solr-client-py
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests
