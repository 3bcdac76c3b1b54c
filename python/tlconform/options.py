"""What a capture may be asked for: :class:`CaptureOptions` and :class:`GradOptions`.

The tinygrad backend takes ``module_identity_mode`` (``"auto"``, ``"metadata"`` or ``"none"``) and
``grad_options``; any other value or option is refused with a registry code before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CaptureOptions", "GradOptions"]


@dataclass(frozen=True)
class CaptureOptions:
    """How the capture records the forward.

    Attributes:
        module_identity_mode: ``"auto"`` (default), ``"metadata"`` or ``"none"``; another value
            refuses with ``module_identity_mode_unsupported``.
    """

    module_identity_mode: str = "auto"


@dataclass(frozen=True)
class GradOptions:
    """Derived intermediate gradients (opt-in).

    Attributes:
        intermediate_grads: derive d loss / d op for every float op (``op.grad``).
        loss: the scalar loss as a Python expression over ``outputs`` (the list of output tensors);
            empty means the sum of every float output.
    """

    intermediate_grads: bool = False
    loss: str = ""
