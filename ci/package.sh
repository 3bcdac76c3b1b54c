#!/usr/bin/env bash
# Installs the tlconform Python package built from this checkout into the project's venv (.venv,
# which ci/bootstrap.sh makes), for Python users tracing their own models: pip install . builds the
# extension module alone, Release, in a build directory kept inside the venv, so a change rebuilds
# only what it touches. Its stamp is a digest of everything the wheel is built from: unchanged
# sources are a no-op. The main job (ci/main.sh) runs it; the tests do not need it (they import the
# package the build makes, build/python).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/.venv"
bash "$root/ci/bootstrap.sh"
package_stamp="$venv/.tl-package.sha256"
package_want=$(cd "$root" && find pyproject.toml CMakeLists.txt harness backends python scorecards -type f \
  -not -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
if [ "$(cat "$package_stamp" 2>/dev/null)" != "$package_want" ]; then
  echo "package: installing the tlconform package into $venv"
  started=$SECONDS
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --config-settings=build-dir="$venv/.tl-package-build" "$root"
  echo "$package_want" > "$package_stamp"
  echo "package: tlconform package installed in $((SECONDS - started)) s"
fi
