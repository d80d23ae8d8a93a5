"""Automatic feedback for the classroom exercises in ``notebooks/exercises/``.

Each exercise notebook ends its tasks with a call such as::

    from ercot_nb.exercises import check
    check("01_implement_f_sep", f_sep)

which returns a :class:`Feedback`: green when the answer is right, amber
otherwise, with specific, encouraging hints and the numbers needed to debug
(never the full answer to a prediction on the first try). Answers are checked
against the package itself (the NumPy twins of the kernels, the knee rule in
``ercot_nb._knee``, the dataset labels and the fitted model the student
passes), not against stored numbers.

=======================================  ======================================
exercise                                 parts
=======================================  ======================================
``01_implement_f_sep``                   ``f_sep``, ``f_cp``
``02_predict_the_knee``                  ``predict``, ``knee_rule``
``03_explain_the_weight_syn3``           ``lowest_time``, ``drift_means``,
                                         ``control``, ``statements``
``04_find_the_vanishing_cluster``        ``true_counts``, ``vanished``,
                                         ``compare``, ``statements``
=======================================  ======================================

Every call is recorded (see :func:`history`); :func:`reset` clears the record
and the per-part attempt counters that decide how much a hint reveals.
"""
from __future__ import annotations

import html
import math
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial.distance import cdist, pdist

__all__ = [
    "EX3_STATEMENTS",
    "EX4_STATEMENTS",
    "Feedback",
    "case_inputs",
    "check",
    "history",
    "list_exercises",
    "list_parts",
    "reset",
]

_RTOL = 1e-6  # relative tolerance of numeric answers
_CLOSE = 0.05  # relative error below which a wrong number counts as "close"


# --------------------------------------------------------------------------- #
# Feedback object, log and attempt counters
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class Feedback:
    """Result of one :func:`check` call.

    Attributes
    ----------
    exercise : str
        Exercise name, e.g. ``"01_implement_f_sep"``.
    part : str
        Part of the exercise that was checked, e.g. ``"f_sep"``.
    passed : bool
        True when the answer is right.
    attempted : bool
        False when the answer is still the starter placeholder (``None``).
    message : str
        The feedback text (one or more lines).
    """

    exercise: str
    part: str
    passed: bool
    attempted: bool
    message: str

    @property
    def status(self) -> str:
        """``"correct"``, ``"not attempted yet"`` or ``"not yet right"``."""
        if self.passed:
            return "correct"
        return "not yet right" if self.attempted else "not attempted yet"

    def __str__(self) -> str:
        return f"[{self.status}] {self.exercise} / {self.part}\n{self.message}"

    def __repr__(self) -> str:
        return self.__str__()

    def _repr_html_(self) -> str:
        if self.passed:
            border, background, title = "#2e7d32", "#e8f5e9", "&#10004; Correct"
        elif self.attempted:
            border, background, title = "#b26a00", "#fff4e0", "Not yet right"
        else:
            border, background, title = "#b26a00", "#fff4e0", "Not attempted yet"
        body = "<br>".join(html.escape(line) for line in self.message.splitlines())
        return (
            f'<div style="border-left: 6px solid {border}; background: {background}; '
            f'color: #1b1b1b; padding: 8px 12px; margin: 4px 0; border-radius: 4px;">'
            f"<b>{title}</b> &middot; <code>{html.escape(self.exercise)}</code> / "
            f"{html.escape(self.part)}<br>{body}</div>"
        )


_LOG: list[Feedback] = []
_ATTEMPTS: Counter[tuple[str, str]] = Counter()


def history() -> list[Feedback]:
    """Every :class:`Feedback` returned by :func:`check` since the last :func:`reset`.

    Returns
    -------
    list of Feedback
        In call order (a copy).
    """
    return list(_LOG)


def reset() -> None:
    """Forget the recorded feedback and the attempt counters."""
    _LOG.clear()
    _ATTEMPTS.clear()


class _NotAttempted(Exception):
    """The answer is still the starter placeholder."""


class _Mistake(Exception):
    """A wrong answer; the message is the feedback.

    ``counts=False`` for problems of form (wrong type, missing context) that
    should not bring a fuller hint closer.
    """

    def __init__(self, message: str, counts: bool = True) -> None:
        super().__init__(message)
        self.counts = counts


# --------------------------------------------------------------------------- #
# Small helpers shared by the checkers
# --------------------------------------------------------------------------- #
def _fmt(value: float) -> str:
    if value is None:
        return "None"
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if math.isnan(value):
        return "nan"
    return f"{value:.6g}"


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _as_number(value: Any, what: str) -> float:
    """A student's scalar answer as float, or a form mistake naming ``what``."""
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    if not _is_number(value):
        shape = f" of shape {value.shape}" if isinstance(value, np.ndarray) else ""
        raise _Mistake(
            f"{what} should be a single number, but it is a {type(value).__name__}{shape}.",
            counts=False,
        )
    return float(value)


def _as_int(value: Any, what: str) -> int:
    number = _as_number(value, what)
    if not math.isfinite(number) or number != int(number):
        raise _Mistake(f"{what} should be a whole number, got {_fmt(number)}.", counts=False)
    return int(number)


def _as_int_list(value: Any, what: str) -> list[int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (Iterable, np.ndarray)):
        raise _Mistake(
            f"{what} should be a list of whole numbers, but it is a {type(value).__name__}.",
            counts=False,
        )
    return [_as_int(v, f"every entry of {what}") for v in np.asarray(list(value)).ravel()]


