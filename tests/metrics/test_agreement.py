"""Tests of the partition agreement measures (ercot_nb.metrics) against scikit-learn."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import normalized_mutual_info_score, rand_score

from ercot_nb.data import TemporalDataset
from ercot_nb.metrics import contingency, mean_scores, nmi, rand_index, score_steps


def sklearn_nmi(a, b) -> float:
    return normalized_mutual_info_score(a, b, average_method="geometric")


@st.composite
def label_pairs(draw, max_size=80):
    """Two labelings of the same samples, with few or many clusters."""
    n = draw(st.integers(0, max_size))
    k_true = draw(st.integers(1, 8))
    k_pred = draw(st.integers(1, 8))
    true = draw(st.lists(st.integers(0, k_true - 1), min_size=n, max_size=n))
    pred = draw(st.lists(st.integers(-1, k_pred - 1), min_size=n, max_size=n))
    return np.array(true, dtype=np.int64), np.array(pred, dtype=np.int64)


@settings(max_examples=300, deadline=None)
@given(pair=label_pairs())
def test_rand_index_equals_sklearn(pair):
    true, pred = pair
    assert rand_index(true, pred) == pytest.approx(rand_score(true, pred), abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(pair=label_pairs())
def test_nmi_equals_sklearn_geometric(pair):
    true, pred = pair
    value = nmi(true, pred)
    assert value == pytest.approx(sklearn_nmi(true, pred), abs=1e-10)
    assert 0.0 <= value <= 1.0


@settings(max_examples=200, deadline=None)
@given(pair=label_pairs(), seed=st.integers(0, 2**32 - 1))
def test_relabelled_identical_partitions_score_exactly_one(pair, seed):
    true, _ = pair
    relabel = np.random.default_rng(seed).permutation(20)
    assert nmi(true, relabel[true]) == 1.0
    assert rand_index(true, relabel[true]) == 1.0


@settings(max_examples=100, deadline=None)
@given(pair=label_pairs(), names=st.lists(st.text(min_size=1, max_size=4), min_size=9, max_size=9, unique=True))
def test_string_labels_give_the_same_scores(pair, names):
    true, pred = pair
    as_text = np.array(names, dtype=object)
    true_text, pred_text = as_text[true], as_text[pred + 1]
    assert rand_index(true_text, pred_text) == pytest.approx(rand_index(true, pred), abs=1e-12)
    assert nmi(true_text, pred_text) == pytest.approx(nmi(true, pred), abs=1e-12)
    assert nmi(true_text, pred_text) == pytest.approx(sklearn_nmi(true_text.astype(str), pred_text.astype(str)), abs=1e-10)


@pytest.mark.parametrize(
    ("true", "pred", "ri", "nmi_value"),
    [
        ([0, 0, 1, 2], [0, 0, 1, 1], 5 / 6, None),
        ([0, 0, 1, 1], [1, 1, 0, 0], 1.0, 1.0),
        ([3, 3, 3, 3], [7, 7, 7, 7], 1.0, 1.0),  # both single-cluster
        ([0, 0, 0, 0], [0, 1, 2, 3], 0.0, 0.0),  # one single-cluster, the other not
        ([0, 1, 2, 3], [5, 5, 5, 5], 0.0, 0.0),
        ([4], [9], 1.0, 1.0),
        ([], [], 1.0, 1.0),
        (["a", "b", "b"], ["x", "y", "y"], 1.0, 1.0),
    ],
)
def test_degenerate_and_hand_computed_cases(true, pred, ri, nmi_value):
    assert rand_index(true, pred) == pytest.approx(ri, abs=1e-15)
    assert rand_index(true, pred) == pytest.approx(rand_score(true, pred), abs=1e-15)
    expected_nmi = sklearn_nmi(true, pred) if nmi_value is None else nmi_value
    assert nmi(true, pred) == pytest.approx(expected_nmi, abs=1e-12)
    assert nmi(true, pred) == pytest.approx(sklearn_nmi(true, pred), abs=1e-12)


def test_nmi_hand_computed():
    # U = {0,0,1,1}, V = {0,0,0,1}: I = 0.5 ln 2 + 0.25 ln(4/3) + 0.25 ln(2/3) ... via the formula
    true, pred = [0, 0, 1, 1], [0, 0, 0, 1]
    n_ij = {(0, 0): 2, (1, 0): 1, (1, 1): 1}
    a, b, n = {0: 2, 1: 2}, {0: 3, 1: 1}, 4
    mutual = sum(c / n * np.log(n * c / (a[i] * b[j])) for (i, j), c in n_ij.items())
    h_u = -sum(x / n * np.log(x / n) for x in a.values())
    h_v = -sum(x / n * np.log(x / n) for x in b.values())
    assert nmi(true, pred) == pytest.approx(mutual / np.sqrt(h_u * h_v), abs=1e-15)


def test_mixed_and_unorderable_labels():
    true = np.array([1, "a", None, 1, "a", None], dtype=object)
    codes = [0, 1, 2, 0, 1, 2]
    pred = [0, 0, 1, 1, 2, 2]
    assert rand_index(true, pred) == pytest.approx(rand_index(codes, pred))
    assert nmi(true, pred) == pytest.approx(nmi(codes, pred))
    assert contingency(true, pred).sum() == 6


def test_many_clusters_use_sparse_counts():
    n = 200_000
    unique = np.arange(n)
    assert rand_index(unique, unique[::-1]) == 1.0
    assert rand_index(unique, np.zeros(n, dtype=int)) == 0.0
    assert nmi(unique, unique + 5) == pytest.approx(1.0)
    rng = np.random.default_rng(0)
    true, pred = rng.integers(0, 3000, 5000), rng.integers(0, 2500, 5000)
    assert rand_index(true, pred) == pytest.approx(rand_score(true, pred), abs=1e-12)
    assert nmi(true, pred) == pytest.approx(sklearn_nmi(true, pred), abs=1e-10)


def test_contingency():
    table = contingency([0, 0, 1, 1, 1], ["x", "y", "y", "y", "z"])
    np.testing.assert_array_equal(table, [[1, 1, 0], [0, 2, 1]])
    assert table.dtype == np.int64
    table, rows, cols = contingency([5, 2, 5], [1, 1, 0], return_classes=True)
    np.testing.assert_array_equal(table, [[0, 1], [1, 1]])
    assert rows.tolist() == [2, 5] and cols.tolist() == [0, 1]
    with pytest.raises(ValueError, match="differ in length: 2 and 3"):
        contingency([0, 1], [0, 1, 2])
    with pytest.raises(ValueError, match="must be 1-D"):
        rand_index([[0, 1]], [[0, 1]])


def _labelled_dataset() -> TemporalDataset:
    return TemporalDataset.from_arrays(
        [np.zeros((4, 1)), np.zeros((3, 1))],
        labels=[[0, 0, 1, 1], [0, 1, 1]],
        times=["mon", "tue"],
    )


def test_score_steps_on_a_dataset():
    ds = _labelled_dataset()
    pred = [np.array([1, 1, 0, 0]), np.array(["a", "a", "b"])]
    scores = score_steps(ds, pred)
    assert list(scores.columns) == ["t", "time", "RI", "NMI", "n_samples"]
    assert scores["t"].tolist() == [0, 1]
    assert scores["time"].tolist() == ["mon", "tue"]
    assert scores["n_samples"].tolist() == [4, 3]
    assert scores["RI"].tolist() == pytest.approx([1.0, rand_score([0, 1, 1], [0, 0, 1])])
    assert scores["NMI"].tolist() == pytest.approx([1.0, sklearn_nmi([0, 1, 1], [0, 0, 1])])
    means = mean_scores(ds, pred)
    assert means == pytest.approx({"mRI": scores["RI"].mean(), "mNMI": scores["NMI"].mean()})
    assert set(means) == {"mRI", "mNMI"}


def test_score_steps_on_label_lists():
    truth = [[0, 0, 1], [1, 1, 0, 0]]
    scores = score_steps(truth, [[0, 1, 1], [1, 1, 0, 0]])
    assert scores["time"].tolist() == [0, 1]
    assert scores["RI"].tolist() == pytest.approx([1 / 3, 1.0])
    assert mean_scores(truth, [[0, 1, 1], [1, 1, 0, 0]])["mRI"] == pytest.approx((1 / 3 + 1) / 2)
    assert isinstance(scores, pd.DataFrame)


def test_score_steps_errors():
    ds = _labelled_dataset()
    with pytest.raises(ValueError, match=r"step 1 \(time='tue'\): true labels have shape \(3,\) but predicted labels have shape \(2,\)"):
        score_steps(ds, [[0, 0, 1, 1], [0, 1]])
    with pytest.raises(ValueError, match=r"predicted labels for 1 step\(s\) but the truth has 2"):
        score_steps(ds, [[0, 0, 1, 1]])
    with pytest.raises(ValueError, match=r"step 0 \(time=0\)"):
        mean_scores([[0, 1]], [[0, 1, 1]])
    unlabelled = TemporalDataset.from_arrays([np.zeros((2, 1)), np.zeros((2, 1))], labels=[[0, 1], None])
    with pytest.raises(ValueError, match=r"no ground-truth labels at step\(s\) \[1\]"):
        score_steps(unlabelled, [[0, 1], [0, 1]])
