"""k-meansCOT: cp = 0 is plain k-means, hand-checked updates, refusals."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import KMeans

from ercot_nb import TemporalDataset, algorithms, datasets
from ercot_nb.baselines import KMeansCOT


@pytest.fixture(scope="module")
def syn1():
    return datasets.load("syn1", seed=0)


def plain_lloyd(X, centroids, max_iter=100):
    """Textbook Lloyd: assign, move each centroid to its mean, until labels repeat."""
    centroids = np.array(centroids, dtype=float)
    labels = None
    for _ in range(max_iter + 1):
        distances = np.linalg.norm(X[:, None, :] - centroids[None, :, :], axis=2)
        new_labels = distances.argmin(axis=1)
        if labels is not None and np.array_equal(new_labels, labels):
            break
        labels = new_labels
        for j in range(len(centroids)):
            if np.any(labels == j):
                centroids[j] = X[labels == j].mean(axis=0)
    return labels, centroids


def test_cp_zero_equals_plain_kmeans_from_the_same_start(syn1):
    start = syn1[0].X[[0, 50, 100, 150]]  # one sample of each true cluster
    model = KMeansCOT(4, cp=0.0, init=start).fit(syn1)
    centroids = start
    for t, snapshot in enumerate(syn1):
        begin = centroids  # step 1: the given start; later: the previous step's centroids
        labels, centroids = plain_lloyd(snapshot.X, begin)
        assert len(np.unique(labels)) == 4  # no empty cluster: sklearn would relocate one
        reference = KMeans(4, init=begin, n_init=1, tol=0.0, algorithm="lloyd").fit(snapshot.X)
        ours = model.result_[t].labels
        # same partition (labels are renumbered by StepResult, so compare co-membership)
        assert np.array_equal(ours[:, None] == ours[None, :], labels[:, None] == labels[None, :]), t
        assert np.array_equal(ours[:, None] == ours[None, :],
                              reference.labels_[:, None] == reference.labels_[None, :]), t
    np.testing.assert_allclose(model.cluster_centers_, centroids, atol=1e-12)


def test_cp_positive_differs_from_plain_kmeans(syn1):
    start = syn1[0].X[[0, 50, 100, 150]]
    plain = KMeansCOT(4, cp=0.0, init=start).fit(syn1)
    smooth = KMeansCOT(4, cp=0.8, init=start).fit(syn1)
    np.testing.assert_array_equal(plain.labels_[0], smooth.labels_[0])  # step 1 is plain k-means
    assert any(not np.array_equal(a, b) for a, b in zip(plain.labels_[1:], smooth.labels_[1:]))
    assert np.isnan(smooth.alpha_[0]) and np.all(smooth.alpha_[1:] == 0.8)


def two_step_line():
    """Two tight 1-D clusters of 3 points, shifted by +1 at the second step."""
    X0 = np.array([[-0.1], [0.0], [0.1], [9.9], [10.0], [10.1]])
    return TemporalDataset.from_arrays([X0, X0 + 1.0])


@pytest.mark.parametrize(
    "cp, normalise, expected",
    [
        # gamma = 3 / (3 + 3) = 1/2; w = cp/2 + (1 - cp)/2 = 1/2 for any cp
        (0.5, True, [0.5, 10.5]),  # (0.25 * 0 + 0.25 * 1) / 0.5
        (0.8, True, [0.2, 10.2]),  # (0.4 * 0 + 0.1 * 1) / 0.5
        (0.5, False, [0.25, 5.25]),  # literal: 0.25 * c' + 0.25 * m, shrinks to 0
        (0.0, True, [1.0, 11.0]),
    ],
)
def test_update_rule_by_hand(cp, normalise, expected):
    data = two_step_line()
    model = KMeansCOT(2, cp=cp, normalise_update=normalise, init=np.array([[0.0], [10.0]])).fit(data)
    np.testing.assert_allclose(model.cluster_centers_[:, 0], expected, atol=1e-12)
    np.testing.assert_array_equal(model.labels_[1], [0, 0, 0, 1, 1, 1])


def test_refuses_changing_sample_sets_and_missing_k(syn1):
    syn5 = datasets.load("syn5", seed=0)
    with pytest.raises(ValueError, match=r"^k-meansCOT needs a fixed sample set.*time 4"):
        KMeansCOT(4).fit(syn5)
    with pytest.raises(ValueError, match="^k-meansCOT needs n_clusters"):
        KMeansCOT().fit(syn1)
    model = KMeansCOT(4, seed=0).partial_fit(syn5[2])
    with pytest.raises(ValueError, match="fixed sample set"):
        model.partial_fit(syn5[3])
    assert len(model.result_) == 1
    with pytest.raises(ValueError, match="cp"):
        KMeansCOT(4, cp=1.5).fit(syn1)


def test_refusal_happens_before_any_step():
    seen = []
    syn5 = datasets.load("syn5", seed=0)
    with pytest.raises(ValueError):
        KMeansCOT(4).fit(syn5, callback=seen.append)
    assert seen == []


def test_seeded_runs_repeat_and_api(syn1):
    a = KMeansCOT(4, seed=3).fit(syn1)
    b = algorithms.make("k-meansCOT", n_clusters=4, seed=3).fit(syn1)
    for x, y in zip(a.labels_, b.fit_predict(syn1)):
        np.testing.assert_array_equal(x, y)
    assert a.n_clusters_.tolist() == [4] * len(syn1)
    assert a.result_.algorithm == "k-meansCOT" and a.result_.params["n_clusters"] == 4
    streaming = KMeansCOT(4, seed=3)
    for snapshot in syn1:
        streaming.partial_fit(snapshot)
    for x, y in zip(a.labels_, streaming.labels_):
        np.testing.assert_array_equal(x, y)
    stopped = KMeansCOT(4, seed=3).fit(syn1, callback=lambda step: step.t < 2)
    assert len(stopped.result_) == 3


def test_sample_order_may_change_between_steps(syn1):
    permuted = []
    rng = np.random.default_rng(1)
    for snapshot in syn1[:3]:
        order = rng.permutation(snapshot.n_samples)
        permuted.append((snapshot.X[order], snapshot.ids[order]))
    data = TemporalDataset.from_arrays([x for x, _ in permuted], ids=[i for _, i in permuted])
    model = KMeansCOT(4, seed=0).fit(data)  # the same sample set in another order is accepted
    assert len(model.labels_) == 3
