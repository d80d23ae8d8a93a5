"""AFFECT: alpha estimate by hand, toolbox demo behaviour, quirks, memory refusal."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import TemporalDataset, algorithms, datasets
from ercot_nb.baselines import AFFECT, AffectMemoryError, affect_memory_bytes
from ercot_nb.baselines._affect_kmeans import estimate_alpha, kernel_kmeans
from ercot_nb.baselines._affect_selection import (
    permute_clusters_greedy,
    permute_clusters_opt,
    silhouette_toolbox,
)
from ercot_nb.metrics import rand_index


# --------------------------------------------------------------------------- alpha
def test_alpha_on_a_two_block_matrix_by_hand():
    # clusters {0, 1} and {2, 3}
    W = np.array([[4.0, 1.0, 0.0, 0.0],
                  [1.0, 2.0, 0.0, 0.0],
                  [0.0, 0.0, 3.0, 1.0],
                  [0.0, 0.0, 1.0, 5.0]])
    labels = np.array([1, 1, 2, 2])
    # diagonal means 3 and 4, variances (1 + 1) / 1 = 2 each -> sum of v = 2*2 + 2*2 = 8;
    # off-diagonal parts of 2-object clusters and the constant cross blocks have variance 0.
    # previous = 2 I: diagonal errors (2-3)^2*2 + (2-4)^2*2 = 10, off-diagonal (0-1)^2*4 = 4,
    # cross blocks 0 -> alpha = 8 / (8 + 14) = 4 / 11.
    assert estimate_alpha(W, 2.0 * np.eye(4), labels) == pytest.approx(4.0 / 11.0, abs=1e-14)
    # a previous matrix equal to the block means leaves no error: alpha = 1
    means = np.array([[3.0, 1.0, 0.0, 0.0], [1.0, 3.0, 0.0, 0.0], [0.0, 0.0, 4.0, 1.0], [0.0, 0.0, 1.0, 4.0]])
    assert estimate_alpha(W, means, labels) == pytest.approx(1.0, abs=1e-14)
    # no variance at all and a different previous matrix: alpha = 0
    assert estimate_alpha(means, np.zeros((4, 4)), labels) == pytest.approx(0.0, abs=1e-14)


def alpha_by_definition(W, P, labels):
    """Entry-by-entry block model of the toolbox's alpha estimate (docs/algorithm.md, *AFFECT*)."""
    n = len(W)
    names = np.unique(labels)
    mean = np.zeros((n, n))
    var = np.zeros((n, n))
    for a in names:
        ia = np.flatnonzero(labels == a)
        for b in names:
            ib = np.flatnonzero(labels == b)
            if a == b:
                d = W[ia, ia]
                mean[ia, ia] = d.mean()
                var[ia, ia] = d.var(ddof=1) if len(ia) > 1 else 0.0
                off = [(i, j) for i in ia for j in ia if i != j]
                if off:
                    values = np.array([W[i, j] for i, j in off])
                    unique_pairs = values.size / 2
                    m = values.mean()
                    v = ((values - m) ** 2).sum() / 2 / (unique_pairs - 1) if unique_pairs > 1 else 0.0
                    for i, j in off:
                        mean[i, j], var[i, j] = m, v
            else:
                block = W[np.ix_(ia, ib)]
                mean[np.ix_(ia, ib)] = block.mean()
                var[np.ix_(ia, ib)] = block.var(ddof=1) if block.size > 1 else 0.0
    return var.sum() / (var.sum() + ((P - mean) ** 2).sum())


@pytest.mark.parametrize("sizes", [(5, 7), (1, 4, 3), (2, 2, 6)])
def test_alpha_matches_the_entrywise_definition(sizes):
    rng = np.random.default_rng(sum(sizes))
    n = sum(sizes)
    labels = np.repeat(np.arange(len(sizes)) * 3 + 7, sizes)  # arbitrary ids
    X = rng.normal(size=(n, 3)) + labels[:, None]
    W = X @ X.T
    Y = X + rng.normal(scale=0.5, size=X.shape)
    P = Y @ Y.T
    assert estimate_alpha(W, P, labels) == pytest.approx(alpha_by_definition(W, P, labels), rel=1e-10)


# --------------------------------------------------------------------------- toolbox pieces
def test_toolbox_silhouette_by_hand():
    S = np.array([[5.0, 4.0, 0.0, 1.0],
                  [4.0, 5.0, 1.0, 0.0],
                  [0.0, 1.0, 5.0, 4.0],
                  [1.0, 0.0, 4.0, 5.0]])
    # object 1: a = S12 = 4; b = mean(S13, S14, S11) = 2 (the object itself is included) -> 1 - 2/4
    assert silhouette_toolbox(S, np.array([1, 1, 2, 2])) == pytest.approx(0.5)
    # [1, 1, 1, 2]: s = 2/3 - 1, 1 - 2.5/2.5, 0.5/4.5 - 1, 0 (singleton)
    assert silhouette_toolbox(S, np.array([1, 1, 1, 2])) == pytest.approx((-1 / 3 + 0 - 8 / 9 + 0) / 4)
    # a singleton met first zeroes every later object
    assert silhouette_toolbox(S, np.array([2, 1, 1, 1])) == 0.0


