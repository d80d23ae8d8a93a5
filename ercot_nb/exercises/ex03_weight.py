"""Exercise 03_explain_the_weight_syn3: read ERCOT's smoothness weight alpha on Syn3."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..data import common_ids
from .answers import (
    as_number,
    check_fitted_on,
    dataset_of,
    fmt,
    is_number,
    judge_statements,
    label_change_times,
    number_hint,
    plain,
    result_of,
    same,
    time_index,
    true_counts,
)
from .feedback import Mistake, NotAttempted


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
        raise Mistake("this run has no alpha at any step (was it fitted with ERCOT?).", counts=False)
    return alpha, [plain(t) for t in result.times], int(np.nanargmin(alpha))


def check_lowest_time(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    result = result_of(context)
    dataset = dataset_of(context, "syn3")
    check_fitted_on(result, dataset)
    if answer is None:
        raise NotAttempted
    got = as_number(answer, "lowest_time (a time label such as 3)")
    alpha, times, lowest = _alpha_facts(result)
    if got == times[lowest]:
        return (f"Right: alpha is lowest at time {times[lowest]} (t = {lowest}), "
                f"alpha = {alpha[lowest]:.3f}.")
    if 0 <= got < len(times) and int(got) == got and int(got) == lowest:
        raise Mistake(f"{fmt(got)} is the 0-based step index t of the lowest alpha; the question "
                       "asks for its time label (data.times, or the 'time' column of steps_frame()).")
    if 0.0 < got < 1.0:
        raise Mistake("that looks like an alpha value; give the time label at which alpha is lowest.",
                       counts=False)
    index = time_index(times, got)
    if index is None:
        raise Mistake(f"{fmt(got)} is not a time label of the run; the labels are {times}.",
                       counts=False)
    if math.isnan(alpha[index]):
        raise Mistake(f"At time {times[index]} there is no alpha (nan: the first step has no "
                       "history). Leave it out and look for the smallest value.")
    message = (f"At time {times[index]} alpha is {alpha[index]:.3f}, and there is a lower value. "
               "Look for the minimum of model.alpha_ (np.nanargmin skips the nan of the first step).")
    if attempt > 1:
        message += f" The lowest is {alpha[lowest]:.3f}."
    raise Mistake(message)


def _window_means(alpha: np.ndarray, times: Sequence[Any], window: Sequence[Any]) -> tuple[float, float]:
    inside = np.array([t in window for t in times])
    known = ~np.isnan(alpha)
    return float(alpha[inside & known].mean()), float(alpha[~inside & known].mean())


def _means_pair(answer: Any) -> tuple[float, float]:
    if answer is None:
        raise NotAttempted
    if isinstance(answer, Mapping):
        answer = (answer.get("drift"), answer.get("other"))
    if isinstance(answer, (str, bytes)) or not isinstance(answer, (Sequence, np.ndarray)) or len(answer) != 2:
        raise Mistake("give two numbers: (mean alpha during the drift, mean alpha at the other steps).",
                       counts=False)
    if answer[0] is None and answer[1] is None:
        raise NotAttempted
    return as_number(answer[0], "the drift mean"), as_number(answer[1], "the other mean")


def _shifted(times: Sequence[Any], window: Sequence[Any]) -> list[Any]:
    """The window a student gets by using time labels as 0-based indices."""
    return [times[int(w)] for w in window if is_number(w) and 0 <= int(w) < len(times)]


def check_drift_means(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    result = result_of(context)
    dataset = dataset_of(context, "syn3")
    check_fitted_on(result, dataset)
    drift, other = _means_pair(answer)
    alpha, times, _ = _alpha_facts(result)
    window = label_change_times(dataset)
    exp_drift, exp_other = _window_means(alpha, times, window)
    if same(drift, exp_drift) and same(other, exp_other):
        return (f"Right: mean alpha is {exp_drift:.3f} at the drift steps (times "
                f"{', '.join(map(str, window))}) and {exp_other:.3f} at the other steps with history.")
    lines = []
    for name, got, expected in (("drift mean", drift, exp_drift), ("other mean", other, exp_other)):
        if not same(got, expected):
            lines.append(number_hint(name, got, expected) + ".")
    shifted_drift, shifted_other = _window_means(alpha, times, _shifted(times, window))
    all_known = float(np.nanmean(alpha))
    if math.isnan(drift) or math.isnan(other):
        hint = "a nan slipped in: the first step has no alpha; leave it out (np.nanmean)."
    elif same(drift, exp_other) and same(other, exp_drift):
        hint = "the two means are swapped: drift first, then the other steps."
    elif same(drift, shifted_drift) or same(other, shifted_other):
        hint = ("you picked the steps by 0-based index t; the drift happens at the time *labels* "
                f"{window} (t = time - 1 here).")
    elif same(other, all_known):
        hint = "the 'other' mean should leave out the drift steps."
    else:
        hint = (f"the drift steps are the time labels {window}; 'other' is every remaining step "
                "that has an alpha.")
    lines.append("Hint: " + hint)
    raise Mistake("\n".join(lines))


def check_control(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    result = result_of(context)
    dataset = dataset_of(context, "syn3")
    control = result_of(context, "syn1_model")
    if len(control) != len(dataset):
        raise Mistake("syn1_model= should be fitted on datasets.load('syn1', seed=0) "
                       f"(10 steps); it has {len(control)}.", counts=False)
    if answer is None:
        raise NotAttempted
    got = as_number(answer, "syn1_drift_mean")
    window = label_change_times(dataset)
    alpha1, times1, _ = _alpha_facts(control)
    expected, _ = _window_means(alpha1, times1, window)
    if same(got, expected):
        alpha3, times3, _ = _alpha_facts(result)
        syn3_mean, _ = _window_means(alpha3, times3, window)
        return (f"Right: on Syn1 mean alpha over times {', '.join(map(str, window))} is "
                f"{expected:.3f}; on Syn3 it is {syn3_mean:.3f} (difference "
                f"{syn3_mean - expected:+.3f}).")
    syn3_alpha, _, _ = _alpha_facts(result)
    syn3_mean, _ = _window_means(syn3_alpha, times1, window)
    shifted, _ = _window_means(alpha1, times1, _shifted(times1, window))
    lines = [number_hint("Syn1 drift-window mean", got, expected) + "."]
    if same(got, syn3_mean):
        lines.append("Hint: that is the Syn3 value; use syn1_model.alpha_.")
    elif same(got, shifted):
        lines.append(f"Hint: use the time labels {window}, not the 0-based indices.")
    else:
        lines.append(f"Hint: the same window as before (times {window}), on syn1_model.alpha_.")
    raise Mistake("\n".join(lines))


def check_ex3_statements(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    result = result_of(context)
    dataset = dataset_of(context, "syn3")
    check_fitted_on(result, dataset)
    control = result_of(context, "syn1_model")
    if answer is None:
        raise NotAttempted
    alpha, times, low = _alpha_facts(result)
    _, _, low_control = _alpha_facts(control)
    previous, current = dataset[low - 1], dataset[low]
    ia, ib = common_ids(previous, current)
    switched = int(np.count_nonzero(previous.labels[ia] != current.labels[ib]))
    moved = (len(previous.ids) - len(ia)) + (len(current.ids) - len(ib))
    k_prev, k_now = int(result[low - 1].n_clusters), int(result[low].n_clusters)
    true_prev, true_now = true_counts(dataset)[low - 1: low + 1]
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
        "E": f"on Syn1 alpha is lowest at time {plain(control.times[low_control])}.",
    }
    return judge_statements(answer, truth, evidence, attempt)
