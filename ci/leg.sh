#!/usr/bin/env bash
# Runs one leg from scratch in its own venv: ci/leg.sh pinned|in-range-latest|out-of-range
# A leg is a tinygrad version plus what it must show; both are data in ci/legs.json.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
leg=${1:?usage: ci/leg.sh LEG (see ci/legs.json)}
python=${TL_BASE_PYTHON:-python3}
want=$("$python" -c 'import json, sys; print(json.load(open("ci/legs.json"))[sys.argv[1]]["tinygrad"])' "$leg") \
  || { echo "leg.sh: no leg '$leg' in ci/legs.json" >&2; exit 2; }

bash ci/build.sh  # packages, the pinned venv the build embeds, and build/

range=$(build/bin/tlconform spec --field supported_range)
if [ "$want" = "newest-in-range" ]; then
  # pip's own version parser (vendored) picks the newest release inside the backend's range.
  want=$(.venv/bin/python - "$range" <<'PY'
import json, subprocess, sys
from pip._vendor.packaging.specifiers import SpecifierSet
from pip._vendor.packaging.version import Version
out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", "tinygrad"], capture_output=True, text=True, check=True).stdout
versions = [v.strip() for v in out.split("Available versions:")[1].splitlines()[0].split(",")]
inside = sorted((Version(v) for v in versions if Version(v) in SpecifierSet(sys.argv[1])), reverse=True)
print(inside[0])
PY
)
fi
echo "leg $leg: tinygrad $want (supported range $range)"

venv="$root/.venv-legs/$leg"
mkdir -p build/legs
requirements="build/legs/$leg-requirements.txt"
{ echo "tinygrad==$want"; grep '^numpy' ci/requirements-pinned.txt; } > "$requirements"
bash ci/bootstrap.sh "$venv" "$requirements"
export TL_VENV="$venv"

case "$leg" in
  pinned)
    ctest --preset default
    ;;
  in-range-latest)
    build/bin/tlconform scorecard --backend tinygrad --leg "$leg" --check --out "build/scorecard-$leg.json"
    ;;
  out-of-range)
    cell=$(build/bin/tlconform cell --row tutorial_mlp --json || true)
    doctor=$(build/bin/tlconform doctor --json || true)
    .venv/bin/python - "$cell" "$doctor" <<'PY'
import json, sys
cell, doctor = json.loads(sys.argv[1].splitlines()[-1]), json.loads(sys.argv[2])
tinygrad = next(row for row in doctor if row["name"] == "tinygrad")
ok_cell = cell["state"] == "refused" and cell.get("refusal_code") == "backend_version_unsupported"
ok_doctor = tinygrad["status"] == "failed" and "out of range" in tinygrad["value"]
print(f"capture: {cell['state']} {cell.get('refusal_code', '')}; doctor tinygrad: {tinygrad['status']}: {tinygrad['value']}")
sys.exit(0 if ok_cell and ok_doctor else 1)
PY
    # The same refusal from Python, through the package this build made.
    PYTHONPATH=build/python "$venv/bin/python" tests/python/out_of_range_refusal.py
    ;;
  *)
    echo "leg.sh: leg '$leg' has no check" >&2
    exit 2
    ;;
esac
echo "leg $leg passed"
