#!/usr/bin/env bash
# The tests: build, then the whole suite (unit tests and every conformance cell) through CTest;
# then the same suite under AddressSanitizer + UBSan, and a one-minute run of each fuzz target.
# Arguments go to the first ctest run (e.g. -L unit).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/ci/build.sh"
cd "$root"
ctest --preset default "$@"
bash ci/sanitize.sh
bash ci/fuzz.sh 60
