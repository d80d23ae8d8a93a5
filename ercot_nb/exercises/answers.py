"""Reading a student's answer (numbers, lists, letters, functions) and the context passed with it."""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..data import TemporalDataset, common_ids
from ..result import ClusteringResult
from .feedback import CLOSE, RTOL, Mistake, NotAttempted


def fmt(value: float) -> str:
    if value is None:
        return "None"
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if math.isnan(value):
        return "nan"
    return f"{value:.6g}"


def is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def as_number(value: Any, what: str) -> float:
    """A student's scalar answer as float, or a form mistake naming ``what``."""
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    if not is_number(value):
        shape = f" of shape {value.shape}" if isinstance(value, np.ndarray) else ""
        raise Mistake(
            f"{what} should be a single number, but it is a {type(value).__name__}{shape}.",
            counts=False,
        )
    return float(value)


def as_int(value: Any, what: str) -> int:
    number = as_number(value, what)
    if not math.isfinite(number) or number != int(number):
        raise Mistake(f"{what} should be a whole number, got {fmt(number)}.", counts=False)
    return int(number)


def as_int_list(value: Any, what: str) -> list[int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (Iterable, np.ndarray)):
        raise Mistake(
            f"{what} should be a list of whole numbers, but it is a {type(value).__name__}.",
            counts=False,
        )
    return [as_int(v, f"every entry of {what}") for v in np.asarray(list(value)).ravel()]


def same(got: float, expected: float, rtol: float = RTOL) -> bool:
    if math.isinf(expected) or math.isinf(got):
        return got == expected
    return abs(got - expected) <= rtol * max(1.0, abs(expected))


def number_hint(name: str, got: float, expected: float, rtol: float = RTOL) -> str:
    """'Close: your x is 0.41 but should be 0.39 (within 1e-06)'."""
    close = (
        math.isfinite(got) and math.isfinite(expected) and expected != 0
        and abs(got - expected) <= CLOSE * abs(expected)
    )
    lead = "Close" if close else "Not yet"
    return f"{lead}: your {name} is {fmt(got)} but should be {fmt(expected)} (within {rtol:g})"


def result_of(context: Mapping[str, Any], key: str = "model") -> Any:
    """The ClusteringResult behind context[key] (a result or a fitted estimator)."""
    if key not in context or context[key] is None:
        raise Mistake(
            f"check needs your fitted model here: add {key}={key} to the check(...) call.",
            counts=False,
        )
    value = context[key]
    result = value if isinstance(value, ClusteringResult) else getattr(value, "result_", None)
    if not isinstance(result, ClusteringResult) or len(result) == 0:
        raise Mistake(
            f"{key}= should be a fitted ERCOT model (or its result_), "
            f"got {type(value).__name__}. Did you run the cell that fits it?",
            counts=False,
        )
    return result


def dataset_of(context: Mapping[str, Any], name: str, key: str = "data") -> Any:
    value = context.get(key)
    if not isinstance(value, TemporalDataset):
        raise Mistake(
            f"check needs the dataset here: add {key}={key} to the check(...) call "
            f"({key} = datasets.load({name!r}, seed=0)).",
            counts=False,
        )
    if value.name != name:
        raise Mistake(
            f"this exercise is about {name!r}, but {key}= is {value.name!r}.", counts=False
        )
    if not value.has_labels:
        raise Mistake(f"{key}= has no true labels; load it with datasets.load({name!r}).",
                       counts=False)
    return value


def check_fitted_on(result: Any, dataset: Any, key: str = "model") -> None:
    if len(result) != len(dataset) or any(
        len(step.ids) != len(snap.ids) for step, snap in zip(result, dataset)
    ):
        raise Mistake(
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
                raise Mistake(
                    f"give the statements as letters (e.g. {{'A', 'C'}}), "
                    f"found {item!r} ({type(item).__name__}).",
                    counts=False,
                )
            items.extend(c for c in item.upper() if c.isalpha())
    else:
        raise Mistake(
            f"give the true statements as a set of letters, e.g. {{'A', 'C'}}, "
            f"not a {type(value).__name__}.",
            counts=False,
        )
    unknown = sorted(set(items) - set(allowed))
    if unknown:
        raise Mistake(
            f"there is no statement {', '.join(unknown)}; choose among {', '.join(allowed)}.",
            counts=False,
        )
    return set(items)


def judge_statements(
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
        raise Mistake(
            f"{len(wrong)} of the {len(truth)} statements {'is' if len(wrong) == 1 else 'are'} "
            "judged the wrong way (true ones must be in your set, false ones left out). "
            "Check each statement against the numbers of your own run, then try again; "
            "the next try names the statements to look at."
        )
    lines = [f"Look again at statement{'s' if len(wrong) > 1 else ''} {', '.join(wrong)}:"]
    lines += [f"  {letter}: {evidence[letter]}" for letter in wrong]
    raise Mistake("\n".join(lines))


def call_student(function: Callable[..., Any], args: tuple, where: str, what: str) -> Any:
    """Call the student's function on copies of ``args``; turn errors into feedback.

    ``where`` names the case and how to get its inputs.
    """
    copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
    try:
        return function(*copies)
    except Exception as error:  # a student's bug becomes feedback, not a traceback
        raise Mistake(
            f"On {where} your {what} raised {type(error).__name__}: {error}\n"
            "Run your function on these inputs yourself: the traceback names the line that failed."
        ) from None


def require_function(answer: Any, signature: str) -> Callable[..., Any]:
    if answer is None:
        raise NotAttempted
    if not callable(answer):
        raise Mistake(
            f"pass the function itself, {signature}, not a {type(answer).__name__} "
            "(no parentheses: check(..., f_sep), not check(..., f_sep(...))).",
            counts=False,
        )
    return answer


def step_arg(context: Mapping[str, Any], result: Any) -> int:
    if "t" not in context:
        raise Mistake("check needs the step you looked at: add t=t to the check(...) call.",
                       counts=False)
    t = as_int(context["t"], "t")
    if not 0 <= t < len(result):
        raise Mistake(f"t={t} is not a step of the run (0..{len(result) - 1}).", counts=False)
    return t


def label_change_times(dataset: Any) -> list[Any]:
    """Time labels at which some common sample's true label differs from the step before."""
    times = []
    for previous, current in zip(dataset, dataset[1:]):
        ia, ib = common_ids(previous, current)
        if np.any(previous.labels[ia] != current.labels[ib]):
            times.append(current.time)
    return times


def true_counts(dataset: Any) -> list[int]:
    return [int(len(np.unique(s.labels))) for s in dataset]


def plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def time_index(times: Sequence[Any], time: Any) -> int | None:
    matches = [i for i, t in enumerate(times) if t == time]
    return matches[0] if matches else None
