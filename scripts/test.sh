#!/usr/bin/env bash
# Runs every check and test: formatting, clippy, docs, unit tests, the end-to-end tests
# against real local Solr nodes (standalone, TLS, leader/follower pair, SolrCloud), the
# examples against the local Solr, and compiles the benches. Stops every Solr it started.
# Every check that does not run is recorded in the skip ledger (scripts/skips.sh); the last
# line lists them: `done: all checks passed, N skipped: what (why); ...`. With CI=true a
# skip of something scripts/setup.sh installs fails the run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
source scripts/skips.sh
t0=$(date +%s)
step() { echo "== $* ($(( $(date +%s) - t0 )) s)"; }
SKIP_LEDGER=$(mktemp "${TMPDIR:-/tmp}/skip-ledger.XXXXXX")
export SKIP_LEDGER

# filtered_test WHAT CARGO-TEST-ARGS...: `cargo test` with a filter, failing when the filter
# matched no test at all (a renamed module must not pass by running nothing).
filtered_test() {
  local what="$1" log ran
  shift
  log=$(mktemp "${TMPDIR:-/tmp}/filtered.XXXXXX")
  cargo test "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  ran=$(awk '/^test result:/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^(passed|failed)/) n += $i }
    END { print n + 0 }' "$log")
  rm -f "$log"
  [ "$rc" -eq 0 ] || return "$rc"
  if [ "$ran" -eq 0 ]; then
    echo "FAILED: the test step '$what' ran 0 tests (its filter matches nothing)" >&2
    return 1
  fi
  echo "$what: $ran tests ran"
}

cleanup() {
  bash local-solr/solr.sh stop --all >/dev/null 2>&1 || true
  rm -f "$SKIP_LEDGER"
}
trap cleanup EXIT

step "setup"
echo "disk: $(df -h --output=avail . | tail -1 | tr -d ' ') free where the target directory lives"
bash scripts/setup.sh
step "watch --ebpf: the committed BPF object matches its source"
bash scripts/bpf-object.sh check
step "cargo fmt --check"
cargo fmt --all --check
step "cargo clippy"
cargo clippy --workspace --all-targets -- -D warnings
step "cargo doc"
RUSTDOCFLAGS=-Dwarnings cargo doc --workspace --no-deps -q
# --- solr-client as a published crate (crate hygiene) ---
step "solr-client: no optional feature, and each feature alone (cargo check)"
bash scripts/features.sh
step "solr-client: cargo publish --dry-run"
cargo publish --dry-run -q -p solr-client --allow-dirty
step "solr-client: MSRV (rust-version) check"
bash scripts/msrv.sh
step "cargo-deny: licenses, bans, sources, advisories"
bash scripts/deny.sh
# --- end solr-client as a published crate ---
step "module graphs: no cycle, nothing from the root or through re-exports; the scenario shape"
python3 scripts/module-graph.py transport-bench --split scenario --toc --layer scenario:cli \
  --layer engine:scenario --layer engine:cli --layer args:scenario --layer args:cli
