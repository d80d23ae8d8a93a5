"""The paper's experiments: a resumable Dask sweep and the comparison report.

:func:`run_experiments` runs algorithms x data sets x runs (algorithm seed =
run index, data seed fixed) and returns a tidy table with one row per time
step of every run.  Runs execute on a ``dask.distributed`` cluster: local
worker processes by default, or the cluster of a given client or scheduler
address.  Each finished run is written at once to its own small CSV file, so
an interrupted sweep resumes where it stopped; a worker that dies has its
runs rescheduled by Dask, and a run that raises is recorded with its error
instead of stopping the sweep.

:func:`build_report` turns the table into the paper's Tables II-IV (mean ±
std of mRI, mNMI and seconds per step, with Wilcoxon marks against ERCOT,
beside the published numbers), figures as one offline Plotly HTML page, and
``runs.csv``.  ``ercot-nb experiments`` does both in one command.

=======================================  =========================================
function                                 does
=======================================  =========================================
:func:`run_experiments`                  the sweep (resumable, distributed)
:func:`load_runs`                        the tidy table from a folder of run files
:func:`per_run_scores`                   mRI, mNMI, seconds per step of each run
:func:`mark_against_reference`           one Wilcoxon comparison: p and mark
:func:`significance_marks`               marks of every competitor and data set
:func:`summary_table`                    mean ± std per algorithm and data set
:func:`ri_per_step_figure`               mean RI per time step (paper Fig. 6)
:func:`alpha_per_step_figure`            ERCOT's alpha per time step
:func:`fronts_figure`                    final populations, normalised (Fig. 8)
:func:`load_fronts`                      final populations kept for one run
:func:`build_report`                     report.md + figures.html + runs.csv
=======================================  =========================================

Why Dask for local runs too (instead of ``concurrent.futures``): one code
path for a laptop and a cluster, and a worker process that dies (out of
memory, a crash in compiled code, a kill) costs only the run it held, which
the scheduler reruns elsewhere, whereas a ``ProcessPoolExecutor`` is then
broken and fails every pending run.  Local workers are one process per CPU,
one thread each, with numba limited to one thread (no oversubscription).

Examples
--------
>>> from ercot_nb.experiments import run_experiments, build_report
>>> table = run_experiments(                                 # doctest: +SKIP
...     ["ERCOT", "staticEC"], ["syn3", "syn7"], 30, out_dir="results/runs")
>>> build_report(table, "results", runs_dir="results/runs")  # doctest: +SKIP
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import io
import json
import os
import re
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # dask is imported only when a sweep runs
    from distributed import Client
    from plotly.graph_objects import Figure

__all__ = [
    "RUN_COLUMNS",
    "STATUS_OK",
    "STATUS_NOT_APPLICABLE",
    "STATUS_FAILED",
    "KNOWN_K",
    "PAPER_ALGORITHMS",
    "PAPER_RESULTS",
    "PAPER_SECONDS_PER_STEP",
    "SYNTHETIC_DATASETS",
    "RunSpec",
    "RunOutput",
    "execute_run",
    "run_experiments",
    "load_runs",
    "load_fronts",
    "per_run_scores",
    "mark_against_reference",
    "significance_marks",
    "summary_table",
    "ri_per_step_figure",
    "alpha_per_step_figure",
    "fronts_figure",
    "seconds_table",
    "build_report",
    "add_arguments",
    "run_from_args",
]

# ---------------------------------------------------------------------------
# Constants and the paper's published numbers
# ---------------------------------------------------------------------------

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

PAPER_ALGORITHMS: tuple[str, ...] = ("k-meansCOT", "AFFECT", "E2SC", "penaltyEC", "staticEC", "ERCOT")
"""Column order of the paper's tables; ERCOT is the reference of the marks."""

DEFAULT_KNOWN_K: tuple[str, ...] = ("k-meansCOT",)
"""Algorithms given the true k where a data set has one (k-meansCOT needs it)."""

DEFAULT_KEEP_FRONTS: tuple[tuple[str, str], ...] = (("ERCOT", "syn7"),)
"""(algorithm, data set) pairs whose final populations are kept (for Fig. 8)."""

# Tables II (mRI), III (mNMI), V (bird_flocks mRI) and VI (videos mRI) of the
# paper: mean and standard deviation over 30 runs, and the Wilcoxon mark of
# each competitor against ERCOT ('>' ERCOT significantly better, '≈' not
# significant, '' the competitor significantly better or ERCOT itself).
# An empty mean is the paper's "n/a".
_PAPER_CSV = """\
metric,dataset,algorithm,mean,std,mark
mRI,syn1,k-meansCOT,0.8988,1.97E-02,>
mRI,syn1,AFFECT,0.9558,5.69E-02,≈
mRI,syn1,E2SC,0.9544,4.52E-16,≈
mRI,syn1,penaltyEC,0.9545,1.05E-03,≈
mRI,syn1,staticEC,0.8956,1.38E-02,>
mRI,syn1,ERCOT,0.9545,3.20E-03,
mRI,syn2,k-meansCOT,0.9415,2.34E-02,>
mRI,syn2,AFFECT,0.9692,5.69E-02,>
mRI,syn2,E2SC,0.9872,4.52E-16,>
mRI,syn2,penaltyEC,0.9927,6.71E-04,
mRI,syn2,staticEC,0.8422,1.76E-02,>
mRI,syn2,ERCOT,0.9907,8.70E-04,
mRI,syn3,k-meansCOT,0.9059,1.51E-02,>
mRI,syn3,AFFECT,0.9557,5.47E-02,≈
mRI,syn3,E2SC,0.9516,4.52E-16,>
mRI,syn3,penaltyEC,0.9512,6.63E-03,>
mRI,syn3,staticEC,0.9153,1.55E-02,>
mRI,syn3,ERCOT,0.9554,4.51E-03,
mRI,syn4,k-meansCOT,0.9336,2.09E-02,>
mRI,syn4,AFFECT,0.9684,4.62E-02,>
mRI,syn4,E2SC,0.9854,1.13E-16,>
mRI,syn4,penaltyEC,0.9891,7.95E-03,>
mRI,syn4,staticEC,0.8679,1.48E-02,>
mRI,syn4,ERCOT,0.9949,6.33E-04,
mRI,syn5,k-meansCOT,,,
mRI,syn5,AFFECT,0.9631,5.53E-02,>
mRI,syn5,E2SC,,,
mRI,syn5,penaltyEC,0.9791,9.84E-04,≈
mRI,syn5,staticEC,0.8666,1.74E-02,>
mRI,syn5,ERCOT,0.9792,1.01E-03,
mRI,syn6,k-meansCOT,,,
mRI,syn6,AFFECT,0.9695,4.30E-02,>
mRI,syn6,E2SC,,,
mRI,syn6,penaltyEC,0.9714,1.04E-03,>
mRI,syn6,staticEC,0.8958,1.83E-02,>
mRI,syn6,ERCOT,0.9739,1.50E-03,
mRI,syn7,k-meansCOT,,,
mRI,syn7,AFFECT,0.7230,1.48E-03,>
mRI,syn7,E2SC,0.9489,6.78E-16,>
mRI,syn7,penaltyEC,0.9501,4.18E-03,>
mRI,syn7,staticEC,0.8877,1.05E-02,>
mRI,syn7,ERCOT,0.9526,4.32E-03,
mRI,syn8,k-meansCOT,,,
mRI,syn8,AFFECT,0.7313,1.90E-03,>
mRI,syn8,E2SC,0.8570,3.39E-16,>
mRI,syn8,penaltyEC,0.9768,7.66E-03,>
mRI,syn8,staticEC,0.9207,1.10E-02,>
mRI,syn8,ERCOT,0.9862,1.07E-03,
mNMI,syn1,k-meansCOT,0.7697,3.03E-02,>
mNMI,syn1,AFFECT,0.9264,6.93E-02,
mNMI,syn1,E2SC,0.8673,3.39E-16,>
mNMI,syn1,penaltyEC,0.8651,2.91E-03,>
mNMI,syn1,staticEC,0.7668,2.07E-02,>
mNMI,syn1,ERCOT,0.8766,9.39E-03,
mNMI,syn2,k-meansCOT,0.8862,3.73E-02,>
mNMI,syn2,AFFECT,0.9636,6.79E-02,≈
mNMI,syn2,E2SC,0.9640,4.52E-16,>
mNMI,syn2,penaltyEC,0.9778,2.01E-03,
mNMI,syn2,staticEC,0.7438,3.07E-02,>
mNMI,syn2,ERCOT,0.9693,7.28E-03,
mNMI,syn3,k-meansCOT,0.7786,2.39E-02,>
mNMI,syn3,AFFECT,0.9158,7.65E-02,
mNMI,syn3,E2SC,0.8635,3.39E-16,>
mNMI,syn3,penaltyEC,0.8719,2.48E-03,>
mNMI,syn3,staticEC,0.7918,2.73E-02,>
mNMI,syn3,ERCOT,0.8847,5.95E-03,
mNMI,syn4,k-meansCOT,0.8668,3.36E-02,>
mNMI,syn4,AFFECT,0.9463,6.31E-02,>
mNMI,syn4,E2SC,0.9578,4.52E-16,>
mNMI,syn4,penaltyEC,0.9817,2.19E-03,>
mNMI,syn4,staticEC,0.7744,2.63E-02,>
mNMI,syn4,ERCOT,0.9839,5.45E-03,
mNMI,syn5,k-meansCOT,,,
mNMI,syn5,AFFECT,0.9308,6.85E-02,>
mNMI,syn5,E2SC,,,
mNMI,syn5,penaltyEC,0.9330,2.90E-03,>
mNMI,syn5,staticEC,0.7583,2.32E-02,>
mNMI,syn5,ERCOT,0.9381,2.23E-03,
mNMI,syn6,k-meansCOT,,,
mNMI,syn6,AFFECT,0.9368,5.80E-02,
mNMI,syn6,E2SC,,,
mNMI,syn6,penaltyEC,0.9194,2.58E-03,>
mNMI,syn6,staticEC,0.7969,2.70E-02,>
mNMI,syn6,ERCOT,0.9267,2.22E-03,
mNMI,syn7,k-meansCOT,,,
mNMI,syn7,AFFECT,0.6239,1.92E-02,>
mNMI,syn7,E2SC,0.8056,4.52E-16,>
mNMI,syn7,penaltyEC,0.8296,1.35E-02,>
mNMI,syn7,staticEC,0.7580,1.55E-02,>
mNMI,syn7,ERCOT,0.8576,5.85E-03,
mNMI,syn8,k-meansCOT,,,
mNMI,syn8,AFFECT,0.6469,4.76E-03,>
mNMI,syn8,E2SC,0.7527,0.00E+00,>
mNMI,syn8,penaltyEC,0.9398,1.37E-02,>
mNMI,syn8,staticEC,0.8529,1.64E-02,>
mNMI,syn8,ERCOT,0.9616,3.16E-03,
mRI,bird_flocks,k-meansCOT,,,
mRI,bird_flocks,AFFECT,0.7099,4.01E-02,>
mRI,bird_flocks,E2SC,0.8144,0.00E+00,>
mRI,bird_flocks,penaltyEC,0.8501,1.20E-03,>
mRI,bird_flocks,staticEC,0.8930,1.18E-02,≈
mRI,bird_flocks,ERCOT,0.8951,5.50E-03,
mRI,video_bt,k-meansCOT,,,
mRI,video_bt,AFFECT,,,
mRI,video_bt,E2SC,0.7514,0.00E+00,
mRI,video_bt,penaltyEC,0.7042,6.80E-03,>
mRI,video_bt,staticEC,0.7157,8.50E-03,>
mRI,video_bt,ERCOT,0.7335,4.60E-03,
mRI,video_mo,k-meansCOT,,,
mRI,video_mo,AFFECT,,,
mRI,video_mo,E2SC,0.6706,0.00E+00,>
mRI,video_mo,penaltyEC,0.6952,1.30E-03,>
mRI,video_mo,staticEC,0.6399,4.70E-03,>
mRI,video_mo,ERCOT,0.7163,6.00E-04,
mRI,video_rc,k-meansCOT,,,
mRI,video_rc,AFFECT,,,
mRI,video_rc,E2SC,0.7499,0.00E+00,≈
mRI,video_rc,penaltyEC,0.7366,6.20E-03,>
mRI,video_rc,staticEC,0.7297,2.35E-02,>
mRI,video_rc,ERCOT,0.7526,1.55E-02,
"""

