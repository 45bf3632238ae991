#!/usr/bin/env bash
# The cost of `watch --ebpf` for a client: requests per second of a Python `requests.Session`
# (one keep-alive connection, OpenSSL over https, plain over http) against the local Solr,
# without and with the probes attached, alternating rounds in one run, then the median of
# each side and the slowdown. Beside it, figures less exposed to a noisy machine: the client's
# own CPU time per request (user + system, which includes the probes run in its context and
# its uprobe traps), the kernel's count of time spent in the watch's BPF programs per request
# (kernel.bpf_stats_enabled, on only in one extra round) and the watcher's own CPU per request.
# Then the direct cost, which wall time on a shared machine cannot show apart from noise: the
# CPU one probe run costs (an OpenSSL write/read pair over memory BIOs, no socket, timed
# without and with the probes), times the probe runs per request the kernel counted.
# With --serve the watcher runs as the daemon (`watch --ebpf --serve`, its /metrics scraped
# once a second meanwhile): the same figures, the watcher's CPU per request now the
# daemon's, and the OpenSSL probe-run cost (the same probes) is not measured again.
# Not a test: figures for docs/watch.md. Run as root from the repository after a build
# (TB=path to transport-bench, default target/release or debug).
#   bash scripts/ebpf-overhead.sh [--seconds 5] [--rounds 9] [--serve]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECS=5 ROUNDS=9 SERVE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --serve) SERVE=1; shift ;;
    *) echo "usage: $0 [--seconds N] [--rounds N] [--serve]" >&2; exit 2 ;;
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

# CPU µs per OpenSSL call pair (SSL_write_ex on a client object, SSL_read_ex on a server
# object) over memory BIOs for $1 seconds: "pairs µs-per-pair". No socket is involved, so the
# probes report nothing and only their own cost shows: per pair, two uprobes and two
# uretprobes with their programs.
ssl_pairs() {
  python3 - "$ROOT/local-solr/run/tls" "$1" <<'PY'
import os, ssl, sys, time
tls, secs = sys.argv[1], float(sys.argv[2])
server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
server.load_cert_chain(f"{tls}/server.pem", f"{tls}/server.key")
client = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
client.load_verify_locations(f"{tls}/ca.pem")
ci, co, si, so = ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO()
c = client.wrap_bio(ci, co, server_hostname="localhost")
s = server.wrap_bio(si, so, server_side=True)
for _ in range(10):
    for side in (c, s):
        try:
            side.do_handshake()
        except ssl.SSLWantReadError:
            pass
    si.write(co.read())
    ci.write(so.read())
msg = b"x" * 200
n, t0, c0 = 0, time.monotonic(), os.times()
while time.monotonic() - t0 < secs:
    for _ in range(100):
        c.write(msg)
        si.write(co.read())
        s.read(4096)
    n += 100
c1 = os.times()
print(f"{n} {((c1.user - c0.user) + (c1.system - c0.system)) / n * 1e6:.2f}")
PY
}

# The watch's BPF programs so far (bpftool, by program name; no other watch runs meanwhile):
# "run_time_ns of all, runs of the OpenSSL ones".
bpf_counts() {
  bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
ours = {"on_state", "on_retransmit", "sys_enter", "sys_exit"}
progs = json.load(sys.stdin)
mine = [p for p in progs if p.get("name") in ours or p.get("name", "").startswith("ssl_")]
ssl_runs = sum(p.get("run_cnt", 0) for p in mine if p["name"].startswith("ssl_"))
print(sum(p.get("run_time_ns", 0) for p in mine), ssl_runs)
'
}

# Starts `watch --ebpf` on port $1 in the background and waits until it is attached; sets
# WATCH_PID. With --serve: the daemon on 127.0.0.1:$SERVE_PORT, scraped once a second by
# a loop (SCRAPER_PID) until stop_watch.
start_watch() {
  local log; log="$(mktemp)"
  if [ "$SERVE" = 1 ]; then
    "$TB" watch --ebpf --serve "127.0.0.1:$SERVE_PORT" --port "$1" --duration "$2s" >/dev/null 2>"$log" &
  else
    "$TB" watch --ebpf --port "$1" --duration "$2s" --out "$(mktemp -d)" >/dev/null 2>"$log" &
  fi
  WATCH_PID=$!
  until grep -q "(ready)" "$log"; do
    kill -0 "$WATCH_PID" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.2
  done
  rm -f "$log"
  if [ "$SERVE" = 1 ]; then
    (while :; do curl -s -o /dev/null "http://127.0.0.1:$SERVE_PORT/metrics"; sleep 1; done) &
    SCRAPER_PID=$!
  fi
}

