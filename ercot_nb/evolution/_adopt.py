"""Carry an a-posteriori choice forward: adopt a front member at step t, continue the run.

ERCOT keeps its whole final population at every step so that a user can pick
another member of the front than the knee (the paper's *a posteriori*
decision).  Picking one only relabels that step unless the later steps see
it: their re-initialisation starts from step t's population recentred on the
common ids, and their smoothness weight and fitness accumulation compare
with step t's partition.  :func:`adopt` makes the choice real:

1. steps ``0..t-1`` are kept (the same objects' data, relinked in a new result);
2. step ``t`` keeps its search record but takes the member's partition
   (labels by nearest active centroid, as for the knee) and ``knee = member``;
3. the estimator's history becomes (step t's data, its final population, the
   member's labels) and its random generator is set back to the state it had
   after step ``t``;
4. steps ``t+1..`` are fitted again from the data the estimator saw.

Because only the partition handed on differs, adopting the knee member
reproduces the original run exactly.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ._engine import Engine
from ._history import History
from ..params import check_argument
from ..result import ClusteringResult

if TYPE_CHECKING:  # pragma: no cover
    from ._ercot import EvolutionaryClustering


def adopt(estimator: "EvolutionaryClustering", t: int, member: int, *,
          callback: Callable[[Any], Any] | None = None) -> ClusteringResult:
    """Continue ``estimator``'s run from step ``t`` with ``member`` as that step's partition.

    Parameters
    ----------
    estimator : ERCOT, StaticEC or another evolutionary estimator of the package
        Fitted (``fit`` or ``partial_fit``) in this session.
    t : int
        Step index; negative counts from the end.
    member : int
        Index into ``estimator.result_[t].population``.
    callback : callable, optional
        ``callback(step)`` after each step fitted again, as in ``fit``:
        returning ``False`` stops after that step.  A stopped adoption is consistent: its result, history and
        random state are those of its last step, as after a stopped ``fit``.

    Returns
    -------
    ClusteringResult
        The new ``estimator.result_``.

    Raises
    ------
    TypeError
        If ``t`` or ``member`` is not an int (a bool or a float is refused).
    ValueError
        If ``t`` or ``member`` is out of range (the message gives the range), or the estimator no longer
        holds the data of its steps (e.g. it was fitted elsewhere and
        unpickled without it).
    """
    estimator._check_fitted()
    result = estimator.result_
    n_steps = len(result)
    owner = f"{type(estimator).__name__}.adopt"
    t = check_argument(owner, "t", t, "int", low=-n_steps, high=n_steps - 1)
    t = t % n_steps
    step = result[t]
    n_members = len(step.population)
    if n_members == 0:
        raise ValueError(f"{owner}: step {t} has no population to adopt a member from")
    member = check_argument(f"{owner} (step {t}'s population of {n_members})", "member", member, "int",
                            low=0, high=n_members - 1)
    states = getattr(estimator, "_step_states", [])
    if len(states) != n_steps:
        raise ValueError(
            f"this {type(estimator).__name__} does not hold the data of its {n_steps} step(s) "
            "(fitted elsewhere?); fit it again here before adopting"
        )
    snapshots = [snapshot for snapshot, _ in states]
    chromosome = np.ascontiguousarray(step.population[member])
    if estimator._engine is None:  # a copied or unpickled estimator: built as the next step would
        estimator._engine = Engine(estimator._config(snapshots[t].X.shape[1]), backend=estimator.backend)
    # the member's partition as the estimator makes it (nearest centroid, or refined by a mixture)
    # (final_partition="cv_mixture" chooses among the front again for the knee, as the step did)
    front = ((step.population, step.objectives, step.population_n_clusters, step.first_front, step.knee)
             if member == step.knee else None)
    labels, centroids, mixture = estimator._member_partition(estimator._engine, snapshots[t].X, chromosome,
                                                             t=t, front=front)

    adopted = ClusteringResult(algorithm=result.algorithm, params=result.params)
    for kept in result.steps[:t]:
        adopted.append(dataclasses.replace(kept))
    adopted.append(dataclasses.replace(step, labels=labels, aligned_labels=labels, centroids=centroids,
                                       knee=int(member)))
    estimator.result_ = adopted
    estimator._history = History(snapshot=snapshots[t], population=step.population, labels=labels)
    estimator._controls_for = None
    estimator._rng.bit_generator.state = states[t][1]
    estimator._step_states = states[: t + 1]
    mixtures = getattr(estimator, "_mixtures", [])
    estimator._mixtures = [*(mixtures[:t] if len(mixtures) == n_steps else [None] * t), mixture]
    for snapshot in snapshots[t + 1:]:
        step = estimator._fit_snapshot(snapshot)
        if callback is not None and callback(step) is False:
            break
    return adopted
