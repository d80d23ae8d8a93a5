"""E2SC: low-rank path vs full eigen-decomposition, determinism, refusals."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import TemporalDataset, algorithms, datasets
from ercot_nb.baselines import E2SC
from ercot_nb.baselines import _e2sc
from ercot_nb.metrics import rand_index


def drifting_blobs(n_steps: int = 4, n_per: int = 30, seed: int = 0) -> TemporalDataset:
    """Three 2-D blobs drifting slowly; fixed ids, noise redrawn each step."""
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [3.0, 5.0]])
    labels = np.repeat(np.arange(3), n_per)
    X_list = []
    for t in range(n_steps):
        moved = centres + 0.3 * t * np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
        X_list.append(moved[labels] + rng.normal(scale=0.8, size=(len(labels), 2)))
    return TemporalDataset.from_arrays(X_list, labels=[labels] * n_steps)


@pytest.fixture(scope="module")
def blobs():
    return drifting_blobs()


@pytest.mark.slow
def test_exact_low_rank_factor_reproduces_the_full_eigenvalues(blobs):
    n = blobs[0].n_samples
    full = E2SC(3, method="full").fit(blobs)
    exact = E2SC(3, method="low_rank", stop_when_stable=False, max_rank=n, icd_tol=1e-13).fit(blobs)
    for t in range(len(blobs)):
        np.testing.assert_allclose(exact.eigenvalues_[t], full.eigenvalues_[t], atol=1e-8)
        assert rand_index(exact.labels_[t], full.labels_[t]) == 1.0
    assert full.method_ == "full" and exact.method_ == "low_rank"


def test_default_low_rank_path_is_low_rank_and_gives_the_full_partition(blobs, monkeypatch):
    full = E2SC(3, method="full").fit(blobs)

    def no_dense_affinity(*args, **kwargs):
        raise AssertionError("the low-rank path built an N x N affinity")

    kernel = _e2sc.gaussian_kernel

    def kernel_columns_only(X, Y, sigma2):
        assert len(Y) == 1, "the low-rank path evaluated more than one kernel column at once"
        return kernel(X, Y, sigma2)

    monkeypatch.setattr(_e2sc, "normalised_affinity", no_dense_affinity)
    monkeypatch.setattr(_e2sc, "gaussian_kernel", kernel_columns_only)
    low = E2SC(3, method="low_rank").fit(blobs)
    n = blobs[0].n_samples
    assert all(8 <= m < n for m in low.ranks_)
    for t in range(len(blobs)):
        assert rand_index(low.labels_[t], full.labels_[t]) == 1.0
        np.testing.assert_allclose(low.eigenvalues_[t][:3], full.eigenvalues_[t][:3], atol=1e-4)


def test_auto_switches_to_low_rank_above_the_threshold(blobs):
    assert E2SC(3, low_rank_threshold=50).fit(blobs).method_ == "low_rank"
    assert E2SC(3).fit(blobs).method_ == "full"


@pytest.mark.parametrize("method", ["full", "low_rank"])
def test_eigengap_finds_three_clusters(blobs, method):
    model = E2SC(method=method).fit(blobs)
    assert model.n_clusters_.tolist() == [3] * len(blobs)
    assert all(rand_index(s.labels, l) > 0.95 for s, l in zip(blobs, model.labels_))


def test_eigengap_rule():
    values = np.array([1.0, 0.99, 0.97, 0.5, 0.45, 0.4])
    assert _e2sc.eigengap_k(values, max_clusters=5) == 3
    assert _e2sc.eigengap_k(np.array([1.0, 0.2, 0.19, 0.18]), max_clusters=8) == 2


def test_deterministic_whatever_the_seed():
    syn1 = datasets.load("syn1", seed=0)
    a = E2SC(4, seed=1).fit(syn1)
    b = algorithms.make("E2SC", n_clusters=4, seed=2).fit(syn1)
    for x, y in zip(a.labels_, b.labels_):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a.eigenvalues_[5], b.eigenvalues_[5])
    assert np.isnan(a.alpha_[0]) and np.all(a.alpha_[1:] == 0.1)


def test_smoothing_is_the_only_way_history_enters(blobs):
    # nu = 0: step 2 equals clustering step 2 alone; nu = 0.1 changes the spectrum
    alone = E2SC(3, method="full", smoothing=0.0).fit(blobs[2:3])
    memoryless = E2SC(3, method="full", smoothing=0.0).fit(blobs[:3])
    smoothed = E2SC(3, method="full").fit(blobs[:3])
    np.testing.assert_allclose(memoryless.eigenvalues_[2], alone.eigenvalues_[0], atol=1e-12)
    np.testing.assert_array_equal(memoryless.labels_[2], alone.labels_[0])
    assert np.max(np.abs(smoothed.eigenvalues_[2] - alone.eigenvalues_[0])) > 1e-4


@pytest.mark.parametrize("method", ["full", "low_rank"])
def test_previous_affinity_is_matched_by_id(blobs, method):
    rng = np.random.default_rng(3)
    orders = [np.arange(blobs[0].n_samples)] + [rng.permutation(blobs[0].n_samples) for _ in range(3)]
    shuffled = TemporalDataset.from_arrays([s.X[o] for s, o in zip(blobs, orders)],
                                           ids=[s.ids[o] for s, o in zip(blobs, orders)])
    plain = E2SC(3, method=method).fit(blobs)
    other = E2SC(3, method=method).fit(shuffled)
    for t, order in enumerate(orders):
        assert rand_index(plain.labels_[t][order], other.labels_[t]) == 1.0
        if method == "full":
            np.testing.assert_allclose(plain.eigenvalues_[t], other.eigenvalues_[t], atol=1e-10)


def test_refuses_changing_sample_sets():
    syn5 = datasets.load("syn5", seed=0)
    seen = []
    with pytest.raises(ValueError, match=r"^E2SC needs a fixed sample set.*n/a"):
        E2SC(4).fit(syn5, callback=seen.append)
    assert seen == []
    with pytest.raises(ValueError, match="method"):
        E2SC(method="dense").fit(datasets.load("syn1", seed=0))


def test_median_bandwidth():
    X = np.array([[0.0], [1.0], [3.0]])  # squared distances 1, 9, 4 -> median 4
    assert _e2sc.median_bandwidth(X) == 4.0
    assert _e2sc.median_bandwidth(np.zeros((5, 2))) == 1.0
