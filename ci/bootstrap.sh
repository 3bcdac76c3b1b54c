#!/usr/bin/env bash
# Installs what the build and the pinned runs need, only where it is missing (idempotent):
# the Debian -dev packages of DESIGN.md section 3, a project-local venv holding the pinned
# tinygrad (and pytest) from a committed requirements file, and a tool venv (.venv-tools) with the
# pinned linters of ci/requirements-tools.txt (actionlint). The tlconform Python package goes into the
# project's venv by ci/package.sh (the main job runs it; the tests import the build's own).
# Usage: ci/bootstrap.sh [VENV_DIR [REQUIREMENTS_FILE]]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${1:-"$root/.venv"}
requirements=${2:-"$root/ci/requirements-pinned.txt"}

# chromium-headless-shell: the report test (label report) renders `tlconform report`'s page in it.
# libssl-dev: libcrypto signs each cell's result channel. shellcheck: the lint tests (label lint).
# ninja-build: every preset's generator (it starts a library's compiles before the libraries it links
# are built, where Makefiles wait: the default build took 267 s with it, 347 s with Makefiles; README).
debian_packages=(cmake ninja-build g++ clang clang-format libclang-rt-14-dev libgtest-dev libbenchmark-dev pybind11-dev nlohmann-json3-dev libyaml-cpp-dev graphviz
  chromium-headless-shell libssl-dev shellcheck)
missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# tinygrad 0.13 needs Python >= 3.11 with a shared libpython (the build embeds it).
python=${TL_BASE_PYTHON:-python3}
if ! "$python" -c 'import sys, sysconfig; sys.exit(not (sys.version_info >= (3, 11) and sysconfig.get_config_var("Py_ENABLE_SHARED")))'; then
  echo "bootstrap: $python must be CPython >= 3.11 built with a shared libpython (set TL_BASE_PYTHON)" >&2
  exit 2
fi

# The stamp holds the requirements' digest: a changed pin rebuilds the venv, an unchanged one is a no-op.
stamp="$venv/.tl-requirements.sha256"
want=$(sha256sum "$requirements" | cut -d' ' -f1)
if ! [ -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: creating venv $venv from $requirements"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  echo "$want" > "$stamp"
fi

# The linters the lint tests run, in a venv of their own (the pinned venvs hold only what the legs run).
if [ "$venv" = "$root/.venv" ]; then
  tools="$root/.venv-tools"
  tools_requirements="$root/ci/requirements-tools.txt"
  tools_want=$(sha256sum "$tools_requirements" | cut -d' ' -f1)
  if ! [ -x "$tools/bin/python" ] || [ "$(cat "$tools/.tl-requirements.sha256" 2>/dev/null)" != "$tools_want" ]; then
    echo "bootstrap: creating the tool venv $tools from $tools_requirements"
    rm -rf "$tools"
    "$python" -m venv "$tools"
    "$tools/bin/python" -m pip install --quiet --disable-pip-version-check -r "$tools_requirements"
    echo "$tools_want" > "$tools/.tl-requirements.sha256"
  fi
fi
