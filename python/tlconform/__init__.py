"""tlconform: trace a framework forward from Python on the conformance harness's C++ core.

Example (the tinygrad backend's tutorial; run in a fresh process with ``DEV=PYTHON``)::

    import tlconform as tl
    trace = tl.trace(mlp, x, backend="tinygrad")
    print(len(trace), "ops recorded")
    print(trace.output_ops[0].out.numpy())
    assert trace.validate_forward_pass([mlp(x)]) is True

The same capture, refusals, replay validation, derived gradients and ``.tlspec`` bundles serve the
``tlconform`` command line. Inside Python the core attaches to the running interpreter when the
package is imported. The tinygrad backend then sets ``os.environ["DEV"] = "PYTHON"`` unless ``DEV``
is set or tinygrad is imported already: import tlconform before tinygrad (or set ``DEV=PYTHON``
yourself, as the spec's tutorial does). A capture on any other device is audit-only: its ops and
payloads are recorded, but replay validation and derived gradients refuse with
``live_payloads_required``; ``tl.report.doctor()`` shows the device in use.
"""

from __future__ import annotations

from . import backends, errors, options, report
from ._core import Decision, Op, Parent, Payload, Trace, ValidationStatus, __version__
from .tracing import load, trace

__all__ = [
    "trace",
    "load",
    "Trace",
    "Op",
    "Parent",
    "Payload",
    "ValidationStatus",
    "Decision",
    "options",
    "errors",
    "backends",
    "report",
    "__version__",
]
