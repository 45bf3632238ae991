#!/usr/bin/env bash
# The main job: a transport study against the project's own local Solr, by default through
# the WAN emulation (RTT 40 ms, TLS 1.3; needs root). Installs what it
# needs, builds transport-bench, starts a real Solr, runs the study, stops Solr, and prints
# the report (tables, then a one-line verdict). Extra arguments go to `transport-bench study`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
cargo build --release -q -p transport-bench
if [ $# -eq 0 ]; then
  # The default: a remote-like Solr (RTT 40 ms, TLS 1.3 at a front proxy, in network
  # namespaces of the project's own), so the seed's finding shows. Any argument replaces
  # this preset; `bash scripts/study.sh --docs 50000` runs the full study on plain loopback.
  set -- --rtt 40 --tls --tls-version 1.3 --docs 10000 --searches 150 --mixed 60 --reps 2
fi
exec ./target/release/transport-bench study "$@"
