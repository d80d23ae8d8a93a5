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

from .params import check_argument

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

    Raises
    ------
    ValueError
        For nan in ``F``, a reference that is not two finite numbers, or an
        area too large for float64 (objectives near 1e308: rescale them).

    Examples
    --------
    >>> hypervolume_2d([[0.0, 1.0], [1.0, 0.0]], (2.0, 2.0))
    3.0
    """
    F = np.asarray(F, dtype=float)
    if F.size and (F.ndim != 2 or F.shape[1] != 2):
        raise ValueError(f"hypervolume_2d: F must have shape (n, 2), got {F.shape}")
    F = F.reshape(-1, 2)
    if isinstance(reference, (str, bytes)) or np.ndim(reference) != 1 or np.size(reference) != 2:
        raise ValueError(f"hypervolume_2d: reference must be two finite numbers, got {reference!r}")
    r = np.array([check_argument("hypervolume_2d", f"reference[{i}]", value, "float")
                  for i, value in enumerate(np.asarray(reference, dtype=object).tolist())])
    bad = np.flatnonzero(np.isnan(F).any(axis=1))
    if bad.size:
        raise ValueError(f"hypervolume_2d: F must not contain nan (rows {bad[:5].tolist()})")
    F = F[(F[:, 0] < r[0]) & (F[:, 1] < r[1])]
    if len(F) == 0:
        return 0.0
    F = F[np.lexsort((F[:, 1], F[:, 0]))]
    best_y = np.minimum.accumulate(F[:, 1])
    keep = np.ones(len(F), dtype=bool)
    keep[1:] = F[1:, 1] < best_y[:-1]  # strictly better in f2 than everything to its left
    x, y = F[keep, 0], F[keep, 1]
    with np.errstate(over="ignore", invalid="ignore"):
        widths = np.append(x[1:], r[0]) - x
        area = float((widths * (r[1] - y)).sum())
    if not np.isfinite(area):
        raise ValueError(
            "hypervolume_2d: the dominated area exceeds the float64 range (objectives or reference "
            f"reach {max(np.abs(F).max(), np.abs(r).max()):.3g}); divide both objectives and the "
            "reference by a common scale first")
    return area


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

    Raises
    ------
    ValueError
        If ``objectives`` is not of shape (n, 2) or ``first_front`` not a
        mask of length n (the message gives the expected length).
    TypeError
        If ``reference`` is not a number (a bool is refused).
    """
    reference = check_argument("front_hypervolume", "reference", reference, "float", default=1.1,
                               low=0.0, low_open=True)
    objectives = np.asarray(objectives, dtype=float)
    if objectives.size == 0 and np.size(first_front) == 0:
        return float("nan")  # a run without a population (a baseline)
    if objectives.ndim != 2 or objectives.shape[1] != 2:
        raise ValueError(f"front_hypervolume: objectives must have shape (pop_size, 2), got {objectives.shape}")
    mask = np.asarray(first_front)
    if mask.shape != (len(objectives),):
        raise ValueError(
            f"front_hypervolume: first_front must be a mask of length {len(objectives)} (one flag per "
            f"row of objectives), got shape {mask.shape}")
    if mask.dtype.kind != "b":
        raise TypeError(f"front_hypervolume: first_front must be a bool mask, got dtype {mask.dtype}")
    finite = np.all(np.isfinite(objectives), axis=1)
    members = mask & finite
    if not members.any():
        return float("nan")
    # Scale each objective by its largest magnitude first: max - min of values near +-1e308
    # overflows to inf, while the scaled spread stays within [0, 2].
    magnitude = np.abs(objectives[finite]).max(axis=0)
    magnitude[magnitude == 0] = 1.0
    unit = objectives / magnitude
    low = unit[finite].min(axis=0)
    span = unit[finite].max(axis=0) - low
    scaled = np.divide(unit[members] - low, span, out=np.zeros((members.sum(), 2)), where=span > 0)
    return hypervolume_2d(scaled, (reference, reference))