PAPER_RESULTS: pd.DataFrame = pd.read_csv(
    io.StringIO(_PAPER_CSV), dtype={"mark": str}, keep_default_na=False, na_values={"mean": [""], "std": [""]}
)
"""The paper's Tables II, III, V and VI as a tidy table.

Columns ``metric`` ("mRI" or "mNMI"), ``dataset``, ``algorithm``, ``mean``,
``std`` (NaN for the paper's "n/a") and ``mark``.
"""

PAPER_SECONDS_PER_STEP: dict[str, dict[str, float]] = {
    # Table IV: mean running time (seconds) of one time step; missing = n/a.
    "syn1": {"k-meansCOT": 0.0069, "AFFECT": 0.0603, "E2SC": 0.2296, "penaltyEC": 0.3525,
             "staticEC": 0.2653, "ERCOT": 0.2769},
    "bird_flocks": {"AFFECT": 0.0277, "E2SC": 0.0854, "penaltyEC": 0.2779, "staticEC": 0.2131,
                    "ERCOT": 0.2748},
    "video_mo": {"E2SC": 33.2716, "penaltyEC": 3.1248, "staticEC": 1.2170, "ERCOT": 1.9953},
}
"""The paper's Table IV: mean seconds per time step, by data set and algorithm."""

TESTS = ("rank-sum", "signed-rank")

# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------


def _name_key(name: str) -> str:
    """Spelling-insensitive key: 'k-meansCOT', 'kmeanscot' and 'KMeans_COT' match."""
    return re.sub(r"[^0-9a-z]", "", str(name).lower())


def _registered_name(name: str) -> str:
    """The registry's spelling of an algorithm name (raises ValueError if unknown)."""
    from . import algorithms

    for registered in algorithms.available():
        if _name_key(registered) == _name_key(name):
            return registered
    raise ValueError(f"unknown algorithm {name!r}; available: {', '.join(algorithms.available())}")


def _lookup(mapping: Mapping[str, Any] | None, name: str, default: Any = None) -> Any:
    """``mapping[name]`` matched by :func:`_name_key`."""
    for key, value in (mapping or {}).items():
        if _name_key(key) == _name_key(name):
            return value
    return default


def _display_dataset(name: str) -> str:
    """'syn3' -> 'Syn3', as the paper writes data set names."""
    return name[:1].upper() + name[1:]


def _column_title(name: str) -> str:
    return name if name.startswith("paper") else _display_dataset(name)


# ---------------------------------------------------------------------------
# One run
# ---------------------------------------------------------------------------


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


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"


def _status_rows(spec: RunSpec, status: str, message: str) -> pd.DataFrame:
    """The single row of a run that produced no partition."""
    row = {column: np.nan for column in RUN_COLUMNS}
    row.update(algorithm=spec.algorithm, dataset=spec.dataset, run=spec.run, status=status, error=message)
    return pd.DataFrame([row], columns=RUN_COLUMNS)


_WARMED_UP: set[str] = set()
"""Settings ids already fitted once in this process (see :func:`_warm_up`)."""


def _warm_up(spec: RunSpec, data: Any) -> None:
    """Fit the first two steps once per process and settings, untimed.

    The first fit in a fresh worker process loads or compiles numba kernels
    (seconds); without this, that one-off cost would land in the first run's
    seconds per step.  Errors are left to the real fit to report.
    """
    from . import algorithms

    if spec.settings_id in _WARMED_UP:
        return
    _WARMED_UP.add(spec.settings_id)
    try:
        estimator = algorithms.make(spec.algorithm, **spec.params)
        if "progress" in estimator.get_params():
            estimator.set_params(progress=False)
        estimator.fit(data[:2])
    except Exception:
        pass


