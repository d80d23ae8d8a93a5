"""Exercise 01_implement_f_sep: the separation and compactness objectives, checked on small cases.

The expected values come from the NumPy twins of the package's kernels.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial.distance import cdist, pdist

from ..kernels import get_backend
from .answers import as_number, call_student, number_hint, require_function, same
from .feedback import RTOL, Mistake, NotAttempted


@dataclass(frozen=True)
class ClusterCase:
    name: str
    X: np.ndarray
    centroids: np.ndarray
    active: np.ndarray


def _blobs(rng: np.random.Generator, means: Sequence[Sequence[float]], n: int, scale: float) -> np.ndarray:
    means = np.asarray(means, dtype=float)
    return np.vstack([m + scale * rng.standard_normal((n, means.shape[1])) for m in means])


def objective_cases() -> list[ClusterCase]:
    """Seeded test cases of exercise 1, each probing one part of the definition."""
    rng = np.random.default_rng(20240601)
    three = [[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]]
    X3 = _blobs(rng, three, 20, 0.5)
    C3 = np.asarray(three) + 0.1 * rng.standard_normal((3, 2))
    X_pair = _blobs(rng, [[-3.0, 0.0], [3.0, 0.0]], 25, 0.3)
    C_pair = np.array([[-3.0, 0.05], [3.05, 0.0], [0.0, 0.5]])
    four_3d = [[0.0, 0.0, 0.0], [3.0, 0.0, 1.0], [0.0, 3.0, -1.0], [2.0, 2.0, 3.0]]
    X_3d = _blobs(rng, four_3d, 15, 0.4)
    C_3d = np.vstack([np.asarray(four_3d[:2]), [[0.3, 0.1, 0.0]], np.asarray(four_3d[2:])])
    C_3d = C_3d + 0.05 * rng.standard_normal(C_3d.shape)
    yes, no = True, False
    return [
        ClusterCase("three separated blobs, all centroids active", X3, C3, np.array([yes, yes, yes])),
        ClusterCase("an inactive centroid right next to an active one", X3,
                     np.vstack([C3, C3[0] + [0.2, 0.1]]), np.array([yes, yes, yes, no])),
        ClusterCase("a ghost centroid (active, but no sample is nearest to it)", X_pair, C_pair,
                     np.array([yes, yes, yes])),
        ClusterCase("a duplicate centroid (exactly on top of another one)", X3,
                     np.vstack([C3, C3[1]]), np.array([yes, yes, yes, yes])),
        ClusterCase("only one active centroid", X3, C3, np.array([yes, no, no])),
        ClusterCase("two active centroids, but one of them is a ghost", X_pair[:25],
                     np.array([[-3.0, 0.0], [10.0, 10.0]]), np.array([yes, yes])),
        ClusterCase("3-D data with five centroid slots, one inactive", X_3d, C_3d,
                     np.array([yes, yes, no, yes, yes])),
    ]


HELD_OUT_SEED = 31415
"""Seed of the held-out cases when no course seed is given (known to anyone with the package)."""


def held_out_cases(seed: int | None = None) -> list[ClusterCase]:
    """Seeded cases that ``case_inputs`` does not hand out: the hidden test of a grader.

    Random blobs in 2 to 4 dimensions with extra centroid slots, some inactive and
    one ghost (two, closer than any two blobs, in the first case, so that counting
    ghosts always fails a case, whatever the seed); a function that passes the named cases by special-casing them fails here.
    An nbgrader course passes a ``seed`` derived from its secret (and, with variants,
    from the student id), so the package alone cannot reproduce the graded cases.
    """
    rng = np.random.default_rng(HELD_OUT_SEED if seed is None else seed)
    cases = []
    for index in range(5):
        k, dim = int(rng.integers(2, 6)), int(rng.integers(2, 5))
        means = rng.uniform(-6.0, 6.0, (k, dim))
        X = _blobs(rng, means, int(rng.integers(8, 20)), 0.5)
        ghost = means.mean(axis=0, keepdims=True) + 25.0  # far from every sample: no members
        if index == 0:  # two ghosts closer than any two blobs: counting ghosts always shows here
            ghost = np.vstack([ghost, ghost + 0.05 * _min_pair_distance(means) / np.sqrt(dim)])
        slots = np.vstack([means + 0.1 * rng.standard_normal(means.shape), ghost,
                           rng.uniform(-6.0, 6.0, (2, dim))])
        active = np.concatenate([np.ones(k + len(ghost), dtype=bool), [False, index % 2 == 0]])
        order = rng.permutation(len(slots))
        cases.append(ClusterCase(f"held-out case {index + 1} ({k} blobs in {dim}-D)",
                                 X, slots[order], active[order]))
    return cases


def _package_objectives(case: ClusterCase) -> tuple[float, float]:
    """(f_cp, f_sep over non-empty clusters) from the package's NumPy twin."""
    n_max = len(case.centroids)
    chromosome = np.concatenate([case.active.astype(float), case.centroids.ravel()])[None, :]
    f_cp, f_sep = np.empty(1), np.empty(1)
    counts = np.zeros((1, n_max), dtype=np.int64)
    get_backend("numpy").evaluate_population(
        np.ascontiguousarray(case.X, dtype=float), chromosome, n_max, True, f_cp, f_sep, counts
    )
    return float(f_cp[0]), float(f_sep[0])


