#!/usr/bin/env bash
# The main job: build, install the tlconform package into .venv/ (ci/package.sh), then the pinned
# conformance run. Every cell runs in its own process; the run
# prints the cells that did not pass, a summary by state and family, writes the scorecard
# (build/scorecard-pinned.json), writes the report page (build/site/index.html: the committed card
# and this run side by side), and then prints the doctor rows (backend_scorecard:tinygrad among them).
# Extra arguments go to `tlconform scorecard` (for example --check, or --write on the pinned leg).
set -euo pipefail
# The pinned run covers every row, the ecosystem rows (tinygrad.llm, ONNX) included.
export TORCHLENS_CONFORMANCE_ECOSYSTEM=${TORCHLENS_CONFORMANCE_ECOSYSTEM:-1}
export TORCHLENS_CONFORMANCE_SLOW=${TORCHLENS_CONFORMANCE_SLOW:-1}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/ci/build.sh"
bash "$root/ci/package.sh"  # the tlconform package in .venv/, for Python users
status=0
started=$(mktemp)  # a card older than this run is not reported as this run's
"$root/build/bin/tlconform" scorecard --backend tinygrad --out "$root/build/scorecard-pinned.json" "$@" || status=$?
# The page a maintainer looks at: the committed card and this run side by side, changes marked.
if [ "$root/build/scorecard-pinned.json" -nt "$started" ]; then
  "$root/build/bin/tlconform" report --backend tinygrad --out "$root/build/site" \
    "$root/scorecards/tinygrad/scorecard.json" "$root/build/scorecard-pinned.json" || status=$((status == 0 ? $? : status))
  echo "report: $root/build/site/index.html"
fi
rm -f "$started"
echo
"$root/build/bin/tlconform" doctor || status=$((status == 0 ? $? : status))
exit "$status"
