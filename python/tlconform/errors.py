"""Errors raised by tlconform.

A refusal is a :class:`BackendUnsupportedError` whose ``code`` comes from the one refusal registry
shared with the C++ harness and the CLI (``tlconform.errors.registry()`` lists it). The code is
normative; the message is a hint and ends with what to do instead (``remedy``). Refusals are raised
before any framework side effect: no kernel ran, inputs and RNG state are as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional

if TYPE_CHECKING:
    from . import _core

__all__ = [
    "TlconformError",
    "BackendUnsupportedError",
    "BackendEnvironmentError",
    "PythonError",
    "TlspecError",
    "FileWriteError",
    "CaptureError",
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

    The caller gets the forward's exception as its own type: a ``ValueError`` raised by the forward
    is caught by ``except ValueError`` (and by ``except PythonError``), with its own arguments,
    attributes, notes and traceback. It is an instance of a subclass made for the original class
    (named as it is, deriving from it and from ``PythonError``), with a note saying it came through
    a tlconform capture. Where a class cannot be subclassed, a plain ``PythonError`` is raised
    ``from`` the original.

    Attributes:
        type_name: the original exception's type name, e.g. ``"ValueError"``.
        traceback: the original traceback, formatted.
    """

    def __init__(self, message: str, *, type_name: str = "", traceback: str = "") -> None:
        super().__init__(message)
        self.type_name = type_name
        self.traceback = traceback


_FORWARD_ERROR_CLASSES: Dict[type, Optional[type]] = {}


def _forward_error_class(cls: type) -> Optional[type]:
    """The subclass of ``cls`` and PythonError a forward's ``cls`` exception is raised as."""
    if cls not in _FORWARD_ERROR_CLASSES:
        try:
            made = type(cls.__name__, (cls, PythonError), {"__module__": cls.__module__, "__qualname__": cls.__qualname__})
        except TypeError:  # a final class, or one whose layout cannot be combined
            made = None
        _FORWARD_ERROR_CLASSES[cls] = made
    return _FORWARD_ERROR_CLASSES[cls]


def _forward_error(original: BaseException, type_name: str, traceback: str, message: str) -> BaseException:
    """The exception a capture raises for ``original`` (called by the C++ core, see PythonError)."""
    note = "tlconform: raised while tracing; the forward's traceback is in .traceback"
    cls = _forward_error_class(type(original))
    if cls is not None:
        try:
            error = cls.__new__(cls, *original.args)
            try:
                type(original).__init__(error, *original.args)
            except Exception:
                error.args = original.args
            error.__dict__.update(getattr(original, "__dict__", {}))
            error.type_name, error.traceback = type_name, traceback
            error.__cause__, error.__context__ = original.__cause__, original.__context__
            error.__suppress_context__ = original.__suppress_context__
            str(error)  # a class whose fields only its own constructor fills fails here, not at the caller
            error.add_note(note)
            return error.with_traceback(original.__traceback__)
        except Exception:
            pass
    error = PythonError(message, type_name=type_name, traceback=traceback)
    error.__cause__ = original
    error.add_note(note)
    return error


class TlspecError(TlconformError, ValueError):
    """A ``.tlspec`` bundle that cannot be read or a save target that is not a bundle."""


class FileWriteError(TlconformError, OSError):
    """A file tlconform writes (a saved bundle's manifest or payloads) could not be written, and
    nothing was changed there: a full disk, a file size limit, a directory gone.

    Attributes (besides OSError's):
        errno: why, e.g. ``errno.ENOSPC`` for a full disk.
        filename: the file that could not be written.
        free_bytes: the bytes its filesystem had left, or ``None`` when it could not say.
    """

    def __init__(self, message: str, *, errno: int = 0, filename: str = "", free_bytes: Optional[int] = None) -> None:
        OSError.__init__(self, errno, message, filename)
        self.free_bytes = free_bytes

    def __str__(self) -> str:
        return str(self.strerror)


class CaptureError(TlconformError, RuntimeError):
    """A capture failed in the backend's own machinery after the forward returned (not an exception
    of the forward): a bug of the backend, to report with the forward and ``.traceback``.

    Attributes:
        stage: what the capture was doing, e.g. ``"walking the graph"``.
        framework_call: the framework call that raised, e.g. ``"tinygrad/uop/ops.py:412 in shrink"``.
        type_name: the Python exception's type name, e.g. ``"ValueError"``.
        traceback: its formatted traceback.
    """

    def __init__(self, message: str, *, stage: str = "", framework_call: str = "", type_name: str = "", traceback: str = "") -> None:
        super().__init__(message)
        self.stage = stage
        self.framework_call = framework_call
        self.type_name = type_name
        self.traceback = traceback


def registry() -> List["_core.RefusalInfo"]:
    """Every refusal code with its meaning, the rule it belongs to and what to do instead."""
    from . import _core

    return list(_core.refusal_registry())
