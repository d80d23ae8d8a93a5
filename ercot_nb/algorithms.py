"""Registry of temporal clustering algorithms: list and construct them by name.

Every registered algorithm follows the same contract as :class:`ercot_nb.ERCOT`:
``fit(dataset)`` sets ``result_`` (a :class:`~ercot_nb.result.ClusteringResult`
with one :class:`~ercot_nb.result.StepResult` per step) and ``labels_``;
``fit_predict`` returns ``labels_``; parameters via ``get_params``/``set_params``.

>>> from ercot_nb import algorithms
>>> "ERCOT" in algorithms.available()
True
>>> algorithms.make("staticEC", seed=0).get_params()["seed"]
0
"""
from __future__ import annotations

import importlib
from typing import Any, Callable

# name -> "module:attribute", imported on first use so that listing is cheap.
_REGISTRY: dict[str, str] = {
    "ERCOT": "ercot_nb._evolutionary:ERCOT",
    "staticEC": "ercot_nb._evolutionary:StaticEC",
    "penaltyEC": "ercot_nb.baselines._penalty:PenaltyEC",
    "k-meansCOT": "ercot_nb.baselines._kmeanscot:KMeansCOT",
    "AFFECT": "ercot_nb.baselines._affect:AFFECT",
    "E2SC": "ercot_nb.baselines._e2sc:E2SC",
}


def register(name: str, target: str | Callable[..., Any]) -> None:
    """Add an algorithm: ``target`` is a class or a ``"module:attribute"`` string."""
    if not isinstance(target, str):
        target = f"{target.__module__}:{target.__qualname__}"
    _REGISTRY[name] = target


def available() -> list[str]:
    """Names of the registered algorithms."""
    return list(_REGISTRY)


def get(name: str) -> type:
    """The class registered under ``name`` (case-insensitive)."""
    matches = [key for key in _REGISTRY if key.lower() == name.lower()]
    if not matches:
        raise ValueError(f"unknown algorithm {name!r}; available: {', '.join(available())}")
    module, attribute = _REGISTRY[matches[0]].split(":")
    return getattr(importlib.import_module(module), attribute)


def make(name: str, **params: Any):
    """Construct the algorithm ``name`` with ``params``."""
    return get(name)(**params)
