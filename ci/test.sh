#!/usr/bin/env bash
# The tests: build, then the whole suite (unit tests and every conformance cell) through CTest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/ci/build.sh"
cd "$root"
ctest --preset default "$@"
