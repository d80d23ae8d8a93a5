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
>>> [p.name for p in algorithms.estimator_params("ERCOT")][:3]
['n_clusters', 'max_clusters', 'pop_size']
"""
from __future__ import annotations

import importlib
import re
from typing import Any, Callable

from .params import Param, specs_of

# name -> "module:attribute", imported on first use so that listing is cheap.
_REGISTRY: dict[str, str] = {
    "ERCOT": "ercot_nb.evolution._ercot:ERCOT",
    "staticEC": "ercot_nb.evolution._ercot:StaticEC",
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


def name_key(name: str) -> str:
    """Spelling-insensitive key: 'k-meansCOT', 'kmeanscot' and 'KMeans_COT' match."""
    return re.sub(r"[^0-9a-z]", "", str(name).lower())


def resolve(name: str) -> str:
    """The registry's spelling of ``name``, matched by :func:`name_key`.

    Raises
    ------
    ValueError
        If no registered algorithm matches, listing the available ones.
    """
    for registered in _REGISTRY:
        if name_key(registered) == name_key(name):
            return registered
    raise ValueError(f"unknown algorithm {name!r}; available: {', '.join(available())}")


def get(name: str) -> type:
    """The class registered under ``name`` (any spelling, see :func:`name_key`)."""
    module, attribute = _REGISTRY[resolve(name)].split(":")
    return getattr(importlib.import_module(module), attribute)


def make(name: str, **params: Any):
    """Construct the algorithm ``name`` with ``params``."""
    return get(name)(**params)


def estimator_params(name_or_class) -> tuple[Param, ...]:
    """Specs of an estimator's parameters, in signature order (its class's ``param_specs``).

    Parameters
    ----------
    name_or_class : str, class or estimator instance
        A name of :func:`available` (any spelling, see :func:`name_key`) or an
        estimator class of your own that declares ``param_specs``.

    Returns
    -------
    tuple of Param

    Raises
    ------
    ValueError
        For an unknown name, or a class without specs.
    """
    return specs_of(get(name_or_class) if isinstance(name_or_class, str) else name_or_class)
