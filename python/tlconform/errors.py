"""Errors raised by tlconform.

A refusal is a :class:`BackendUnsupportedError` whose ``code`` comes from the one refusal registry
shared with the C++ harness and the CLI (``tlconform.errors.registry()`` lists it). The code is
normative; the message is a hint and ends with what to do instead (``remedy``). Refusals are raised
before any framework side effect: no kernel ran, inputs and RNG state are as they were.
"""

from __future__ import annotations

from typing import List

__all__ = [
    "TlconformError",
    "BackendUnsupportedError",
    "BackendEnvironmentError",
    "PythonError",
    "TlspecError",
    "registry",
]


class TlconformError(Exception):
    """Base class of the errors tlconform raises itself."""


class BackendUnsupportedError(TlconformError):
    """A request the backend cannot honour, refused before any side effect.

    Attributes:
        code: the registry code, e.g. ``"module_identity_mode_unsupported"``.
        backend: the backend that refused, e.g. ``"tinygrad"``.
        op: the op the refusal names, or ``""``.
        remedy: what to do instead (the registry's advice for the code).
    """

    def __init__(self, message: str, *, code: str, backend: str = "", op: str = "", remedy: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.backend = backend
        self.op = op
        self.remedy = remedy


class BackendEnvironmentError(TlconformError):
    """The environment cannot host the backend (its framework is missing or imported from elsewhere)."""


class PythonError(TlconformError):
    """A Python exception escaped the traced forward (or the framework) during a capture.

    Attributes:
        type_name: the original exception's type name, e.g. ``"ValueError"``.
        traceback: the original traceback, formatted.
    """

    def __init__(self, message: str, *, type_name: str = "", traceback: str = "") -> None:
        super().__init__(message)
        self.type_name = type_name
        self.traceback = traceback


class TlspecError(TlconformError, ValueError):
    """A ``.tlspec`` bundle that cannot be read or a save target that is not a bundle."""


def registry() -> List["RefusalInfo"]:  # noqa: F821 (the _core type, see _core.pyi)
    """Every refusal code with its meaning, the rule it belongs to and what to do instead."""
    from . import _core

    return list(_core.refusal_registry())
