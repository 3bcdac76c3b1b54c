#!/usr/bin/env bash
# The tests: build, then the whole suite (unit tests and every conformance cell) through CTest;
# then the same suite under AddressSanitizer + UBSan, a 30-second run of each fuzz target (the
# nightly leg runs 10 minutes of each), and a sample of the planted bugs (tests/mutations).
# Arguments go to the first ctest run (e.g. -L unit).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Each stage's wall time, printed as it ends and again at the end: where CI's minutes go.
stages=""
stage() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  stages+="$(printf '%-28s %5d s' "$name" $((SECONDS - start)))"$'\n'
  echo "ci: stage '$name' took $((SECONDS - start)) s (${SECONDS} s so far)"
}
stage "build (default)" bash "$root/ci/build.sh"
cd "$root"
# The default suite runs the ecosystem and the slow rows too, so its scorecard check covers every
# committed cell. The sanitizer stage runs the unit tests and a sample of cells (ci/sanitize.sh):
# the buffer-write and ONNX code the ecosystem rows reach is covered there by the unit tests.
stage "default suite" env TORCHLENS_CONFORMANCE_ECOSYSTEM="${TORCHLENS_CONFORMANCE_ECOSYSTEM:-1}" \
  TORCHLENS_CONFORMANCE_SLOW="${TORCHLENS_CONFORMANCE_SLOW:-1}" ctest --preset default "$@"
stage "asan build and suite" env TORCHLENS_CONFORMANCE_ECOSYSTEM=0 bash ci/sanitize.sh
stage "fuzz build and 30 s runs" bash ci/fuzz.sh 30
# A sample of the planted bugs (tests/mutations/mutants.toml; the nightly leg plants them all): the
# planner bug of issue 36 observation 1, which its cells must kill.
stage "planted bug sample" .venv/bin/python tests/mutations/mutate.py --ids planner_cuts_every_edge
printf 'ci: stage times\n%s%-28s %5d s\n' "$stages" "total" "$SECONDS"
