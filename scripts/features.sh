#!/usr/bin/env bash
# solr-client builds with no optional feature and with each one alone: `cargo check` of the
# library for every set (fast: check, not build), warnings included, so a gate that leaks
# (code using a gated module, an import only a gated path uses) fails here, not in a user's
# build. clippy runs on the library with no optional feature, and the docs (the guide's links
# included) build with the default features. Then the unit test that a run-time choice needing an absent feature is a clear
# error (not a panic) runs once with every optional feature off; with all of them on it runs
# in the workspace's unit tests.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
sets=("" rustls rustls-ring rustls-base gzip reqwest http2 cbor javabin blocking tracing opentelemetry metrics testing)
for f in "${sets[@]}"; do
  echo "-- cargo check -p solr-client --no-default-features --features '${f}'"
  out=$(cargo check -p solr-client --lib --no-default-features --features "$f" \
    --message-format short 2>&1) || { echo "$out"; exit 1; }
  if grep -E '^[^ ]+: (warning|error)' <<<"$out"; then
    echo "features '${f}': warnings (see above)" >&2
    exit 1
  fi
done
echo "-- clippy with no optional feature, docs with the default features"
cargo clippy -q -p solr-client --lib --no-default-features -- -D warnings
RUSTDOCFLAGS=-Dwarnings cargo doc -q -p solr-client --no-deps
echo "-- unit test with no optional feature: missing features are named errors"
cargo test -q -p solr-client --lib --no-default-features features_tests:: 
echo "-- unit tests of the metrics feature alone (the workspace's unit-test run leaves it off)"
cargo test -q -p solr-client --lib --no-default-features --features metrics observe::metrics::
echo "-- unit tests and doctest of the testing feature (the workspace's unit-test run leaves it off)"
cargo test -q -p solr-client --lib --no-default-features --features testing testing::
cargo test -q -p solr-client --doc --features testing testing
echo "-- plain http (gzip, no TLS) compiles no C: no cc, cmake, ring or *-sys crate in its tree"
c_builds=$(cargo tree -p solr-client --no-default-features --features gzip -e normal,build --prefix none \
  | awk '{print $1}' | sort -u | { grep -E '^(cc|cmake|ring|.*-sys)$' || true; } | tr '\n' ' ')
[ -z "$c_builds" ] || { echo "the plain-http build compiles C: $c_builds" >&2; exit 1; }
echo "-- solr-client: every feature set checks"
