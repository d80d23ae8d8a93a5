"""Cluster lifecycle events between consecutive steps, with a permutation null model.

Clusters of consecutive steps are linked through the ids present at both
steps (the common ids).  For a cluster ``a`` of step t-1 and a cluster ``b``
of step t with ``n_ab`` common ids in both,

* the forward share ``n_ab / |a ∩ common|`` is how much of ``a`` went to ``b``;
* the backward share ``n_ab / |b ∩ common|`` is how much of ``b`` came from ``a``.

``a`` and ``b`` are *linked* when both shares are at least ``min_share``
(default 0.3, the Jaccard threshold of Greene, Doyle & Cunningham, "Tracking
the evolution of communities in dynamic social networks", ASONAM 2010, is of
the same kind), or when one of them exceeds ``majority`` (default 0.5:
most of ``a`` went to ``b``, or most of ``b`` came from ``a``, as in the
merge and split rules of Asur, Parthasarathy & Ucar, KDD 2007).  So six small
clusters that all pour into one big cluster merge, a cluster cut into four
quarters splits, and a cluster whose members spread evenly over three
existing clusters (a third of it to each, a quarter of each) dies.  The
events follow from the links:

===========  ================================================================
event        when
===========  ================================================================
birth        a cluster of t has no link (new ids, or scraps of several)
death        a cluster of t-1 has no link (ids gone, or absorbed in pieces)
split        a cluster of t-1 is linked to two or more clusters of t
merge        a cluster of t is linked to two or more clusters of t-1
grow         one-to-one link and the size rises by ``size_change`` or more
shrink       one-to-one link and the size falls by ``size_change`` or more
continue     any other one-to-one link
===========  ================================================================

Sizes are whole cluster sizes at each step (ids that come and go count).
Clusters are named by the result's time-aligned labels, so a cluster that
continues keeps its name.

The *link score* ``max(min(f, b) / min_share, max(f, b) / majority)`` of the
forward and backward shares ``f`` and ``b`` is at least 1 for every link
(above 1 where the majority makes it).
The null model asks whether a linked event could come from chance: the labels
of step t are shuffled among the common ids (cluster sizes kept), seeded,
``n_permutations`` times; the statistic of an event is the score of its
weakest link, and its p-value is
``(1 + #{shuffles with statistic >= observed}) / (1 + n_permutations)``.
A real split has a p-value near ``1 / (1 + n_permutations)``; one that random
relabelling produces as often is noise.  Births and deaths are the absence of
links, which shuffling produces by itself, so their p-value is nan.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .data import Snapshot, common_ids
from .params import check_argument

__all__ = ["EVENT_TYPES", "EVENT_COLUMNS", "step_events", "lifecycle_events"]

EVENT_TYPES = ("birth", "death", "split", "merge", "grow", "shrink", "continue")
EVENT_COLUMNS = (
    "t", "time", "event", "before", "after", "size_before", "size_after",
    "n_common_moved", "strength", "p_value",
)


def _common_positions(ids_prev: np.ndarray, ids_curr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the ids present at both steps (:func:`ercot_nb.data.common_ids`)."""
    return common_ids(Snapshot(0, ids_prev, np.empty((len(ids_prev), 0))),
                      Snapshot(1, ids_curr, np.empty((len(ids_curr), 0))))


def _check_options(owner: str, min_share: Any, majority: Any, size_change: Any, n_permutations: Any,
                   seed: Any) -> tuple[float, float, float, int, Any]:
    """The options of the public functions, checked by the parameter specs' rules."""
    min_share = check_argument(owner, "min_share", min_share, "float", default=0.3, low=0.0, low_open=True,
                               high=1.0)
    majority = check_argument(owner, "majority", majority, "float", default=0.5, low=min_share, high=1.0)
    size_change = check_argument(owner, "size_change", size_change, "float", default=0.2, low=0.0,
                                 high=1.0, low_open=True, high_open=True)
    n_permutations = check_argument(owner, "n_permutations", n_permutations, "int", default=199, low=0)
    seed = check_argument(owner, "seed", seed, "seed", default=0, optional=True)
    return min_share, majority, size_change, n_permutations, seed


