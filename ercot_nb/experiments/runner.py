"""The sweep: algorithms x data sets x runs on a Dask cluster, each run written as it finishes.

Why Dask for local runs too (instead of ``concurrent.futures``): one code
path for a laptop and a cluster, and a worker process that dies (out of
memory, a crash in compiled code, a kill) costs only the run it held, which
the scheduler reruns elsewhere, whereas a ``ProcessPoolExecutor`` is then
broken and fails every pending run.  Local workers are one process per CPU,
one thread each, with numba limited to one thread (no oversubscription).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from distributed import Client, LocalCluster, as_completed

from .. import algorithms as registry
from .. import datasets as builtin
from .._progress import progress_bar
from ..algorithms import name_key
from ..metrics import score_steps
from ..algorithms import estimator_params
from ..params import validate_params
from .spec import (
    DEFAULT_KEEP_FRONTS,
    KNOWN_K,
    RUN_COLUMNS,
    STATUS_FAILED,
    STATUS_NOT_APPLICABLE,
    STATUS_OK,
    RunOutput,
    RunSpec,
    lookup,
    one_line,
    registered_name,
    status_rows,
)
from .store import finished_status, needs_run, ordered_table, read_finished, record_settings, run_path, save_run

_WARMED_UP: set[str] = set()
"""Settings ids already fitted once in this process (see :func:`_warm_up`)."""


def _warm_up(spec: RunSpec, data: Any) -> None:
    """Fit the first two steps once per process and settings, untimed.

    The first fit in a fresh worker process loads or compiles numba kernels
    (seconds); without this, that one-off cost would land in the first run's
    seconds per step.  Errors are left to the real fit to report.
    """
    if spec.settings_id in _WARMED_UP:
        return
    _WARMED_UP.add(spec.settings_id)
    try:
        estimator = registry.make(spec.algorithm, **spec.params)
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
    try:
        data = builtin.load(spec.dataset, seed=spec.data_seed, **spec.dataset_params)
        estimator = registry.make(spec.algorithm, **spec.params)
        accepted = estimator.get_params()
        estimator.set_params(**{k: v for k, v in (("seed", spec.run), ("progress", False)) if k in accepted})
    except Exception as exc:  # configuration problems are failures, not n/a
        return RunOutput(status_rows(spec, STATUS_FAILED, one_line(exc)))
    _warm_up(spec, data)
    try:
        estimator.fit(data)
    except ValueError as exc:
        return RunOutput(status_rows(spec, STATUS_NOT_APPLICABLE, one_line(exc)))
    except Exception as exc:
        return RunOutput(status_rows(spec, STATUS_FAILED, one_line(exc)))
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
        return RunOutput(status_rows(spec, STATUS_FAILED, one_line(exc)))
    return RunOutput(rows, fronts)


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
    names = [registered_name(name) for name in algorithms]
    dataset_params = (
        {name.lower(): dict(extra or {}) for name, extra in datasets.items()}
        if isinstance(datasets, Mapping) else {name.lower(): {} for name in datasets}
    )
    unknown = [name for name in (params or {}) if not any(name_key(name) == name_key(n) for n in names)]
    if unknown:
        raise ValueError(f"parameters given for algorithms not in the sweep: {unknown}")
    known_k = {name: dataset_k(name, data_seed, extra) for name, extra in dataset_params.items()}
    kept = {(name_key(a), d.lower()) for a, d in keep_fronts}
    run_indices = list(range(runs)) if isinstance(runs, (int, np.integer)) else [int(r) for r in runs]
    specs = []
    for name in names:
        given = dict(lookup(params, name, {}) or {})
        for dataset, extra in dataset_params.items():
            resolved = _resolve_params(given, known_k[dataset])
            check_params(name, resolved)  # a wrong parameter fails here, once, before any run
            specs += [
                RunSpec(name, dataset, run, resolved, extra, data_seed, (name_key(name), dataset) in kept)
                for run in run_indices
            ]
    # run-major order: an interrupted sweep has every algorithm's first runs
    return sorted(specs, key=lambda s: s.run)


def check_params(algorithm: str, params: Mapping[str, Any]) -> None:
    """Refuse parameters the estimator would refuse at fit, before any run starts.

    Each value is checked against the estimator's parameter specs
    (:func:`ercot_nb.algorithms.estimator_params`); an algorithm registered
    without specs is only constructed.  Rules that tie parameters to the data
    (k-meansCOT needs a known k) stay with ``fit``, where they mean "n/a".

    Raises
    ------
    ValueError
        Naming the algorithm, the parameter and the allowed values.
    """
    cls = registry.get(algorithm)
    try:
        specs = estimator_params(cls)
    except ValueError:  # a class of one's own without param_specs: constructing it is the check
        specs = None
    try:
        if specs is not None:
            validate_params(algorithm, specs, dict(params))
        cls(**params)
    except TypeError as exc:  # unknown name or wrong type: a bad parameter, as ValueError
        raise ValueError(str(exc)) from None


def dataset_k(name: str, data_seed: int = 0, params: Mapping[str, Any] | None = None) -> int | None:
    """The true number of clusters :data:`KNOWN_K` stands for (``metadata["k"]``; None: unknown)."""
    return builtin.load(name, seed=data_seed, **dict(params or {})).metadata.get("k")


def local_cluster(n_workers: int | None = None) -> LocalCluster:
    """Worker processes on this machine, one thread each; numba kernels single-threaded.

    Processes (not threads) keep runs independent and make a crashing run
    kill only its worker, which the nanny restarts.  Everything listens on
    the loopback interface, on free ports.
    """
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
    ``out_dir/<algorithm>__<dataset>__run<NNN>.csv`` (atomically), then its
    completion record ``<stem>.done.json`` (row count and checksum).  Runs
    whose file matches its record are not run again, so an interrupted sweep
    resumes without losing or redoing finished runs; a run file that is
    partial, corrupt or unrecorded is never taken as finished: that run is
    done again, with a warning naming the file.

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
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    specs = _plan(algorithms, datasets, runs, params, keep_fronts, data_seed)
    pending = [spec for spec in specs if needs_run(finished_status(out_dir, spec), retry_failed)]
    record_settings(out_dir, specs)

    bar = progress_bar(total=len(specs), desc="runs", enabled=progress)
    bar.update(len(specs) - len(pending))
    cluster = None
    owned_client = None
    futures: dict[Any, RunSpec] = {}
    try:
        if pending:
            if client is None:
                if scheduler_address is None:
                    cluster = local_cluster(n_workers)
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
                    output = RunOutput(status_rows(spec, STATUS_FAILED, one_line(exc)))
                save_run(out_dir, spec, output)
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
    return ordered_table([read_finished(run_path(out_dir, spec))[1] for spec in specs], names, data_names)