def _same(got: float, expected: float, rtol: float = _RTOL) -> bool:
    if math.isinf(expected) or math.isinf(got):
        return got == expected
    return abs(got - expected) <= rtol * max(1.0, abs(expected))


def _number_hint(name: str, got: float, expected: float, rtol: float = _RTOL) -> str:
    """'Close: your x is 0.41 but should be 0.39 (within 1e-06)'."""
    close = (
        math.isfinite(got) and math.isfinite(expected) and expected != 0
        and abs(got - expected) <= _CLOSE * abs(expected)
    )
    lead = "Close" if close else "Not yet"
    return f"{lead}: your {name} is {_fmt(got)} but should be {_fmt(expected)} (within {rtol:g})"


def _result_of(context: Mapping[str, Any], key: str = "model") -> Any:
    """The ClusteringResult behind context[key] (a result or a fitted estimator)."""
    from .result import ClusteringResult

    if key not in context or context[key] is None:
        raise _Mistake(
            f"check needs your fitted model here: add {key}={key} to the check(...) call.",
            counts=False,
        )
    value = context[key]
    result = value if isinstance(value, ClusteringResult) else getattr(value, "result_", None)
    if not isinstance(result, ClusteringResult) or len(result) == 0:
        raise _Mistake(
            f"{key}= should be a fitted ERCOT model (or its result_), "
            f"got {type(value).__name__}. Did you run the cell that fits it?",
            counts=False,
        )
    return result


def _dataset_of(context: Mapping[str, Any], name: str, key: str = "data") -> Any:
    from .data import TemporalDataset

    value = context.get(key)
    if not isinstance(value, TemporalDataset):
        raise _Mistake(
            f"check needs the dataset here: add {key}={key} to the check(...) call "
            f"({key} = datasets.load({name!r}, seed=0)).",
            counts=False,
        )
    if value.name != name:
        raise _Mistake(
            f"this exercise is about {name!r}, but {key}= is {value.name!r}.", counts=False
        )
    if not value.has_labels:
        raise _Mistake(f"{key}= has no true labels; load it with datasets.load({name!r}).",
                       counts=False)
    return value


def _check_fitted_on(result: Any, dataset: Any, key: str = "model") -> None:
    if len(result) != len(dataset) or any(
        len(step.ids) != len(snap.ids) for step, snap in zip(result, dataset)
    ):
        raise _Mistake(
            f"{key}= does not seem to be fitted on {dataset.name!r}: it has {len(result)} "
            f"steps, the dataset {len(dataset)}. Fit it with ERCOT(seed=0).fit(data).",
            counts=False,
        )


def _letters(value: Any, allowed: Sequence[str]) -> set[str]:
    """Statement letters from "A, C", "ac", ["A", "C"] or {"A"}; form mistakes otherwise."""
    if isinstance(value, str):
        items = [c for c in value.upper() if c.isalpha()]
    elif isinstance(value, Iterable):
        items = []
        for item in value:
            if not isinstance(item, str):
                raise _Mistake(
                    f"give the statements as letters (e.g. {{'A', 'C'}}), "
                    f"found {item!r} ({type(item).__name__}).",
                    counts=False,
                )
            items.extend(c for c in item.upper() if c.isalpha())
    else:
        raise _Mistake(
            f"give the true statements as a set of letters, e.g. {{'A', 'C'}}, "
            f"not a {type(value).__name__}.",
            counts=False,
        )
    unknown = sorted(set(items) - set(allowed))
    if unknown:
        raise _Mistake(
            f"there is no statement {', '.join(unknown)}; choose among {', '.join(allowed)}.",
            counts=False,
        )
    return set(items)


def _judge_statements(
    answer: Any, truth: Mapping[str, bool], evidence: Mapping[str, str], attempt: int
) -> str:
    """Compare a set of letters with the true statements; hint more on later attempts."""
    chosen = _letters(answer, list(truth))
    wrong = sorted(letter for letter, true in truth.items() if (letter in chosen) != true)
    if not wrong:
        lines = [f"All {len(truth)} statements judged right. The evidence from your run:"]
        lines += [f"  {letter} ({'true' if truth[letter] else 'false'}): {evidence[letter]}"
                  for letter in truth]
        return "\n".join(lines)
    if attempt <= 1:
        raise _Mistake(
            f"{len(wrong)} of the {len(truth)} statements {'is' if len(wrong) == 1 else 'are'} "
            "judged the wrong way (true ones must be in your set, false ones left out). "
            "Check each statement against the numbers of your own run, then try again; "
            "the next try names the statements to look at."
        )
    lines = [f"Look again at statement{'s' if len(wrong) > 1 else ''} {', '.join(wrong)}:"]
    lines += [f"  {letter}: {evidence[letter]}" for letter in wrong]
    raise _Mistake("\n".join(lines))


def _call_student(function: Callable[..., Any], args: tuple, where: str, what: str) -> Any:
    """Call the student's function on copies of ``args``; turn errors into feedback.

    ``where`` names the case and how to get its inputs.
    """
    copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
    try:
        return function(*copies)
    except Exception as error:  # a student's bug becomes feedback, not a traceback
        raise _Mistake(
            f"On {where} your {what} raised {type(error).__name__}: {error}\n"
            "Run your function on these inputs yourself: the traceback names the line that failed."
        ) from None