def _nearest_distances(X: np.ndarray, centroids: np.ndarray, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = cdist(X, centroids[slots])
    nearest = np.argmin(d, axis=1)
    return slots[nearest], d[np.arange(len(X)), nearest]


def _min_pair_distance(points: np.ndarray) -> float:
    if len(points) < 2:
        return math.inf
    return float(pdist(points).min())


def _f_sep_slips(case: ClusterCase) -> dict[str, float]:
    """Values that typical slips produce on ``case`` (for targeted hints)."""
    active = np.flatnonzero(case.active)
    labels, _ = _nearest_distances(case.X, case.centroids, active)
    nonempty = np.unique(labels)
    d_nonempty = _min_pair_distance(case.centroids[nonempty])
    d_active = _min_pair_distance(case.centroids[active])
    d_all = _min_pair_distance(case.centroids)

    def inverse(d: float) -> float:
        return 1.0 / max(d, 1e-12) if math.isfinite(d) else math.inf

    return {
        "ghosts": inverse(d_active),
        "inactive": inverse(d_all),
        "not_inverted": d_nonempty,
        "squared": inverse(d_nonempty**2) if math.isfinite(d_nonempty) else math.inf,
    }


_F_SEP_HINTS = {
    "ghosts": "did you leave out the active centroids that no sample is nearest to "
              "('ghost' centroids)? Count the members of each active centroid first.",
    "inactive": "did you use only the active centroids (those with active[c] True)?",
    "not_inverted": "f_sep is one over the smallest distance, not the distance itself.",
    "squared": "did you take the square root? Dis is the plain Euclidean distance, not its square.",
}


def _f_cp_slips(case: ClusterCase) -> dict[str, float]:
    _, d = _nearest_distances(case.X, case.centroids, np.flatnonzero(case.active))
    _, d_all = _nearest_distances(case.X, case.centroids, np.arange(len(case.centroids)))
    return {"squared": float((d**2).sum()), "mean": float(d.mean()), "inactive": float(d_all.sum())}


_F_CP_HINTS = {
    "squared": "did you add up squared distances? f_cp sums plain Euclidean distances.",
    "mean": "did you take the mean? f_cp is the sum over all samples.",
    "inactive": "did you measure each sample to its nearest *active* centroid only?",
}


def _check_objective(answer: Any, objective: str, hidden: bool = False, seed: Any = None) -> str:
    function = require_function(answer, f"{objective}(X, centroids, active)")
    cases = held_out_cases(seed) if hidden else objective_cases()
    for index, case in enumerate(cases):
        inputs = f"ercot_nb.exercises.case_inputs('01_implement_f_sep', {index + 1})"
        where = f"case {index + 1}, '{case.name}'" + ("" if hidden else f" (inputs: {inputs})")
        raw = call_student(function, (case.X, case.centroids, case.active), where, objective)
        if raw is None:
            if index == 0:
                raise NotAttempted
            raise Mistake(f"On case '{case.name}' your {objective} returned None; "
                           "every path through your function should return a number.")
        got = as_number(raw, f"the value returned by {objective}")
        f_cp, f_sep = _package_objectives(case)
        expected = f_sep if objective == "f_sep" else f_cp
        if same(got, expected):
            continue
        lines = [f"{index} of {len(cases)} cases pass. Case {index + 1}, '{case.name}':",
                 number_hint(objective, got, expected) + "."]
        slips, hints = ((_f_sep_slips(case), _F_SEP_HINTS) if objective == "f_sep"
                        else (_f_cp_slips(case), _F_CP_HINTS))
        hint = next((hints[k] for k, v in slips.items() if same(got, v) and not same(v, expected)), None)
        if hint is None and objective == "f_sep":
            if math.isinf(expected):
                hint = ("with fewer than two non-empty clusters there is no pair to measure: "
                        "return np.inf (numpy's infinity).")
            elif math.isinf(got) or got >= 1e11 or math.isnan(got):
                hint = ("did you take the minimum over distinct pairs only? The distance of a "
                        "centroid to itself is 0.")
        lines.append(("Hint: " + hint) if hint else
                     "Hint: work through the definition by hand on this case.")
        if not hidden:
            lines.append(f"Inputs: {inputs}.")
        raise Mistake("\n".join(lines))
    if hidden:
        return (f"Well done: your {objective} also matches the package on {len(cases)} held-out "
                f"random cases (within {RTOL:g}).")
    extra = (" including the ghost, duplicate and single-cluster edge cases" if objective == "f_sep"
             else "")
    return (f"Well done: your {objective} matches the package on all {len(cases)} cases{extra} "
            f"(within {RTOL:g}).")


def check_f_sep(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    return _check_objective(answer, "f_sep")


def check_f_cp(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    return _check_objective(answer, "f_cp")


def check_f_sep_held_out(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    return _check_objective(answer, "f_sep", hidden=True, seed=context.get("held_out_seed"))


def check_f_cp_held_out(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    return _check_objective(answer, "f_cp", hidden=True, seed=context.get("held_out_seed"))
