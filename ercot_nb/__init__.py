"""ercot-nb: evolutionary robust clustering over time (ERCOT) for temporal data.

One partition per time step of the same, id-tracked samples (not clustering
of whole time series), with numba kernels, Plotly figures and notebook
widgets.

Public names are imported lazily, so ``import ercot_nb`` stays cheap and
nothing is compiled at import time.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_LAZY = {
    "ERCOT": ".evolution",
    "StaticEC": ".evolution",
    "TemporalDataset": ".data",
    "Snapshot": ".data",
    "ClusteringResult": ".result",
    "StepResult": ".result",
}
_SUBMODULES = (
    "datasets", "metrics", "data", "result", "figures", "algorithms", "events", "ensemble", "hypervolume",
)

__all__ = [*_LAZY, *_SUBMODULES, "__version__"]

if TYPE_CHECKING:  # pragma: no cover
    from . import algorithms, data, datasets, ensemble, events, figures, hypervolume, metrics, result
    from .evolution._ercot import ERCOT, StaticEC
    from .data import Snapshot, TemporalDataset
    from .result import ClusteringResult, StepResult


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module 'ercot_nb' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
