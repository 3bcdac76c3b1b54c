"""Where tinygrad runs: the device chosen before tinygrad is imported, and what was imported.

This module imports no tinygrad at its top: it runs before tinygrad is imported (embedded) or to
find out whether it can be (attached to a host's Python)."""
from __future__ import annotations

import importlib.metadata
import os
import sys


def prepare_device() -> bool:
  """Attached to a host's Python, tinygrad may be imported already: then its device was chosen by
  the host, not by us. Otherwise DEV=PYTHON, unless the user set DEV. Returns whether it was chosen
  before us."""
  chosen = "DEV" in os.environ or "tinygrad" in sys.modules
  if not chosen:
    os.environ["DEV"] = "PYTHON"
  return chosen


def probe(embedded: bool) -> dict:
  """The installed tinygrad's version, where it was imported from, its device, and what is wrong
  with it ("" when nothing): not installed, not importable, or (embedded) imported from outside the
  venv the build chose."""
  info = {"version": "", "path": "", "device": "", "problem": ""}
  try:
    info["version"] = importlib.metadata.version("tinygrad")
  except importlib.metadata.PackageNotFoundError:
    info["problem"] = "tinygrad is not installed in the venv"
    return info
  try:
    import tinygrad
    from tinygrad import Device
    info["path"] = os.path.dirname(os.path.realpath(tinygrad.__file__))
    info["device"] = Device.DEFAULT
  except Exception as error:
    info["problem"] = f"import tinygrad failed: {type(error).__name__}: {error}"
    return info
  # Embedded, the venv is the one the build chose; attached, the host's sys.path decides.
  prefix = os.path.realpath(sys.prefix)
  if embedded and os.path.commonpath([prefix, info["path"]]) != prefix:
    info["problem"] = f"tinygrad was imported from {info['path']}, outside the venv {prefix}"
  return info


# Payload dtype names are numpy's (ml_dtypes' for float8); where tinygrad's `dtypes` attribute is
# named otherwise, its name.
_TINYGRAD_DTYPE_NAMES = {"float8_e4m3fn": "fp8e4m3", "float8_e5m2": "fp8e5m2", "float8_e4m3fnuz": "fp8e4m3fnuz",
                         "float8_e5m2fnuz": "fp8e5m2fnuz"}


def tinygrad_dtype_name(payload_dtype: str) -> str:
  """The name of payload dtype `payload_dtype` among tinygrad's `dtypes` attributes."""
  return _TINYGRAD_DTYPE_NAMES.get(payload_dtype, payload_dtype)
