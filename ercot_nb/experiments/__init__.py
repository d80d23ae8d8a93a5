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
beside the published numbers of :mod:`ercot_nb.paper`), figures as one
offline Plotly HTML page, and ``runs.csv``.  ``ercot-nb experiments`` does
both in one command.

=======================  =====================================================
module                   holds
=======================  =====================================================
:mod:`.spec`             a run's specification and output, statuses, names
:mod:`.runner`           :func:`run_experiments`, :func:`execute_run`
:mod:`.store`            run files: :func:`load_runs`, :func:`load_fronts`
:mod:`.statistics`       :func:`per_run_scores`, :func:`mark_against_reference`,
                         :func:`significance_marks`, :func:`summary_table`,
                         :func:`seconds_table`
:mod:`.figures`          :func:`ri_per_step_figure` (paper Fig. 6),
                         :func:`alpha_per_step_figure`, :func:`fronts_figure`
                         (Fig. 8)
:mod:`.report`           :func:`build_report`: report.md, figures.html, runs.csv
:mod:`.cli`              ``ercot-nb experiments``: :func:`add_arguments`,
                         :func:`run_from_args`
=======================  =====================================================

Examples
--------
>>> from ercot_nb.experiments import run_experiments, build_report
>>> table = run_experiments(                                 # doctest: +SKIP
...     ["ERCOT", "staticEC"], ["syn3", "syn7"], 30, out_dir="results/runs")
>>> build_report(table, "results", runs_dir="results/runs")  # doctest: +SKIP
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Names are imported on first use, so that ``ercot-nb --help`` (which adds the
# options of :mod:`.cli`) loads neither Dask nor SciPy.
_LAZY = {
    "PAPER_ALGORITHMS": "..paper", "PAPER_RESULTS": "..paper", "PAPER_SECONDS_PER_STEP": "..paper",
    "add_arguments": ".cli", "run_from_args": ".cli",
    "alpha_per_step_figure": ".figures", "fronts_figure": ".figures", "ri_per_step_figure": ".figures",
    "build_report": ".report",
    "execute_run": ".runner", "run_experiments": ".runner",
    "KNOWN_K": ".spec", "RUN_COLUMNS": ".spec", "STATUS_FAILED": ".spec", "STATUS_NOT_APPLICABLE": ".spec",
    "STATUS_OK": ".spec", "SYNTHETIC_DATASETS": ".spec", "RunOutput": ".spec", "RunSpec": ".spec",
    "mark_against_reference": ".statistics", "per_run_scores": ".statistics", "seconds_table": ".statistics",
    "significance_marks": ".statistics", "summary_table": ".statistics",
    "load_fronts": ".store", "load_runs": ".store",
}

if TYPE_CHECKING:  # pragma: no cover
    from ..paper import PAPER_ALGORITHMS, PAPER_RESULTS, PAPER_SECONDS_PER_STEP
    from .cli import add_arguments, run_from_args
    from .figures import alpha_per_step_figure, fronts_figure, ri_per_step_figure
    from .report import build_report
    from .runner import execute_run, run_experiments
    from .spec import (
        KNOWN_K,
        RUN_COLUMNS,
        STATUS_FAILED,
        STATUS_NOT_APPLICABLE,
        STATUS_OK,
        SYNTHETIC_DATASETS,
        RunOutput,
        RunSpec,
    )
    from .statistics import (
        mark_against_reference,
        per_run_scores,
        seconds_table,
        significance_marks,
        summary_table,
    )
    from .store import load_fronts, load_runs


_SUBMODULES = ("cli", "figures", "report", "runner", "spec", "statistics", "store")


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


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
