#!/usr/bin/env bash
# The Python side: a project virtualenv (.venv-py/, git-ignored) with maturin, pytest, mypy,
# pysolr and solrstice (the clients the tests and the benchmark compare with), and the
# solr_client wheel built from solr-client-py/ (dev profile; `PY_PROFILE=release` for the
# benchmark) and installed into it. Idempotent; run by scripts/setup.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv-py"
if [ ! -x "$VENV/bin/python" ]; then
  if ! python3 -m venv "$VENV" >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] || { echo "py-setup: python3 -m venv failed (sudo apt-get install -y python3-venv)" >&2; exit 1; }
    rm -rf "$VENV"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
    python3 -m venv "$VENV"
  fi
fi
"$VENV/bin/pip" install -q "maturin>=1.5,<2" "pytest>=8" "mypy>=1.10" "pysolr==3.11.0" "solrstice==0.15.1"
profile=()
[ "${PY_PROFILE:-dev}" = release ] && profile=(--release)
out="${CARGO_TARGET_DIR:-$ROOT/target}/wheels"
rm -f "$out"/solr_client-*.whl
"$VENV/bin/maturin" build -q "${profile[@]}" -m solr-client-py/Cargo.toml --out "$out" \
  --interpreter "$VENV/bin/python" >&2
"$VENV/bin/pip" install -q --force-reinstall --no-deps "$out"/solr_client-*.whl
"$VENV/bin/python" -c 'import solr_client; print("py-setup: solr_client installed in .venv-py (" + solr_client.__file__ + ")")'
