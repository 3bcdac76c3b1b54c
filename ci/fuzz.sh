#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz preset, clang) and runs each for SECONDS (default 60), both at
# once on the machine's two cores, from the committed seed corpus. Fails on any crash or report.
# Usage: ci/fuzz.sh [SECONDS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
cd "$root"
bash ci/build.sh fuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pids=()
for target in roster tlspec; do
  mkdir -p "$work/$target"
  build-fuzz/bin/${target}_fuzz "$work/$target" "fuzz/corpus/$target" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$work/" > "$work/$target.log" 2>&1 &
  pids+=($!)
done
status=0
for i in 0 1; do
  target=$([ $i -eq 0 ] && echo roster || echo tlspec)
  if wait "${pids[$i]}"; then
    echo "fuzz: ${target}_fuzz $(grep -E '^Done' "$work/$target.log")"
  else
    status=1
    echo "fuzz: ${target}_fuzz FAILED; its log:" >&2
    tail -n 60 "$work/$target.log" >&2
    cp "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$root/build-fuzz/" 2>/dev/null || true
  fi
done
exit $status
