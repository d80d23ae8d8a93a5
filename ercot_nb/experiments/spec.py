"""What a run is: its specification, its output, the run table's columns and statuses, and names.

The vocabulary the runner, the run files, the statistics and the report share.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .. import algorithms as registry
from ..algorithms import name_key
from ..paper import PAPER_ALGORITHMS

RUN_COLUMNS: list[str] = [
    "algorithm", "dataset", "run", "t", "time", "n_samples",
    "RI", "NMI", "n_clusters", "alpha", "seconds", "status", "error",
]
"""Columns of the tidy run table, one row per time step of a run.

A run that is not applicable or failed has a single row with ``t`` missing,
its ``status`` and the ``error`` message.
"""
STATUS_OK = "ok"
STATUS_NOT_APPLICABLE = "n/a"
"""The algorithm refused the data set (it raised ``ValueError`` in ``fit``); never retried."""
STATUS_FAILED = "failed"
"""Any other error (including a run whose workers kept dying); retried on the next sweep."""
KNOWN_K = "known_k"
"""Parameter value replaced by the data set's true number of clusters
(``metadata["k"]``, ``None`` when the data set treats k as unknown)."""
SYNTHETIC_DATASETS: tuple[str, ...] = tuple(f"syn{i}" for i in range(1, 9))
DEFAULT_KNOWN_K: tuple[str, ...] = ("k-meansCOT",)
"""Algorithms given the true k where a data set has one (k-meansCOT needs it)."""
DEFAULT_KEEP_FRONTS: tuple[tuple[str, str], ...] = (("ERCOT", "syn7"),)
"""(algorithm, data set) pairs whose final populations are kept (for Fig. 8)."""


def registered_name(name: str) -> str:
    """The registry's spelling of an algorithm name (raises ValueError if unknown)."""
    return registry.resolve(name)


def lookup(mapping: Mapping[str, Any] | None, name: str, default: Any = None) -> Any:
    """``mapping[name]`` matched by :func:`ercot_nb.algorithms.name_key`."""
    for key, value in (mapping or {}).items():
        if name_key(key) == name_key(name):
            return value
    return default


def display_dataset(name: str) -> str:
    """'syn3' -> 'Syn3', as the paper writes data set names."""
    return name[:1].upper() + name[1:]


def column_title(name: str) -> str:
    return name if name.startswith("paper") else display_dataset(name)


def format_seconds(value: float) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:.4f}"


def algorithm_order(names: Sequence[str]) -> list[str]:
    """Paper column order first, then the others as given."""
    paper = [n for p in PAPER_ALGORITHMS for n in names if name_key(n) == name_key(p)]
    return list(dict.fromkeys(paper + list(names)))


@dataclass
class RunSpec:
    """Everything a worker needs to execute one run.

    Attributes
    ----------
    algorithm : str
        Registered algorithm name.
    dataset : str
        Built-in data set name (``ercot_nb.datasets.load``).
    run : int
        Run index, used as the algorithm seed.
    params : dict
        Estimator parameters (``KNOWN_K`` already resolved).
    dataset_params : dict
        Extra arguments of ``datasets.load`` (e.g. ``n_steps``).
    data_seed : int
        Seed of the data set generator, the same for every run.
    keep_fronts : bool
        Also return the final population of every step.
    """

    algorithm: str
    dataset: str
    run: int
    params: dict = field(default_factory=dict)
    dataset_params: dict = field(default_factory=dict)
    data_seed: int = 0
    keep_fronts: bool = False

    @property
    def stem(self) -> str:
        """File name stem of this run: ``<algorithm>__<dataset>__run<NNN>``."""
        return f"{self.algorithm}__{self.dataset}__run{self.run:03d}"

    @property
    def settings(self) -> dict[str, Any]:
        """What makes two runs with the same stem comparable."""
        return {
            "algorithm": self.algorithm, "dataset": self.dataset, "params": self.params,
            "dataset_params": self.dataset_params, "data_seed": self.data_seed,
        }

    @property
    def settings_id(self) -> str:
        """Short hash of :attr:`settings`, stored with the run's rows."""
        text = json.dumps(self.settings, sort_keys=True, default=repr)
        return hashlib.sha1(text.encode()).hexdigest()[:12]


@dataclass
class RunOutput:
    """What one run returns to the driver.

    Attributes
    ----------
    rows : pandas.DataFrame
        The run's rows in :data:`RUN_COLUMNS`.
    fronts : pandas.DataFrame or None
        ``ClusteringResult.fronts_frame()`` when the spec asked for it and the
        algorithm keeps a population.
    """

    rows: pd.DataFrame
    fronts: pd.DataFrame | None = None


def one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def status_rows(spec: RunSpec, status: str, message: str) -> pd.DataFrame:
    """The single row of a run that produced no partition."""
    row = {column: np.nan for column in RUN_COLUMNS}
    row.update(algorithm=spec.algorithm, dataset=spec.dataset, run=spec.run, status=status, error=message)
    return pd.DataFrame([row], columns=RUN_COLUMNS)
