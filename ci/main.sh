#!/usr/bin/env bash
# The main job: build, then the pinned conformance run. Every cell runs in its own process; the run
# prints the cells that did not pass, a summary by state and family, writes the scorecard
# (build/scorecard-pinned.json), and then prints the doctor rows (backend_scorecard:tinygrad among them).
# Extra arguments go to `tlconform scorecard` (for example --check, or --write on the pinned leg).
set -euo pipefail
# The pinned run covers every row, the ecosystem rows (tinygrad.llm, ONNX) included.
export TORCHLENS_CONFORMANCE_ECOSYSTEM=${TORCHLENS_CONFORMANCE_ECOSYSTEM:-1}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/ci/build.sh"
status=0
"$root/build/bin/tlconform" scorecard --backend tinygrad "$@" || status=$?
echo
"$root/build/bin/tlconform" doctor || status=$((status == 0 ? $? : status))
exit "$status"
