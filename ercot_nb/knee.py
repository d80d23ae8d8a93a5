"""Final-solution (knee) selection on a two-objective front.

ERCOT outputs one member of the first nondominated front of (f_cp, f_sep)
(docs/algorithm.md, *Knee selection*). Three rules are offered:

``"ideal"`` (default)
    MOCK's normalisation g = sqrt((f - min) / (max - min)) per objective, then
    the point nearest the ideal corner (0, 0).
``"chord"``
    Same normalisation; the point farthest from the chord joining the two
    extreme points, on the side of the ideal corner (Das's knee).
``"mock"``
    Handl & Knowles' attainment score against control fronts obtained by the
    caller on structureless data (see :func:`mock_control_data`); the global
    maximum is selected.

Three more rules choose a posteriori (:func:`select_member`), after a run:

``"fixed_k"``
    Among the members with exactly ``k`` clusters, the one nearest the ideal
    corner (normalised as ``"ideal"``).
``"asf"``
    Achievement scalarising function (Wierzbicki 1980): objectives scaled
    linearly to [0, 1] over the front, then the smallest
    ``max_i w_i (g_i - z_i)`` for importance weights ``w`` and reference
    point ``z`` (default the ideal corner); pymoo's ``ASF`` with weights
    ``1 / w``.  A 1e-6 multiple of ``sum_i w_i (g_i - z_i)`` is added (the
    augmented ASF), so the choice is never weakly dominated.
``"pseudo_weights"``
    Deb's pseudo-weights ``w_i = (max_i - f_i) / (max_i - min_i)``,
    normalised to sum 1; the member whose pseudo-weights are nearest (L1)
    the requested ``weights``.

Ties are broken by the smaller number of clusters, then the smaller first
objective, then the lower index. Scores within a relative 1e-12 of the best
count as ties, so that mirror-symmetric fronts resolve deterministically.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = [
    "A_POSTERIORI_RULES",
    "CONTROL_BOXES",
    "KNEE_RULES",
    "KNEE_WORDS",
    "SELECTION_RULES",
    "attainment_scores",
    "mock_control_data",
    "normalise_front",
    "select_knee",
    "select_member",
    "staircase_signed_distance",
]

KNEE_RULES = ("ideal", "chord", "mock")
"""The rules an estimator runs with (``knee=``)."""
A_POSTERIORI_RULES = ("fixed_k", "asf", "pseudo_weights")
"""Choices of one member on a finished front."""
SELECTION_RULES = KNEE_RULES + A_POSTERIORI_RULES
"""Every rule :func:`select_member` takes."""
KNEE_WORDS = {"ideal": "nearest the ideal point", "chord": "farthest from the chord",
              "mock": "MOCK control fronts"}
"""Words for the knee rules, shown by user interfaces (the values stay what runs)."""
CONTROL_BOXES = ("pca", "bbox")
"""Boxes the structureless MOCK control data are drawn in (``mock_control_data(box=...)``)."""

_TIE_RTOL = 1e-12
_ASF_AUGMENT = 1e-6  # augmented ASF: never a weakly dominated member

ControlFront = tuple[np.ndarray, np.ndarray]


def normalise_front(F: np.ndarray) -> np.ndarray:
    """MOCK normalisation g = sqrt((f - min) / (max - min)) per objective.

    Parameters
    ----------
    F : ndarray of shape (n, n_objectives)

    Returns
    -------
    ndarray of shape (n, n_objectives)
        Values in [0, 1]; an objective with max == min maps to 0.
    """
    F = np.asarray(F, dtype=float)
    low = F.min(axis=0)
    span = F.max(axis=0) - low
    scaled = np.divide(F - low, span, out=np.zeros_like(F), where=span > 0)
    return np.sqrt(np.clip(scaled, 0.0, 1.0))


def _check_front(F: np.ndarray, n_clusters: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    F = np.asarray(F, dtype=float)
    n_clusters = np.asarray(n_clusters).ravel()
    if F.ndim != 2 or F.shape[1] != 2 or F.shape[0] == 0:
        raise ValueError(f"{name} must have shape (n, 2) with n >= 1, got {F.shape}")
    if n_clusters.shape[0] != F.shape[0]:
        raise ValueError(f"{name} and its n_clusters must have the same length")
    if not np.all(np.isfinite(F)):
        raise ValueError(f"{name} must be finite")
    return F, n_clusters


def _first_occurrences(F: np.ndarray) -> np.ndarray:
    """Sorted indices of the first occurrence of each distinct row of F."""
    order = np.lexsort((F[:, 1], F[:, 0]))  # stable: equal rows keep index order
    ordered = F[order]
    new = np.empty(len(F), dtype=bool)
    new[0] = True
    np.any(ordered[1:] != ordered[:-1], axis=1, out=new[1:])
    return np.sort(order[new])


def _best_with_ties(
    candidates: np.ndarray, score: np.ndarray, F: np.ndarray, n_clusters: np.ndarray
) -> int:
    """Index (into F) of the highest `score` among `candidates`, with tie rules."""
    best = score.max()
    tied = candidates[score >= best - _TIE_RTOL * max(1.0, abs(best))]
    # lexsort: last key is primary.
    order = np.lexsort((tied, F[tied, 0], n_clusters[tied]))
    return int(tied[order[0]])


def select_knee(
    F: np.ndarray,
    n_clusters: np.ndarray,
    *,
    rule: str = "ideal",
    control_fronts: Sequence[ControlFront] | None = None,
) -> int:
    """Choose the final solution on a first front of two minimised objectives.

    Parameters
    ----------
    F : ndarray of shape (n, 2)
        Objective values (minimised) of the first-front members; duplicates
        allowed.
    n_clusters : ndarray of shape (n,)
        Number of clusters of each member.
    rule : {"ideal", "chord", "mock"}, default="ideal"
        Selection rule (see the module docstring).
    control_fronts : sequence of (F_c, n_clusters_c), optional
        First fronts of runs on structureless control data; required by
        ``rule="mock"``.

    Returns
    -------
    int
        Index into `F` of the chosen point.
    """
    if rule not in KNEE_RULES:
        raise ValueError(f"unknown knee rule {rule!r}; choose one of {KNEE_RULES}")
    F, n_clusters = _check_front(F, n_clusters, "F")
    if rule == "mock":
        scores = attainment_scores(F, n_clusters, control_fronts)
        valid = np.flatnonzero(~np.isnan(scores))
        return _best_with_ties(valid, scores[valid], F, n_clusters)

    if F.shape[0] == 1:
        return 0
    keep = _first_occurrences(F)
    g = normalise_front(F[keep])
    if rule == "ideal":
        score = -np.hypot(g[:, 0], g[:, 1])
    else:
        score = _chord_distance(g)
    return _best_with_ties(keep, score, F, n_clusters)


def _weights(weights: Sequence[float], name: str = "weights") -> np.ndarray:
    w = np.asarray(weights, dtype=float).ravel()
    if w.shape != (2,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError(f"{name} must be two positive numbers (one per objective), got {weights!r}")
    return w / w.sum()


def select_member(
    F: np.ndarray,
    n_clusters: np.ndarray,
    rule: str = "ideal",
    *,
    k: int | None = None,
    weights: Sequence[float] = (0.5, 0.5),
    reference: Sequence[float] = (0.0, 0.0),
    control_fronts: Sequence[ControlFront] | None = None,
) -> int:
    """Choose one member of a first front by any rule of :data:`SELECTION_RULES`.

    Parameters
    ----------
    F : ndarray of shape (n, 2)
        Objective values (minimised) of the first-front members.
    n_clusters : ndarray of shape (n,)
        Number of clusters of each member.
    rule : str, default="ideal"
        One of :data:`SELECTION_RULES` (see the module docstring); the knee
        rules delegate to :func:`select_knee`.
    k : int, optional
        Number of clusters for ``rule="fixed_k"``.
    weights : pair of positive floats, default=(0.5, 0.5)
        Importance of (f_cp, f_sep) for ``"asf"`` and ``"pseudo_weights"``
        (normalised to sum 1).
    reference : pair of floats, default=(0.0, 0.0)
        Reference point of ``"asf"`` in the [0, 1]-scaled objectives.
    control_fronts : sequence of (F_c, n_clusters_c), optional
        For ``rule="mock"``.

    Returns
    -------
    int
        Index into `F` of the chosen point.

    Raises
    ------
    ValueError
        For an unknown rule, bad weights, or ``"fixed_k"`` without a member
        of ``k`` clusters (the message lists the numbers present).
    """
    if rule not in SELECTION_RULES:
        raise ValueError(f"unknown selection rule {rule!r}; choose one of {SELECTION_RULES}")
    if rule in KNEE_RULES:
        return select_knee(F, n_clusters, rule=rule, control_fronts=control_fronts)
    F, n_clusters = _check_front(F, n_clusters, "F")
    if rule == "fixed_k":
        present = sorted(set(np.asarray(n_clusters).tolist()))
        if k is None or k not in present:
            raise ValueError(f"rule 'fixed_k' needs k among the front's numbers of clusters {present}, got k={k!r}")
        candidates = np.flatnonzero(n_clusters == k)
        g = normalise_front(F)[candidates]
        return _best_with_ties(candidates, -np.hypot(g[:, 0], g[:, 1]), F, n_clusters)
    w = _weights(weights)
    low, span = F.min(axis=0), F.max(axis=0) - F.min(axis=0)
    candidates = np.arange(len(F))
    if rule == "asf":
        z = np.asarray(reference, dtype=float).ravel()
        if z.shape != (2,) or not np.all(np.isfinite(z)):
            raise ValueError(f"reference must be two finite numbers, got {reference!r}")
        g = np.divide(F - low, span, out=np.zeros_like(F), where=span > 0)
        achievement = ((g - z) * w).max(axis=1) + _ASF_AUGMENT * ((g - z) * w).sum(axis=1)
        return _best_with_ties(candidates, -achievement, F, n_clusters)
    pseudo = np.divide(F.max(axis=0) - F, span, out=np.zeros_like(F), where=span > 0)  # 0 at the max, exactly
    total = pseudo.sum(axis=1, keepdims=True)
    pseudo = np.divide(pseudo, total, out=np.full_like(F, 0.5), where=total > 0)
    return _best_with_ties(candidates, -np.abs(pseudo - w).sum(axis=1), F, n_clusters)


def _chord_distance(g: np.ndarray) -> np.ndarray:
    """Signed distance to the chord between the two extreme points of `g`.

    Positive on the side of the ideal corner (0, 0). The extremes are the
    lexicographic minima by (g1, g2) and by (g2, g1). If they coincide (one
    point dominates all others), that point gets 1 and the others
    minus their distance to it.
    """
    start = g[np.lexsort((g[:, 1], g[:, 0]))[0]]
    end = g[np.lexsort((g[:, 0], g[:, 1]))[0]]
    direction = end - start
    length = np.hypot(*direction)
    if length == 0.0:
        dist = np.hypot(*(g - start).T)
        return np.where(dist == 0.0, 1.0, -dist)
    normal = np.array([-direction[1], direction[0]]) / length
    if np.dot(-start, normal) < 0.0:  # orient the normal towards (0, 0)
        normal = -normal
    return (g - start) @ normal


# --------------------------------------------------------------------------- #
# MOCK attainment score
# --------------------------------------------------------------------------- #
def _nondominated_sorted(points: np.ndarray) -> np.ndarray:
    """Nondominated subset of 2-D points (minimised), sorted by f1 ascending."""
    points = points[np.lexsort((points[:, 1], points[:, 0]))]
    running_min = np.minimum.accumulate(points[:, 1])
    keep = np.ones(points.shape[0], dtype=bool)
    keep[1:] = points[1:, 1] < running_min[:-1]
    return points[keep]


def staircase_signed_distance(points: np.ndarray, control: np.ndarray) -> np.ndarray:
    """Signed Euclidean distance of points to a 2-D attainment surface.

    The attainment surface of `control` is the boundary of the region the
    control points weakly dominate (minimisation): the staircase going down
    the vertical ray above the leftmost point, then alternately along
    horizontal and vertical segments through every nondominated control
    point, and out along the horizontal ray right of the lowest point.

    Parameters
    ----------
    points : ndarray of shape (n, 2)
    control : ndarray of shape (m, 2)

    Returns
    -------
    ndarray of shape (n,)
        Distance to the staircase, negative for points weakly dominated by a
        control point (on or behind the surface; 0 on it).
    """
    points = np.asarray(points, dtype=float)
    stair = _nondominated_sorted(np.asarray(control, dtype=float))
    x, y = stair[:, 0], stair[:, 1]
    px, py = points[:, :1], points[:, 1:]  # (n, 1) against (m,) pieces

    # Horizontal pieces: y = y_i for x in [x_i, x_{i+1}], the last one a ray.
    x_next = np.append(x[1:], np.inf)
    dist_h = np.hypot(np.clip(px, x, x_next) - px, py - y)
    # Vertical pieces: x = x_i for y in [y_i, y_{i-1}], the first one a ray.
    y_prev = np.insert(y[:-1], 0, np.inf)
    dist_v = np.hypot(px - x, np.clip(py, y, y_prev) - py)
    dist = np.minimum(dist_h.min(axis=1), dist_v.min(axis=1))

    dominated = np.any((x <= px) & (y <= py), axis=1)
    return np.where(dominated, -dist, dist)


def attainment_scores(
    F: np.ndarray,
    n_clusters: np.ndarray,
    control_fronts: Sequence[ControlFront] | None,
) -> np.ndarray:
    """MOCK attainment score of each solution point (Handl & Knowles 2007).

    Every front (the solution front and each control front) is restricted to
    n_clusters <= k_max, the largest number of clusters present in all
    fronts, and normalised separately (own min/max, then square root). The
    score of a point is its smallest signed distance to the attainment
    surface of any control front (:func:`staircase_signed_distance`):
    positive when it lies beyond every control surface, negative when a
    control surface weakly dominates it.

    Parameters
    ----------
    F : ndarray of shape (n, 2)
        Solution first front (minimised objectives).
    n_clusters : ndarray of shape (n,)
    control_fronts : sequence of (F_c, n_clusters_c)
        Control first fronts, F_c of shape (m_c, 2).

    Returns
    -------
    ndarray of shape (n,)
        Scores; nan for points with n_clusters > k_max.
    """
    if not control_fronts:
        raise ValueError("the 'mock' rule needs at least one control front")
    F, n_clusters = _check_front(F, n_clusters, "F")
    controls = [
        _check_front(F_c, n_c, f"control front {i}") for i, (F_c, n_c) in enumerate(control_fronts)
    ]
    shared = set(np.unique(n_clusters).tolist())
    for _, n_c in controls:
        shared &= set(np.unique(n_c).tolist())
    if not shared:
        raise ValueError("no number of clusters is present in every front")
    k_max = max(shared)

    in_range = n_clusters <= k_max
    g = normalise_front(F[in_range])
    score = np.full(g.shape[0], np.inf)
    for F_c, n_c in controls:
        g_c = normalise_front(F_c[n_c <= k_max])
        score = np.minimum(score, staircase_signed_distance(g, g_c))

    scores = np.full(F.shape[0], np.nan)
    scores[in_range] = score
    return scores


def mock_control_data(
    X: np.ndarray,
    rng: np.random.Generator,
    n_sets: int = 3,
    box: str = "pca",
) -> list[np.ndarray]:
    """Structureless control data sets with the size and spread of `X`.

    Parameters
    ----------
    X : ndarray of shape (n, D)
    rng : numpy.random.Generator
    n_sets : int, default=3
        Number of control data sets.
    box : {"pca", "bbox"}, default="pca"
        ``"bbox"``: uniform in the axis-aligned bounding box of `X`.
        ``"pca"``: uniform in a box aligned with the principal axes of `X`,
        centred on its mean, with side sqrt(12 * lambda_j) along the axis of
        covariance eigenvalue lambda_j. A uniform variable on an interval of
        length L has variance L^2 / 12, so the control data have exactly the
        covariance matrix of `X`: same spread, no clusters.

    Returns
    -------
    list of ndarray of shape (n, D)
    """
    if box not in CONTROL_BOXES:
        raise ValueError(f"unknown box {box!r}; choose one of {CONTROL_BOXES}")
    X = np.asarray(X, dtype=float)
    n_samples, n_dims = X.shape
    if box == "bbox":
        low, high = X.min(axis=0), X.max(axis=0)
        return [rng.uniform(low, high, size=(n_samples, n_dims)) for _ in range(n_sets)]

    mean = X.mean(axis=0)
    cov = np.atleast_2d(np.cov(X, rowvar=False)) if n_samples >= 2 else np.zeros((n_dims, n_dims))
    eigval, eigvec = np.linalg.eigh(cov)
    half_side = 0.5 * np.sqrt(12.0 * np.clip(eigval, 0.0, None))
    return [
        rng.uniform(-half_side, half_side, size=(n_samples, n_dims)) @ eigvec.T + mean
        for _ in range(n_sets)
    ]
