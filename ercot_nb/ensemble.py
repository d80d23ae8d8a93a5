"""How sure: a seed ensemble of runs, merged step by step into a consensus partition.

ERCOT is stochastic; one run's partition is one draw.  :func:`ensemble` fits
the same estimator with several seeds (on a Dask cluster when given a
client, in local worker processes with ``n_jobs``, else one after another)
and :func:`consensus` merges the runs:

1. at every step, the reference is the medoid run (highest summed Rand index
   to the other runs);
2. each run's clusters are matched to the reference's by the Hungarian
   algorithm on their contingency table (maximum shared samples,
   :func:`scipy.optimize.linear_sum_assignment`); a run's unmatched clusters
   vote for no reference cluster;
3. every sample takes the cluster most runs vote for, and that vote share is
   its *agreement* (1: all runs put it there); a tie keeps the reference's
   cluster;
4. steps 2-3 repeat with the consensus as reference until it stops changing
   (at most ``n_iter`` times);
5. the consensus is then carried over time like a run's labels
   (:func:`ercot_nb.result.align_labels`).

Clusters are numbered by first appearance throughout, so the consensus does
not depend on the names the runs give their clusters.

Bands of the smoothness weight alpha and of the number of clusters across
the runs come with it (:meth:`Ensemble.steps_frame`).
"""
from __future__ import annotations

import ast
import multiprocessing
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .metrics import contingency, rand_index
from .params import check_argument
from .result import ClusteringResult, align_labels

if TYPE_CHECKING:  # pragma: no cover
    from distributed import Client

__all__ = ["Ensemble", "consensus", "ensemble", "consensus_step", "step_agreement"]