def _scores(codes_prev: np.ndarray, codes_curr: np.ndarray, k_prev: int, k_curr: int,
            min_share: float, majority: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Contingency over common ids, link score and link flag of every pair of clusters."""
    table = np.bincount(codes_prev * k_curr + codes_curr, minlength=k_prev * k_curr).reshape(k_prev, k_curr)
    rows = table.sum(axis=1, keepdims=True)
    cols = table.sum(axis=0, keepdims=True)
    forward = np.divide(table, rows, out=np.zeros(table.shape), where=rows > 0)
    backward = np.divide(table, cols, out=np.zeros(table.shape), where=cols > 0)
    both = np.minimum(forward, backward) / min_share
    most = np.maximum(forward, backward) / majority
    linked = (both >= 1.0 - 1e-12) | (most > 1.0 + 1e-12)
    return table, np.maximum(both, most), linked


def step_events(
    ids_prev: Any,
    labels_prev: Any,
    ids_curr: Any,
    labels_curr: Any,
    *,
    min_share: float = 0.3,
    majority: float = 0.5,
    size_change: float = 0.2,
    n_permutations: int = 199,
    seed: Any = 0,
) -> pd.DataFrame:
    """Lifecycle events between two consecutive partitions.

    Parameters
    ----------
    ids_prev, labels_prev : array-like of shape (n_prev,)
        Ids and cluster labels of step t-1 (any hashable labels).
    ids_curr, labels_curr : array-like of shape (n_curr,)
        The same for step t.  Use time-aligned labels so that a continuing
        cluster keeps its name.
    min_share : float, default=0.3
        A link when both the forward and the backward share reach it ...
    majority : float, default=0.5
        ... or when one of them exceeds this.
    size_change : float, default=0.2
        Relative size change from which a one-to-one link is a grow
        (size_after >= (1 + size_change) size_before) or a shrink
        (size_after <= (1 - size_change) size_before).
    n_permutations : int, default=199
        Shuffles of the null model; 0 gives nan p-values.
    seed : int or None, default=0
        Seed of the shuffles.

    Returns
    -------
    pandas.DataFrame
        One row per event with the columns of :data:`EVENT_COLUMNS` except
        ``t`` and ``time``: ``event``; ``before`` and ``after`` (tuples of
        cluster labels at t-1 and t); their total sizes; ``n_common_moved``
        (common ids from ``before`` to ``after``); ``strength`` (the weakest
        link's score, >= 1; for births and deaths the best score of a pair
        that is no link); ``p_value``.

    Raises
    ------
    TypeError
        For an option of the wrong type (a bool for ``n_permutations``, text
        for ``seed``); the message names it.
    ValueError
        For an option out of range, ids repeated within a step or labels
        that do not match the ids.
    """
    min_share, majority, size_change, n_permutations, seed = _check_options(
        "step_events", min_share, majority, size_change, n_permutations, seed)
    for which, ids, labels in (("previous", ids_prev, labels_prev), ("current", ids_curr, labels_curr)):
        ids = np.asarray(ids)
        if ids.ndim != 1 or np.shape(labels) != ids.shape:
            raise ValueError(
                f"step_events: the {which} step needs 1-D ids and one label per id; got ids of shape "
                f"{ids.shape} and labels of shape {np.shape(labels)}")
        repeated = pd.unique(ids[pd.Series(ids).duplicated().to_numpy()])
        if len(repeated):
            shown = ", ".join(repr(v) for v in repeated[:5].tolist()) + (", ..." if len(repeated) > 5 else "")
            raise ValueError(
                f"step_events: ids of the {which} step must be unique; {len(repeated)} id(s) occur more "
                f"than once: [{shown}]. Give each sample one row per step")
    return _step_events(ids_prev, labels_prev, ids_curr, labels_curr, min_share, majority, size_change,
                        n_permutations, seed)


def _step_events(ids_prev: Any, labels_prev: Any, ids_curr: Any, labels_curr: Any, min_share: float,
                 majority: float, size_change: float, n_permutations: int, seed: Any) -> pd.DataFrame:
    """:func:`step_events` on checked options (``seed`` may also be a tuple of ints)."""
    labels_prev = np.asarray(labels_prev)
    labels_curr = np.asarray(labels_curr)
    if labels_prev.shape != np.shape(ids_prev) or labels_curr.shape != np.shape(ids_curr):
        raise ValueError("each step needs one label per id")
    classes_prev, codes_prev_all = np.unique(labels_prev, return_inverse=True)
    classes_curr, codes_curr_all = np.unique(labels_curr, return_inverse=True)
    k_prev, k_curr = len(classes_prev), len(classes_curr)
    size_prev = np.bincount(codes_prev_all.ravel(), minlength=k_prev)
    size_curr = np.bincount(codes_curr_all.ravel(), minlength=k_curr)
    ia, ib = _common_positions(np.asarray(ids_prev), np.asarray(ids_curr))
    codes_prev = codes_prev_all.ravel()[ia].astype(np.int64)
    codes_curr = codes_curr_all.ravel()[ib].astype(np.int64)
    table, strength, linked = _scores(codes_prev, codes_curr, k_prev, k_curr, min_share, majority)

    # Each event: (type, rows of t-1, cols of t, the links whose weakest share is its statistic).
    events: list[tuple[str, list[int], list[int], list[tuple[int, int]]]] = []
    in_degree = linked.sum(axis=0)
    for b in np.flatnonzero(in_degree == 0):
        events.append(("birth", [], [int(b)], []))
    for a in range(k_prev):
        targets = np.flatnonzero(linked[a])
        if len(targets) == 0:
            events.append(("death", [a], [], []))
        elif len(targets) >= 2:
            events.append(("split", [a], targets.tolist(), [(a, int(b)) for b in targets]))
        elif in_degree[targets[0]] == 1:
            b = int(targets[0])
            ratio = size_curr[b] / size_prev[a]
            kind = ("grow" if ratio >= 1.0 + size_change
                    else "shrink" if ratio <= 1.0 - size_change else "continue")
            events.append((kind, [a], [b], [(a, b)]))
    for b in np.flatnonzero(in_degree >= 2):
        sources = np.flatnonzero(linked[:, b])
        events.append(("merge", sources.tolist(), [int(b)], [(int(a), int(b)) for a in sources]))

    observed = np.array([min(strength[a, b] for a, b in links) if links else np.nan
                         for _, _, _, links in events])
    exceed = np.zeros(len(events))
    if n_permutations and len(codes_curr) and any(links for *_, links in events):
        rng = np.random.default_rng(seed)
        for _ in range(n_permutations):
            _, s_perm, _ = _scores(codes_prev, rng.permutation(codes_curr), k_prev, k_curr, min_share, majority)
            for i, (_, _, _, links) in enumerate(events):
                if links and min(s_perm[a, b] for a, b in links) >= observed[i] - 1e-12:
                    exceed[i] += 1
    rows = []
    for i, (kind, before, after, links) in enumerate(events):
        if links:
            value, p = observed[i], (
                (1.0 + exceed[i]) / (1.0 + n_permutations) if n_permutations else np.nan)
        elif kind == "birth":
            value, p = (float(strength[:, after[0]].max()) if k_prev else 0.0), np.nan
        else:
            value, p = (float(strength[before[0]].max()) if k_curr else 0.0), np.nan
        rows.append({
            "event": kind,
            "before": tuple(classes_prev[before].tolist()),
            "after": tuple(classes_curr[after].tolist()),
            "size_before": int(size_prev[before].sum()),
            "size_after": int(size_curr[after].sum()),
            "n_common_moved": int(table[np.ix_(before, after)].sum()) if before and after else 0,
            "strength": float(value),
            "p_value": float(p),
        })
    order = {name: i for i, name in enumerate(EVENT_TYPES)}
    frame = pd.DataFrame(rows, columns=list(EVENT_COLUMNS[2:]))
    if len(frame):
        frame = frame.iloc[sorted(range(len(frame)), key=lambda i: (order[rows[i]["event"]], rows[i]["before"],
                                                                      rows[i]["after"]))]
    return frame.reset_index(drop=True)


def lifecycle_events(
    result: Any,
    *,
    min_share: float = 0.3,
    majority: float = 0.5,
    size_change: float = 0.2,
    n_permutations: int = 199,
    seed: Any = 0,
    start: int = 0,
) -> pd.DataFrame:
    """Lifecycle events of every pair of consecutive steps of a run.

    Parameters
    ----------
    result : ClusteringResult
        A fitted run; clusters are named by its time-aligned labels.
    min_share, majority, size_change, n_permutations, seed
        As in :func:`step_events`; step t shuffles with the seed ``(seed, t)``.
    start : int, default=0
        Only the events of steps ``start..`` (each against the step before):
        the rows of the whole table with ``t >= start``, so a growing run's
        table can be extended.

    Returns
    -------
    pandas.DataFrame
        One row per event with the columns :data:`EVENT_COLUMNS`; ``t`` and
        ``time`` are those of the later step.  The clusters of the first step
        are listed as births at ``t = 0``.
    """
    min_share, majority, size_change, n_permutations, seed = _check_options(
        "lifecycle_events", min_share, majority, size_change, n_permutations, seed)
    frames = []
    steps = list(result)
    start = check_argument("lifecycle_events", "start", start, "int", default=0, low=0, high=len(steps))
    if steps and start == 0:
        first = steps[0]
        labels, sizes = np.unique(first.aligned_labels, return_counts=True)
        frames.append(pd.DataFrame({
            "t": 0, "time": [first.time] * len(labels), "event": "birth",
            "before": [()] * len(labels), "after": [(int(v),) for v in labels],
            "size_before": 0, "size_after": sizes.astype(int), "n_common_moved": 0,
            "strength": 0.0, "p_value": np.nan,
        }))
    for previous, step in zip(steps[max(start - 1, 0):], steps[max(start, 1):]):
        frame = _step_events(
            previous.ids, previous.aligned_labels, step.ids, step.aligned_labels,
            min_share, majority, size_change, n_permutations,
            seed if seed is None or isinstance(seed, np.random.Generator) else (seed, step.t),
        )
        frame.insert(0, "time", [step.time] * len(frame))
        frame.insert(0, "t", step.t)
        frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=list(EVENT_COLUMNS))
    return pd.concat(frames, ignore_index=True)[list(EVENT_COLUMNS)]
