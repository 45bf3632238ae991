#!/usr/bin/env bash
# The whole cost of `watch --ebpf` to a client, in one run: a Python `requests` client against
# the local Solr, four rows (http and https, each on one keep-alive connection and with a new
# connection per request), rounds alternating without and with the watch attached, each pair
# back to back. Per row, medians over pairs with their range:
# - the client's own CPU per request (user + system, CLOCK_PROCESS_CPUTIME_ID), without and
#   with the watch, and the change within each pair: the probes run in the client's context,
#   its syscall tracepoints and its uprobe traps all land in it;
# - requests per second (wall time: the most exposed to a shared machine's noise);
# - the watcher's own CPU per request (on whichever core it runs);
# - in one extra round per row, the kernel's count of time spent in the watch's BPF programs,
#   in every process (client, Solr, anything else), per request, and the OpenSSL probe runs
#   per request (kernel.bpf_stats_enabled, on only for that round since it adds two clock
#   reads per program run; read from the watcher's /proc/PID/fdinfo, no bpftool needed).
# The machine's load is printed at the start and the end.
# With --serve the watcher runs as the daemon (`watch --ebpf --serve`, its /metrics scraped
# once a second meanwhile): the same figures, the watcher's CPU per request now the daemon's.
# With --probe-run, also the CPU one OpenSSL probe run costs (an OpenSSL write/read pair over
# memory BIOs, no socket, without and with the probes).
# Not a test: figures for docs/watch.md. Run as root from the repository after a release build
# (TB=path to transport-bench, default target/release or debug).
#   bash scripts/ebpf-overhead.sh [--seconds 4] [--rounds 16] [--serve] [--probe-run] [--rows "http-keep ..."]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECS=4 ROUNDS=16 SERVE=0 PROBE_RUN=0 ROWS="http-keep http-fresh https-keep https-fresh"
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECS="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --serve) SERVE=1; shift ;;
    --probe-run) PROBE_RUN=1; shift ;;
    --rows) ROWS="$2"; shift 2 ;;
    *) echo "usage: $0 [--seconds N] [--rounds N] [--serve] [--probe-run] [--rows \"http-keep http-fresh https-keep https-fresh\"]" >&2; exit 2 ;;
  esac
done
T="${CARGO_TARGET_DIR:-$ROOT/target}"
TB="${TB:-$( [ -x "$T/release/transport-bench" ] && echo "$T/release/transport-bench" || echo "$T/debug/transport-bench")}"
[ -x "$TB" ] || { echo "ebpf-overhead: build transport-bench first (cargo build --release -p transport-bench)" >&2; exit 1; }

# One client run against $1 (a select URL), CA $2 (or ""), $3 keep (one Session, one
# keep-alive connection) or fresh (a new connection per request):
# "requests req/s cpu-µs/request".
rate() {
  python3 - "$1" "$2" "$SECS" "$3" <<'PY'
import sys, time, requests
url, ca, secs, mode = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
verify = ca if ca else True
s = requests.Session()
s.get(url, verify=verify)
get = s.get if mode == "keep" else requests.get
n, t0, c0 = 0, time.monotonic(), time.process_time()
while time.monotonic() - t0 < secs:
    get(url, verify=verify).raise_for_status()
    n += 1
cpu, wall = time.process_time() - c0, time.monotonic() - t0
print(f"{n} {n / wall:.1f} {cpu / n * 1e6:.1f}")
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
n, t0, c0 = 0, time.monotonic(), time.process_time()
while time.monotonic() - t0 < secs:
    for _ in range(100):
        c.write(msg)
        si.write(co.read())
        s.read(4096)
    n += 100
print(f"{n} {(time.process_time() - c0) / n * 1e6:.2f}")
PY
}