def execute_run(spec: RunSpec) -> RunOutput:
    """Fit one algorithm on one data set and score every time step.

    Runs on a worker.  A ``ValueError`` from ``fit`` means the algorithm
    cannot handle the data set (status ``"n/a"``); any other error gives
    status ``"failed"``.  Neither is raised.  The first run of given
    settings in a process is preceded by an untimed two-step fit, so that
    ``seconds`` measure the algorithm, not numba's kernel loading.

    Parameters
    ----------
    spec : RunSpec

    Returns
    -------
    RunOutput
    """
    from . import algorithms, datasets
    from .metrics import score_steps

    try:
        data = datasets.load(spec.dataset, seed=spec.data_seed, **spec.dataset_params)
        estimator = algorithms.make(spec.algorithm, **spec.params)
        accepted = estimator.get_params()
        estimator.set_params(**{k: v for k, v in (("seed", spec.run), ("progress", False)) if k in accepted})
    except Exception as exc:  # configuration problems are failures, not n/a
        return RunOutput(_status_rows(spec, STATUS_FAILED, _one_line(exc)))
    _warm_up(spec, data)
    try:
        estimator.fit(data)
    except ValueError as exc:
        return RunOutput(_status_rows(spec, STATUS_NOT_APPLICABLE, _one_line(exc)))
    except Exception as exc:
        return RunOutput(_status_rows(spec, STATUS_FAILED, _one_line(exc)))
    try:
        result = estimator.result_
        rows = score_steps(data[: len(result)], result.labels)
        rows["n_clusters"] = result.n_clusters
        rows["alpha"] = result.alpha
        rows["seconds"] = result.seconds
        rows = rows.assign(algorithm=spec.algorithm, dataset=spec.dataset, run=spec.run,
                           status=STATUS_OK, error="")[RUN_COLUMNS]
        fronts = None
        if spec.keep_fronts and any(len(step.population) for step in result.steps):
            fronts = result.fronts_frame()
    except Exception as exc:
        return RunOutput(_status_rows(spec, STATUS_FAILED, _one_line(exc)))
    return RunOutput(rows, fronts)


# ---------------------------------------------------------------------------
# Run files
# ---------------------------------------------------------------------------

_SETTINGS_COLUMN = "settings_id"
_FRONTS_SUFFIX = ".fronts.csv"


def _run_path(out_dir: Path, spec: RunSpec) -> Path:
    return out_dir / f"{spec.stem}.csv"


def _fronts_path(out_dir: Path, stem: str) -> Path:
    return out_dir / f"{stem}{_FRONTS_SUFFIX}"


def _write_atomically(frame: pd.DataFrame, path: Path) -> None:
    """Write a CSV so that ``path`` is either absent or complete."""
    partial = path.with_name(path.name + ".partial")
    frame.to_csv(partial, index=False)
    os.replace(partial, path)


def _read_run_file(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype={"time": str, "status": str, "error": str, _SETTINGS_COLUMN: str},
                       keep_default_na=False, na_values={c: [""] for c in ("t", "n_samples", "RI", "NMI",
                                                                            "n_clusters", "alpha", "seconds")})


def _save_run(out_dir: Path, spec: RunSpec, output: RunOutput) -> None:
    """Fronts first, then the run file, whose presence marks the run as done."""
    if output.fronts is not None:
        _write_atomically(output.fronts, _fronts_path(out_dir, spec.stem))
    _write_atomically(output.rows.assign(**{_SETTINGS_COLUMN: spec.settings_id}), _run_path(out_dir, spec))


def _finished_status(out_dir: Path, spec: RunSpec) -> str | None:
    """Status of a run already on disk, ``None`` if absent or unreadable.

    Raises
    ------
    ValueError
        If the file was made with other settings (parameters or data).
    """
    path = _run_path(out_dir, spec)
    if not path.exists():
        return None
    try:
        frame = _read_run_file(path)
        status = str(frame["status"].iloc[0])
        stored = set(frame[_SETTINGS_COLUMN])
    except Exception:  # unreadable: run it again
        return None
    if stored != {spec.settings_id}:
        raise ValueError(
            f"{path} was made with other settings than this sweep's {spec.settings}; "
            "use another output folder or delete the old run files"
        )
    return status


def _tidy(frame: pd.DataFrame) -> pd.DataFrame:
    """Column order and dtypes of the run table (the same for fresh and resumed sweeps)."""
    frame = frame.reindex(columns=RUN_COLUMNS).copy()
    frame["run"] = frame["run"].astype("int64")
    for column in ("t", "n_samples", "n_clusters"):
        frame[column] = pd.to_numeric(frame[column]).astype("Int64")
    for column in ("RI", "NMI", "alpha", "seconds"):
        frame[column] = pd.to_numeric(frame[column]).astype("float64")
    times = frame["time"].astype(object).where(frame["time"].notna(), None)
    as_numbers = pd.to_numeric(times, errors="coerce")
    if as_numbers.notna().sum() == times.notna().sum() and (as_numbers.dropna() % 1 == 0).all():
        frame["time"] = as_numbers.astype("Int64")
    else:
        frame["time"] = times.astype(object)
    frame["error"] = frame["error"].fillna("").astype(str)
    frame["status"] = frame["status"].astype(str)
    for column in ("algorithm", "dataset"):
        frame[column] = frame[column].astype(str)
    return frame