def _require_function(answer: Any, signature: str) -> Callable[..., Any]:
    if answer is None:
        raise _NotAttempted
    if not callable(answer):
        raise _Mistake(
            f"pass the function itself, {signature}, not a {type(answer).__name__} "
            "(no parentheses: check(..., f_sep), not check(..., f_sep(...))).",
            counts=False,
        )
    return answer


# --------------------------------------------------------------------------- #
# Exercise 1: implement f_sep (and f_cp)
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class _ClusterCase:
    name: str
    X: np.ndarray
    centroids: np.ndarray
    active: np.ndarray


def _blobs(rng: np.random.Generator, means: Sequence[Sequence[float]], n: int, scale: float) -> np.ndarray:
    means = np.asarray(means, dtype=float)
    return np.vstack([m + scale * rng.standard_normal((n, means.shape[1])) for m in means])


def _objective_cases() -> list[_ClusterCase]:
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
        _ClusterCase("three separated blobs, all centroids active", X3, C3, np.array([yes, yes, yes])),
        _ClusterCase("an inactive centroid right next to an active one", X3,
                     np.vstack([C3, C3[0] + [0.2, 0.1]]), np.array([yes, yes, yes, no])),
        _ClusterCase("a ghost centroid (active, but no sample is nearest to it)", X_pair, C_pair,
                     np.array([yes, yes, yes])),
        _ClusterCase("a duplicate centroid (exactly on top of another one)", X3,
                     np.vstack([C3, C3[1]]), np.array([yes, yes, yes, yes])),
        _ClusterCase("only one active centroid", X3, C3, np.array([yes, no, no])),
        _ClusterCase("two active centroids, but one of them is a ghost", X_pair[:25],
                     np.array([[-3.0, 0.0], [10.0, 10.0]]), np.array([yes, yes])),
        _ClusterCase("3-D data with five centroid slots, one inactive", X_3d, C_3d,
                     np.array([yes, yes, no, yes, yes])),
    ]


