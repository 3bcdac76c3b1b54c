"""Backends by name: ``tl.backends.spec("tinygrad")`` with the requirement table of its page,
``.capabilities()`` (states computed from the committed scorecard shipped with the package) and
``.protocol()``, the surface the conformance suite drives, whose ``validate(trace, outputs)``
returns the replay status with per-op decisions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List, Optional, Union

from . import _core

__all__ = ["BackendSpec", "spec", "names", "scorecard_path"]


def scorecard_path(name: str) -> Path:
    """The committed scorecard of backend ``name`` shipped inside the package."""
    return Path(__file__).resolve().parent / "scorecards" / name / "scorecard.json"


class BackendSpec:
    """A registered backend's spec (what its page's requirement table says)."""

    def __init__(self, core: _core.BackendSpec) -> None:
        self._core = core

    @property
    def name(self) -> str:
        """``backend="NAME"``."""
        return self._core.name

    @property
    def distribution(self) -> str:
        """The framework's package name."""
        return self._core.distribution

    @property
    def supported_range(self) -> str:
        """The framework versions the backend supports, e.g. ``">=0.13.0,<0.14"``."""
        return self._core.supported_range

    @property
    def pinned_version(self) -> str:
        """The version the pinned CI leg runs."""
        return self._core.pinned_version

    @property
    def install_extra(self) -> str:
        """This distribution's pip extra for the backend's framework, e.g. ``"tlconform[tinygrad]"``."""
        return self._core.install_extra

    @property
    def spec_install_extra(self) -> str:
        """The install extra the backend's page names: its upstream's, e.g. ``"torchlens[tinygrad]"``."""
        return self._core.spec_install_extra

    @property
    def maturity(self) -> str:
        """``"preview"`` or ``"stable"``."""
        return self._core.maturity

    @property
    def materialization(self) -> str:
        """``"lazy"`` or ``"eager"``."""
        return self._core.materialization

    @property
    def device(self) -> str:
        """What live payloads need, e.g. ``"DEV=PYTHON"``."""
        return self._core.device

    @property
    def scorecard(self) -> Path:
        """The committed scorecard the capability states and the doctor's scorecard row read."""
        return scorecard_path(self.name)

    def requirements(self) -> Dict[str, str]:
        """The requirement table, as ``tlconform spec --json`` prints it."""
        return dict(self._core.requirements())

    def capabilities(self, scorecard: Optional[Union[str, Path]] = None) -> List[_core.CapabilityRow]:
        """The can-and-cannot table: each row's state (supported, unsupported, untested) computed
        from the cells of a pinned-leg scorecard (default: the committed one)."""
        return list(self._core.capabilities(str(scorecard if scorecard is not None else self.scorecard)))

    def protocol(self) -> _core.Protocol:
        """The backend's protocol: ``protocol().validate(trace, outputs)`` returns the full status."""
        return self._core.protocol()

    def __repr__(self) -> str:
        return f"<BackendSpec {self.name} {self.distribution}{self.supported_range} ({self.maturity})>"


def spec(name: str) -> BackendSpec:
    """The backend called ``name``; an unknown name refuses with ``backend_unknown``."""
    return BackendSpec(_core.spec(name))


def names() -> List[str]:
    """Every backend linked into this package."""
    return list(_core.backend_names())
