"""Result helpers over a run and its data: cluster flows between steps, a member's partition."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..data import Snapshot, TemporalDataset, common_ids
from ._result import ClusteringResult, StepResult

__all__ = ["cluster_flows", "member_partition"]


def _run(result: Any) -> ClusteringResult:
    inner = getattr(result, "result_", result)
    if not isinstance(inner, ClusteringResult):
        raise TypeError(f"expected a ClusteringResult or a fitted estimator, got {type(result).__name__}")
    return inner


def cluster_flows(result: ClusteringResult) -> list[dict[str, Any]]:
    """How many samples go from each cluster at t-1 to each cluster at t.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).

    Returns
    -------
    list of dict
        One entry per (step t >= 1, aligned label at t-1, aligned label at
        t) pair with shared samples: keys ``t``, ``source``, ``target`` and
        ``count``.  Samples that enter or leave between the steps are not
        counted.  A cluster that persists flows mostly into its own label; a
        split sends one source into several targets, a merge the reverse.
    """
    result = _run(result)
    flows: list[dict[str, Any]] = []
    for t in range(1, len(result)):
        previous, current = result[t - 1], result[t]
        a = Snapshot(previous.time, previous.ids, np.zeros((previous.n_samples, 0)))
        b = Snapshot(current.time, current.ids, np.zeros((current.n_samples, 0)))
        ia, ib = common_ids(a, b)
        if not len(ia):
            continue
        source, target = previous.aligned_labels[ia].astype(np.int64), current.aligned_labels[ib].astype(np.int64)
        # (source, target) pairs as one int each, in np.unique(axis=0)'s order (much faster)
        low = min(int(source.min()), int(target.min()))
        source, target = source - low, target - low
        width = int(target.max()) + 1
        codes, counts = np.unique(source * width + target, return_counts=True)
        flows.extend(
            dict(t=t, source=int(code // width) + low, target=int(code % width) + low, count=int(count))
            for code, count in zip(codes.tolist(), counts.tolist())
        )
    return flows


def member_partition(dataset: TemporalDataset, result: Any, t: int, member: int) -> StepResult:
    """Partition of step ``t`` by another member of its final population.

    Shorthand for ``ClusteringResult.member_partition`` with step
    ``t``'s data: a cluster shared with the knee keeps its label and colour.

    Parameters
    ----------
    dataset : TemporalDataset
        The data the result was fitted on.
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    t : int
        0-based step index (negative counts from the end).
    member : int
        Index into step ``t``'s final population.

    Returns
    -------
    StepResult
    """
    result = _run(result)
    n = len(result)
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not -n <= t < n:
        raise IndexError(f"step t={t!r} is out of range for a result with {n} step(s)")
    t = int(t) % n
    return result.member_partition(dataset[t].X, t, member)
