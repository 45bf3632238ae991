#!/usr/bin/env bash
# Installs what the optional checks need, each once (idempotent, a second run takes well
# under a second): the nightly Rust toolchain for cargo-fuzz, and BBR as the default TCP
# congestion control (the WAN pacing finding is measured under it; the WAN namespaces
# inherit the default), and Debian's chromium (the HTML report's e2e test renders
# index.html in it headless). Says what it cannot provide: a Java 25 for the knn Vector-API
# check (no registry reachable here serves one), page-cache dropping without root. Never
# fails: a check whose prerequisite is missing records its skip in the skip ledger
# (scripts/skips.sh). Called by scripts/setup.sh.
set -uo pipefail

note() { echo "setup: $*" >&2; }

nightly() {
  rustup run nightly rustc --version >/dev/null 2>&1 && return
  command -v rustup >/dev/null 2>&1 || { note "no rustup: no nightly toolchain (fuzzing will be skipped)"; return; }
  note "installing the nightly Rust toolchain (minimal profile) for cargo-fuzz"
  timeout 900 rustup toolchain install nightly --profile minimal >&2 \
    || note "could not install the nightly toolchain (fuzzing will be skipped)"
}

bbr() {
  local avail=/proc/sys/net/ipv4/tcp_available_congestion_control
  local knob=/proc/sys/net/ipv4/tcp_congestion_control cur
  if ! grep -qw bbr "$avail" 2>/dev/null && command -v modprobe >/dev/null 2>&1; then
    modprobe tcp_bbr 2>/dev/null || true
  fi
  if ! grep -qw bbr "$avail" 2>/dev/null; then
    note "this kernel offers no BBR ($(cat "$avail" 2>/dev/null)): the WAN pacing finding will be skipped"
    return
  fi
  cur=$(cat "$knob")
  [ "$cur" = bbr ] && return
  if echo bbr 2>/dev/null >"$knob"; then
    note "default TCP congestion control $cur -> bbr (undo: sysctl -w net.ipv4.tcp_congestion_control=$cur)"
  else
    note "cannot make bbr the default congestion control (root needed): the WAN pacing finding will be skipped"
  fi
}

headless_browser() {
  command -v chromium >/dev/null 2>&1 && return
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    note "no chromium and no apt-get as root to install it: the HTML report's browser check will be skipped"
    return
  fi
  note "installing chromium (the HTML report's headless browser check)"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >&2 \
    || note "could not install chromium: the HTML report's browser check will be skipped"
}

nightly
bbr
headless_browser
java25=/usr/lib/jvm/temurin-25-jdk-amd64
[ -x "$java25/bin/java" ] \
  || note "no Java 25 at $java25 (no registry reachable here serves one): the knn Vector-API check will be skipped"
[ -w /proc/sys/vm/drop_caches ] \
  || note "/proc/sys/vm/drop_caches is not writable (root needed): the bulk-files cold run with drop-caches will be skipped"
exit 0
