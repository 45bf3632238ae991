#!/usr/bin/env bash
# The kernel side of `watch --ebpf` is built once and committed: solr-watch embeds
# `solr-watch/src/ebpf/bpf/watch.bpf.o`, so building the crate needs no clang.
#
#   scripts/bpf-object.sh build   after changing watch.bpf.c or kernel.h: rebuilds the object
#   scripts/bpf-object.sh check   CI: rebuilds into a temporary file and fails unless it is
#                                 byte for byte the committed object
#
# Needs clang, llvm-strip and Debian's libbpf-dev headers (scripts/setup.sh installs them).
# The build is reproducible: paths in the debug info are made relative to the crate, and
# the DWARF sections are stripped (the BTF that CO-RE relocations need stays).
set -euo pipefail
mode=${1:-}
crate="$(cd "$(dirname "${BASH_SOURCE[0]}")/../solr-watch" && pwd)"
committed="$crate/src/ebpf/bpf/watch.bpf.o"
case "$mode" in
  build) out="$committed" ;;
  check) out="$(mktemp --suffix=.bpf.o)"; trap 'rm -f "$out"' EXIT ;;
  *) echo "usage: scripts/bpf-object.sh build|check" >&2; exit 2 ;;
esac
for tool in "${CLANG:-clang}" "${LLVM_STRIP:-llvm-strip}"; do
  command -v "$tool" >/dev/null || { echo "bpf-object: $tool not found (scripts/setup.sh installs clang and llvm)" >&2; exit 1; }
done
cd "$crate"
"${CLANG:-clang}" -O2 -g -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
  -fdebug-prefix-map="$crate"=. -I/usr/include/x86_64-linux-gnu \
  -c src/ebpf/bpf/watch.bpf.c -o "$out"
"${LLVM_STRIP:-llvm-strip}" -g "$out"
if [ "$mode" = check ]; then
  if ! cmp -s "$out" "$committed"; then
    echo "bpf-object: src/ebpf/bpf/watch.bpf.o does not match watch.bpf.c: run scripts/bpf-object.sh build and commit the object" >&2
    exit 1
  fi
  echo "bpf-object: the committed object matches its source ($(stat -c %s "$committed") bytes)"
else
  echo "bpf-object: wrote $out ($(stat -c %s "$out") bytes)"
fi
