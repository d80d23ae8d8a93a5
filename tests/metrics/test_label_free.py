"""Tests of the label-free scores (ercot_nb.metrics._label_free)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import silhouette_score

from ercot_nb import ERCOT, datasets
from ercot_nb.data import TemporalDataset
from ercot_nb.metrics import (
    LABEL_FREE_COLUMNS,
    centroid_objectives,
    churn,
    consecutive_nmi,
    label_free_steps,
    silhouette,
)
from ercot_nb.metrics._label_free import _sample


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(5, 60),
    k=st.integers(2, 6),
    sample_size=st.sampled_from([None, 4, 10, 25]),
    seed=st.integers(0, 10),
)
def test_silhouette_equals_sklearn_on_the_same_sample(n, k, sample_size, seed) -> None:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    labels = rng.integers(0, k, size=n)
    ours = silhouette(X, labels, sample_size=sample_size, seed=seed)
    keep = _sample(n, sample_size, seed)
    n_labels = len(np.unique(labels[keep]))
    if not 2 <= n_labels <= len(keep) - 1:
        assert np.isnan(ours)
    else:
        assert ours == pytest.approx(silhouette_score(X[keep], labels[keep]), abs=1e-12)


def test_silhouette_sample_is_bounded_and_seeded() -> None:
    keep = _sample(5000, 300, 7)
    assert len(keep) == 300 and len(np.unique(keep)) == 300
    np.testing.assert_array_equal(keep, _sample(5000, 300, 7))
    assert not np.array_equal(keep, _sample(5000, 300, 8))
    with pytest.raises(ValueError, match="sample_size"):
        silhouette(np.zeros((10, 2)), np.arange(10) % 2, sample_size=1)


def test_centroid_objectives_by_hand() -> None:
    X = np.array([[0.0, 0.0], [0.0, 2.0], [10.0, 0.0]])
    C = np.array([[0.0, 1.0], [10.0, 0.0], [3.0, 1.0]])
    f_cp, f_sep = centroid_objectives(X, C)
    assert f_cp == pytest.approx(2.0)  # 1 + 1 + 0
    assert f_sep == pytest.approx(1.0 / 3.0)  # closest centroids (0,1)-(3,1)
    assert centroid_objectives(X, C[:1])[1] == np.inf
    with pytest.raises(ValueError, match="centroids"):
        centroid_objectives(X, np.zeros((2, 3)))


@given(labels=st.lists(st.integers(0, 4), min_size=2, max_size=40), seed=st.integers(0, 5))
def test_identical_partitions_have_no_churn_and_nmi_one(labels, seed) -> None:
    ids = np.random.default_rng(seed).permutation(len(labels)) + 100
    labels = np.array(labels)
    # The later step lists the same ids in another order.
    order = np.random.default_rng(seed + 1).permutation(len(labels))
    assert churn(ids, labels, ids[order], labels[order]) == 0.0
    renamed = (labels[order] + 7) * 3  # any renumbering of the same partition
    assert consecutive_nmi(ids, labels, ids[order], renamed) == pytest.approx(1.0)


def test_churn_counts_common_ids_only() -> None:
    # ids 1..4 common; 2 of them change aligned cluster; id 0 leaves, 9 arrives.
    assert churn([0, 1, 2, 3, 4], [0, 0, 0, 1, 1], [1, 2, 3, 4, 9], [0, 1, 1, 0, 5]) == 0.5
    assert np.isnan(churn([0, 1], [0, 0], [2, 3], [0, 0]))
    assert np.isnan(consecutive_nmi([0, 1], [0, 0], [2, 3], [0, 0]))


@pytest.fixture(scope="module")
def fitted():
    data = datasets.load("syn5", seed=0)  # samples come and go at t = 4, 6, 8
    model = ERCOT(pop_size=20, n_evaluations=200, seed=0).fit(data)
    return data, model.result_


def test_label_free_steps_table(fitted) -> None:
    data, result = fitted
    table = label_free_steps(result, data, sample_size=50, seed=3)
    assert tuple(table.columns) == LABEL_FREE_COLUMNS
    assert len(table) == len(data)
    assert table["n_clusters"].tolist() == result.n_clusters.tolist()
    assert np.isnan(table.loc[0, "churn"]) and table.loc[0, "n_common"] == 0
    assert table["n_common"].iloc[1:].tolist() == [
        len(np.intersect1d(a.ids, b.ids)) for a, b in zip(data, list(data)[1:])
    ]
    assert table["churn"].iloc[1:].between(0, 1).all()
    assert table["consecutive_nmi"].iloc[1:].between(0, 1).all()
    again = label_free_steps(result, data, sample_size=50, seed=3)
    assert table.equals(again)
    for t, step in enumerate(result):
        # f_cp / f_sep are those the search computed for the knee when it has no empty centroid.
        knee = step.knee
        if step.population_n_active[knee] == step.population_n_clusters[knee]:
            np.testing.assert_allclose(table.loc[t, ["f_cp", "f_sep"]].to_numpy(float),
                                       step.objectives[knee], rtol=1e-10)


def test_label_free_steps_refuses_other_data(fitted) -> None:
    data, result = fitted
    with pytest.raises(ValueError, match="step"):
        label_free_steps(result, TemporalDataset.from_arrays([d.X for d in list(data)[:3]]))
    other = datasets.load("syn1", seed=0)
    with pytest.raises(ValueError, match=r"step 3 \(time=4\)"):
        label_free_steps(result, other)


def test_label_free_steps_of_a_partition_without_population() -> None:
    from ercot_nb.result import ClusteringResult, StepResult

    rng = np.random.default_rng(0)
    X = [rng.normal(size=(30, 2)) + np.repeat([[0, 0], [6, 0]], 15, axis=0) for _ in range(3)]
    data = TemporalDataset.from_arrays(X)
    result = ClusteringResult(algorithm="hand", params={})
    for t, snapshot in enumerate(data):
        labels = np.repeat([0, 1], 15)
        result.append(StepResult.from_partition(t, snapshot.time, snapshot.ids, labels, snapshot.X, 0.0))
    table = label_free_steps(result, data, sample_size=None)
    assert table["churn"].iloc[1:].tolist() == [0.0, 0.0]
    assert table["consecutive_nmi"].iloc[1:].tolist() == [1.0, 1.0]
    for t, snapshot in enumerate(data):
        labels = result[t].labels
        assert table.loc[t, "silhouette"] == pytest.approx(silhouette_score(snapshot.X, labels))
        means = np.array([snapshot.X[labels == c].mean(axis=0) for c in (0, 1)])
        nearest = np.linalg.norm(snapshot.X[:, None] - means[None], axis=2).min(axis=1)
        assert table.loc[t, "f_cp"] == pytest.approx(nearest.sum())
        assert table.loc[t, "f_sep"] == pytest.approx(1 / np.linalg.norm(means[0] - means[1]))


def test_label_free_steps_from_a_later_step_extend_the_table(fitted) -> None:
    # a view of a growing run scores only the new steps and appends them
    data, result = fitted
    whole = label_free_steps(result, data, sample_size=50, seed=3)
    first = label_free_steps(ClusteringResult_head(result, 4), data[:4], sample_size=50, seed=3)
    rest = label_free_steps(result, data, sample_size=50, seed=3, start=4)
    assert rest["t"].tolist() == list(range(4, len(data)))
    joined = pd.concat([first, rest], ignore_index=True)
    pd.testing.assert_frame_equal(joined, whole)
    with pytest.raises(ValueError, match="start"):
        label_free_steps(result, data, start=len(data) + 1)


def ClusteringResult_head(result, n):
    from ercot_nb.result import ClusteringResult

    return ClusteringResult(result.algorithm, result.params, list(result.steps[:n]))


def test_label_free_steps_without_objectives_leave_out_only_f_cp_and_f_sep(fitted) -> None:
    """Callers that do not show f_cp/f_sep skip their nearest-centroid pass; every other column is the same."""
    data, result = fitted
    full = label_free_steps(result, data)
    lean = label_free_steps(result, data, objectives=False)
    assert "f_cp" not in lean.columns and "f_sep" not in lean.columns
    pd.testing.assert_frame_equal(lean, full.drop(columns=["f_cp", "f_sep"]))
    later = label_free_steps(result, data, start=4, objectives=False)
    pd.testing.assert_frame_equal(later.reset_index(drop=True), lean.iloc[4:].reset_index(drop=True))
