#!/usr/bin/env bash
# The asan preset (AddressSanitizer + UBSan, leak checking on): build into build-asan/ and run the
# whole suite there. CPython's own leaks are suppressed in ci/lsan.supp, each with its reason.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash ci/build.sh asan
ctest --preset asan "$@"
