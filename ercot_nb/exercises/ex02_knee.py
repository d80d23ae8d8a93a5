"""Exercise 02_predict_the_knee: predict the knee of a front, then implement the knee rule."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..knee import normalise_front, select_knee
from .answers import as_int, call_student, fmt, require_function, result_of, step_arg
from .feedback import Mistake, NotAttempted


def _front(step: Any) -> tuple[np.ndarray, np.ndarray]:
    """(F, n_clusters) of the first front the knee was chosen from."""
    members = np.flatnonzero(step.first_front)
    return step.objectives_accumulated[members].astype(float), step.population_n_clusters[members]


def _knee_distances(F: np.ndarray) -> np.ndarray:
    return np.hypot(*normalise_front(F).T)


def check_predict(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    result = result_of(context, "result")
    t = step_arg(context, result)
    if answer is None:
        raise NotAttempted
    k = as_int(answer, "your prediction (a number of clusters)")
    step = result[t]
    F, ks = _front(step)
    knee_k = int(step.population_n_clusters[step.knee])
    distance = _knee_distances(F)
    knee_d = float(distance[np.flatnonzero(step.first_front) == step.knee][0])
    present = sorted(set(ks.tolist()))
    if k == knee_k:
        others = [(float(distance[ks == c].min()), c) for c in present if c != knee_k]
        runner = min(others) if others else None
        tail = (f"; the nearest point with another number of clusters (k = {runner[1]}) is at "
                f"{runner[0]:.3f}" if runner else "")
        return (f"Yes: the knee at step t={t} has {knee_k} clusters. After normalising, it lies "
                f"{knee_d:.3f} from the ideal corner (0, 0){tail}.")
    if k not in present:
        raise Mistake(
            f"No member of the first front at step t={t} has {k} clusters; the front holds "
            f"k in {present}. Read the colours (number of clusters) in the plot again.",
            counts=False,
        )
    own_d = float(distance[ks == k].min())
    geometry = (
        f"Your k = {k}: its best front point lies {own_d:.3f} from the ideal corner (0, 0) after "
        f"normalising, but another point is nearer, at {knee_d:.3f}. The knee rule rescales each "
        "objective over the front to g = sqrt((f - min) / (max - min)) before measuring; the "
        "square root stretches values near the minimum, so on a plot of the unscaled objectives "
        "points close to an axis look nearer the ideal corner than they are."
    )
    if attempt <= 1:
        raise Mistake(geometry + " Compare the candidates' g values (part B helps), then try again.")
    raise Mistake(geometry + f" The knee has {knee_k} clusters; see it starred in "
                   f"figures.pareto_figure(result, {t}).")


@dataclass(frozen=True)
class _FrontCase:
    name: str
    F: np.ndarray
    n_clusters: np.ndarray


def _synthetic_fronts() -> list[_FrontCase]:
    rng = np.random.default_rng(7)
    f1 = np.sort(rng.uniform(150.0, 450.0, 12))
    convex = np.column_stack([f1, 60.0 / f1 + 0.02 * rng.uniform(size=12) * (450.0 - f1) / 300.0])
    order = rng.permutation(12)
    g1 = np.sort(rng.uniform(1.0e4, 2.0e4, 9))
    scales = np.column_stack([g1, 2.0e-3 * (1.0e4 / g1) ** 3])
    flat = np.column_stack([rng.permutation(np.linspace(10.0, 20.0, 6)), np.full(6, 0.5)])
    return [
        _FrontCase("a 12-point front given in shuffled order", convex[order], np.arange(13, 1, -1)[order]),
        _FrontCase("objectives on very different scales (f_cp ~ 1e4, f_sep ~ 1e-3)",
                   scales, np.arange(10, 1, -1)),
        _FrontCase("a front of a single point", np.array([[210.0, 0.3]]), np.array([4])),
        _FrontCase("the same f_sep for every point (max == min)", flat, np.arange(7, 1, -1)),
    ]


def held_out_fronts(seed: int | None = None) -> list[_FrontCase]:
    """Seeded random fronts that ``case_inputs`` does not hand out: the hidden test of a grader.

    An nbgrader course passes a ``seed`` derived from its secret (see ``held_out_cases``
    of exercise 1); without one the package's fixed seed is used.
    """
    rng = np.random.default_rng(27182 if seed is None else seed)
    cases = []
    for index in range(5):
        n = int(rng.integers(3, 16))
        f1 = np.sort(rng.uniform(10.0, 10.0 ** rng.uniform(2, 5), n))
        f2 = rng.uniform(0.5, 3.0) * (f1.min() / f1) ** rng.uniform(0.5, 3.0) * 10.0 ** rng.uniform(-4, 1)
        order = rng.permutation(n)
        cases.append(_FrontCase(f"held-out front {index + 1} ({n} points)",
                                np.column_stack([f1, f2])[order], np.arange(n + 1, 1, -1)[order]))
    return cases


def front_cases(context: Mapping[str, Any]) -> list[_FrontCase]:
    cases = []
    if context.get("result") is not None:
        result = result_of(context, "result")
        for step in result:
            if len(step.population):
                F, ks = _front(step)
                cases.append(_FrontCase(f"step t={step.t} (time {step.time}) of your run", F, ks))
    return cases + _synthetic_fronts()


def _knee_slips(F: np.ndarray, expected: int) -> dict[str, int]:
    """Indices that typical slips return on front ``F`` (for targeted hints)."""
    low, span = F.min(axis=0), F.max(axis=0) - F.min(axis=0)
    minmax = np.divide(F - low, span, out=np.zeros_like(F), where=span > 0)
    by_f1 = np.argsort(F[:, 0], kind="stable")
    return {
        "raw": int(np.argmin(np.hypot(*F.T))),
        "no_sqrt": int(np.argmin(np.hypot(*minmax.T))),
        "argmax": int(np.argmax(np.hypot(*normalise_front(F).T))),
        "sorted": int(np.flatnonzero(by_f1 == expected)[0]),
    }


_KNEE_HINTS = {
    "raw": "did you normalise? f_cp and f_sep live on very different scales; rescale each "
           "objective to [0, 1] over the front before measuring distances.",
    "no_sqrt": "close to the rule, but MOCK's normalisation also takes the square root: "
               "g = sqrt((f - min) / (max - min)).",
    "argmax": "the knee is the point *nearest* the ideal corner (0, 0): argmin, not argmax.",
}


def check_knee_rule(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    return _check_knee_rule(answer, front_cases(context), hidden=False)


def check_knee_rule_held_out(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    return _check_knee_rule(answer, held_out_fronts(context.get("held_out_seed")), hidden=True)


def _check_knee_rule(answer: Any, cases: list[_FrontCase], hidden: bool) -> str:
    function = require_function(answer, "knee_index(F)")
    for index, case in enumerate(cases):
        inputs = (f"ercot_nb.exercises.case_inputs('02_predict_the_knee', {index + 1}"
                  f"{', result=result' if index < len(cases) - 4 else ''})")
        where = f"front {index + 1}, '{case.name}'" + ("" if hidden else f" (inputs: {inputs})")
        raw = call_student(function, (case.F,), where, "knee_index")
        if raw is None:
            if index == 0:
                raise NotAttempted
            raise Mistake(f"On case '{case.name}' your knee_index returned None.")
        got = as_int(raw, "the value returned by knee_index (an index into F)")
        if not 0 <= got < len(case.F):
            raise Mistake(f"On case '{case.name}' your knee_index returned {got}, but F has "
                           f"only {len(case.F)} rows (valid indices 0..{len(case.F) - 1}).")
        expected = select_knee(case.F, case.n_clusters)
        distance = _knee_distances(case.F)
        tie = abs(distance[got] - distance[expected]) <= 1e-12 * max(1.0, distance[expected])
        if np.array_equal(case.F[got], case.F[expected]) or tie:
            continue
        lines = [
            f"{index} of {len(cases)} fronts pass. Front {index + 1}, '{case.name}' ({len(case.F)} points):",
            f"your knee_index returned {got} (f_cp = {fmt(case.F[got, 0])}, f_sep = "
            f"{fmt(case.F[got, 1])}, normalised distance {fmt(distance[got])}), but the rule "
            f"picks {expected} (f_cp = {fmt(case.F[expected, 0])}, f_sep = "
            f"{fmt(case.F[expected, 1])}, distance {fmt(distance[expected])}).",
        ]
        slips = _knee_slips(case.F, expected)
        hint = next((_KNEE_HINTS[k] for k in ("raw", "no_sqrt", "argmax")
                     if got == slips[k] and slips[k] != expected), None)
        if hint is None and got == slips["sorted"] and got != expected:
            hint = "return the row index into F as it was given (the rows are not sorted)."
        if hint is None and "max == min" in case.name:
            hint = "when max == min for an objective, 0 / 0 gives nan: set g = 0 for that objective."
        lines.append(("Hint: " + hint) if hint else
                     "Hint: compute g for every point of this front and compare the distances.")
        if not hidden:
            lines.append(f"Inputs: {inputs}.")
        raise Mistake("\n".join(lines))
    if hidden:
        return f"Well done: your knee_index also picks the package's knee on {len(cases)} held-out fronts."
    steps = len(cases) - 4
    source = f" on {steps} fronts of your run and" if steps else ""
    return (f"Well done: your knee_index picks the package's knee{source} on 4 constructed "
            "fronts (shuffled, badly scaled, single point, constant objective).")