def test_kernel_kmeans_empty_cluster_stays_empty_unless_reseeded():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(10, 2)), rng.normal(size=(10, 2)) + 8, rng.normal(size=(10, 2)) - 8]
    W = X @ X.T
    init = np.repeat([1, 2, 0], 10)  # id 3 empty, third blob unassigned
    faithful = kernel_kmeans(W, 3, init, rng)
    assert set(faithful) <= {1, 2}
    reseeded = kernel_kmeans(W, 3, init, np.random.default_rng(0), reseed_empty=True)
    assert len(set(reseeded)) == 3


def test_relabelling_follows_the_toolbox():
    previous = np.array([5, 5, 7, 7, 0, 0])
    # exact search: matched clusters take the previous ids, a third one the next free id
    np.testing.assert_array_equal(permute_clusters_opt(np.array([2, 2, 1, 1, 3, 3]), previous, 8),
                                  [5, 5, 7, 7, 8, 8])
    # ties: the toolbox keeps the first maximum in perms() order (reverse lexicographic)
    np.testing.assert_array_equal(permute_clusters_opt(np.array([1, 1, 1, 1, 2, 2]), np.array([5, 5, 7, 7, 0, 0]), 8),
                                  [7, 7, 7, 7, 5, 5])
    current = np.array([1, 1, 2, 2, 3, 3])
    np.testing.assert_array_equal(permute_clusters_greedy(current, np.array([4, 4, 4, 9, 9, 9]), 10),
                                  [4, 4, 10, 10, 9, 9])


# --------------------------------------------------------------------------- toolbox demo
def toolbox_demo(seed: int) -> TemporalDataset:
    """The toolbox demo (docs/algorithm.md, *AFFECT*): two 2-D Gaussians, component 2 moving, then 2 x 5 switches."""
    rng = np.random.default_rng(seed)
    n, n_first = 40, 20
    mean_first, mean_second = np.array([3.0, 3.0]), np.array([-3.0, -3.0])
    var_first = var_second = 1.0
    X_list, labels_list = [], []
    for t in range(1, 26):
        if 1 < t < 11:
            mean_second = mean_second + 0.4
        elif t in (11, 12):
            n_first += 5
            var_first *= 1 + 5 / 40
            var_second *= 1 - 5 / 40
        X = np.empty((n, 2))
        X[:n_first] = mean_first + np.sqrt(var_first) * rng.standard_normal((n_first, 2))
        X[n_first:] = mean_second + np.sqrt(var_second) * rng.standard_normal((n - n_first, 2))
        X_list.append(X)
        labels_list.append((np.arange(n) >= n_first).astype(int))
    return TemporalDataset.from_arrays(X_list, labels=labels_list)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_toolbox_demo_alpha_trajectory(seed):
    data = toolbox_demo(seed)
    model = AFFECT(2, seed=seed).fit(data)
    alpha = model.alpha_
    assert np.isnan(alpha[0]) and np.all((alpha[1:] >= 0) & (alpha[1:] <= 1))
    moving, settled = alpha[1:10], alpha[15:]  # t = 2..10 vs t = 16..25
    assert settled.mean() > moving.mean() + 0.1
    assert settled.min() > 0.55
    # the smoothing pays off after the switches, where static k-means on W splits badly
    static = AFFECT(2, alpha=0.0, seed=seed).fit(data)
    affect_ri = np.mean([rand_index(s.labels, l) for s, l in zip(data[12:], model.labels_[12:])])
    static_ri = np.mean([rand_index(s.labels, l) for s, l in zip(data[12:], static.labels_[12:])])
    assert affect_ri > static_ri + 0.05
    assert np.all(static.alpha_[1:] == 0.0)


def stable_then_switch(seed: int) -> TemporalDataset:
    """Two fixed Gaussians for 8 steps; then 10 of the 20 samples of one switch to the other."""
    rng = np.random.default_rng(seed)
    labels = np.repeat([0, 1], 20)
    means = np.array([[3.0, 3.0], [-3.0, -3.0]])
    X_list, labels_list = [], []
    for t in range(10):
        if t == 8:
            labels = labels.copy()
            labels[20:30] = 0
        X_list.append(means[labels] + rng.standard_normal((40, 2)))
        labels_list.append(labels)
    return TemporalDataset.from_arrays(X_list, labels=labels_list)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_drops_when_memberships_switch(seed):
    alpha = AFFECT(2, seed=seed).fit(stable_then_switch(seed)).alpha_
    assert alpha[4:8].mean() > 0.65
    assert alpha[8] < alpha[7] - 0.15


