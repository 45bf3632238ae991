#!/usr/bin/env bash
# The cost of `watch --ebpf` for a client: requests per second of a Python `requests.Session`
# (one keep-alive connection, OpenSSL over https, plain over http) against the local Solr,
# without and with the probes attached, alternating rounds in one run, then the median of
# each side and the slowdown. Beside it, figures less exposed to a noisy machine: the client's
# own CPU time per request (user + system, which includes the probes run in its context and
# its uprobe traps), the kernel's count of time spent in the watch's BPF programs per request
# (kernel.bpf_stats_enabled, on only in one extra round) and the watcher's own CPU per request.
# Not a test: figures for docs/watch.md. Run as root from the repository after a build
# (TB=path to transport-bench, default target/release or debug).
#   bash scripts/ebpf-overhead.sh [--seconds 5] [--rounds 9]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECS=5 ROUNDS=9
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

# One client run against $1 (a select URL), CA $2 (or ""): "requests req/s cpu-µs/request".
rate() {
  python3 - "$1" "$2" "$SECS" <<'PY'
import os, sys, time, requests
url, ca, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = requests.Session()
verify = ca if ca else True
s.get(url, verify=verify)
n, t0, c0 = 0, time.monotonic(), os.times()
while time.monotonic() - t0 < secs:
    s.get(url, verify=verify).raise_for_status()
    n += 1
c1, wall = os.times(), time.monotonic() - t0
cpu = (c1.user - c0.user) + (c1.system - c0.system)
print(f"{n} {n / wall:.1f} {cpu / n * 1e6:.0f}")
PY
}

# Nanoseconds spent so far in the watch's BPF programs (bpftool's run_time_ns, by program
# name; no other watch runs meanwhile).
bpf_ns() {
  bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
ours = {"on_state", "on_retransmit", "sys_enter", "sys_exit"}
progs = json.load(sys.stdin)
print(sum(p.get("run_time_ns", 0) for p in progs if p.get("name") in ours or p.get("name", "").startswith("ssl_")))
'
}

# CPU time (µs) process $1 has used so far.
cpu_us() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) * 1e6 / hz}' "/proc/$1/stat"; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

bench() { # name url ca port
  local name="$1" url="$2" ca="$3" port="$4" off=() on=() cpu_off=() cpu_on=() watcher=() bpf_per_req
  # Rounds alternate without and with the probes; one more round with the probes, the
  # kernel's BPF run-time count on (it costs two clock reads per program run), gives the
  # time spent in the programs and is left out of the other figures.
  for i in $(seq "$((ROUNDS + 1))"); do
    local n r c stats=$(( i > ROUNDS ))
    if [ "$stats" = 0 ]; then
      read -r n r c <<<"$(rate "$url" "$ca")"
      off+=("$r") cpu_off+=("$c")
    fi
    local log; log="$(mktemp)"
    "$TB" watch --ebpf --port "$port" --duration "$((SECS + 30))s" --out "$(mktemp -d)" >/dev/null 2>"$log" &
    local pid=$!
    until grep -q "(ready)" "$log"; do
      kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
      sleep 0.2
    done
    sysctl -qw kernel.bpf_stats_enabled="$stats"
    local ns0 w0
    ns0="$(bpf_ns)" w0="$(cpu_us "$pid")"
    read -r n r c <<<"$(rate "$url" "$ca")"
    if [ "$stats" = 1 ]; then
      bpf_per_req="$(( ($(bpf_ns) - ns0) / n ))"
      sysctl -qw kernel.bpf_stats_enabled=0
    else
      on+=("$r") cpu_on+=("$c")
      watcher+=("$(awk -v a="$w0" -v b="$(cpu_us "$pid")" -v n="$n" 'BEGIN {printf "%.0f", (b - a) / n}')")
    fi
    kill -INT "$pid"; wait "$pid" || true
    rm -f "$log"
  done
  local a b ca_ cb
  a="$(printf '%s\n' "${off[@]}" | median)" b="$(printf '%s\n' "${on[@]}" | median)"
  ca_="$(printf '%s\n' "${cpu_off[@]}" | median)" cb="$(printf '%s\n' "${cpu_on[@]}" | median)"
  printf '%-6s req/s: without probes %s, with %s; change with probes, median of pairs: %s%%   (rounds: %s | %s)\n' \
    "$name" "$a" "$b" "$(paired "${#off[@]}" "${off[@]}" "${on[@]}" | median)" "${off[*]}" "${on[*]}"
  printf '%-6s client CPU per request: without %s µs, with %s µs; change, median of pairs: %s%%   (rounds: %s | %s)\n' \
    "$name" "$ca_" "$cb" "$(paired "${#cpu_off[@]}" "${cpu_off[@]}" "${cpu_on[@]}" | median)" "${cpu_off[*]}" "${cpu_on[*]}"
  printf '%-6s BPF programs, all processes: %s ns per request; the watcher itself: %s µs CPU per request\n' \
    "$name" "$bpf_per_req" "$(printf '%s\n' "${watcher[@]}" | median)"
}

# Given N, then N values A (without probes) and N values B (with): for each round i, the
# change (B_i - A_i) / A_i in percent. A pair runs back to back, so a slow drift of the
# machine's load cancels within it.
paired() {
  local n="$1"; shift
  awk -v n="$n" 'BEGIN {for (i = 1; i <= n; i++) printf "%.1f\n", (ARGV[i + n] - ARGV[i]) / ARGV[i] * 100}' "$@"
}

plain="$(bash "$ROOT/local-solr/solr.sh" start standalone --name ebpf-overhead | awk '/^node/ {print $3; exit}')"
tls_out="$(bash "$ROOT/local-solr/solr.sh" start standalone --tls --name ebpf-overhead-tls)"
tls="$(awk '/^node/ {print $3; exit}' <<<"$tls_out")"
ca="$(awk '/^ca/ {print $2}' <<<"$tls_out")"
port_of() { python3 -c 'import sys, urllib.parse as u; print(u.urlparse(sys.argv[1]).port)' "$1"; }
stats_was="$(sysctl -n kernel.bpf_stats_enabled)"
trap 'sysctl -qw kernel.bpf_stats_enabled="$stats_was"' EXIT
echo "ebpf-overhead: load $(cut -d" " -f1-3 /proc/loadavg), $ROUNDS rounds of ${SECS}s each side, python requests.Session, one connection"
bench http "$plain/bench/select?q=*:*&rows=1&wt=json" "" "$(port_of "$plain")"
bench https "$tls/bench/select?q=*:*&rows=1&wt=json" "$ca" "$(port_of "$tls")"
bash "$ROOT/local-solr/solr.sh" stop ebpf-overhead >/dev/null
bash "$ROOT/local-solr/solr.sh" stop ebpf-overhead-tls >/dev/null
