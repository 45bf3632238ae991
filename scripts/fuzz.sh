#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time each (default 60 s), with
# libFuzzer's memory limits on, so an unbounded allocation fails the run like a panic.
# Needs a nightly toolchain and `cargo install cargo-fuzz`. Prints the total fuzz time and
# the corpus size per target at the end.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs=${1:-60}
targets=$(cargo +nightly fuzz list)
start=$(date +%s)
for t in $targets; do
  mkdir -p "corpus/$t"
  if [ -d "seeds/$t" ]; then cp -n seeds/"$t"/* "corpus/$t/" 2>/dev/null || true; fi
  dict=()
  [ "$t" = decode_response ] && dict=(-dict=json.dict)
  echo "== $t: ${secs}s" >&2
  cargo +nightly fuzz run "$t" "corpus/$t" -- -max_total_time="$secs" \
    -rss_limit_mb=1024 -malloc_limit_mb=256 -timeout=10 "${dict[@]}"
done
end=$(date +%s)
echo "total fuzz wall time: $((end - start)) s (build included) for $(echo "$targets" | wc -w) targets"
for t in $targets; do
  printf '%-16s corpus %6d files %10d bytes\n' "$t" \
    "$(find "corpus/$t" -type f | wc -l)" "$(du -sb "corpus/$t" | cut -f1)"
done
