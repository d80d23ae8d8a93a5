"""Partition agreement measures: Rand index and NMI, per step and averaged.

Both measures are computed from the contingency table of the two labelings,
in O(n + k1*k2) time and memory (no n x n pair matrix).  Labels can be any
hashable values (ints, strings, ...); only which samples share a label matters.

* :func:`rand_index` is the (unadjusted) Rand index, as
  :func:`sklearn.metrics.rand_score`.
* :func:`nmi` is the normalised mutual information of Strehl & Ghosh (2002),
  ``I(U; V) / sqrt(H(U) H(V))``, as
  ``sklearn.metrics.normalized_mutual_info_score(average_method="geometric")``
  (scikit-learn's default, the arithmetic mean, gives different numbers).
* :func:`score_steps` and :func:`mean_scores` apply them at every time step and
  give the paper's mRI and mNMI.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..data import TemporalDataset
from ..params import check_argument

__all__ = ["contingency", "rand_index", "nmi", "score_steps", "mean_scores"]


def _as_labels(labels: Any, what: str) -> np.ndarray:
    array = np.asarray(labels)
    if array.ndim != 1:
        raise ValueError(f"{what} must be 1-D, got shape {array.shape}")
    return array


def _encode(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return (classes, codes) with ``classes[codes] == labels``."""
    try:
        classes, codes = np.unique(labels, return_inverse=True)
    except TypeError:  # unorderable mix of objects: group by hashing instead
        codes, classes = pd.factorize(labels, use_na_sentinel=False)
        classes = np.asarray(classes, dtype=object)
    return classes, codes.reshape(-1)


_DENSE_CELLS = 1 << 20  # above this many cells, count joint labels by sorting


