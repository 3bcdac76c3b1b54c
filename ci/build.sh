#!/usr/bin/env bash
# Bootstrap (packages + pinned venv), then configure and build one CMake preset (default: default,
# into build/; asan into build-asan/; fuzz into build-fuzz/). Usage: ci/build.sh [PRESET]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
preset=${1:-default}
cd "$root"
bash ci/bootstrap.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
