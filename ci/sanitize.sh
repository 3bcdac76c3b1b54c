#!/usr/bin/env bash
# The asan preset (clang++, AddressSanitizer + UBSan, leak checking on): build into build-asan/ and run the
# unit tests and a fixed sample of conformance cells per family (label sample: the first rows of
# each family that need no opt-in feature). It checks the harness's own C++, which every family's
# cell drives; the whole suite, slow rows included, runs in the default stage. CPython's own leaks
# are suppressed in ci/lsan.supp, each with its reason. Extra arguments go to ctest.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
bash ci/build.sh asan
# Three unit tests are left to the default stage: tinygrad's numerics at real sizes (a broadcast and
# reductions replayed, gradients that are views of others), about 90 s under ASan, whose C++ paths
# (payload copies, host broadcasts, replay decisions) the smaller tests here run too.
TORCHLENS_CONFORMANCE_SLOW=0 ctest --preset asan -L 'unit|sample' \
  -E '^unit\.(Validation\.(ABroadcastReplaysOnTheHost|RealSizedReductionsReplayExactly)|DerivedGrads\.ViewsOfGradientsAtARealSize)' "$@"