def _joint_counts(
    labels_a: Any, labels_b: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Non-zero cells of the contingency table, without allocating k_a x k_b.

    Returns ``rows, cols, counts, classes_a, classes_b``.
    """
    a = _as_labels(labels_a, "labels_a")
    b = _as_labels(labels_b, "labels_b")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"labelings differ in length: {a.shape[0]} and {b.shape[0]}")
    classes_a, codes_a = _encode(a)
    classes_b, codes_b = _encode(b)
    k_b = max(len(classes_b), 1)
    cell = codes_a.astype(np.int64) * k_b + codes_b
    if len(classes_a) * k_b <= max(_DENSE_CELLS, 4 * a.shape[0]):
        counts = np.bincount(cell, minlength=len(classes_a) * k_b)
        cell = np.flatnonzero(counts)
        counts = counts[cell]
    else:
        cell, counts = np.unique(cell, return_counts=True)
    return cell // k_b, cell % k_b, counts.astype(np.int64), classes_a, classes_b


def contingency(
    labels_a: Any, labels_b: Any, *, return_classes: bool = False
) -> np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Dense contingency table of two labelings of the same samples.

    Parameters
    ----------
    labels_a, labels_b : array-like of shape (n_samples,)
        Two labelings; any hashable label values.
    return_classes : bool, default=False
        Also return the label values of the rows and columns.

    Returns
    -------
    table : ndarray of shape (k_a, k_b), dtype int64
        ``table[i, j]`` is the number of samples labelled ``classes_a[i]`` in
        ``labels_a`` and ``classes_b[j]`` in ``labels_b``.  Rows and columns
        follow the sorted unique labels.
    classes_a, classes_b : ndarray
        Only when ``return_classes`` is True.

    Raises
    ------
    ValueError
        If the labelings are not 1-D or differ in length.

    Notes
    -----
    Meant for small numbers of clusters (the table is dense);
    :func:`rand_index` and :func:`nmi` only ever touch its non-zero cells.

    Examples
    --------
    >>> contingency([0, 0, 1, 1], ["x", "y", "y", "y"])
    array([[1, 1],
           [0, 2]])
    """
    return_classes = check_argument("contingency", "return_classes", return_classes, "bool", default=False)
    rows, cols, counts, classes_a, classes_b = _joint_counts(labels_a, labels_b)
    table = np.zeros((len(classes_a), len(classes_b)), dtype=np.int64)
    table[rows, cols] = counts
    if return_classes:
        return table, classes_a, classes_b
    return table


def _pairs(counts: np.ndarray) -> int:
    """Sum of C(c, 2) over the counts, exact in integers."""
    counts = np.rint(counts).astype(np.int64)
    return int((counts * (counts - 1) // 2).sum())


def rand_index(labels_true: Any, labels_pred: Any) -> float:
    """Rand index: the fraction of sample pairs on which two labelings agree.

    A pair agrees when both labelings put its samples together, or both put
    them apart.  Same value as :func:`sklearn.metrics.rand_score` (not the
    adjusted Rand index).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Two labelings of the same samples; any hashable label values.

    Returns
    -------
    float
        In [0, 1]; 1.0 for identical partitions and for fewer than two samples.

    Examples
    --------
    >>> rand_index([0, 0, 1, 2], [0, 0, 1, 1])
    0.8333333333333334
    """
    rows, cols, counts, classes_true, classes_pred = _joint_counts(labels_true, labels_pred)
    n = int(counts.sum())
    total_pairs = n * (n - 1) // 2
    if total_pairs == 0:
        return 1.0
    together_both = _pairs(counts)
    together_true = _pairs(np.bincount(rows, weights=counts, minlength=len(classes_true)))
    together_pred = _pairs(np.bincount(cols, weights=counts, minlength=len(classes_pred)))
    agreements = total_pairs + 2 * together_both - together_true - together_pred
    return agreements / total_pairs


def _sum_xlogx(counts: np.ndarray) -> float:
    """Sum of c * ln(c) over the positive counts, in sorted order.

    Summing in sorted order makes the result independent of how the labels were
    numbered, so identical partitions give an NMI of exactly 1.
    """
    counts = np.sort(counts[counts > 0])
    return float((counts * np.log(counts)).sum())


def nmi(labels_true: Any, labels_pred: Any) -> float:
    """Normalised mutual information with the geometric mean (Strehl & Ghosh).

    ``NMI = I(U; V) / sqrt(H(U) H(V))`` with natural logarithms.  Degenerate
    cases follow scikit-learn: 1.0 when both labelings have a single cluster
    (or no samples), 0.0 when exactly one of them has a single cluster.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Two labelings of the same samples; any hashable label values.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> nmi([0, 0, 1, 1], ["b", "b", "a", "a"])
    1.0
    >>> nmi([0, 0, 0, 0], [0, 1, 2, 3])
    0.0
    """
    rows, cols, counts, classes_true, classes_pred = _joint_counts(labels_true, labels_pred)
    k_true, k_pred = len(classes_true), len(classes_pred)
    if k_true == k_pred and k_true <= 1:
        return 1.0
    if k_true == 1 or k_pred == 1:
        return 0.0
    n = int(counts.sum())
    joint = counts.astype(np.float64)
    row_sums = np.bincount(rows, weights=joint, minlength=k_true)
    col_sums = np.bincount(cols, weights=joint, minlength=k_pred)
    # H(U) = ln n - sum(a ln a)/n, and I(U; V) = H(U) - H(U|V) with
    # H(U|V) = (sum(b ln b) - sum(n_ij ln n_ij)) / n.
    h_true = float(np.log(n)) - _sum_xlogx(row_sums) / n
    h_pred = float(np.log(n)) - _sum_xlogx(col_sums) / n
    h_true_given_pred = (_sum_xlogx(col_sums) - _sum_xlogx(joint)) / n
    mutual_info = max(h_true - h_true_given_pred, 0.0)
    return float(min(mutual_info / np.sqrt(h_true * h_pred), 1.0))


def _true_label_steps(truth: TemporalDataset | Sequence[Any]) -> tuple[list[np.ndarray], list[Any]]:
    """Ground-truth labels and time labels of each step."""
    if isinstance(truth, TemporalDataset):
        missing = [i for i, snapshot in enumerate(truth) if snapshot.labels is None]
        if missing:
            raise ValueError(
                f"the dataset has no ground-truth labels at step(s) {missing[:5]}"
                f"{' ...' if len(missing) > 5 else ''}"
            )
        return [snapshot.labels for snapshot in truth], truth.times
    steps = [np.asarray(labels) for labels in truth]
    return steps, list(range(len(steps)))


def score_steps(
    truth: TemporalDataset | Sequence[Any], labels_pred: Sequence[Any]
) -> pd.DataFrame:
    """Rand index and NMI at every time step.

    Parameters
    ----------
    truth : TemporalDataset or sequence of array-like
        A dataset with ground-truth labels at every step, or the true labels
        of each step.
    labels_pred : sequence of array-like
        Predicted labels of each step, in the same sample order as the truth.

    Returns
    -------
    pandas.DataFrame
        One row per step with columns ``t`` (0-based step index), ``time``
        (the dataset's time label; ``t`` for a list of labels), ``RI``, ``NMI``
        and ``n_samples``.

    Raises
    ------
    ValueError
        If the numbers of steps differ, or a step's labelings differ in length
        (the message names the step), or the dataset lacks labels.
    """
    true_steps, times = _true_label_steps(truth)
    pred_steps = list(labels_pred)
    if len(pred_steps) != len(true_steps):
        raise ValueError(
            f"got predicted labels for {len(pred_steps)} step(s) but the truth has "
            f"{len(true_steps)}"
        )
    rows = []
    for t, (true, pred) in enumerate(zip(true_steps, pred_steps)):
        true = np.asarray(true)
        pred = np.asarray(pred)
        if true.ndim != 1 or pred.ndim != 1 or true.shape != pred.shape:
            raise ValueError(
                f"step {t} (time={times[t]!r}): true labels have shape {true.shape} but "
                f"predicted labels have shape {pred.shape}"
            )
        rows.append(
            {
                "t": t,
                "time": times[t],
                "RI": rand_index(true, pred),
                "NMI": nmi(true, pred),
                "n_samples": int(true.shape[0]),
            }
        )
    return pd.DataFrame(rows, columns=["t", "time", "RI", "NMI", "n_samples"])


def mean_scores(
    truth: TemporalDataset | Sequence[Any], labels_pred: Sequence[Any]
) -> dict[str, float]:
    """The paper's mRI and mNMI: RI and NMI averaged over the time steps.

    Parameters
    ----------
    truth, labels_pred
        As in :func:`score_steps`.

    Returns
    -------
    dict
        ``{"mRI": float, "mNMI": float}``.
    """
    scores = score_steps(truth, labels_pred)
    return {"mRI": float(scores["RI"].mean()), "mNMI": float(scores["NMI"].mean())}