stop_watch() {
  if [ "$SERVE" = 1 ]; then kill "$SCRAPER_PID"; wait "$SCRAPER_PID" 2>/dev/null || true; fi
  kill -INT "$WATCH_PID"; wait "$WATCH_PID" || true
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
    start_watch "$port" "$((SECS + 30))"
    sysctl -qw kernel.bpf_stats_enabled="$stats"
    local ns0 runs0 ns1 runs1 w0
    read -r ns0 runs0 <<<"$(bpf_counts)"
    w0="$(cpu_us "$WATCH_PID")"
    read -r n r c <<<"$(rate "$url" "$ca")"
    if [ "$stats" = 1 ]; then
      read -r ns1 runs1 <<<"$(bpf_counts)"
      bpf_per_req="$(( (ns1 - ns0) / n ))"
      SSL_RUNS_PER_REQ="$(awk -v a="$runs0" -v b="$runs1" -v n="$n" 'BEGIN {printf "%.1f", (b - a) / n}')"
      sysctl -qw kernel.bpf_stats_enabled=0
    else
      on+=("$r") cpu_on+=("$c")
      watcher+=("$(awk -v a="$w0" -v b="$(cpu_us "$WATCH_PID")" -v n="$n" 'BEGIN {printf "%.0f", (b - a) / n}')")
    fi
    stop_watch
  done
  local a b ca_ cb
  a="$(printf '%s\n' "${off[@]}" | median)" b="$(printf '%s\n' "${on[@]}" | median)"
  ca_="$(printf '%s\n' "${cpu_off[@]}" | median)" cb="$(printf '%s\n' "${cpu_on[@]}" | median)"
  printf '%-6s req/s: without probes %s, with %s; change with probes, median of pairs: %s%%   (rounds: %s | %s)\n' \
    "$name" "$a" "$b" "$(paired "${#off[@]}" "${off[@]}" "${on[@]}" | median)" "${off[*]}" "${on[*]}"
  printf '%-6s client CPU per request: without %s µs, with %s µs; change, median of pairs: %s%%   (rounds: %s | %s)\n' \
    "$name" "$ca_" "$cb" "$(paired "${#cpu_off[@]}" "${cpu_off[@]}" "${cpu_on[@]}" | median)" "${cpu_off[*]}" "${cpu_on[*]}"
  printf '%-6s BPF programs, all processes: %s ns per request; OpenSSL probe runs per request: %s; the watcher itself: %s µs CPU per request\n' \
    "$name" "$bpf_per_req" "$SSL_RUNS_PER_REQ" "$(printf '%s\n' "${watcher[@]}" | median)"
  CPU_OFF="$ca_"
}

# The CPU one OpenSSL probe run costs the calling process (its trap and its program), from
# `ssl_pairs` rounds of 2 s alternating without and with the probes: sets RUN_US.
probe_run_cost() {
  local off=() on=() n c i
  for i in $(seq "$ROUNDS"); do
    read -r n c <<<"$(ssl_pairs 2)"
    off+=("$c")
    start_watch 1 30
    read -r n c <<<"$(ssl_pairs 2)"
    on+=("$c")
    stop_watch
  done
  local a b
  a="$(printf '%s\n' "${off[@]}" | median)" b="$(printf '%s\n' "${on[@]}" | median)"
  RUN_US="$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", (b - a) / 4}')"
  printf 'probe   an OpenSSL write/read pair over memory BIOs: %s µs CPU without probes, %s µs with (4 probe runs): %s µs per probe run   (rounds: %s | %s)\n' \
    "$a" "$b" "$RUN_US" "${off[*]}" "${on[*]}"
}

# The direct cost of the probes to the https client, from counts rather than wall time.
direct_cost() {
  awk -v runs="$SSL_RUNS_PER_REQ" -v us="$RUN_US" -v cpu="$CPU_OFF" 'BEGIN {
    d = runs * us
    printf "https  direct cost of the OpenSSL probes: %.1f runs x %.2f µs = %.1f µs per request, %.1f%% of the client'"'"'s %.0f µs CPU per request without probes\n", runs, us, d, d / cpu * 100, cpu
  }'
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
SERVE_PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
mode="watch --ebpf"
[ "$SERVE" = 1 ] && mode="watch --ebpf --serve 127.0.0.1:$SERVE_PORT, /metrics scraped every second"
echo "ebpf-overhead: $mode; load $(cut -d" " -f1-3 /proc/loadavg), $ROUNDS rounds of ${SECS}s each side, python requests.Session, one connection"
bench http "$plain/bench/select?q=*:*&rows=1&wt=json" "" "$(port_of "$plain")"
bench https "$tls/bench/select?q=*:*&rows=1&wt=json" "$ca" "$(port_of "$tls")"
if [ "$SERVE" = 0 ]; then
  probe_run_cost
  direct_cost
fi
bash "$ROOT/local-solr/solr.sh" stop ebpf-overhead >/dev/null
bash "$ROOT/local-solr/solr.sh" stop ebpf-overhead-tls >/dev/null
