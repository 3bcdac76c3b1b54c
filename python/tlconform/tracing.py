"""``tl.trace`` and ``tl.load``: capture a forward into a :class:`Trace`, or read a ``.tlspec``."""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Optional, Union

from . import _core
from .options import CaptureOptions, GradOptions

__all__ = ["trace", "load", "CAPABILITY_REQUESTS"]

# Capabilities a caller may request by keyword; the tinygrad backend refuses each one.
CAPABILITY_REQUESTS = ("backward_capture", "fastlog", "interventions", "rng_replay", "streaming", "structure_only")

# One capture at a time in this process: a capture patches the framework while its forward runs and
# reads the framework's graph afterwards. Another thread's tl.trace waits here; other threads' plain
# framework work goes on meanwhile. Re-entrant, so a forward that calls tl.trace is not stuck on its
# own capture's lock: the backend refuses it (mid_capture_execution_unsupported), since the inner
# capture would evaluate its graph inside the outer one.
_CAPTURE_LOCK = threading.RLock()


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise TypeError(message)


def trace(
    fn: Callable[..., Any],
    *args: Any,
    backend: str = "tinygrad",
    capture: Optional[CaptureOptions] = None,
    grad_options: Optional[GradOptions] = None,
    random_seed: Optional[int] = None,
    **options: Any,
) -> _core.Trace:
    """Trace ``fn(*args)`` with ``backend`` and return the :class:`Trace`.

    The forward runs once, lazily; every payload comes from one evaluation after it returns. With
    ``GradOptions(intermediate_grads=True)`` the gradients are derived too (``op.grad``).

    Refused with :class:`tlconform.errors.BackendUnsupportedError` before anything runs: an unknown
    ``backend`` (``backend_unknown``), ``random_seed`` (``explicit_seed_unsupported``), a capability
    request such as ``fastlog=True`` (its own code), any other keyword (``trace_option_unsupported``),
    an unknown ``module_identity_mode``. In-forward hazards (``realize()``, ``assign`` into an input,
    ``Tensor.rand``) are refused at the call, with inputs and RNG state unchanged.

    Arguments of the wrong type are a ``TypeError`` naming the argument. An exception the forward
    raises reaches the caller as its own type, also a :class:`tlconform.errors.PythonError` (see
    there). Captures from several threads run one at a time; other threads' framework work is not
    refused and does not show up in the trace.
    """
    capture = CaptureOptions() if capture is None else capture
    grad_options = GradOptions() if grad_options is None else grad_options
    _require(callable(fn), f"fn must be callable (the forward to trace), not {type(fn).__name__}")
    _require(isinstance(backend, str), f"backend must be a str such as 'tinygrad', not {type(backend).__name__}")
    _require(
        isinstance(capture, CaptureOptions),
        f"capture must be a tlconform.options.CaptureOptions, not {type(capture).__name__}",
    )
    _require(
        isinstance(grad_options, GradOptions),
        f"grad_options must be a tlconform.options.GradOptions, not {type(grad_options).__name__}",
    )
    _require(
        isinstance(capture.module_identity_mode, str),
        f"CaptureOptions.module_identity_mode must be a str, not {type(capture.module_identity_mode).__name__}",
    )
    _require(
        isinstance(grad_options.loss, str),
        "GradOptions.loss must be a str (a Python expression over `outputs`, or '' for the sum of the float outputs), "
        f"not {type(grad_options.loss).__name__}",
    )
    _require(
        random_seed is None or (isinstance(random_seed, int) and not isinstance(random_seed, bool)),
        f"random_seed must be an int or None, not {type(random_seed).__name__}",
    )
    core = _core.TraceOptions()
    core.backend = backend
    core.module_identity_mode = capture.module_identity_mode
    core.intermediate_grads = bool(grad_options.intermediate_grads)
    core.loss = grad_options.loss
    core.random_seed = random_seed
    core.requests = {name: bool(options.pop(name)) for name in CAPABILITY_REQUESTS if name in options}
    # Anything else is passed on by name, so the backend refuses it naming it.
    core.other = {name: repr(value) for name, value in options.items()}
    with _CAPTURE_LOCK:
        return _core.trace(fn, tuple(args), core)


def load(path: Union[str, "os.PathLike[str]"]) -> _core.Trace:
    """Read a ``.tlspec`` bundle saved by :meth:`Trace.save` (or ``tlconform trace --save``).

    A loaded trace is audit-only: its ops and payloads are there, but replay validation and derived
    gradients refuse with ``live_payloads_required``. A path that is no bundle, or a bundle that
    declares more than it holds, is a :class:`tlconform.errors.TlspecError` naming the file.
    """
    return _core.load(os.fspath(path))
