#!/usr/bin/env bash
# Bootstrap (packages + pinned venv), then configure and build one CMake preset (default: default,
# into build/; asan into build-asan/; fuzz into build-fuzz/). Usage: ci/build.sh [PRESET]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${1:-default}
cd "$root"
bash ci/bootstrap.sh
# A build directory configured before the presets named Ninja (2026-12-07) keeps its old generator,
# which CMake refuses to change: drop its cache (what CMake itself asks for), keep everything else.
dir=build$([ "$preset" = default ] || echo "-$preset")
if [ -f "$dir/CMakeCache.txt" ] && ! grep -qx 'CMAKE_GENERATOR:INTERNAL=Ninja' "$dir/CMakeCache.txt"; then
  echo "build.sh: $dir was configured with another generator; reconfiguring it with Ninja (a full rebuild)"
  rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
