#!/usr/bin/env bash
# One shard of the pinned leg, as the nightly matrix runs it: ci/shard.sh K/N OUT_DIR
# Builds only tlconform, runs the cells of shard K/N (every row, the ecosystem ones included) and
# records them in OUT_DIR/records (with the run's manifest) for `tlconform scorecard --from`; the
# shard's own card is OUT_DIR/scorecard.json. Exits 1 when a cell of the shard failed.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shard=${1:?usage: ci/shard.sh K/N OUT_DIR}
out=${2:?usage: ci/shard.sh K/N OUT_DIR}
cd "$root"
bash ci/bootstrap.sh
cmake --preset default >/dev/null
cmake --build --preset default --target tlconform
export TORCHLENS_CONFORMANCE_ECOSYSTEM=1 TORCHLENS_CONFORMANCE_SLOW=1
build/bin/tlconform run --backend tinygrad --leg pinned --shard "$shard" --record "$out/records" --out "$out/scorecard.json"