@dataclass
class Ensemble:
    """Runs of one estimator with several seeds and their consensus.

    Attributes
    ----------
    results : list of ClusteringResult
        One run per seed, in the order of ``seeds``.
    seeds : list
    ids, times : list
        Sample ids and time label of each step.
    labels : list of int64 ndarray
        Consensus cluster of every sample, numbered 0..k-1 per step.
    aligned_labels : list of int64 ndarray
        The consensus carried over time (a cluster keeps its label).
    agreement : list of float ndarray
        Share of runs that put each sample in its consensus cluster.
    band : tuple of float
        Lower and upper quantiles of the bands in :meth:`steps_frame`.
    """

    results: list[ClusteringResult]
    seeds: list
    ids: list[np.ndarray]
    times: list
    labels: list[np.ndarray]
    aligned_labels: list[np.ndarray]
    agreement: list[np.ndarray]
    band: tuple[float, float] = field(default=(0.1, 0.9))

    def __len__(self) -> int:
        return len(self.labels)

    def steps_frame(self) -> pd.DataFrame:
        """One row per step: consensus size, agreement, and bands across the runs.

        Columns ``t, time, n_samples, n_clusters`` (of the consensus),
        ``agreement_mean``, ``agreement_min``, ``share_unanimous`` (samples
        all runs agree on), then for ``alpha`` and ``n_clusters`` of the runs
        their median and the ``band`` quantiles (``alpha_low``,
        ``alpha_median``, ``alpha_high``, ``runs_n_clusters_low``, ...); the
        bands of the number of clusters are taken outward (``lower`` and
        ``higher`` quantiles), so they stay whole numbers of clusters.
        """
        low, high = self.band
        alpha = np.array([r.alpha for r in self.results], dtype=float)  # (runs, steps)
        n_clusters = np.array([r.n_clusters for r in self.results], dtype=float)
        rows = []
        for t, (labels, agree) in enumerate(zip(self.labels, self.agreement)):
            a = alpha[:, t][~np.isnan(alpha[:, t])]
            rows.append({
                "t": t,
                "time": self.times[t],
                "n_samples": len(labels),
                "n_clusters": int(len(np.unique(labels))),
                "agreement_mean": float(agree.mean()) if len(agree) else np.nan,
                "agreement_min": float(agree.min()) if len(agree) else np.nan,
                "share_unanimous": float(np.mean(agree == 1.0)) if len(agree) else np.nan,
                "alpha_low": float(np.quantile(a, low)) if len(a) else np.nan,
                "alpha_median": float(np.median(a)) if len(a) else np.nan,
                "alpha_high": float(np.quantile(a, high)) if len(a) else np.nan,
                "runs_n_clusters_low": int(np.quantile(n_clusters[:, t], low, method="lower")),
                "runs_n_clusters_median": float(np.median(n_clusters[:, t])),
                "runs_n_clusters_high": int(np.quantile(n_clusters[:, t], high, method="higher")),
            })
        return pd.DataFrame(rows)

    def to_result(self, data: Any) -> ClusteringResult:
        """The consensus partition as a result, for the figures of a run.

        Parameters
        ----------
        data : TemporalDataset
            The data the runs were fitted on (centroids are the consensus
            clusters' means).

        Returns
        -------
        ClusteringResult
            Named ``"consensus of N runs"``; its time-aligned labels are
            :attr:`aligned_labels`.  Draw :attr:`agreement` with it, e.g.
            ``figures.partition_figure(data, ens.to_result(data), t, agreement=ens)``.

        Raises
        ------
        ValueError
            If ``data`` has other steps or ids than the runs.
        """
        if len(data) != len(self):
            raise ValueError(f"data has {len(data)} steps but the ensemble {len(self)}: pass the data it was fitted on")
        for t, (snapshot, ids) in enumerate(zip(data, self.ids)):
            if not np.array_equal(snapshot.ids, ids):
                raise ValueError(f"step {t} (time={self.times[t]!r}): data ids differ from the ensemble's")
        return ClusteringResult.from_labels(data, self.labels, algorithm=f"consensus of {len(self.results)} runs")

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per (step, sample) with ``t, time, id, label, aligned_label, agreement``."""
        frames = [
            pd.DataFrame({"t": t, "time": [self.times[t]] * len(ids), "id": ids, "label": labels,
                          "aligned_label": aligned, "agreement": agree})
            for t, (ids, labels, aligned, agree) in enumerate(
                zip(self.ids, self.labels, self.aligned_labels, self.agreement))
        ]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
            columns=["t", "time", "id", "label", "aligned_label", "agreement"])

    def __repr__(self) -> str:
        return f"Ensemble(runs={len(self.results)}, steps={len(self)})"


def _match_to(reference: np.ndarray, labels: np.ndarray, k_ref: int) -> np.ndarray:
    """``labels`` renamed to the reference cluster each is matched to (-1 if unmatched)."""
    table, classes_ref, classes = contingency(reference, labels, return_classes=True)
    # imported here: a fresh app process imports this module without needing
    # scipy.optimize (about 0.3 s) before its first page
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(table, maximize=True)
    lookup = np.full(len(classes), -1, dtype=np.int64)
    keep = table[rows, cols] > 0
    lookup[cols[keep]] = classes_ref[rows[keep]]
    return lookup[np.searchsorted(classes, labels)]


def _by_first_appearance(labels: np.ndarray) -> np.ndarray:
    """``labels`` renamed 0..k-1 in order of first appearance (names do not matter)."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.reshape(-1)]