python3 scripts/module-graph.py solr-watch
# Top-level modules as nodes (auth, transport, codec and client form no cycle: the types they
# share are the leaf `wire`), then each transport module as a node of its own.
python3 scripts/module-graph.py solr-client
python3 scripts/module-graph.py solr-client --split transport
python3 scripts/scenario-check.py
step "house limits: no function over 120 lines, at most 3% over 60, no transport-bench file over 700; no seed or issue cited outside docs/findings/"
python3 scripts/house-limits.py
step "fleet view: promtool check config/rules, promtool test rules, the PromQL of docs/fleet.md and its dashboard"
bash scripts/fleet-check.sh
step "cargo test: unit tests"
cargo test --workspace --exclude e2e-tests
# The WAN tests measure round trips through a userspace delay line: they run first, alone in
# their own process. The old "fresh TLS 1.3 at RTT 20 ms took ~134 ms instead of ~80 ms after
# the rest of the suite" is explained (docs/findings/wan-after-suite.md): the test searched
# `*:*` with 10 rows of the shared core, whose answer grows with other tests' documents (~100
# KB once vectors are stored), and a fresh connection receives it in TCP slow start, one more
# RTT per doubling of the window. The test asks for no rows and asserts that its answer fits
# the initial window. Why they still run alone: their figures include Solr's own time on the
# shared core (QTime p50 25-66 ms right after other tests' commits, 4 ms otherwise; compare
# repeats such a pair), and the whole suite in one process has not been measured with them.
step "end-to-end: WAN emulation, alone"
filtered_test "wan::" -p e2e-tests -- wan::
step "end-to-end: client, bench, routing, faults against real Solr"
filtered_test "e2e (all but wan::)" -p e2e-tests -- --skip wan::
# solr-client's `opentelemetry` feature: its unit tests (the unit-test step above leaves the
# e2e crate out, and with it the feature, which only that crate turns on; its e2e test
# `otel_trace::` runs in the step above).
step "solr-client: opentelemetry unit tests"
filtered_test "trace_context::" -p solr-client --lib --features opentelemetry trace_context::
# Several Solr releases: the whole suite above runs against the newest (the launcher pom's);
# the oldest checked release runs the smoke set only (client API, formats, updates, cloud
# routing, admin; a few minutes). scripts/compat.sh with no argument runs the whole matrix.
step "compat: the e2e smoke set against the oldest checked Solr release (${COMPAT_OLDEST:-9.4.1})"
bash scripts/compat.sh "${COMPAT_OLDEST:-9.4.1}"
step "Python package solr_client: mypy --strict on its examples, pytest against real Solr (pysolr side by side), watch on it"
bash scripts/py-test.sh
step "examples against the local Solr (each checks its answer)"
bash scripts/examples.sh
step "export benchmark, tiny: 2,000 documents through solr-client and SolrJ, counts exact (figures: docs/findings/export.md)"
EXPORT_BENCH_PROFILE=test bash scripts/export-bench.sh 2000
step "instructions per search, tiny: callgrind on 20 vs 60 searches, both ratio lines printed (figures: docs/findings/baseline.md)"
INSTRUCTIONS_PROFILE=test bash scripts/instructions.sh | tee "${TMPDIR:-/tmp}/instructions.out"
grep -Eq '^pooled vs raw hyper: [0-9]+\.[0-9]{2}x$' "${TMPDIR:-/tmp}/instructions.out"
grep -Eq '^typed vs raw typed hyper: [0-9]+\.[0-9]{2}x$' "${TMPDIR:-/tmp}/instructions.out"
step "fuzz: every target ${FUZZ_SECS:-20} s (FUZZ_SECS=0 skips; needs nightly + cargo-fuzz)"
if [ "${FUZZ_SECS:-20}" = 0 ]; then
  skip_record "fuzz" "FUZZ_SECS=0" no
elif ! rustup run nightly rustc --version >/dev/null 2>&1; then
  # The set-up installs nightly: its absence is an installable skip, which fails CI=true.
  skip_record "fuzz" "no nightly Rust toolchain: scripts/setup.sh could not install one" yes
else
  command -v cargo-fuzz >/dev/null 2>&1 || cargo install -q cargo-fuzz --locked
  bash scripts/fuzz.sh "${FUZZ_SECS:-20}"
fi
# The benches are compiled (and linked) in the test profile, on the dependencies the unit and
# e2e tests already built: `cargo bench --no-run` built the whole workspace again in release
# mode (~7 min of a ~34 min run) to prove only that the bench targets compile.
step "benches compile (test profile)"
cargo test --workspace --benches --no-run -q
echo "target directory: $(du -sh target 2>/dev/null | cut -f1)"
step "finished in $(( $(date +%s) - t0 )) s"
skip_summary "$SKIP_LEDGER"
