#!/usr/bin/env bash
# solr-client builds on the Rust version its Cargo.toml states (`rust-version`, from the
# workspace): `cargo +<msrv> check` of the library with every feature, and with none, against
# the committed Cargo.lock. Installs that toolchain (minimal profile) when it is missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
[ -n "$msrv" ] || { echo "msrv: no rust-version in Cargo.toml" >&2; exit 1; }
if ! rustup run "$msrv" rustc --version >/dev/null 2>&1; then
  rustup toolchain install "$msrv" --profile minimal
fi
echo "msrv: $(rustup run "$msrv" rustc --version)"
# A target directory of its own: artifacts of two compilers never mix.
export CARGO_TARGET_DIR="${MSRV_TARGET_DIR:-target/msrv}"
cargo "+$msrv" check -q --locked -p solr-client --lib --all-features
cargo "+$msrv" check -q --locked -p solr-client --lib --no-default-features
echo "msrv: solr-client checks with Rust $msrv"