def consensus_step(runs: Sequence[np.ndarray], *, n_iter: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """Consensus partition and per-sample agreement of several partitions of the same samples.

    Parameters
    ----------
    runs : sequence of array-like of shape (n_samples,)
        One labeling per run (any label values, same sample order).
    n_iter : int, default=5
        Most re-alignments to the consensus.

    Returns
    -------
    labels : int64 ndarray of shape (n_samples,)
        Consensus clusters numbered 0..k-1 in order of first appearance.
    agreement : float ndarray of shape (n_samples,)
        Share of runs whose matched cluster is the consensus one.
    """
    n_iter = check_argument("consensus_step", "n_iter", n_iter, "int", default=5, low=0)
    runs = [_by_first_appearance(np.asarray(r).reshape(-1)) for r in runs]
    if not runs:
        raise ValueError("consensus needs at least one run")
    n = len(runs[0])
    if any(len(r) != n for r in runs):
        raise ValueError(f"every run must label the same {n} samples")
    if len(runs) > 2:
        scores = np.zeros(len(runs))
        for i in range(len(runs)):
            for j in range(i + 1, len(runs)):
                value = rand_index(runs[i], runs[j])
                scores[i] += value
                scores[j] += value
        reference = runs[int(np.argmax(scores))]
    else:
        reference = runs[0]
    votes = np.zeros((n, 1))
    for _ in range(max(n_iter, 1)):
        k_ref = int(reference.max()) + 1 if n else 0
        votes = np.zeros((n, max(k_ref, 1)))
        for labels in runs:
            matched = _match_to(reference, labels, k_ref)
            hit = matched >= 0
            votes[np.flatnonzero(hit), matched[hit]] += 1
        winner = votes.argmax(axis=1)
        tie_with_reference = votes[np.arange(n), reference] == votes[np.arange(n), winner]
        winner[tie_with_reference] = reference[tie_with_reference]
        new_reference = _by_first_appearance(winner)
        if np.array_equal(new_reference, reference):
            break
        reference = new_reference
    agreement = votes[np.arange(n), votes.argmax(axis=1)] / len(runs)
    return reference.astype(np.int64), agreement


def consensus(
    results: Sequence[ClusteringResult],
    seeds: Sequence[Any] | None = None,
    *,
    n_iter: int = 5,
    band: tuple[float, float] = (0.1, 0.9),
) -> Ensemble:
    """Merge runs on the same data into a consensus partition per step.

    Parameters
    ----------
    results : sequence of ClusteringResult
        Runs on the same data (same steps, same ids in the same order).
    seeds : sequence, optional
        Their seeds, kept for the record.
    n_iter : int, default=5
        See :func:`consensus_step`.
    band : (float, float), default=(0.1, 0.9)
        Quantiles of the bands in :meth:`Ensemble.steps_frame`.

    Returns
    -------
    Ensemble

    Raises
    ------
    ValueError
        If the runs differ in steps or ids (the message names the run and step).
    """
    results = list(results)
    if not results:
        raise ValueError("consensus needs at least one run")
    n_iter = check_argument("consensus", "n_iter", n_iter, "int", default=5, low=0)
    if isinstance(band, (str, bytes)) or np.ndim(band) != 1 or len(band) != 2:
        raise TypeError(f"consensus: band must be two quantiles (low, high), got {band!r}")
    band = (check_argument("consensus", "band[0]", band[0], "float", default=0.1, low=0.0, high=1.0),
            check_argument("consensus", "band[1]", band[1], "float", default=0.9, low=0.0, high=1.0))
    if not band[0] <= band[1]:
        raise ValueError(f"consensus: band must be two quantiles 0 <= low <= high <= 1, got {band!r}")
    first = results[0]
    for r, result in enumerate(results[1:], start=1):
        if len(result) != len(first):
            raise ValueError(f"run {r} has {len(result)} step(s), run 0 has {len(first)}")
        for t, (a, b) in enumerate(zip(first, result)):
            if not np.array_equal(a.ids, b.ids):
                raise ValueError(f"run {r}, step {t} (time={b.time!r}): ids differ from run 0's")
    labels, agreement, aligned = [], [], []
    previous_ids = previous_aligned = None
    next_label = 0
    for t, step in enumerate(first):
        step_labels, step_agreement = consensus_step([r[t].labels for r in results], n_iter=n_iter)
        step_aligned, next_label = align_labels(previous_ids, previous_aligned, step.ids, step_labels,
                                                next_label)
        labels.append(step_labels)
        agreement.append(step_agreement)
        aligned.append(step_aligned)
        previous_ids, previous_aligned = step.ids, step_aligned
    return Ensemble(
        results=results,
        seeds=list(seeds) if seeds is not None else list(range(len(results))),
        ids=[s.ids for s in first],
        times=[s.time for s in first],
        labels=labels,
        aligned_labels=aligned,
        agreement=agreement,
        band=tuple(band),
    )


def _fit_seed(estimator: Any, data: Any, seed: Any) -> ClusteringResult:
    """Fit a copy of ``estimator`` with ``seed`` on ``data`` (runs in a worker)."""
    model = estimator.clone().set_params(seed=seed)
    if "progress" in model.get_params():
        model.set_params(progress=False)
    return model.fit(data).result_


def _one_thread() -> None:
    """Worker initialiser: numba kernels on one thread (one run per process)."""
    try:
        import numba

        numba.set_num_threads(1)
    except ImportError:  # pragma: no cover - numpy backend only
        pass


def _is_main_guard(node: ast.stmt) -> bool:
    """``if __name__ == "__main__":`` (either side of the comparison)."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    sides = [node.test.left, *node.test.comparators]
    names = any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides)
    main = any(isinstance(side, ast.Constant) and side.value == "__main__" for side in sides)
    return names and main and len(node.test.ops) == 1 and isinstance(node.test.ops[0], (ast.Eq, ast.Is))


def _unguarded_script_line() -> tuple[str, int] | None:
    """(file, line) of the script's top-level statement that leads here, if not under the main guard.

    Worker processes started with ``spawn`` import the main script again; its
    top-level code outside ``if __name__ == "__main__":`` runs in every worker.
    None when there is no script file (a notebook, ``python -c``) or the call
    comes from under the guard.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or not path:
        return None
    frame, module_level = sys._getframe(1), None
    while frame is not None:  # the script's module-level frame, wherever it is on the stack
        if frame.f_globals is vars(main) and frame.f_code.co_name == "<module>":
            module_level = frame
        frame = frame.f_back
    if module_level is None:
        return None
    frame = module_level
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return None
    line = frame.f_lineno
    for node in tree.body:
        if node.lineno <= line <= (node.end_lineno or node.lineno):
            return None if _is_main_guard(node) else (path, line)
    return None


def _guard_message(where: str) -> str:
    return (
        f"ensemble(n_jobs=...) starts worker processes with the 'spawn' method, and each imports the "
        f"main script again: the script's top-level code ({where}) would run once more in every worker "
        "and start workers of its own. Put the script's code under `if __name__ == \"__main__\":` "
        "(or run the seeds here with n_jobs=None)"
    )


def _check_spawn_safe() -> None:
    """Refuse to start worker processes from a script's unguarded top-level code."""
    if getattr(multiprocessing.current_process(), "_inheriting", False):
        # a spawned worker still importing the main script reached this call
        raise RuntimeError(_guard_message("reached again while a worker was starting"))
    found = _unguarded_script_line()
    if found is not None:
        raise RuntimeError(_guard_message(f"{found[0]}, line {found[1]}"))


def ensemble(
    estimator: Any,
    data: Any,
    seeds: Sequence[int],
    client: "Client | None" = None,
    *,
    n_jobs: int | None = None,
    n_iter: int = 5,
    band: tuple[float, float] = (0.1, 0.9),
) -> Ensemble:
    """Fit ``estimator`` once per seed on ``data`` and merge the runs.

    Parameters
    ----------
    estimator : ERCOT or any estimator of :mod:`ercot_nb.algorithms`
        Its parameters are used, ``seed`` replaced; it is not fitted itself.
    data : TemporalDataset or list of ndarray
    seeds : sequence of int
        One run per seed (at least one).
    client : distributed.Client, optional
        Run each seed as one task on this Dask cluster (data scattered once).
    n_jobs : int, optional
        Without a client: this many local worker processes (numba on one
        thread each); ``None`` or 1 runs the seeds one after another here.
        Workers are started with the ``spawn`` method, which imports the
        main script again in each: in a script, call ``ensemble`` from under
        ``if __name__ == "__main__":`` (a call from unguarded top-level code
        is refused with a ``RuntimeError`` saying so; notebooks need
        nothing).
    n_iter, band
        See :func:`consensus`.

    Returns
    -------
    Ensemble

    Raises
    ------
    RuntimeError
        With ``n_jobs > 1`` called from a script's top-level code outside
        ``if __name__ == "__main__":``, or when a worker process fails to
        start (the message says what to do).

    Examples
    --------
    >>> from ercot_nb import ERCOT, datasets
    >>> from ercot_nb.ensemble import ensemble
    >>> runs = ensemble(ERCOT(), datasets.load("syn3"), seeds=range(10))  # doctest: +SKIP
    >>> runs.steps_frame()[["time", "agreement_mean", "alpha_low", "alpha_high"]]  # doctest: +SKIP
    """
    n_jobs = check_argument("ensemble", "n_jobs", n_jobs, "int", default=None, low=1, optional=True)
    n_iter = check_argument("ensemble", "n_iter", n_iter, "int", default=5, low=0)
    seeds = list(seeds)
    if not seeds:
        raise ValueError("ensemble needs at least one seed")
    if "seed" not in estimator.get_params():
        raise TypeError(f"{type(estimator).__name__} has no 'seed' parameter to vary")
    estimator = estimator.clone()  # ship parameters only, never a fitted state
    if client is not None:
        shared = client.scatter(data, broadcast=True)
        futures = [client.submit(_fit_seed, estimator, shared, seed, pure=False) for seed in seeds]
        results = client.gather(futures)
    elif n_jobs is not None and n_jobs > 1:
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool

        _check_spawn_safe()
        context = multiprocessing.get_context("spawn")
        try:
            with ProcessPoolExecutor(max_workers=n_jobs, mp_context=context, initializer=_one_thread) as pool:
                results = list(pool.map(_fit_seed, [estimator] * len(seeds), [data] * len(seeds), seeds))
        except BrokenProcessPool as exc:
            raise RuntimeError(
                f"ensemble(n_jobs={n_jobs}): a worker process died before finishing ({exc}). In a script, "
                "the usual cause is top-level code outside `if __name__ == \"__main__\":` (each worker "
                "imports the script again); otherwise the machine may be out of memory: lower n_jobs"
            ) from None
    else:
        results = [_fit_seed(estimator, data, seed) for seed in seeds]
    return consensus(results, seeds, n_iter=n_iter, band=band)


def step_agreement(agreement: Any, t: int, n_samples: int) -> tuple[np.ndarray, str]:
    """Step ``t``'s per-sample agreement and who agrees, checked.

    Parameters
    ----------
    agreement : Ensemble or array-like
        An :class:`ercot_nb.ensemble.Ensemble` (its ``agreement[t]``) or the
        agreement of step ``t``'s samples, in the dataset's sample order.
    t : int
    n_samples : int
        Samples at step ``t``.

    Returns
    -------
    values : float ndarray of shape (n_samples,)
    who : str
        ``"N runs"`` for an ensemble of N runs, else ``"the runs"``.

    Raises
    ------
    ValueError
        If the length differs from the step's or a value is outside [0, 1].
    """
    if hasattr(agreement, "agreement") and hasattr(agreement, "results"):
        values, who = agreement.agreement[t], f"{len(agreement.results)} runs"
    else:
        values, who = agreement, "the runs"
    values = np.asarray(values, dtype=np.float64)
    if values.shape != (n_samples,):
        raise ValueError(
            f"agreement of step {t} must hold one value per sample ({n_samples}), got shape {values.shape}"
        )
    if len(values) and not (np.all(values >= 0.0) and np.all(values <= 1.0)):
        raise ValueError(f"agreement of step {t} must be shares in [0, 1]")
    return values, who
