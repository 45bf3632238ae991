#!/usr/bin/env bash
# scripts/conformance.sh [PATHS]: the whole conformance matrix (e2e `conformance::`): every
# operation (select, select_as, real-time get, cursor_as, export_as, stream_as, admin status,
# add, add_batched, the Indexer, delete, and an error case per family) on every path,
# deployment (standalone, 2-shard cloud) x mode (async, blocking) x transport (pooled, fresh,
# http2, reqwest): 16 paths, each cell compared with the right answer and with the reference
# path (standalone+async+pooled). Prints the cells that differ; exit status 1 when any does.
#
#   scripts/conformance.sh                         all 16 paths (CONFORMANCE=full)
#   scripts/conformance.sh ci                      the 4 paths CI runs (scripts/test.sh)
#   scripts/conformance.sh cloud+async+fresh,standalone+blocking+http2   the paths named
#
# The Solr instances it starts (standalone `e2e`, cloud `e2e-cloud2x2`) are the e2e suite's
# and stay up for the next run; `bash local-solr/solr.sh stop --all` stops them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
CONFORMANCE="${1:-full}" cargo test -p e2e-tests --test e2e -- conformance:: --nocapture
