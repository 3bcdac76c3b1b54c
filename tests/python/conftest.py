"""Shared set-up for the tlconform package's tests (run by CTest as `python -m pytest`, label python).

The package under test is the build tree's (PYTHONPATH=build/python, set by tests/CMakeLists.txt).
DEV must be decided before tinygrad is imported: the tests run on DEV=PYTHON, as the spec asks.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("DEV", "PYTHON")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tutorial():
    """The spec's tutorial objects: weight, bias, mlp and x (fresh for each test)."""
    from tinygrad import Tensor

    weight = Tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 1.2]])
    bias = Tensor([0.0, 0.1, -0.1])

    def mlp(x):
        return (x.matmul(weight) + bias).relu()

    x = Tensor([[-1.0, -0.5, 0.25, 1.0], [0.5, 1.5, -2.0, 0.75]])
    return {"weight": weight, "bias": bias, "mlp": mlp, "x": x}


def tlconform_cli() -> str:
    """The tlconform command line of this build (TL_TLCONFORM from CTest, else build/bin/)."""
    cli = os.environ.get("TL_TLCONFORM") or str(ROOT / "build" / "bin" / "tlconform")
    if not Path(cli).exists():
        pytest.fail(f"no tlconform at {cli}: build it, or set TL_TLCONFORM")
    return cli


def run_python(code: str, env_overrides: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh Python (this one's executable and PYTHONPATH), returning the result."""
    env = dict(os.environ)
    env.pop("DEV", None)
    env.update(env_overrides or {})
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=timeout)
