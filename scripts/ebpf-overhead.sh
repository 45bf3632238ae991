#!/usr/bin/env bash
# The cost of `watch --ebpf` for a client: requests per second of a Python `requests.Session`
# (one keep-alive connection, OpenSSL over https, plain over http) against the local Solr,
# without and with the probes attached, alternating rounds in one run, then the median of
# each side and the slowdown. Not a test: a figure for docs/watch.md. Run as root from the
# repository after a build (TB=path to transport-bench, default target/release or debug).
#   bash scripts/ebpf-overhead.sh [--seconds 10] [--rounds 3]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECS=10 ROUNDS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    *) echo "usage: $0 [--seconds N] [--rounds N]" >&2; exit 2 ;;
  esac
done
T="${CARGO_TARGET_DIR:-$ROOT/target}"
TB="${TB:-$( [ -x "$T/release/transport-bench" ] && echo "$T/release/transport-bench" || echo "$T/debug/transport-bench")}"
[ -x "$TB" ] || { echo "ebpf-overhead: build transport-bench first (cargo build --release -p transport-bench)" >&2; exit 1; }

# One client run: requests/s over $SECS seconds against $1 (a select URL), CA $2 (or "").
rate() {
  python3 - "$1" "$2" "$SECS" <<'PY'
import sys, time, requests
url, ca, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = requests.Session()
verify = ca if ca else True
s.get(url, verify=verify)
n, t0 = 0, time.monotonic()
while time.monotonic() - t0 < secs:
    s.get(url, verify=verify).raise_for_status()
    n += 1
print(f"{n / (time.monotonic() - t0):.1f}")
PY
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

bench() { # name url ca port
  local name="$1" url="$2" ca="$3" port="$4" off=() on=()
  for _ in $(seq "$ROUNDS"); do
    off+=("$(rate "$url" "$ca")")
    local log; log="$(mktemp)"
    "$TB" watch --ebpf --port "$port" --duration "$((SECS + 30))s" --out "$(mktemp -d)" >/dev/null 2>"$log" &
    local pid=$!
    until grep -q "(ready)" "$log"; do
      kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
      sleep 0.2
    done
    on+=("$(rate "$url" "$ca")")
    kill -INT "$pid"; wait "$pid" || true
    rm -f "$log"
  done
  local a b
  a="$(printf '%s\n' "${off[@]}" | median)"
  b="$(printf '%s\n' "${on[@]}" | median)"
  printf '%-6s without probes %8s req/s  with probes %8s req/s  slowdown %s%%   (rounds: %s | %s)\n' \
    "$name" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", (a - b) / a * 100}')" "${off[*]}" "${on[*]}"
}

plain="$(bash "$ROOT/local-solr/solr.sh" start standalone --name ebpf-overhead | awk '/^node/ {print $3; exit}')"
tls_out="$(bash "$ROOT/local-solr/solr.sh" start standalone --tls --name ebpf-overhead-tls)"
tls="$(awk '/^node/ {print $3; exit}' <<<"$tls_out")"
ca="$(awk '/^ca/ {print $2}' <<<"$tls_out")"
port_of() { python3 -c 'import sys, urllib.parse as u; print(u.urlparse(sys.argv[1]).port)' "$1"; }
echo "ebpf-overhead: $ROUNDS rounds of ${SECS}s each side, python requests.Session, one connection"
bench http "$plain/bench/select?q=*:*&rows=1&wt=json" "" "$(port_of "$plain")"
bench https "$tls/bench/select?q=*:*&rows=1&wt=json" "$ca" "$(port_of "$tls")"
bash "$ROOT/local-solr/solr.sh" stop ebpf-overhead >/dev/null
bash "$ROOT/local-solr/solr.sh" stop ebpf-overhead-tls >/dev/null
