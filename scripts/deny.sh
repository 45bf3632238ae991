#!/usr/bin/env bash
# cargo-deny over the workspace (deny.toml): licenses, bans (duplicates warn), sources, and
# RustSec advisories when the advisory database can be fetched (it is a git repository on
# GitHub; offline or firewalled machines skip that one check and record the skip in the skip
# ledger, scripts/skips.sh). Installs cargo-deny the way scripts/test.sh installs cargo-fuzz:
# `cargo install --locked` once.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/skips.sh
if ! command -v cargo-deny >/dev/null 2>&1; then
  t0=$(date +%s)
  cargo install -q cargo-deny --locked
  echo "deny: installed cargo-deny in $(( $(date +%s) - t0 )) s"
fi
checks=(licenses bans sources)
if timeout 120 cargo deny fetch >/dev/null 2>&1; then
  checks+=(advisories)
else
  skip_record "cargo-deny advisories" \
    "the RustSec advisory database (a git repository on GitHub) could not be fetched from here" no
fi
cargo deny --log-level error check "${checks[@]}"
