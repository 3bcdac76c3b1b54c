"""One source of truth for the tinygrad range: the package's `tinygrad` extra (pyproject.toml)
must equal the backend spec's supported range as `tlconform spec --field supported_range` prints it."""

from __future__ import annotations

import re
import subprocess
import tomllib

import tlconform as tl
from conftest import ROOT, tlconform_cli


def normalized(specifier: str) -> str:
    return re.sub(r"\s+", "", specifier)


def extra_problems(extra: list[str], distribution: str, supported_range: str) -> list[str]:
    """Why the extra does not install exactly `distribution` in `supported_range` (empty: it does)."""
    if len(extra) != 1:
        return [f"the extra lists {extra}, not one requirement"]
    match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(.*)", extra[0])
    if not match:
        return [f"cannot read requirement {extra[0]!r}"]
    problems = []
    if match.group(1) != distribution:
        problems.append(f"the extra installs {match.group(1)}, the spec's distribution is {distribution}")
    if normalized(match.group(2)) != normalized(supported_range):
        problems.append(f"the extra's range {match.group(2)!r} differs from the spec's {supported_range!r}")
    return problems


def test_tinygrad_extra_equals_the_supported_range():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extra = project["optional-dependencies"]["tinygrad"]
    done = subprocess.run([tlconform_cli(), "spec", "--field", "supported_range"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    cli_range = done.stdout.strip()
    assert cli_range == tl.backends.spec("tinygrad").supported_range
    assert extra_problems(extra, tl.backends.spec("tinygrad").distribution, cli_range) == []


def test_the_range_check_can_fail():
    assert extra_problems(["tinygrad>=0.13.0,<0.14"], "tinygrad", ">=0.13.0, <0.14") == []
    assert extra_problems(["tinygrad>=0.13.0,<0.15"], "tinygrad", ">=0.13.0,<0.14")
    assert extra_problems(["tinygrad"], "tinygrad", ">=0.13.0,<0.14")
    assert extra_problems(["torch>=0.13.0,<0.14"], "tinygrad", ">=0.13.0,<0.14")
    assert extra_problems(["tinygrad>=0.13.0,<0.14", "numpy"], "tinygrad", ">=0.13.0,<0.14")


def test_version_is_the_cmake_projects():
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert tl.__version__ == re.search(r"project\([^)]*VERSION ([0-9.]+)", cmake).group(1)