# --------------------------------------------------------------------------- quirks and modes
def split_later():
    """Two blobs at step 1; each splits in two at step 2 (four clear clusters)."""
    rng = np.random.default_rng(4)
    centres_1 = np.repeat([[0.0, 0.0], [0.0, 0.0], [20.0, 0.0], [20.0, 0.0]], 15, axis=0)
    centres_2 = np.repeat([[0.0, -6.0], [0.0, 6.0], [20.0, -6.0], [20.0, 6.0]], 15, axis=0)
    X_list = [c + 0.5 * rng.standard_normal((60, 2)) + [5.0, 30.0] for c in (centres_1, centres_2)]
    return TemporalDataset.from_arrays(X_list, labels=[np.repeat([0, 0, 1, 1], 15), np.repeat(np.arange(4), 15)])


def test_faithful_number_of_clusters_never_grows_after_the_first_step():
    data = split_later()
    # alpha = 0 (no smoothing) isolates the initialisation from the previous labels
    faithful = AFFECT(max_clusters=6, alpha=0.0, seed=0).fit(data)
    assert faithful.n_clusters_[0] == 2 and faithful.n_clusters_[1] <= 2  # quirk 1
    repaired = AFFECT(max_clusters=6, alpha=0.0, faithful=False, seed=0).fit(data)
    assert repaired.n_clusters_[1] == 4
    assert rand_index(data[1].labels, repaired.labels_[1]) == 1.0
    assert len(faithful.silhouettes_[1]) == 5  # one average width per candidate k = 2..6


def test_samples_may_come_and_go():
    syn5 = datasets.load("syn5", seed=0)
    model = AFFECT(4, seed=0).fit(syn5)
    for snapshot, labels in zip(syn5, model.labels_):
        assert labels.shape == snapshot.ids.shape
    assert np.all(np.isfinite(model.alpha_[1:]))


def test_reordered_samples_give_the_same_partition_by_id():
    data = datasets.load("syn1", seed=0)[:3]
    rng = np.random.default_rng(2)
    orders = [np.arange(200)] + [rng.permutation(200) for _ in range(2)]
    shuffled = TemporalDataset.from_arrays([s.X[o] for s, o in zip(data, orders)],
                                           ids=[s.ids[o] for s, o in zip(data, orders)])
    plain = AFFECT(4, seed=0).fit(data)
    other = AFFECT(4, seed=0).fit(shuffled)
    np.testing.assert_allclose(plain.alpha_[1:], other.alpha_[1:], rtol=1e-10)
    for t, order in enumerate(orders):
        a, b = plain.labels_[t][order], other.labels_[t]
        assert rand_index(a, b) == 1.0


# --------------------------------------------------------------------------- memory and API
def test_refuses_data_above_the_memory_limit_before_any_work():
    seen = []
    small = datasets.load("syn1", seed=0)
    needed = affect_memory_bytes(200)
    with pytest.raises(AffectMemoryError, match=rf"\({needed} bytes\), above max_memory_bytes=100000"):
        AFFECT(4, max_memory_bytes=100_000).fit(small, callback=seen.append)
    assert seen == []
    # a video-sized step (19200 pixels) is refused with the default 2 GB limit, without allocating
    rng = np.random.default_rng(0)
    video = TemporalDataset.from_arrays([rng.random((19_200, 3)) for _ in range(2)])
    with pytest.raises(MemoryError, match="19200 samples"):
        AFFECT().fit(video)
    with pytest.raises(ValueError, match="max_memory_bytes"):
        AFFECT().fit(video)
    assert affect_memory_bytes(19_200, 19_200) > 2 * 1024**3 > affect_memory_bytes(4_000, 4_000)


def test_seeded_runs_repeat_and_api():
    data = datasets.load("syn7", seed=0)[:4]
    a = AFFECT(seed=5).fit(data)
    b = algorithms.make("AFFECT", seed=5)
    for x, y in zip(a.labels_, b.fit_predict(data)):
        np.testing.assert_array_equal(x, y)
    streaming = AFFECT(seed=5)
    for snapshot in data:
        streaming.partial_fit(snapshot)
    np.testing.assert_array_equal(a.alpha_, streaming.alpha_)
    assert all(len(widths) == 9 for widths in a.silhouettes_)  # k = 2..10, the toolbox default
    assert a.result_.algorithm == "AFFECT"
    with pytest.raises(ValueError, match="alpha"):
        AFFECT(alpha=2.0).fit(data)
    fixed = AFFECT(3, alpha=0.3, seed=0).fit(data)
    assert np.all(fixed.alpha_[1:] == 0.3)
