#!/usr/bin/env bash
# The main job: a transport study against the project's own local Solr. Installs what it
# needs, builds transport-bench, starts a real Solr, runs the study, stops Solr, and prints
# the report (tables, then a one-line verdict). Extra arguments go to `transport-bench study`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
cargo build --release -q -p transport-bench
exec ./target/release/transport-bench study "$@"
