#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian machine (idempotent): Java 17 and Maven
# for the local Solr, openssl for its TLS material, libpcap for the pcap witness, curl,
# iproute2 (`ip`) for the WAN emulation's network namespaces, util-linux-extra (`fincore`)
# for the bulk-files page-cache residency, nginx for the auth-gateway e2e tests, tinyproxy
# (a real HTTP proxy) and dante-server (danted, a real SOCKS5 proxy) for the proxy e2e tests, haproxy (TLS with a required client
# certificate) and squid (a proxy with basic auth) for the fault-parity e2e tests, prometheus
# (and its promtool) for the fleet e2e test and the alert-rule check (the tests
# start their own unprivileged
# instances; the packages' services are not used), clang, libbpf-dev, libelf-dev, zlib1g-dev
# and make for `watch --ebpf` (strace: its e2e witness of connects; wget: a GnuTLS client its probes cannot read) (clang and llvm's
# llvm-strip rebuild the committed BPF object for CI's check that it matches its source,
# libbpf-dev gives its helper headers, libbpf-sys builds libbpf's C source against libelf and zlib); then what the optional checks need
# (scripts/setup-optional.sh: nightly Rust for fuzzing, BBR); then builds the Solr launcher
# (Maven Central) and makes the TLS CA. valgrind: scripts/instructions.sh counts instructions per
# search with callgrind. Mounts tracefs for watch --ebpf. Run as root (or with sudo).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

need=()
for pkg in openjdk-17-jdk-headless maven openssl curl libpcap-dev pkg-config ca-certificates iproute2 \
  util-linux-extra nginx tinyproxy dante-server haproxy squid prometheus strace wget clang llvm libbpf-dev libelf-dev zlib1g-dev make valgrind; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
# Node.js: a real client no one here wrote, for the `watch --ebpf` e2e tests (any node on
# the PATH will do; Debian's package otherwise).
command -v node >/dev/null 2>&1 || need+=(nodejs)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing Debian packages: ${need[*]} (run as root, or: sudo apt-get install -y ${need[*]})" >&2
    exit 1
  fi
  echo "setup: installing ${need[*]}" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi
# The tests start their own haproxy, squid, danted and prometheus: the packages' services (started by apt where
# an init system runs) are stopped and disabled, so they hold no port and no log.
if [ "$(id -u)" -eq 0 ]; then
  for svc in haproxy squid danted prometheus prometheus-node-exporter; do
    if [ -d /run/systemd/system ]; then
      systemctl disable --now "$svc" >/dev/null 2>&1 || true
    elif [ -x "/etc/init.d/$svc" ]; then
      "/etc/init.d/$svc" stop >/dev/null 2>&1 || true
      update-rc.d "$svc" disable >/dev/null 2>&1 || true
    fi
  done
fi
if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found: install the Rust toolchain (rustup, Rust >= 1.88) first" >&2
  exit 1
fi
# Python `requests`: a real client no one here wrote, for the `watch` e2e tests.
if ! python3 -c 'import requests' >/dev/null 2>&1; then
  if ! command -v python3 >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] || { echo "setup: python3 missing (sudo apt-get install -y python3)" >&2; exit 1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pip >&2
  fi
  echo "setup: installing the Python package requests" >&2
  python3 -m pip install -q requests >&2 \
    || { [ "$(id -u)" -eq 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-requests >&2; } \
    || { echo "setup: could not install Python requests (pip and apt both failed)" >&2; exit 1; }
fi
# tracefs: `watch --ebpf` reads bytes at each syscall's own tracepoints, whose ids tracefs
# gives (systemd mounts it on most distributions; without it the watch falls back to the raw
# tracepoints, which run for every syscall of every process). Not kept across a reboot.
if [ "$(id -u)" -eq 0 ] && [ -d /sys/kernel/tracing ] && ! mountpoint -q /sys/kernel/tracing; then
  mount -t tracefs nodev /sys/kernel/tracing \
    || echo "setup: could not mount tracefs: watch --ebpf will use the raw syscall tracepoints" >&2
fi
bash "$ROOT/scripts/setup-optional.sh"
# The solr_client Python package (wheel) in .venv-py/, with pysolr and solrstice beside it.
bash "$ROOT/scripts/py-setup.sh"
bash "$ROOT/local-solr/solr.sh" setup
