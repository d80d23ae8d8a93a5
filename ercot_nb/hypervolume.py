"""Exact hypervolume of two-objective fronts (minimisation).

The hypervolume of a set of points is the area they dominate up to a
reference point: the area of the union of the boxes ``[f1, r1] x [f2, r2]``.
In two dimensions one sweep over the nondominated points sorted by the first
objective gives it exactly, in O(n log n).

:func:`front_hypervolume` is the value :meth:`ClusteringResult.steps_frame
<ercot_nb.result.ClusteringResult.steps_frame>` reports per step: the first
front on the objectives its selection used, each objective scaled to [0, 1]
over the finite values of the step's final population, reference point
``(1.1, 1.1)`` so that the front's extreme points count too.  It lies in
[0, 1.21]; larger is a front nearer the ideal corner and better spread.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["hypervolume_2d", "front_hypervolume"]


def hypervolume_2d(F: np.ndarray, reference: Sequence[float]) -> float:
    """Exact area dominated by the points of ``F`` up to ``reference``.

    Parameters
    ----------
    F : ndarray of shape (n, 2)
        Objective values (minimised); dominated points, duplicates and points
        not better than the reference in both objectives add nothing.
    reference : pair of floats

    Returns
    -------
    float
        0.0 for an empty set.

    Examples
    --------
    >>> hypervolume_2d([[0.0, 1.0], [1.0, 0.0]], (2.0, 2.0))
    3.0
    """
    F = np.asarray(F, dtype=float).reshape(-1, 2)
    r = np.asarray(reference, dtype=float).ravel()
    if r.shape != (2,) or not np.all(np.isfinite(r)):
        raise ValueError(f"reference must be two finite numbers, got {reference!r}")
    if np.isnan(F).any():
        raise ValueError("F must not contain nan")
    F = F[(F[:, 0] < r[0]) & (F[:, 1] < r[1])]
    if len(F) == 0:
        return 0.0
    F = F[np.lexsort((F[:, 1], F[:, 0]))]
    best_y = np.minimum.accumulate(F[:, 1])
    keep = np.ones(len(F), dtype=bool)
    keep[1:] = F[1:, 1] < best_y[:-1]  # strictly better in f2 than everything to its left
    x, y = F[keep, 0], F[keep, 1]
    widths = np.append(x[1:], r[0]) - x
    return float((widths * (r[1] - y)).sum())


def front_hypervolume(
    objectives: np.ndarray, first_front: np.ndarray, reference: float = 1.1
) -> float:
    """Normalised hypervolume of a step's first front (see the module docstring).

    Parameters
    ----------
    objectives : ndarray of shape (pop_size, 2)
        Objectives of the final population (those its selection used).
    first_front : bool ndarray of shape (pop_size,)
    reference : float, default=1.1
        Reference point ``(reference, reference)`` in scaled objectives.

    Returns
    -------
    float
        nan when no first-front member has finite objectives.
    """
    objectives = np.asarray(objectives, dtype=float).reshape(-1, 2)
    finite = np.all(np.isfinite(objectives), axis=1)
    members = np.asarray(first_front, dtype=bool) & finite
    if not members.any():
        return float("nan")
    low = objectives[finite].min(axis=0)
    span = objectives[finite].max(axis=0) - low
    scaled = np.divide(objectives[members] - low, span, out=np.zeros((members.sum(), 2)), where=span > 0)
    return hypervolume_2d(scaled, (reference, reference))
