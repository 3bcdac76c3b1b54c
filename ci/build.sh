#!/usr/bin/env bash
# Bootstrap (packages + pinned venv), then configure and build the default preset into build/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash ci/bootstrap.sh
cmake --preset default >/dev/null
cmake --build --preset default
