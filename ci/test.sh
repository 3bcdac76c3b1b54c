#!/usr/bin/env bash
# The tests: build, then the whole suite (unit tests and every conformance cell) through CTest;
# then the same suite under AddressSanitizer + UBSan, a 30-second run of each fuzz target (the
# nightly leg runs 10 minutes of each), and a sample of the planted bugs (tests/mutations).
# Arguments go to the first ctest run (e.g. -L unit).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/ci/build.sh"
cd "$root"
# The default suite runs the ecosystem and the slow rows too, so its scorecard check covers every
# committed cell. The sanitizer stage runs the unit tests and a sample of cells (ci/sanitize.sh):
# the buffer-write and ONNX code the ecosystem rows reach is covered there by the unit tests.
TORCHLENS_CONFORMANCE_ECOSYSTEM=${TORCHLENS_CONFORMANCE_ECOSYSTEM:-1} TORCHLENS_CONFORMANCE_SLOW=${TORCHLENS_CONFORMANCE_SLOW:-1} \
  ctest --preset default "$@"
TORCHLENS_CONFORMANCE_ECOSYSTEM=0 bash ci/sanitize.sh
bash ci/fuzz.sh 30
# A sample of the planted bugs (tests/mutations/mutants.toml; the nightly leg plants them all): the
# planner bug of issue 36 observation 1, which its cells must kill.
.venv/bin/python tests/mutations/mutate.py --ids planner_cuts_every_edge
