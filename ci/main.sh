#!/usr/bin/env bash
# The main job: build, then the pinned conformance run. It prints one line per cell and a
# summary, and writes the scorecard (default build/scorecard.json; extra args go to `tlconform run`).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/ci/build.sh"
"$root/build/bin/tlconform" run "$@"