# The BPF programs the watcher ($WATCH_PID) holds, from its /proc/PID/fdinfo (no other
# program is counted), by kind: "run_time_ns runs" of all, then of the BTF tracepoints
# (connections, and the raw sys_enter/sys_exit when they are used), of the per-syscall
# tracepoints and of the uprobes (the OpenSSL ones): eight numbers.
bpf_counts() {
  python3 - "$WATCH_PID" <<'PY'
import os, sys
pid, seen = sys.argv[1], set()
kinds = {26: 1, 5: 2, 2: 3}  # BPF_PROG_TYPE_TRACING, _TRACEPOINT, _KPROBE
ns, runs = [0] * 4, [0] * 4
for fd in os.listdir(f"/proc/{pid}/fdinfo"):
    try:
        info = dict(l.split(":", 1) for l in open(f"/proc/{pid}/fdinfo/{fd}").read().splitlines() if ":" in l)
    except OSError:
        continue
    if "prog_type" not in info or "run_time_ns" not in info or info["prog_id"] in seen:
        continue
    seen.add(info["prog_id"])
    for k in (0, kinds.get(int(info["prog_type"]), 0)):
        ns[k] += int(info["run_time_ns"])
        runs[k] += int(info["run_cnt"])
        if k == 0 and int(info["prog_type"]) not in kinds:
            break
print(*[f"{a} {b}" for a, b in zip(ns, runs)])
PY
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

# CPU time (µs) the threads of process $1 have used so far (schedstat: nanoseconds, where
# /proc/PID/stat counts 10 ms ticks).
cpu_us() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{t += $1} END {printf "%.0f", t / 1000}'; }

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# The values on stdin as "median (min..max)".
spread() { sort -n | awk '{a[NR]=$1} END {printf "%s (%s..%s)", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), a[1], a[NR]}'; }

# Given N, then N values A (without the watch) and N values B (with): for each pair i, the
# change (B_i - A_i) / A_i in percent. A pair runs back to back, so a slow drift of the
# machine's load cancels within it.
paired() {
  local n="$1"; shift
  awk -v n="$n" 'BEGIN {for (i = 1; i <= n; i++) printf "%.1f\n", (ARGV[i + n] - ARGV[i]) / ARGV[i] * 100}' "$@"
}

bench() { # row url ca port
  local row="$1" url="$2" ca="$3" port="$4" mode="${1#*-}" off=() on=() cpu_off=() cpu_on=() watcher=()
  local bpf_per_req
  # Pairs of rounds without and with the watch; one more round with the watch and the
  # kernel's BPF run-time count on gives the time spent in the programs and is left out of
  # the other figures.
  for i in $(seq "$((ROUNDS + 1))"); do
    local n r c stats=$(( i > ROUNDS ))
    if [ "$stats" = 0 ]; then
      read -r n r c <<<"$(rate "$url" "$ca" "$mode")"
      off+=("$r") cpu_off+=("$c")
    fi
    start_watch "$port" "$((SECS + 60))"
    sysctl -qw kernel.bpf_stats_enabled="$stats"
    local c0 c1 w0
    c0="$(bpf_counts)"
    w0="$(cpu_us "$WATCH_PID")"
    read -r n r c <<<"$(rate "$url" "$ca" "$mode")"
    if [ "$stats" = 1 ]; then
      c1="$(bpf_counts)"
      sysctl -qw kernel.bpf_stats_enabled=0
      # Per request: µs in the programs and their runs, all, then by kind.
      bpf_per_req="$(echo "$c0 $c1" | awk -v n="$n" '{
        split("all|BTF tracepoints|per-syscall tracepoints|uprobes", k, "|")
        for (i = 0; i < 4; i++)
          printf "%s%s %.1f µs, %.1f runs", (i ? "; " : ""), k[i + 1], ($(9 + 2 * i) - $(1 + 2 * i)) / n / 1000, ($(10 + 2 * i) - $(2 + 2 * i)) / n
      }')"
    else
      on+=("$r") cpu_on+=("$c")
      watcher+=("$(awk -v a="$w0" -v b="$(cpu_us "$WATCH_PID")" -v n="$n" 'BEGIN {printf "%.1f", (b - a) / n}')")
    fi
    stop_watch
  done
  printf '%-11s client CPU µs/request: without %s, with %s; change within pairs %% %s   (rounds: %s | %s)\n' \
    "$row" "$(printf '%s\n' "${cpu_off[@]}" | spread)" "$(printf '%s\n' "${cpu_on[@]}" | spread)" \
    "$(paired "${#cpu_off[@]}" "${cpu_off[@]}" "${cpu_on[@]}" | spread)" "${cpu_off[*]}" "${cpu_on[*]}"
  printf '%-11s req/s: without %s, with %s; change within pairs %% %s\n' \
    "$row" "$(printf '%s\n' "${off[@]}" | spread)" "$(printf '%s\n' "${on[@]}" | spread)" \
    "$(paired "${#off[@]}" "${off[@]}" "${on[@]}" | spread)"
  printf '%-11s watcher CPU µs/request %s\n' "$row" "$(printf '%s\n' "${watcher[@]}" | spread)"
  printf '%-11s BPF programs in all processes, per request (extra round, bpf_stats on): %s\n' "$row" "$bpf_per_req"
}

# The CPU one OpenSSL probe run costs the calling process (its trap and its program), from
# `ssl_pairs` rounds of 2 s alternating without and with the probes.
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
  printf 'probe-run   an OpenSSL write/read pair over memory BIOs: %s µs CPU without the watch, %s µs with (4 uprobe runs): %s µs per run   (rounds: %s | %s)\n' \
    "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", (b - a) / 4}')" "${off[*]}" "${on[*]}"
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
echo "ebpf-overhead: $mode; $(date -u +%FT%TZ); load $(cut -d" " -f1-3 /proc/loadavg) on $(nproc) cores; $ROUNDS pairs of ${SECS}s rounds per row, python requests"
for row in $ROWS; do
  case "$row" in
    http-*) bench "$row" "$plain/bench/select?q=*:*&rows=1&wt=json" "" "$(port_of "$plain")" ;;
    https-*) bench "$row" "$tls/bench/select?q=*:*&rows=1&wt=json" "$ca" "$(port_of "$tls")" ;;
  esac
done
[ "$PROBE_RUN" = 1 ] && probe_run_cost
echo "ebpf-overhead: done $(date -u +%FT%TZ); load $(cut -d" " -f1-3 /proc/loadavg)"
bash "$ROOT/local-solr/solr.sh" stop ebpf-overhead >/dev/null
bash "$ROOT/local-solr/solr.sh" stop ebpf-overhead-tls >/dev/null
