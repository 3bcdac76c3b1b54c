"""Health rows: ``tl.report.doctor()`` returns what ``tlconform doctor`` prints, from this Python
(python, tinygrad against the pinned version and range, device, the C++ dependencies, and the
``backend_scorecard:NAME`` row from the committed scorecard shipped with the package).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional, Union

from . import _core
from .backends import scorecard_path

__all__ = ["doctor", "doctor_text"]


def doctor(backend: str = "tinygrad", scorecard: Optional[Union[str, Path]] = None) -> List[_core.DoctorRow]:
    """The doctor rows for ``backend``; each has ``name``, ``status`` (ok, warning, missing,
    failed), ``value`` and ``hint``. Never raises for what it diagnoses."""
    path = scorecard if scorecard is not None else scorecard_path(backend)
    return list(_core.doctor_rows(backend, str(path)))


def doctor_text(rows: List[_core.DoctorRow]) -> str:
    """The rows as ``tlconform doctor`` prints them."""
    return _core.doctor_text(rows)
