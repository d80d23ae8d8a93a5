"""Exercise 04_find_the_vanishing_cluster: the cluster that disappears from Syn7 and comes back."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .answers import as_int, as_int_list, check_fitted_on, dataset_of, judge_statements, plain, result_of, true_counts
from .feedback import Mistake, NotAttempted


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
            times.append(plain(snapshot.time))
            labels |= missing
    return times, sorted(int(v) for v in labels)


def check_true_counts(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    dataset = dataset_of(context, "syn7")
    if answer is None:
        raise NotAttempted
    got = as_int_list(answer, "true_counts")
    expected = true_counts(dataset)
    if got == expected:
        return f"Right: the true number of clusters per step is {expected}."
    if len(got) != len(expected):
        raise Mistake(f"true_counts has {len(got)} entries; give one per time step "
                       f"({len(expected)} steps).", counts=False)
    wrong = [i for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    first = wrong[0]
    snapshot = dataset[first]
    lines = [f"{len(expected) - len(wrong)} of {len(expected)} steps are right. At time "
             f"{plain(snapshot.time)} (t = {first}) you have {got[first]}, the labels say {expected[first]}."]
    if got[first] == int(snapshot.labels.max()) + 1:
        lines.append("Hint: labels.max() + 1 counts the label numbers, not the labels present: "
                     "when a cluster vanishes its number is skipped. Count the distinct labels "
                     "(np.unique).")
    elif got[first] == snapshot.n_samples:
        lines.append("Hint: that is the number of samples; count distinct labels instead.")
    else:
        lines.append("Hint: count the distinct values of data[t].labels at every step.")
    raise Mistake("\n".join(lines))


def check_vanished(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    dataset = dataset_of(context, "syn7")
    if answer is None:
        raise NotAttempted
    if not isinstance(answer, Mapping) or set(answer) != {"times", "label"}:
        raise Mistake("give a dict with two keys: {'times': [...], 'label': ...}.", counts=False)
    if answer["times"] is None and answer["label"] is None:
        raise NotAttempted
    times = as_int_list(answer["times"], "times") if answer["times"] is not None else None
    label = as_int(answer["label"], "label") if answer["label"] is not None else None
    expected_times, expected_labels = _vanishing(dataset)
    all_times = [plain(t) for t in dataset.times]
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
        raise Mistake("Not yet:\n" + "\n".join("  " + p for p in problems))
    return (f"Right: cluster {label} is missing at times {expected_times} and present at every "
            "other step.")


def check_compare(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    dataset = dataset_of(context, "syn7")
    result = result_of(context)
    check_fitted_on(result, dataset)
    if answer is None:
        raise NotAttempted
    if not isinstance(answer, Mapping) or set(answer) != {"ercot_counts", "missed_times"}:
        raise Mistake("give a dict with two keys: {'ercot_counts': [...], 'missed_times': [...]}.",
                       counts=False)
    if answer["ercot_counts"] is None and answer["missed_times"] is None:
        raise NotAttempted
    truth = true_counts(dataset)
    chosen = [int(k) for k in result.n_clusters]
    times = [plain(t) for t in dataset.times]
    missed = [t for t, a, b in zip(times, chosen, truth) if a != b]
    problems = []
    counts = (as_int_list(answer["ercot_counts"], "ercot_counts")
              if answer["ercot_counts"] is not None else None)
    if counts is None:
        problems.append("ercot_counts is still None.")
    elif counts != chosen:
        differ = sum(a != b for a, b in zip(counts, chosen)) + abs(len(counts) - len(chosen))
        problems.append("ercot_counts: read model.n_clusters_ (or the n_clusters column of "
                        f"steps_frame()); your list differs at {differ} step(s).")
    got_missed = (as_int_list(answer["missed_times"], "missed_times")
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
        raise Mistake("Not yet:\n" + "\n".join("  " + p for p in problems))
    return (f"Right: ERCOT chose {chosen}; it differs from the truth at "
            f"{'times ' + ', '.join(map(str, missed)) if missed else 'no time step'}.")


def check_ex4_statements(answer: Any, context: Mapping[str, Any], attempt: int) -> str:
    dataset = dataset_of(context, "syn7")
    result = result_of(context)
    check_fitted_on(result, dataset)
    if answer is None:
        raise NotAttempted
    truth_counts = true_counts(dataset)
    chosen = [int(k) for k in result.n_clusters]
    times = [plain(t) for t in dataset.times]
    gone, _ = _vanishing(dataset)
    if not gone:
        raise Mistake("no cluster vanishes in this dataset; load 'syn7'.", counts=False)
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
    return judge_statements(answer, truth, evidence, attempt)