def _package_objectives(case: _ClusterCase) -> tuple[float, float]:
    """(f_cp, f_sep over non-empty clusters) from the package's NumPy twin."""
    from ._kernels import _numpy_twins

    n_max = len(case.centroids)
    chromosome = np.concatenate([case.active.astype(float), case.centroids.ravel()])[None, :]
    f_cp, f_sep = np.empty(1), np.empty(1)
    counts = np.zeros((1, n_max), dtype=np.int64)
    _numpy_twins.evaluate_population(
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


def _f_sep_slips(case: _ClusterCase) -> dict[str, float]:
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


def _f_cp_slips(case: _ClusterCase) -> dict[str, float]:
    _, d = _nearest_distances(case.X, case.centroids, np.flatnonzero(case.active))
    _, d_all = _nearest_distances(case.X, case.centroids, np.arange(len(case.centroids)))
    return {"squared": float((d**2).sum()), "mean": float(d.mean()), "inactive": float(d_all.sum())}


_F_CP_HINTS = {
    "squared": "did you add up squared distances? f_cp sums plain Euclidean distances.",
    "mean": "did you take the mean? f_cp is the sum over all samples.",
    "inactive": "did you measure each sample to its nearest *active* centroid only?",
}


def _check_objective(answer: Any, objective: str) -> str:
    function = _require_function(answer, f"{objective}(X, centroids, active)")
    cases = _objective_cases()
    for index, case in enumerate(cases):
        where = (f"case {index + 1}, '{case.name}' (inputs: "
                 f"ercot_nb.exercises.case_inputs('01_implement_f_sep', {index + 1}))")
        raw = _call_student(function, (case.X, case.centroids, case.active), where, objective)
        if raw is None:
            if index == 0:
                raise _NotAttempted
            raise _Mistake(f"On case '{case.name}' your {objective} returned None; "
                           "every path through your function should return a number.")
        got = _as_number(raw, f"the value returned by {objective}")
        f_cp, f_sep = _package_objectives(case)
        expected = f_sep if objective == "f_sep" else f_cp
        if _same(got, expected):
            continue
        lines = [f"{index} of {len(cases)} cases pass. Case {index + 1}, '{case.name}':",
                 _number_hint(objective, got, expected) + "."]
        slips, hints = ((_f_sep_slips(case), _F_SEP_HINTS) if objective == "f_sep"
                        else (_f_cp_slips(case), _F_CP_HINTS))
        hint = next((hints[k] for k, v in slips.items() if _same(got, v) and not _same(v, expected)), None)
        if hint is None and objective == "f_sep":
            if math.isinf(expected):
                hint = ("with fewer than two non-empty clusters there is no pair to measure: "
                        "return np.inf (numpy's infinity).")
            elif math.isinf(got) or got >= 1e11 or math.isnan(got):
                hint = ("did you take the minimum over distinct pairs only? The distance of a "
                        "centroid to itself is 0.")
        lines.append(("Hint: " + hint) if hint else
                     "Hint: work through the definition by hand on this case.")
        lines.append(f"Inputs: ercot_nb.exercises.case_inputs('01_implement_f_sep', {index + 1}).")
        raise _Mistake("\n".join(lines))
    extra = (" including the ghost, duplicate and single-cluster edge cases" if objective == "f_sep"
             else "")
    return (f"Well done: your {objective} matches the package on all {len(cases)} cases{extra} "
            f"(within {_RTOL:g}).")


def _check_f_sep(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    return _check_objective(answer, "f_sep")


def _check_f_cp(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    return _check_objective(answer, "f_cp")


# --------------------------------------------------------------------------- #
# Exercise 2: predict the knee
# --------------------------------------------------------------------------- #
def _step_arg(context: Mapping[str, Any], result: Any) -> int:
    if "t" not in context:
        raise _Mistake("check needs the step you looked at: add t=t to the check(...) call.",
                       counts=False)
    t = _as_int(context["t"], "t")
    if not 0 <= t < len(result):
        raise _Mistake(f"t={t} is not a step of the run (0..{len(result) - 1}).", counts=False)
    return t


def _front(step: Any) -> tuple[np.ndarray, np.ndarray]:
    """(F, n_clusters) of the first front the knee was chosen from."""
    members = np.flatnonzero(step.first_front)
    return step.objectives_accumulated[members].astype(float), step.population_n_clusters[members]


def _knee_distances(F: np.ndarray) -> np.ndarray:
    from ._knee import normalise_front

    return np.hypot(*normalise_front(F).T)


def _check_predict(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    result = _result_of(context, "result")
    t = _step_arg(context, result)
    if answer is None:
        raise _NotAttempted
    k = _as_int(answer, "your prediction (a number of clusters)")
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
        raise _Mistake(
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
        raise _Mistake(geometry + " Compare the candidates' g values (part B helps), then try again.")
    raise _Mistake(geometry + f" The knee has {knee_k} clusters; see it starred in "
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


def _front_cases(context: Mapping[str, Any]) -> list[_FrontCase]:
    cases = []
    if context.get("result") is not None:
        result = _result_of(context, "result")
        for step in result:
            if len(step.population):
                F, ks = _front(step)
                cases.append(_FrontCase(f"step t={step.t} (time {step.time}) of your run", F, ks))
    return cases + _synthetic_fronts()


def _knee_slips(F: np.ndarray, expected: int) -> dict[str, int]:
    """Indices that typical slips return on front ``F`` (for targeted hints)."""
    from ._knee import normalise_front

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


def _check_knee_rule(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    from ._knee import select_knee

    function = _require_function(answer, "knee_index(F)")
    cases = _front_cases(context)
    for index, case in enumerate(cases):
        inputs = (f"ercot_nb.exercises.case_inputs('02_predict_the_knee', {index + 1}"
                  f"{', result=result' if index < len(cases) - 4 else ''})")
        raw = _call_student(function, (case.F,), f"front {index + 1}, '{case.name}' (inputs: {inputs})",
                            "knee_index")
        if raw is None:
            if index == 0:
                raise _NotAttempted
            raise _Mistake(f"On case '{case.name}' your knee_index returned None.")
        got = _as_int(raw, "the value returned by knee_index (an index into F)")
        if not 0 <= got < len(case.F):
            raise _Mistake(f"On case '{case.name}' your knee_index returned {got}, but F has "
                           f"only {len(case.F)} rows (valid indices 0..{len(case.F) - 1}).")
        expected = select_knee(case.F, case.n_clusters)
        distance = _knee_distances(case.F)
        tie = abs(distance[got] - distance[expected]) <= 1e-12 * max(1.0, distance[expected])
        if np.array_equal(case.F[got], case.F[expected]) or tie:
            continue
        lines = [
            f"{index} of {len(cases)} fronts pass. Front {index + 1}, '{case.name}' ({len(case.F)} points):",
            f"your knee_index returned {got} (f_cp = {_fmt(case.F[got, 0])}, f_sep = "
            f"{_fmt(case.F[got, 1])}, normalised distance {_fmt(distance[got])}), but the rule "
            f"picks {expected} (f_cp = {_fmt(case.F[expected, 0])}, f_sep = "
            f"{_fmt(case.F[expected, 1])}, distance {_fmt(distance[expected])}).",
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
        lines.append(f"Inputs: {inputs}.")
        raise _Mistake("\n".join(lines))
    steps = len(cases) - 4
    source = f" on {steps} fronts of your run and" if steps else ""
    return (f"Well done: your knee_index picks the package's knee{source} on 4 constructed "
            "fronts (shuffled, badly scaled, single point, constant objective).")


# --------------------------------------------------------------------------- #
# Exercises 3 and 4: shared facts about a labelled dataset and a run
# --------------------------------------------------------------------------- #
def _label_change_times(dataset: Any) -> list[Any]:
    """Time labels at which some common sample's true label differs from the step before."""
    from .data import common_ids

    times = []
    for previous, current in zip(dataset, dataset[1:]):
        ia, ib = common_ids(previous, current)
        if np.any(previous.labels[ia] != current.labels[ib]):
            times.append(current.time)
    return times


def _true_counts(dataset: Any) -> list[int]:
    return [int(len(np.unique(s.labels))) for s in dataset]


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _time_index(times: Sequence[Any], time: Any) -> int | None:
    matches = [i for i, t in enumerate(times) if t == time]
    return matches[0] if matches else None


# --------------------------------------------------------------------------- #
# Exercise 3: explain the weight (Syn3)
# --------------------------------------------------------------------------- #
EX3_STATEMENTS = {
    "A": "Between the previous time step and this one, some samples switched to another "
         "true cluster (a concept-drift switch).",
    "B": "ERCOT's chosen number of clusters differs from the one at the previous time step.",
    "C": "Samples entered or left the data set at this time step.",
    "D": "The true number of clusters differs from the one at the previous time step.",
    "E": "On Syn1 (the same data without drift), fitted with the same seed, alpha is also "
         "lowest at this time step.",
}


def _alpha_facts(result: Any) -> tuple[np.ndarray, list[Any], int]:
    alpha = np.asarray(result.alpha, dtype=float)
    if np.all(np.isnan(alpha)):
        raise _Mistake("this run has no alpha at any step (was it fitted with ERCOT?).", counts=False)
    return alpha, [_plain(t) for t in result.times], int(np.nanargmin(alpha))


def _check_lowest_time(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    result = _result_of(context)
    dataset = _dataset_of(context, "syn3")
    _check_fitted_on(result, dataset)
    if answer is None:
        raise _NotAttempted
    got = _as_number(answer, "lowest_time (a time label such as 3)")
    alpha, times, lowest = _alpha_facts(result)
    if got == times[lowest]:
        return (f"Right: alpha is lowest at time {times[lowest]} (t = {lowest}), "
                f"alpha = {alpha[lowest]:.3f}.")
    if 0 <= got < len(times) and int(got) == got and int(got) == lowest:
        raise _Mistake(f"{_fmt(got)} is the 0-based step index t of the lowest alpha; the question "
                       "asks for its time label (data.times, or the 'time' column of steps_frame()).")
    if 0.0 < got < 1.0:
        raise _Mistake("that looks like an alpha value; give the time label at which alpha is lowest.",
                       counts=False)
    index = _time_index(times, got)
    if index is None:
        raise _Mistake(f"{_fmt(got)} is not a time label of the run; the labels are {times}.",
                       counts=False)
    if math.isnan(alpha[index]):
        raise _Mistake(f"At time {times[index]} there is no alpha (nan: the first step has no "
                       "history). Leave it out and look for the smallest value.")
    message = (f"At time {times[index]} alpha is {alpha[index]:.3f}, and there is a lower value. "
               "Look for the minimum of model.alpha_ (np.nanargmin skips the nan of the first step).")
    if attempt > 1:
        message += f" The lowest is {alpha[lowest]:.3f}."
    raise _Mistake(message)


def _window_means(alpha: np.ndarray, times: Sequence[Any], window: Sequence[Any]) -> tuple[float, float]:
    inside = np.array([t in window for t in times])
    known = ~np.isnan(alpha)
    return float(alpha[inside & known].mean()), float(alpha[~inside & known].mean())


def _means_pair(answer: Any) -> tuple[float, float]:
    if answer is None:
        raise _NotAttempted
    if isinstance(answer, Mapping):
        answer = (answer.get("drift"), answer.get("other"))
    if isinstance(answer, (str, bytes)) or not isinstance(answer, (Sequence, np.ndarray)) or len(answer) != 2:
        raise _Mistake("give two numbers: (mean alpha during the drift, mean alpha at the other steps).",
                       counts=False)
    if answer[0] is None and answer[1] is None:
        raise _NotAttempted
    return _as_number(answer[0], "the drift mean"), _as_number(answer[1], "the other mean")


def _shifted(times: Sequence[Any], window: Sequence[Any]) -> list[Any]:
    """The window a student gets by using time labels as 0-based indices."""
    return [times[int(w)] for w in window if _is_number(w) and 0 <= int(w) < len(times)]


def _check_drift_means(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    result = _result_of(context)
    dataset = _dataset_of(context, "syn3")
    _check_fitted_on(result, dataset)
    drift, other = _means_pair(answer)
    alpha, times, _ = _alpha_facts(result)
    window = _label_change_times(dataset)
    exp_drift, exp_other = _window_means(alpha, times, window)
    if _same(drift, exp_drift) and _same(other, exp_other):
        return (f"Right: mean alpha is {exp_drift:.3f} at the drift steps (times "
                f"{', '.join(map(str, window))}) and {exp_other:.3f} at the other steps with history.")
    lines = []
    for name, got, expected in (("drift mean", drift, exp_drift), ("other mean", other, exp_other)):
        if not _same(got, expected):
            lines.append(_number_hint(name, got, expected) + ".")
    shifted_drift, shifted_other = _window_means(alpha, times, _shifted(times, window))
    all_known = float(np.nanmean(alpha))
    if math.isnan(drift) or math.isnan(other):
        hint = "a nan slipped in: the first step has no alpha; leave it out (np.nanmean)."
    elif _same(drift, exp_other) and _same(other, exp_drift):
        hint = "the two means are swapped: drift first, then the other steps."
    elif _same(drift, shifted_drift) or _same(other, shifted_other):
        hint = ("you picked the steps by 0-based index t; the drift happens at the time *labels* "
                f"{window} (t = time - 1 here).")
    elif _same(other, all_known):
        hint = "the 'other' mean should leave out the drift steps."
    else:
        hint = (f"the drift steps are the time labels {window}; 'other' is every remaining step "
                "that has an alpha.")
    lines.append("Hint: " + hint)
    raise _Mistake("\n".join(lines))


def _check_control(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    result = _result_of(context)
    dataset = _dataset_of(context, "syn3")
    control = _result_of(context, "syn1_model")
    if len(control) != len(dataset):
        raise _Mistake("syn1_model= should be fitted on datasets.load('syn1', seed=0) "
                       f"(10 steps); it has {len(control)}.", counts=False)
    if answer is None:
        raise _NotAttempted
    got = _as_number(answer, "syn1_drift_mean")
    window = _label_change_times(dataset)
    alpha1, times1, _ = _alpha_facts(control)
    expected, _ = _window_means(alpha1, times1, window)
    if _same(got, expected):
        alpha3, times3, _ = _alpha_facts(result)
        syn3_mean, _ = _window_means(alpha3, times3, window)
        return (f"Right: on Syn1 mean alpha over times {', '.join(map(str, window))} is "
                f"{expected:.3f}; on Syn3 it is {syn3_mean:.3f} (difference "
                f"{syn3_mean - expected:+.3f}).")
    syn3_alpha, _, _ = _alpha_facts(result)
    syn3_mean, _ = _window_means(syn3_alpha, times1, window)
    shifted, _ = _window_means(alpha1, times1, _shifted(times1, window))
    lines = [_number_hint("Syn1 drift-window mean", got, expected) + "."]
    if _same(got, syn3_mean):
        lines.append("Hint: that is the Syn3 value; use syn1_model.alpha_.")
    elif _same(got, shifted):
        lines.append(f"Hint: use the time labels {window}, not the 0-based indices.")
    else:
        lines.append(f"Hint: the same window as before (times {window}), on syn1_model.alpha_.")
    raise _Mistake("\n".join(lines))


def _check_ex3_statements(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    from .data import common_ids

    result = _result_of(context)
    dataset = _dataset_of(context, "syn3")
    _check_fitted_on(result, dataset)
    control = _result_of(context, "syn1_model")
    if answer is None:
        raise _NotAttempted
    alpha, times, low = _alpha_facts(result)
    _, _, low_control = _alpha_facts(control)
    previous, current = dataset[low - 1], dataset[low]
    ia, ib = common_ids(previous, current)
    switched = int(np.count_nonzero(previous.labels[ia] != current.labels[ib]))
    moved = (len(previous.ids) - len(ia)) + (len(current.ids) - len(ib))
    k_prev, k_now = int(result[low - 1].n_clusters), int(result[low].n_clusters)
    true_prev, true_now = _true_counts(dataset)[low - 1: low + 1]
    when = f"time {times[low - 1]} -> {times[low]}"
    truth = {
        "A": switched > 0,
        "B": k_prev != k_now,
        "C": moved > 0,
        "D": true_prev != true_now,
        "E": low_control == low,
    }
    evidence = {
        "A": f"{switched} samples changed their true label from {when}.",
        "B": f"ERCOT chose {k_prev} clusters at time {times[low - 1]} and {k_now} at time {times[low]}.",
        "C": f"{moved} samples entered or left from {when}.",
        "D": f"the data hold {true_prev} true clusters at time {times[low - 1]} and {true_now} "
             f"at time {times[low]}.",
        "E": f"on Syn1 alpha is lowest at time {_plain(control.times[low_control])}.",
    }
    return _judge_statements(answer, truth, evidence, attempt)


# --------------------------------------------------------------------------- #
# Exercise 4: find the vanishing cluster (Syn7)
# --------------------------------------------------------------------------- #
EX4_STATEMENTS = {
    "A": "ERCOT's number of clusters drops at the first time step where the vanishing "
         "cluster is gone.",
    "B": "ERCOT's number of clusters rises again at the time step where that cluster comes back.",
    "C": "At every time step where that cluster is gone, ERCOT finds the true number of clusters.",
    "D": "ERCOT finds the true number of clusters at every time step.",
}


def _vanishing(dataset: Any) -> tuple[list[Any], list[int]]:
    """(time labels where a first-step cluster is missing, the missing labels)."""
    first = set(np.unique(dataset[0].labels).tolist())
    times, labels = [], set()
    for snapshot in dataset:
        missing = first - set(np.unique(snapshot.labels).tolist())
        if missing:
            times.append(_plain(snapshot.time))
            labels |= missing
    return times, sorted(int(v) for v in labels)


def _check_true_counts(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    dataset = _dataset_of(context, "syn7")
    if answer is None:
        raise _NotAttempted
    got = _as_int_list(answer, "true_counts")
    expected = _true_counts(dataset)
    if got == expected:
        return f"Right: the true number of clusters per step is {expected}."
    if len(got) != len(expected):
        raise _Mistake(f"true_counts has {len(got)} entries; give one per time step "
                       f"({len(expected)} steps).", counts=False)
    wrong = [i for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    first = wrong[0]
    snapshot = dataset[first]
    lines = [f"{len(expected) - len(wrong)} of {len(expected)} steps are right. At time "
             f"{_plain(snapshot.time)} (t = {first}) you have {got[first]}, the labels say {expected[first]}."]
    if got[first] == int(snapshot.labels.max()) + 1:
        lines.append("Hint: labels.max() + 1 counts the label numbers, not the labels present: "
                     "when a cluster vanishes its number is skipped. Count the distinct labels "
                     "(np.unique).")
    elif got[first] == snapshot.n_samples:
        lines.append("Hint: that is the number of samples; count distinct labels instead.")
    else:
        lines.append("Hint: count the distinct values of data[t].labels at every step.")
    raise _Mistake("\n".join(lines))


def _check_vanished(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    dataset = _dataset_of(context, "syn7")
    if answer is None:
        raise _NotAttempted
    if not isinstance(answer, Mapping) or set(answer) != {"times", "label"}:
        raise _Mistake("give a dict with two keys: {'times': [...], 'label': ...}.", counts=False)
    if answer["times"] is None and answer["label"] is None:
        raise _NotAttempted
    times = _as_int_list(answer["times"], "times") if answer["times"] is not None else None
    label = _as_int(answer["label"], "label") if answer["label"] is not None else None
    expected_times, expected_labels = _vanishing(dataset)
    all_times = [_plain(t) for t in dataset.times]
    problems = []
    if times != expected_times:
        if times is None:
            problems.append("times is still None.")
        elif times == [all_times.index(t) for t in expected_times]:
            problems.append("times: those are 0-based step indices t; give the time labels "
                            "(data.times).")
        elif times and set(times) < set(expected_times):
            problems.append(f"times: the cluster is missing at {len(expected_times)} time steps, "
                            f"you listed {len(times)}. List every time label at which it is absent.")
        else:
            problems.append(f"times: at {len(expected_times)} time step(s) one of the first step's "
                            "labels is absent; compare np.unique(data[t].labels) with the first "
                            "step's labels.")
    if label not in expected_labels:
        present_everywhere = label is not None and all(label in s.labels for s in dataset)
        problems.append(
            "label is still None." if label is None else
            f"label: cluster {label} is present at every step." if present_everywhere else
            f"label: {label} is not a label of the first step."
        )
    if problems:
        raise _Mistake("Not yet:\n" + "\n".join("  " + p for p in problems))
    return (f"Right: cluster {label} is missing at times {expected_times} and present at every "
            "other step.")


def _check_compare(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    dataset = _dataset_of(context, "syn7")
    result = _result_of(context)
    _check_fitted_on(result, dataset)
    if answer is None:
        raise _NotAttempted
    if not isinstance(answer, Mapping) or set(answer) != {"ercot_counts", "missed_times"}:
        raise _Mistake("give a dict with two keys: {'ercot_counts': [...], 'missed_times': [...]}.",
                       counts=False)
    if answer["ercot_counts"] is None and answer["missed_times"] is None:
        raise _NotAttempted
    truth = _true_counts(dataset)
    chosen = [int(k) for k in result.n_clusters]
    times = [_plain(t) for t in dataset.times]
    missed = [t for t, a, b in zip(times, chosen, truth) if a != b]
    problems = []
    counts = (_as_int_list(answer["ercot_counts"], "ercot_counts")
              if answer["ercot_counts"] is not None else None)
    if counts is None:
        problems.append("ercot_counts is still None.")
    elif counts != chosen:
        differ = sum(a != b for a, b in zip(counts, chosen)) + abs(len(counts) - len(chosen))
        problems.append("ercot_counts: read model.n_clusters_ (or the n_clusters column of "
                        f"steps_frame()); your list differs at {differ} step(s).")
    got_missed = (_as_int_list(answer["missed_times"], "missed_times")
                  if answer["missed_times"] is not None else None)
    if got_missed != missed:
        if got_missed is None:
            problems.append("missed_times is still None.")
        elif got_missed == [times.index(t) for t in missed]:
            problems.append("missed_times: those are 0-based indices t; give the time labels.")
        else:
            problems.append(f"missed_times: ERCOT's count differs from the truth at {len(missed)} "
                            f"time step(s); you listed {len(got_missed)}.")
    if problems:
        raise _Mistake("Not yet:\n" + "\n".join("  " + p for p in problems))
    return (f"Right: ERCOT chose {chosen}; it differs from the truth at "
            f"{'times ' + ', '.join(map(str, missed)) if missed else 'no time step'}.")


def _check_ex4_statements(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    dataset = _dataset_of(context, "syn7")
    result = _result_of(context)
    _check_fitted_on(result, dataset)
    if answer is None:
        raise _NotAttempted
    truth_counts = _true_counts(dataset)
    chosen = [int(k) for k in result.n_clusters]
    times = [_plain(t) for t in dataset.times]
    gone, _ = _vanishing(dataset)
    if not gone:
        raise _Mistake("no cluster vanishes in this dataset; load 'syn7'.", counts=False)
    first_gone = times.index(gone[0])
    back = next((i for i in range(first_gone + 1, len(times)) if times[i] not in gone), None)
    gone_idx = [times.index(t) for t in gone]
    truth = {
        "A": first_gone > 0 and chosen[first_gone] < chosen[first_gone - 1],
        "B": back is not None and chosen[back] > chosen[back - 1],
        "C": all(chosen[i] == truth_counts[i] for i in gone_idx),
        "D": chosen == truth_counts,
    }

    def at(i: int) -> str:
        return f"{chosen[i]} at time {times[i]}"

    evidence = {
        "A": f"ERCOT chose {at(first_gone - 1)} and {at(first_gone)}.",
        "B": (f"ERCOT chose {at(back - 1)} and {at(back)}." if back is not None
              else "the cluster never comes back."),
        "C": "at the times it is gone, ERCOT chose " + ", ".join(at(i) for i in gone_idx)
             + f"; the truth is {truth_counts[gone_idx[0]]}.",
        "D": f"ERCOT chose {chosen}, the truth is {truth_counts}.",
    }
    return _judge_statements(answer, truth, evidence, attempt)


# --------------------------------------------------------------------------- #
# Registry and public entry points
# --------------------------------------------------------------------------- #
_Checker = Callable[[Any, Mapping[str, Any], int], str]


@dataclass(frozen=True)
class _Exercise:
    title: str
    parts: dict[str, _Checker]


_EXERCISES: dict[str, _Exercise] = {
    "01_implement_f_sep": _Exercise(
        "Implement the separation objective f_sep (and f_cp)",
        {"f_sep": _check_f_sep, "f_cp": _check_f_cp},
    ),
    "02_predict_the_knee": _Exercise(
        "Predict the knee of a Pareto front, then implement the knee rule",
        {"predict": _check_predict, "knee_rule": _check_knee_rule},
    ),
    "03_explain_the_weight_syn3": _Exercise(
        "Tune nothing, explain the weight: alpha on Syn3",
        {"lowest_time": _check_lowest_time, "drift_means": _check_drift_means,
         "control": _check_control, "statements": _check_ex3_statements},
    ),
    "04_find_the_vanishing_cluster": _Exercise(
        "Find the vanishing cluster in Syn7",
        {"true_counts": _check_true_counts, "vanished": _check_vanished,
         "compare": _check_compare, "statements": _check_ex4_statements},
    ),
}


def list_exercises() -> list[str]:
    """Names of the exercises :func:`check` knows, in teaching order.

    Returns
    -------
    list of str
        e.g. ``["01_implement_f_sep", "02_predict_the_knee", ...]``; each is
        also the file name of its notebook in ``notebooks/exercises/``.
    """
    return list(_EXERCISES)


def list_parts(name: str) -> list[str]:
    """Parts of exercise ``name`` that :func:`check` accepts as ``part=``.

    Parameters
    ----------
    name : str
        An exercise from :func:`list_exercises`.

    Returns
    -------
    list of str
        The first one is the default part.
    """
    return list(_exercise(name).parts)


def _exercise(name: Any) -> _Exercise:
    if name not in _EXERCISES:
        raise ValueError(f"unknown exercise {name!r}; choose one of {list_exercises()}")
    return _EXERCISES[name]


def check(name: str, answer: Any, *, part: str | None = None, **context: Any) -> Feedback:
    """Check an answer to an exercise and return friendly, specific feedback.

    Parameters
    ----------
    name : str
        Exercise name, one of :func:`list_exercises`.
    answer : object
        The student's answer: a function for the implementation parts, a
        number, list, dict or set of letters for the others (see each
        notebook). ``None`` (the starter placeholder) gives a kind
        "not attempted yet".
    part : str, optional
        Part of the exercise (see :func:`list_parts`); defaults to the first.
    **context
        What the checker needs besides the answer, e.g. ``model=model,
        data=data`` (the fitted model and the dataset) or ``result=result,
        t=t``. Checks are computed from these objects, never from stored
        numbers.

    Returns
    -------
    Feedback
        ``passed`` and ``message``; shown as a green or amber box in Jupyter.

    Raises
    ------
    ValueError
        If ``name`` or ``part`` is unknown (a mistake in the notebook, not
        in the answer). Wrong answers, wrong types and errors raised by the
        student's function come back as feedback, never as exceptions.

    Examples
    --------
    >>> from ercot_nb.exercises import check
    >>> check("01_implement_f_sep", None).status
    'not attempted yet'
    """
    exercise = _exercise(name)
    part = part if part is not None else next(iter(exercise.parts))
    if part not in exercise.parts:
        raise ValueError(f"exercise {name!r} has no part {part!r}; choose one of {list(exercise.parts)}")
    key = (name, part)
    try:
        message = exercise.parts[part](answer, context, _ATTEMPTS[key] + 1)
        feedback = Feedback(name, part, passed=True, attempted=True, message=message)
    except _NotAttempted:
        feedback = Feedback(
            name, part, passed=False, attempted=False,
            message="Nothing to check yet: write your answer where it says # YOUR CODE HERE, "
                    "run that cell, then run this check again. You can check as often as you like.",
        )
    except _Mistake as mistake:
        if mistake.counts:
            _ATTEMPTS[key] += 1
        tail = "\nKeep going: fix this and run the check again." if mistake.counts else ""
        feedback = Feedback(name, part, passed=False, attempted=True, message=f"{mistake}{tail}")
    except Exception as error:  # an answer of a shape no checker foresaw: still no traceback
        feedback = Feedback(
            name, part, passed=False, attempted=True,
            message=f"check could not read this answer ({type(error).__name__}: {error}). Compare "
                    "its type and shape with what the task asks for; if they look right, ask your "
                    "teacher.",
        )
    _LOG.append(feedback)
    return feedback


def case_inputs(name: str, case: int, **context: Any) -> dict[str, Any]:
    """Inputs of one test case of an implementation part, to debug with.

    Parameters
    ----------
    name : {"01_implement_f_sep", "02_predict_the_knee"}
        Exercise whose function part the case belongs to.
    case : int
        1-based case number, as named in the feedback.
    **context
        For ``"02_predict_the_knee"``, ``result=result`` adds the fronts of
        your run (numbered first, as in the feedback).

    Returns
    -------
    dict
        ``{"name", "X", "centroids", "active"}`` for exercise 1,
        ``{"name", "F"}`` for exercise 2 (copies; safe to modify).
    """
    _exercise(name)
    if name == "01_implement_f_sep":
        cases: list[Any] = _objective_cases()
    elif name == "02_predict_the_knee":
        try:
            cases = _front_cases(context)
        except _Mistake as mistake:
            raise TypeError(str(mistake)) from None
    else:
        raise ValueError(f"exercise {name!r} has no function cases; use 01_implement_f_sep "
                         "or 02_predict_the_knee")
    if not (isinstance(case, (int, np.integer)) and 1 <= case <= len(cases)):
        raise ValueError(f"case must be a number from 1 to {len(cases)}, got {case!r}")
    chosen = cases[int(case) - 1]
    if isinstance(chosen, _ClusterCase):
        return {"name": chosen.name, "X": chosen.X.copy(), "centroids": chosen.centroids.copy(),
                "active": chosen.active.copy()}
    return {"name": chosen.name, "F": chosen.F.copy()}