def load_runs(
    out_dir: str | os.PathLike[str],
    *,
    algorithms: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The tidy run table of every run file in ``out_dir``.

    Parameters
    ----------
    out_dir : path
        Folder written by :func:`run_experiments`.
    algorithms, datasets : sequence of str, optional
        Keep only these (and order the rows by them); default all, sorted.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`RUN_COLUMNS`, rows ordered by algorithm, data set,
        run and step.
    """
    out_dir = Path(out_dir)
    paths = sorted(p for p in out_dir.glob("*__*__run*.csv") if not p.name.endswith(_FRONTS_SUFFIX))
    frames = [_read_run_file(path) for path in paths]
    if not frames:
        return _tidy(pd.DataFrame(columns=RUN_COLUMNS))
    table = _tidy(pd.concat(frames, ignore_index=True))
    algorithm_order = list(algorithms) if algorithms is not None else sorted(table["algorithm"].unique())
    dataset_order = list(datasets) if datasets is not None else sorted(table["dataset"].unique())
    table = table[table["algorithm"].isin(algorithm_order) & table["dataset"].isin(dataset_order)]
    table = table.assign(
        _a=table["algorithm"].map({name: i for i, name in enumerate(algorithm_order)}),
        _d=table["dataset"].map({name: i for i, name in enumerate(dataset_order)}),
    ).sort_values(["_a", "_d", "run", "t"], na_position="first", kind="stable")
    return table.drop(columns=["_a", "_d"]).reset_index(drop=True)


def load_fronts(out_dir: str | os.PathLike[str], algorithm: str, dataset: str, run: int) -> pd.DataFrame | None:
    """The final populations kept for one run, or ``None`` if none were kept.

    Parameters
    ----------
    out_dir : path
        Folder of the run files.
    algorithm, dataset : str
    run : int

    Returns
    -------
    pandas.DataFrame or None
        ``ClusteringResult.fronts_frame()`` of the run.
    """
    path = _fronts_path(Path(out_dir), RunSpec(algorithm, dataset, run).stem)
    return pd.read_csv(path) if path.exists() else None


# ---------------------------------------------------------------------------
# The sweep
# ---------------------------------------------------------------------------


def _resolve_params(params: Mapping[str, Any], k: int | None) -> dict[str, Any]:
    return {key: (k if isinstance(value, str) and value == KNOWN_K else value) for key, value in params.items()}


def _plan(
    algorithms: Sequence[str],
    datasets: Sequence[str] | Mapping[str, Mapping[str, Any]],
    runs: int | Sequence[int],
    params: Mapping[str, Mapping[str, Any]] | None,
    keep_fronts: Collection[tuple[str, str]],
    data_seed: int,
) -> list[RunSpec]:
    """Every run of the grid, validated (names, parameters) before anything runs."""
    from . import algorithms as registry
    from . import datasets as builtin

    names = [_registered_name(name) for name in algorithms]
    dataset_params = (
        {name.lower(): dict(extra or {}) for name, extra in datasets.items()}
        if isinstance(datasets, Mapping) else {name.lower(): {} for name in datasets}
    )
    unknown = [name for name in (params or {}) if not any(_name_key(name) == _name_key(n) for n in names)]
    if unknown:
        raise ValueError(f"parameters given for algorithms not in the sweep: {unknown}")
    known_k = {}
    for name, extra in dataset_params.items():
        data = builtin.load(name, seed=data_seed, **extra)
        known_k[name] = data.metadata.get("k")
    kept = {(_name_key(a), d.lower()) for a, d in keep_fronts}
    run_indices = list(range(runs)) if isinstance(runs, (int, np.integer)) else [int(r) for r in runs]
    specs = []
    for name in names:
        given = dict(_lookup(params, name, {}) or {})
        for dataset, extra in dataset_params.items():
            resolved = _resolve_params(given, known_k[dataset])
            registry.make(name, **resolved)  # a wrong parameter fails here, once, not in every run
            specs += [
                RunSpec(name, dataset, run, resolved, extra, data_seed, (_name_key(name), dataset) in kept)
                for run in run_indices
            ]
    # run-major order: an interrupted sweep has every algorithm's first runs
    return sorted(specs, key=lambda s: s.run)


def _local_cluster(n_workers: int | None):
    """Worker processes on this machine, one thread each; numba kernels single-threaded.

    Processes (not threads) keep runs independent and make a crashing run
    kill only its worker, which the nanny restarts.  Everything listens on
    the loopback interface, on free ports.
    """
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=n_workers or os.cpu_count() or 1,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        env={"NUMBA_NUM_THREADS": "1"},
    )


def run_experiments(
    algorithms: Sequence[str],
    datasets: Sequence[str] | Mapping[str, Mapping[str, Any]],
    runs: int | Sequence[int],
    *,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    out_dir: str | os.PathLike[str],
    client: "Client | None" = None,
    scheduler_address: str | None = None,
    n_workers: int | None = None,
    progress: bool = True,
    keep_fronts: Collection[tuple[str, str]] = DEFAULT_KEEP_FRONTS,
    data_seed: int = 0,
    retry_failed: bool = True,
    on_run_done: Callable[[pd.DataFrame], Any] | None = None,
) -> pd.DataFrame:
    """Run algorithms x data sets x runs on a Dask cluster; resumable.

    Run ``r`` uses algorithm seed ``r``; every run of a data set sees the
    same data (``data_seed``).  Each finished run is written at once to
    ``out_dir/<algorithm>__<dataset>__run<NNN>.csv`` (atomically), and runs
    whose file already exists are not run again, so an interrupted sweep
    resumes without losing or redoing finished runs.

    Parameters
    ----------
    algorithms : sequence of str
        Registered names (``ercot_nb.algorithms.available()``), any spelling
        case.
    datasets : sequence of str or mapping
        Built-in data set names, or a mapping name -> extra
        ``datasets.load`` arguments (e.g. ``{"syn3": {"n_steps": 4}}``).
    runs : int or sequence of int
        Number of runs (indices ``0..runs-1``) or the run indices.
    params : mapping, optional
        Algorithm name -> estimator parameters, e.g.
        ``{"ERCOT": {"pop_size": 20, "n_evaluations": 60}}``.  The value
        :data:`KNOWN_K` stands for the data set's true number of clusters.
    out_dir : path
        Folder of the per-run files (created if needed).
    client : distributed.Client, optional
        Run on this client's cluster (left open).
    scheduler_address : str, optional
        Connect to this scheduler (e.g. ``"tcp://10.0.0.5:8786"``); the
        workers need ``ercot_nb`` installed.  Ignored when ``client`` is given.
    n_workers : int, optional
        Worker processes of the local cluster started when neither
        ``client`` nor ``scheduler_address`` is given; default one per CPU.
    progress : bool, default=True
        Show a progress bar of runs done / total.
    keep_fronts : collection of (algorithm, data set), default (("ERCOT", "syn7"),)
        Runs of these pairs also keep their final populations
        (``<stem>.fronts.csv``, see :func:`load_fronts`).
    data_seed : int, default=0
        Seed of every data set.
    retry_failed : bool, default=True
        Run again the runs recorded as failed ("n/a" runs are never re-run).
    on_run_done : callable, optional
        Called in this process with the rows of each newly finished run, after
        its file is written.  An exception raised by it stops the sweep
        (unfinished runs are cancelled; finished ones stay on disk).

    Returns
    -------
    pandas.DataFrame
        The tidy run table (:data:`RUN_COLUMNS`) of the whole grid, read
        back from ``out_dir``: one row per time step of each run, one row per
        n/a or failed run.

    Raises
    ------
    ValueError
        For an unknown algorithm or data set, an invalid parameter, or run
        files in ``out_dir`` made with other settings.

    Notes
    -----
    Every run is one Dask task.  When a worker dies, the scheduler reruns
    its tasks on the other workers (a task that kills three workers is
    recorded as failed).  Files are written by this process, so remote
    workers need no shared file system.
    """
    from distributed import Client, as_completed

    from ._progress import progress_bar

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    specs = _plan(algorithms, datasets, runs, params, keep_fronts, data_seed)
    pending = [spec for spec in specs if _needs_run(_finished_status(out_dir, spec), retry_failed)]
    _record_settings(out_dir, specs)

    bar = progress_bar(total=len(specs), desc="runs", enabled=progress)
    bar.update(len(specs) - len(pending))
    cluster = None
    owned_client = None
    futures: dict[Any, RunSpec] = {}
    try:
        if pending:
            if client is None:
                if scheduler_address is None:
                    cluster = _local_cluster(n_workers)
                    owned_client = Client(cluster)
                else:
                    owned_client = Client(scheduler_address)
                client = owned_client
            futures = {
                client.submit(execute_run, spec, key=f"ercot-nb-run-{spec.stem}-{spec.settings_id}",
                              pure=False): spec
                for spec in pending
            }
            for future in as_completed(futures):
                spec = futures[future]
                try:
                    output = future.result()
                except Exception as exc:  # e.g. KilledWorker after repeated worker deaths
                    output = RunOutput(_status_rows(spec, STATUS_FAILED, _one_line(exc)))
                _save_run(out_dir, spec, output)
                future.release()
                bar.update(1)
                if on_run_done is not None:
                    on_run_done(output.rows)
    finally:
        bar.close()
        unfinished = [future for future in futures if future.status not in ("finished", "error", "lost")]
        if unfinished and client is not None and client.status == "running":
            client.cancel(unfinished)
        if owned_client is not None:
            owned_client.close()
        if cluster is not None:
            cluster.close()
    names = list(dict.fromkeys(spec.algorithm for spec in specs))
    data_names = list(dict.fromkeys(spec.dataset for spec in specs))
    run_indices = {spec.run for spec in specs}
    table = load_runs(out_dir, algorithms=names, datasets=data_names)
    return table[table["run"].isin(run_indices)].reset_index(drop=True)


def _needs_run(status: str | None, retry_failed: bool) -> bool:
    return status is None or (status == STATUS_FAILED and retry_failed)


def _record_settings(out_dir: Path, specs: Sequence[RunSpec]) -> None:
    """Keep ``settings.json``: settings id -> the settings it stands for."""
    path = out_dir / "settings.json"
    known = json.loads(path.read_text()) if path.exists() else {}
    for spec in specs:
        known.setdefault(spec.settings_id, json.loads(json.dumps(spec.settings, default=repr)))
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(known, indent=1, sort_keys=True))
    os.replace(partial, path)


# ---------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------


def per_run_scores(table: pd.DataFrame) -> pd.DataFrame:
    """The paper's per-run measures of every successful run.

    Parameters
    ----------
    table : pandas.DataFrame
        The run table of :func:`run_experiments`.

    Returns
    -------
    pandas.DataFrame
        One row per (algorithm, dataset, run) with status "ok": ``mRI`` and
        ``mNMI`` (means over the steps), ``seconds_per_step`` and
        ``mean_clusters``.
    """
    done = table[table["status"] == STATUS_OK].astype(
        {"RI": "float64", "NMI": "float64", "seconds": "float64", "n_clusters": "float64"}
    )
    grouped = done.groupby(["algorithm", "dataset", "run"], sort=False)
    return grouped.agg(
        mRI=("RI", "mean"), mNMI=("NMI", "mean"), seconds_per_step=("seconds", "mean"),
        mean_clusters=("n_clusters", "mean"),
    ).reset_index()


def mark_against_reference(
    reference: pd.Series,
    competitor: pd.Series,
    *,
    test: str = "rank-sum",
    significance: float = 0.05,
) -> tuple[float, str]:
    """Wilcoxon comparison of a competitor's per-run values with the reference's.

    Parameters
    ----------
    reference, competitor : pandas.Series
        Per-run values (e.g. mRI), indexed by run; higher is better.
    test : {"rank-sum", "signed-rank"}, default="rank-sum"
        "rank-sum": two-sided Mann-Whitney U test (the runs of two algorithms
        are independent).  "signed-rank": two-sided Wilcoxon signed-rank test
        on the runs both have, paired by run index, with ``zero_method="zsplit"``
        so that identical values (deterministic algorithms) are allowed.
    significance : float, default=0.05
        Level of the test.

    Returns
    -------
    p_value : float
        NaN when a side has no values; 1.0 when every value is tied.
    mark : str
        The paper's mark: ``">"`` the reference is significantly better,
        ``"≈"`` no significant difference, ``""`` the competitor is
        significantly better (or there is nothing to compare).

    Examples
    --------
    >>> better = pd.Series([0.9, 0.91, 0.92, 0.93, 0.94, 0.95])
    >>> worse = better - 0.1
    >>> mark_against_reference(better, worse)[1]
    '>'
    >>> mark_against_reference(better, better)[1]
    '≈'
    """
    from scipy import stats

    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, got {test!r}")
    reference = reference.dropna()
    competitor = competitor.dropna()
    if test == "signed-rank":
        paired = pd.concat([reference.rename("reference"), competitor.rename("competitor")], axis=1,
                           join="inner")
        reference, competitor = paired["reference"], paired["competitor"]
    if reference.empty or competitor.empty:
        return float("nan"), ""
    difference = reference.to_numpy() - competitor.to_numpy() if test == "signed-rank" else None
    if test == "signed-rank" and not np.any(difference):
        p_value = 1.0
    elif test == "signed-rank":
        p_value = float(stats.wilcoxon(reference, competitor, zero_method="zsplit").pvalue)
    elif np.unique(np.concatenate([reference.to_numpy(), competitor.to_numpy()])).size == 1:
        p_value = 1.0
    else:
        p_value = float(stats.mannwhitneyu(reference, competitor, alternative="two-sided").pvalue)
    if not p_value < significance:
        return p_value, "≈"
    gap = reference.mean() - competitor.mean()
    return p_value, ">" if gap > 0 else ("" if gap < 0 else "≈")


def significance_marks(
    per_run: pd.DataFrame,
    metric: str,
    *,
    reference: str = "ERCOT",
    test: str = "rank-sum",
    significance: float = 0.05,
) -> pd.DataFrame:
    """Marks of every competitor against the reference, per data set.

    Parameters
    ----------
    per_run : pandas.DataFrame
        Columns ``algorithm``, ``dataset``, ``run`` and ``metric`` (e.g. the
        output of :func:`per_run_scores`).
    metric : str
        Column compared, higher is better ("mRI", "mNMI").
    reference : str, default="ERCOT"
    test, significance
        As in :func:`mark_against_reference`.

    Returns
    -------
    pandas.DataFrame
        Columns ``dataset``, ``algorithm``, ``p_value``, ``mark``; one row per
        competitor and data set where both have runs.
    """
    rows = []
    for dataset, block in per_run.groupby("dataset", sort=False):
        values = {name: group.set_index("run")[metric] for name, group in block.groupby("algorithm", sort=False)}
        if reference not in values:
            continue
        for name, competitor in values.items():
            if name == reference:
                continue
            p_value, mark = mark_against_reference(values[reference], competitor, test=test,
                                                   significance=significance)
            rows.append({"dataset": dataset, "algorithm": name, "p_value": p_value, "mark": mark})
    return pd.DataFrame(rows, columns=["dataset", "algorithm", "p_value", "mark"])


def _paper_value(metric: str, dataset: str, algorithm: str) -> tuple[float, float, str] | None:
    """(mean, std, mark) from the paper, or None where it has no cell."""
    rows = PAPER_RESULTS[(PAPER_RESULTS["metric"] == metric) & (PAPER_RESULTS["dataset"] == dataset)
                         & (PAPER_RESULTS["algorithm"].map(_name_key) == _name_key(algorithm))]
    if rows.empty:
        return None
    row = rows.iloc[0]
    return float(row["mean"]), float(row["std"]), str(row["mark"])


def summary_table(
    table: pd.DataFrame,
    *,
    reference: str = "ERCOT",
    test: str = "rank-sum",
    significance: float = 0.05,
) -> pd.DataFrame:
    """Mean ± std of mRI and mNMI per algorithm and data set, with marks and the paper's numbers.

    Parameters
    ----------
    table : pandas.DataFrame
        The run table of :func:`run_experiments`.
    reference : str, default="ERCOT"
        Algorithm the others are tested against.
    test, significance
        As in :func:`mark_against_reference`.

    Returns
    -------
    pandas.DataFrame
        One row per (dataset, algorithm) with ``status`` ("ok" when at
        least one run succeeded, else "n/a" or "failed"), ``n_runs``,
        ``n_not_applicable``, ``n_failed``, ``<m>_mean``, ``<m>_std``,
        ``<m>_p``, ``<m>_mark``, ``paper_<m>_mean``, ``paper_<m>_std``,
        ``paper_<m>_mark`` for m in mRI, mNMI, and ``seconds_per_step``,
        ``mean_clusters``.
    """
    per_run = per_run_scores(table)
    runs = table.drop_duplicates(["algorithm", "dataset", "run"])
    counts = runs.groupby(["dataset", "algorithm"], sort=False)["status"].value_counts().unstack(fill_value=0)
    rows = []
    for (dataset, algorithm), count in counts.iterrows():
        mine = per_run[(per_run["dataset"] == dataset) & (per_run["algorithm"] == algorithm)]
        n_ok = int(count.get(STATUS_OK, 0))
        status = STATUS_OK if n_ok else (STATUS_NOT_APPLICABLE if count.get(STATUS_NOT_APPLICABLE, 0)
                                         else STATUS_FAILED)
        row: dict[str, Any] = {
            "dataset": dataset, "algorithm": algorithm, "status": status, "n_runs": n_ok,
            "n_not_applicable": int(count.get(STATUS_NOT_APPLICABLE, 0)),
            "n_failed": int(count.get(STATUS_FAILED, 0)),
            "seconds_per_step": mine["seconds_per_step"].mean(),
            "mean_clusters": mine["mean_clusters"].mean(),
        }
        for metric in ("mRI", "mNMI"):
            row[f"{metric}_mean"] = mine[metric].mean()
            row[f"{metric}_std"] = mine[metric].std(ddof=1)
            paper = _paper_value(metric, dataset, algorithm)
            row[f"paper_{metric}_mean"], row[f"paper_{metric}_std"], row[f"paper_{metric}_mark"] = (
                paper if paper is not None else (np.nan, np.nan, "")
            )
        rows.append(row)
    summary = pd.DataFrame(rows)
    for metric in ("mRI", "mNMI"):
        marks = significance_marks(per_run, metric, reference=reference, test=test, significance=significance)
        marks = marks.rename(columns={"p_value": f"{metric}_p", "mark": f"{metric}_mark"})
        summary = summary.merge(marks, on=["dataset", "algorithm"], how="left")
        summary[f"{metric}_mark"] = summary[f"{metric}_mark"].fillna("")
    return summary


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


def _algorithm_order(names: Sequence[str]) -> list[str]:
    """Paper column order first, then the others as given."""
    paper = [n for p in PAPER_ALGORITHMS for n in names if _name_key(n) == _name_key(p)]
    return list(dict.fromkeys(paper + list(names)))


def _step_means(table: pd.DataFrame, column: str) -> pd.DataFrame:
    done = table[table["status"] == STATUS_OK].astype({column: "float64"})
    return (done.groupby(["algorithm", "dataset", "t", "time"], sort=False)[column]
            .agg(["mean", "std", "count"]).reset_index())


def ri_per_step_figure(table: pd.DataFrame, dataset: str = "syn3", *, metric: str = "RI") -> "Figure":
    """Mean RI (or NMI) over the runs at every time step, one line per algorithm (paper Fig. 6).

    Parameters
    ----------
    table : pandas.DataFrame
        The run table.
    dataset : str, default="syn3"
    metric : {"RI", "NMI"}, default="RI"

    Returns
    -------
    plotly.graph_objects.Figure
    """
    import plotly.graph_objects as go

    from .figures import TEMPLATE

    means = _step_means(table[table["dataset"] == dataset], metric)
    fig = go.Figure()
    for algorithm in _algorithm_order(list(dict.fromkeys(means["algorithm"]))):
        line = means[means["algorithm"] == algorithm].sort_values("t")
        fig.add_trace(go.Scatter(
            x=line["time"].astype(str).tolist(), y=line["mean"].tolist(), mode="lines+markers", name=algorithm,
            customdata=np.column_stack([line["std"].fillna(0.0), line["count"]]).tolist(),
            hovertemplate=(f"{algorithm}<br>time %{{x}}<br>mean {metric} %{{y:.4f}}"
                           "<br>std %{customdata[0]:.4f}, runs %{customdata[1]}<extra></extra>"),
        ))
    fig.update_layout(
        template=TEMPLATE, width=760, height=440,
        title=f"Mean {metric} over the runs at each time step of {_display_dataset(dataset)}",
        xaxis_title="time", yaxis_title=f"mean {metric}", legend_title="algorithm",
    )
    return fig


def alpha_per_step_figure(
    table: pd.DataFrame, datasets: Sequence[str] = ("syn3", "syn7"), *, algorithm: str = "ERCOT"
) -> "Figure":
    """ERCOT's smoothness weight alpha at each time step: mean ± std over the runs.

    Parameters
    ----------
    table : pandas.DataFrame
        The run table.
    datasets : sequence of str, default=("syn3", "syn7")
        One line per data set.
    algorithm : str, default="ERCOT"

    Returns
    -------
    plotly.graph_objects.Figure
        The first step has no history, hence no alpha and no point.
    """
    import plotly.graph_objects as go

    from .figures import TEMPLATE

    means = _step_means(table[table["algorithm"] == algorithm], "alpha").dropna(subset=["mean"])
    fig = go.Figure()
    for dataset in datasets:
        line = means[means["dataset"] == dataset].sort_values("t")
        if line.empty:
            continue
        fig.add_trace(go.Scatter(
            x=line["time"].astype(str).tolist(), y=line["mean"].tolist(), mode="lines+markers",
            name=_display_dataset(dataset),
            error_y=dict(type="data", array=line["std"].fillna(0.0).tolist(), visible=True),
            hovertemplate="time %{x}<br>mean alpha %{y:.3f}<extra>" + _display_dataset(dataset) + "</extra>",
        ))
    fig.update_layout(
        template=TEMPLATE, width=760, height=440,
        title=f"{algorithm}'s smoothness weight alpha per time step (mean ± std over the runs)",
        xaxis_title="time", yaxis_title="alpha", yaxis_range=[0, 1], legend_title="data set",
    )
    return fig


def _normalised(values: np.ndarray) -> np.ndarray:
    """Min-max normalise to [0, 1]; non-finite values (no separation) map to 1, the worst."""
    finite = np.isfinite(values)
    if not finite.any():
        return np.ones_like(values)
    low, high = values[finite].min(), values[finite].max()
    span = high - low if high > low else 1.0
    return np.where(finite, (values - low) / span, 1.0)


def fronts_figure(
    fronts: pd.DataFrame,
    times: Sequence[Any] = (4, 5, 6, 7),
    *,
    accumulated: bool = True,
    title: str | None = None,
) -> "Figure":
    """Final populations of several time steps in normalised objective space (paper Fig. 8).

    Parameters
    ----------
    fronts : pandas.DataFrame
        ``ClusteringResult.fronts_frame()`` of one run (see :func:`load_fronts`).
    times : sequence, default=(4, 5, 6, 7)
        Time labels shown, one panel each.
    accumulated : bool, default=True
        Plot the objectives the last selection used (ERCOT's accumulated
        fitness), in which the knee was chosen; ``False`` plots the raw
        objectives of the step.
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Per panel, f_cp and f_sep min-max normalised over the population;
        colour = number of clusters C (the same colour in every panel);
        filled markers = first front, open = dominated, star = the knee.
    """
    import plotly.graph_objects as go
    from plotly.colors import qualitative
    from plotly.subplots import make_subplots

    from .figures import TEMPLATE

    suffix = "_accumulated" if accumulated else ""
    wanted = [str(t) for t in times]
    fig = make_subplots(rows=1, cols=len(wanted), subplot_titles=[f"time {t}" for t in wanted],
                        shared_yaxes=True, horizontal_spacing=0.03)
    shown_in_legend: set[int] = set()
    palette = qualitative.D3
    for column, time_label in enumerate(wanted, start=1):
        step = fronts[fronts["time"].astype(str) == time_label]
        if step.empty:
            continue
        x = _normalised(step[f"f_cp{suffix}"].to_numpy(dtype=float))
        y = _normalised(step[f"f_sep{suffix}"].to_numpy(dtype=float))
        n_clusters = step["n_clusters"].to_numpy()
        on_front = step["first_front"].astype(str).str.lower().eq("true").to_numpy()
        for k in np.unique(n_clusters):
            chosen = n_clusters == k
            fig.add_trace(go.Scatter(
                x=x[chosen], y=y[chosen], mode="markers", name=f"C = {k}", legendgroup=f"C{k}",
                showlegend=int(k) not in shown_in_legend, legendrank=int(k),
                marker=dict(color=palette[int(k) % len(palette)], size=np.where(on_front[chosen], 9, 6),
                            symbol=np.where(on_front[chosen], "circle", "circle-open"), line=dict(width=1)),
                hovertemplate=f"C = {k}<br>f_cp %{{x:.3f}}<br>f_sep %{{y:.3f}}<extra>time {time_label}</extra>",
            ), row=1, col=column)
            shown_in_legend.add(int(k))
        knee = step["knee"].astype(str).str.lower().eq("true").to_numpy()
        if knee.any():
            fig.add_trace(go.Scatter(
                x=x[knee], y=y[knee], mode="markers", name="knee (chosen)", legendgroup="knee",
                showlegend=column == 1, legendrank=1000,
                marker=dict(symbol="star", size=16, color="#D62728", line=dict(width=1, color="#222222")),
                hovertemplate=f"knee, C = {int(n_clusters[knee][0])}<extra>time {time_label}</extra>",
            ), row=1, col=column)
        fig.update_xaxes(title_text="f_cp (normalised)", range=[-0.05, 1.05], row=1, col=column)
    fig.update_yaxes(title_text="f_sep (normalised)", range=[-0.05, 1.05], row=1, col=1)
    kind = "accumulated" if accumulated else "raw"
    fig.update_layout(
        template=TEMPLATE, width=300 * len(wanted) + 120, height=400, legend_title="clusters",
        title=title or f"Final population in normalised objective space ({kind} objectives)",
    )
    return fig


def seconds_table(summary: pd.DataFrame) -> pd.DataFrame:
    """Mean seconds per time step: algorithms x data sets, plus the paper's columns.

    Parameters
    ----------
    summary : pandas.DataFrame
        Output of :func:`summary_table`.

    Returns
    -------
    pandas.DataFrame
        Index: algorithm; columns: data sets, then ``paper <data set>`` for
        each data set of the sweep the paper timed (Syn1, bird_flocks,
        video_mo), or ``paper Syn1`` when there is none.
    """
    wide = summary.pivot(index="algorithm", columns="dataset", values="seconds_per_step")
    wide = wide.reindex(index=_algorithm_order(list(wide.index)),
                        columns=list(dict.fromkeys(summary["dataset"])))
    timed = [name for name in wide.columns if name in PAPER_SECONDS_PER_STEP] or ["syn1"]
    for name in timed:
        paper = PAPER_SECONDS_PER_STEP[name]
        wide[f"paper {_display_dataset(name)}"] = [_lookup(paper, a, np.nan) for a in wide.index]
    return wide


def _seconds_figure(seconds: pd.DataFrame) -> "Figure":
    import plotly.graph_objects as go

    from .figures import TEMPLATE

    header = ["algorithm"] + [_column_title(c) for c in seconds.columns]
    cells = [list(seconds.index)] + [[_format_seconds(v) for v in seconds[c]] for c in seconds.columns]
    fig = go.Figure(go.Table(header=dict(values=header, align="left"), cells=dict(values=cells, align="left")))
    fig.update_layout(
        template=TEMPLATE, width=max(600, 110 * len(header)), height=110 + 32 * (len(seconds) + 1),
        margin=dict(t=50, b=10, l=20, r=20),
        title="Mean seconds per time step (this machine) and the paper's Table IV (Syn1)",
    )
    return fig


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def _format_seconds(value: float) -> str:
    return "n/a" if not np.isfinite(value) else f"{value:.4f}"


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def _score_cell(row: pd.Series | None, metric: str, best: bool) -> str:
    """'0.9545 ± 3.20E-03 >' for our runs, then the paper's number below it."""
    if row is None:
        ours = "not run"
    elif row["status"] != STATUS_OK:
        ours = row["status"]
    else:
        mean = f"{row[f'{metric}_mean']:.4f}"
        std = row[f"{metric}_std"]
        ours = (f"**{mean}**" if best else mean) + (f" ± {std:.2E}" if np.isfinite(std) else "")
        ours += f" {row[f'{metric}_mark']}".rstrip()
    return ours


def _paper_cell(metric: str, dataset: str, algorithm: str) -> str:
    paper = _paper_value(metric, dataset, algorithm)
    if paper is None:
        return ""
    mean, std, mark = paper
    return "paper n/a" if not np.isfinite(mean) else f"paper {mean:.4f} ± {std:.2E} {mark}".rstrip()


def _metric_section(summary: pd.DataFrame, metric: str, algorithms: Sequence[str]) -> str:
    datasets = list(dict.fromkeys(summary["dataset"]))
    rows = []
    for dataset in datasets:
        block = summary[summary["dataset"] == dataset].set_index("algorithm")
        means = block[f"{metric}_mean"].dropna()
        best = means.idxmax() if len(means) else None
        cells = [_display_dataset(dataset)]
        for algorithm in algorithms:
            row = block.loc[algorithm] if algorithm in block.index else None
            cell = _score_cell(row, metric, best == algorithm and len(means) > 1)
            paper = _paper_cell(metric, dataset, algorithm)
            cells.append(f"{cell}<br>{paper}" if paper else cell)
        rows.append(cells)
    return _markdown_table(["data set", *algorithms], rows)


def _difference_section(summary: pd.DataFrame, algorithms: Sequence[str]) -> str:
    rows = []
    for dataset in dict.fromkeys(summary["dataset"]):
        block = summary[summary["dataset"] == dataset].set_index("algorithm")
        cells = [_display_dataset(dataset)]
        for algorithm in algorithms:
            parts = []
            for metric in ("mRI", "mNMI"):
                ours = block.loc[algorithm, f"{metric}_mean"] if algorithm in block.index else np.nan
                paper = _paper_value(metric, dataset, algorithm)
                if np.isfinite(ours) and paper is not None and np.isfinite(paper[0]):
                    parts.append(f"{ours - paper[0]:+.4f}")
                else:
                    parts.append("–")
            cells.append(" / ".join(parts))
        rows.append(cells)
    return _markdown_table(["data set", *algorithms], rows)


def _clusters_section(summary: pd.DataFrame, algorithms: Sequence[str]) -> str:
    rows = []
    for dataset in dict.fromkeys(summary["dataset"]):
        block = summary[summary["dataset"] == dataset].set_index("algorithm")
        rows.append([_display_dataset(dataset)] + [
            f"{block.loc[a, 'mean_clusters']:.2f}" if a in block.index and np.isfinite(block.loc[a, "mean_clusters"])
            else "–" for a in algorithms
        ])
    return _markdown_table(["data set", *algorithms], rows)


def _problems_section(table: pd.DataFrame) -> str:
    problems = table[table["status"] != STATUS_OK]
    if problems.empty:
        return "Every run produced a partition."
    grouped = problems.groupby(["algorithm", "dataset", "status", "error"], sort=False)["run"].count()
    rows = [[a, _display_dataset(d), s, str(n), e.replace("|", "\\|")] for (a, d, s, e), n in grouped.items()]
    return _markdown_table(["algorithm", "data set", "status", "runs", "message"], rows)


def _smallest_p_value(n_runs: int, test: str) -> float:
    """Smallest two-sided exact p-value of the test with ``n_runs`` runs per side (no ties)."""
    from math import comb

    if test == "signed-rank":
        return min(1.0, 2.0 / 2.0**n_runs)
    return min(1.0, 2.0 / comb(2 * n_runs, n_runs))


def _representative_run(table: pd.DataFrame, algorithm: str, dataset: str, runs_dir: Path) -> int | None:
    """The run (with kept fronts) whose mRI is closest to the median mRI."""
    scores = per_run_scores(table)
    scores = scores[(scores["algorithm"] == algorithm) & (scores["dataset"] == dataset)]
    scores = scores[[load_fronts(runs_dir, algorithm, dataset, int(r)) is not None for r in scores["run"]]]
    if scores.empty:
        return None
    distance = (scores["mRI"] - scores["mRI"].median()).abs()
    return int(scores.loc[distance.sort_values(kind="stable").index[0], "run"])


def build_report(
    table: pd.DataFrame,
    report_dir: str | os.PathLike[str],
    *,
    runs_dir: str | os.PathLike[str] | None = None,
    reference: str = "ERCOT",
    test: str = "rank-sum",
    significance: float = 0.05,
    fronts_of: tuple[str, str] = ("ERCOT", "syn7"),
    fronts_times: Sequence[Any] = (4, 5, 6, 7),
    command: str | None = None,
    wall_seconds: float | None = None,
) -> dict[str, Path]:
    """Write ``report.md``, ``figures.html`` and ``runs.csv`` for a sweep.

    Parameters
    ----------
    table : pandas.DataFrame
        The run table of :func:`run_experiments`.
    report_dir : path
        Output folder (created if needed).
    runs_dir : path, optional
        Folder of the run files; needed for the final-population figure.
    reference : str, default="ERCOT"
        Algorithm the Wilcoxon marks compare against.
    test : {"rank-sum", "signed-rank"}, default="rank-sum"
    significance : float, default=0.05
    fronts_of : (algorithm, data set), default=("ERCOT", "syn7")
        Whose final populations the objective-space figure shows (one
        representative run: mRI closest to the median).
    fronts_times : sequence, default=(4, 5, 6, 7)
        Time labels of its panels.
    command : str, optional
        The command that made the sweep, quoted in the report.
    wall_seconds : float, optional
        Wall time of the sweep, quoted in the report.

    Returns
    -------
    dict
        ``{"report": path, "figures": path, "runs": path}``.
    """
    from .figures import save_html

    report_dir = Path(report_dir)
    report_dir.mkdir(parents=True, exist_ok=True)
    runs_path = report_dir / "runs.csv"
    table.to_csv(runs_path, index=False)

    summary = summary_table(table, reference=reference, test=test, significance=significance)
    present = list(dict.fromkeys(table["algorithm"]))
    columns = _algorithm_order(present + [p for p in PAPER_ALGORITHMS
                                          if not any(_name_key(p) == _name_key(a) for a in present)])
    n_runs = table["run"].nunique()
    datasets = list(dict.fromkeys(table["dataset"]))

    figures, figure_notes = [], []
    if "syn3" in datasets:
        figures.append(ri_per_step_figure(table, "syn3"))
        figure_notes.append("mean RI over the runs at each time step of Syn3, one line per algorithm "
                            "(paper Fig. 6)")
    alpha_sets = [d for d in ("syn3", "syn7") if d in datasets]
    if alpha_sets and reference in present:
        figures.append(alpha_per_step_figure(table, alpha_sets, algorithm=reference))
        figure_notes.append(f"{reference}'s smoothness weight alpha per time step on "
                            f"{' and '.join(map(_display_dataset, alpha_sets))}, mean ± std over the runs")
    fronts_run = None
    if runs_dir is not None and fronts_of[1] in datasets and fronts_of[0] in present:
        fronts_run = _representative_run(table, *fronts_of, Path(runs_dir))
    if fronts_run is not None:
        fronts = load_fronts(Path(runs_dir), *fronts_of, fronts_run)
        figures.append(fronts_figure(fronts, fronts_times, title=(
            f"{fronts_of[0]}'s final populations at times {', '.join(map(str, fronts_times))} of "
            f"{_display_dataset(fronts_of[1])} (run {fronts_run}), normalised accumulated objectives")))
        figure_notes.append(f"{fronts_of[0]}'s final populations at times "
                            f"{', '.join(map(str, fronts_times))} of {_display_dataset(fronts_of[1])} in "
                            f"normalised objective space, coloured by number of clusters C (run {fronts_run}, "
                            "the run whose mRI is closest to the median; paper Fig. 8)")
    seconds = seconds_table(summary)
    figures.append(_seconds_figure(seconds))
    figure_notes.append("Table IV (seconds per time step) as a figure")
    figures_path = save_html(figures, report_dir / "figures.html", title="ercot-nb: the paper's experiments")

    test_text = ("two-sided Mann-Whitney rank-sum test of the per-run values" if test == "rank-sum"
                 else "two-sided Wilcoxon signed-rank test, runs paired by index (zero_method='zsplit')")
    lines = [
        "# The paper's experiments, reproduced",
        "",
        f"{n_runs} run(s) per algorithm and data set: algorithm seed = run index, every data set generated "
        "once (data seed 0). Each cell gives our mean ± std over the runs, then the paper's number "
        "(Tables II and III of Zhao, Yan & Shi, IEEE TCYB 2021).",
        "",
        f"Marks compare each algorithm with {reference}: {test_text} at {significance}. "
        f"'>' {reference} is significantly better, '≈' no significant difference, no mark: the competitor "
        f"is significantly better. Bold: our best mean on the row. 'n/a': the algorithm refused the data "
        "set; 'not run': not in this sweep.",
    ]
    smallest_p = _smallest_p_value(n_runs, test)
    if smallest_p >= significance:
        lines += ["", f"**With {n_runs} run(s) per algorithm no difference can be significant**: the smallest "
                      f"p-value the {test} test can give is {smallest_p:.3g} >= {significance}, so every mark "
                      "is '≈'."]
    if command:
        lines += ["", f"Command: `{command}`"]
    if wall_seconds is not None:
        lines += ["", f"Wall time of this sweep: {wall_seconds:.0f} s ({wall_seconds / 60:.1f} min)."]
    lines += [
        "", "## Table II: mRI", "", _metric_section(summary, "mRI", columns),
        "", "## Table III: mNMI", "", _metric_section(summary, "mNMI", columns),
        "", "## Our mean minus the paper's (mRI / mNMI)", "", _difference_section(summary, columns),
        "", "## Table IV: mean seconds per time step", "",
        "Measured on this machine, one worker process per core and one numba thread per run; the "
        "'paper' columns give the paper's times for comparison.", "",
        _markdown_table(["algorithm", *[_column_title(c) for c in seconds.columns]],
                        [[name, *[_format_seconds(v) for v in seconds.loc[name]]] for name in seconds.index]),
        "", "## Mean number of clusters per time step", "", _clusters_section(summary, columns),
        "", "## Figures", "",
        "[`figures.html`](figures.html) is one self-contained page (plotly.js embedded, works offline) with:",
        "",
        *[f"{i}. {note}" for i, note in enumerate(figure_notes, start=1)],
        "", "## Runs without a partition", "", _problems_section(table),
        "", "## Files", "",
        "- `runs.csv`: one row per time step of every run (algorithm, dataset, run, t, time, n_samples, "
        "RI, NMI, n_clusters, alpha, seconds, status, error).",
        "- `figures.html`: the figures above.",
        "- `runs/`: one CSV file per run (and the final populations of the runs the objective-space "
        "figure draws from), written as each run finished; rerunning the command resumes from them. "
        "Delete it after changing an algorithm, since runs are matched by their parameters only.",
        "",
    ]
    report_path = report_dir / "report.md"
    report_path.write_text("\n".join(lines), encoding="utf-8")
    return {"report": report_path, "figures": figures_path, "runs": runs_path}


# ---------------------------------------------------------------------------
# Command line (``ercot-nb experiments``)
# ---------------------------------------------------------------------------


def _parameter(text: str) -> tuple[str, str, Any]:
    """Parse ``ALGORITHM:NAME=VALUE``; VALUE is a Python literal or else a string."""
    match = re.fullmatch(r"([^:=]+):([A-Za-z_]\w*)=(.*)", text)
    if not match:
        raise argparse.ArgumentTypeError(f"expected ALGORITHM:NAME=VALUE, got {text!r}")
    algorithm, name, raw = match.groups()
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    return algorithm, name, value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``ercot-nb experiments`` options to ``parser``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    """
    parser.add_argument("--runs", type=int, default=30, metavar="N",
                        help="runs per algorithm and data set, seeds 0..N-1 (default: 30)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="report folder: report.md, figures.html, runs.csv; run files in DIR/runs")
    parser.add_argument("--algorithms", nargs="+", metavar="NAME",
                        help="registered algorithms (default: all)")
    parser.add_argument("--datasets", nargs="+", metavar="NAME", type=str.lower,
                        help="built-in data sets (default: syn1 ... syn8)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run on this dask.distributed scheduler (default: local worker processes)")
    parser.add_argument("--workers", type=int, metavar="N",
                        help="local worker processes (default: one per CPU)")
    parser.add_argument("--param", action="append", type=_parameter, default=[],
                        metavar="ALGORITHM:NAME=VALUE",
                        help="estimator parameter, repeatable, e.g. ERCOT:pop_size=20")
    parser.add_argument("--known-k", nargs="*", metavar="NAME",
                        help="algorithms given the true number of clusters on data sets that have one "
                             f"(default: {' '.join(DEFAULT_KNOWN_K)})")
    parser.add_argument("--test", choices=TESTS, default="rank-sum",
                        help="Wilcoxon test of the marks: rank-sum (unpaired, default) or signed-rank "
                             "(paired by run)")
    parser.add_argument("--significance", type=float, default=0.05, metavar="P",
                        help="significance level of the marks (default: 0.05)")
    parser.add_argument("--report-only", action="store_true",
                        help="rebuild the report from the run files in DIR/runs without running")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def _command_text(args: argparse.Namespace, algorithms: Sequence[str], datasets: Sequence[str]) -> str:
    parts = ["ercot-nb experiments", f"--runs {args.runs}", f"--out {args.out}",
             "--algorithms " + " ".join(algorithms), "--datasets " + " ".join(datasets)]
    parts += [f"--param {a}:{n}={v!r}" for a, n, v in args.param]
    if args.known_k is not None:
        parts.append("--known-k " + " ".join(args.known_k))
    if args.test != "rank-sum":
        parts.append(f"--test {args.test}")
    return " ".join(parts)


def run_from_args(args: argparse.Namespace) -> int:
    """Run the sweep and write the report, as ``ercot-nb experiments`` does.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed by a parser set up with :func:`add_arguments`.

    Returns
    -------
    int
        Exit code 0.

    Raises
    ------
    ValueError
        For unknown names, invalid parameters or conflicting run files.
    """
    from . import algorithms as registry

    if args.runs < 1:
        raise ValueError(f"--runs must be at least 1, got {args.runs}")
    names = [_registered_name(n) for n in (args.algorithms or registry.available())]
    datasets = list(args.datasets or SYNTHETIC_DATASETS)
    params: dict[str, dict[str, Any]] = {}
    for algorithm, name, value in args.param:
        params.setdefault(_registered_name(algorithm), {})[name] = value
    if args.known_k is None:
        wanted = [n for n in DEFAULT_KNOWN_K if any(_name_key(n) == _name_key(a) for a in names)]
    else:
        wanted = [_registered_name(n) for n in args.known_k]
    for name in names:
        if any(_name_key(name) == _name_key(w) for w in wanted):
            params.setdefault(name, {}).setdefault("n_clusters", KNOWN_K)

    runs_dir = args.out / "runs"
    started = time.perf_counter()
    if args.report_only:
        table = load_runs(runs_dir, algorithms=names, datasets=datasets)
        table = table[table["run"] < args.runs].reset_index(drop=True)
        wall = None
    else:
        table = run_experiments(
            names, datasets, args.runs, params=params, out_dir=runs_dir,
            scheduler_address=args.scheduler, n_workers=args.workers, progress=not args.no_progress,
        )
        wall = time.perf_counter() - started
    if table.empty:
        raise ValueError(f"no runs found in {runs_dir}")
    paths = build_report(table, args.out, runs_dir=runs_dir, test=args.test, significance=args.significance,
                         command=_command_text(args, names, datasets), wall_seconds=wall)
    summary = summary_table(table, test=args.test, significance=args.significance)
    for metric in ("mRI", "mNMI"):
        wide = summary.assign(cell=[
            f"{m:.4f}{mark}" if status == STATUS_OK else status
            for m, mark, status in zip(summary[f"{metric}_mean"], summary[f"{metric}_mark"], summary["status"])
        ]).pivot(index="dataset", columns="algorithm", values="cell")
        print(f"\n{metric} (mean over runs; mark vs ERCOT)")
        print(wide.reindex(index=datasets, columns=_algorithm_order(names)).to_string())
    if wall is not None:
        print(f"\nwall time {wall:.1f} s for {table.drop_duplicates(['algorithm', 'dataset', 'run']).shape[0]} runs")
    for kind, path in paths.items():
        print(f"{kind}: {path}")
    return 0
