"""Tests of the built-in Syn1-Syn8 scenarios (ercot_nb.datasets)."""
from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from ercot_nb import datasets
from ercot_nb.data import TemporalDataset, common_ids
from ercot_nb.metrics import mean_scores

ALL = [f"syn{i}" for i in range(1, 9)]
SIZES_INSERT_REMOVE = [200, 200, 200, 160, 160, 200, 200, 160, 160, 160]
EXPECTED_SIZES = {
    "syn1": [200] * 10,
    "syn2": [200] * 10,
    "syn3": [200] * 10,
    "syn4": [200] * 10,
    "syn5": SIZES_INSERT_REMOVE,
    "syn6": SIZES_INSERT_REMOVE,
    "syn7": [200] * 10,
    "syn8": [200] * 10,
}
DIMENSION = {"syn1": 2, "syn2": 4, "syn3": 2, "syn4": 4, "syn5": 2, "syn6": 2, "syn7": 2, "syn8": 4}
MOVING = 2


def _label_changes(ds: TemporalDataset, index: int):
    """Ids whose label changed between steps index-1 and index, with old and new labels."""
    ia, ib = common_ids(ds[index - 1], ds[index])
    before, after = ds[index - 1].labels[ia], ds[index].labels[ib]
    changed = before != after
    return ds[index].ids[ib][changed], before[changed], after[changed]


@pytest.mark.parametrize("name", ALL)
def test_shapes_and_metadata(name):
    ds = datasets.load(name)
    assert ds.name == name
    assert len(ds) == 10
    assert ds.times == list(range(1, 11))
    assert ds.n_features == DIMENSION[name]
    assert ds.has_labels
    assert ds.n_samples_per_step.tolist() == EXPECTED_SIZES[name]
    for snapshot in ds:
        assert snapshot.X.shape == (snapshot.n_samples, DIMENSION[name])
        assert snapshot.ids.dtype.kind == "i"
        assert set(np.unique(snapshot.labels)) <= {0, 1, 2, 3}
    metadata = ds.metadata
    assert metadata["k"] == (None if name in ("syn7", "syn8") else 4)
    assert metadata["params"] == {
        "seed": 0, "n_steps": 10, "step_size": 0.6, "cov_scale": 0.8,
        "n_per_cluster": 50, "step_mode": "euclidean", "noise": "redrawn",
    }
    assert name.capitalize() in metadata["description"]
    assert len(metadata["true_means"]) == len(metadata["true_mean_labels"]) == 10
    for snapshot, means, mean_labels in zip(ds, metadata["true_means"], metadata["true_mean_labels"]):
        # exactly the clusters that have members at this step
        assert mean_labels.tolist() == np.unique(snapshot.labels).tolist()
        assert means.shape == (len(mean_labels), DIMENSION[name])


def test_static_means_match_the_paper():
    ds1, ds2 = datasets.load("syn1"), datasets.load("syn2")
    np.testing.assert_array_equal(ds1.metadata["true_means"][0], [[2, 2], [-2, 2], [-2, -2], [2, -2]])
    np.testing.assert_array_equal(
        ds2.metadata["true_means"][0],
        [[2, 2, 2, 2], [-2, -2, 2, 2], [-2, -2, -2, -2], [2, 2, -2, -2]],
    )
    for t in range(10):  # only cluster 2 moves
        np.testing.assert_array_equal(ds1.metadata["true_means"][t][[0, 1, 3]], [[2, 2], [-2, 2], [2, -2]])


@pytest.mark.parametrize(
    ("name", "step_mode", "expected_at_t10"),
    [
        # Euclidean: 9 steps of 0.6 along the diagonal from (-2, -2): -2 + 5.4 / sqrt(2)
        ("syn1", "euclidean", [1.8183766184073564] * 2),
        ("syn1", "per_coordinate", [3.4, 3.4]),  # -2 + 9 * 0.6, past the target
        ("syn2", "euclidean", [0.7] * 4),  # -2 + 5.4 / 2 per coordinate
        ("syn2", "per_coordinate", [3.4] * 4),
    ],
)
def test_moving_mean_at_t10(name, step_mode, expected_at_t10):
    ds = datasets.load(name, step_mode=step_mode)
    means = ds.metadata["true_means"][9]
    np.testing.assert_allclose(means[MOVING], expected_at_t10, atol=1e-12)
    np.testing.assert_allclose(ds.metadata["true_means"][0][MOVING], [-2.0] * len(expected_at_t10))
    # and the samples really sit around it
    last = ds[9]
    sample_mean = last.X[last.labels == MOVING].mean(axis=0)
    np.testing.assert_allclose(sample_mean, expected_at_t10, atol=0.45)


def test_euclidean_step_ends_026_from_the_target():
    means = datasets.load("syn1").metadata["true_means"][9]
    assert math.isclose(np.linalg.norm(means[MOVING] - means[0]), 4 * math.sqrt(2) - 5.4, abs_tol=1e-12)
    assert "0.26" in datasets.load("syn1").metadata["description"]


@pytest.mark.parametrize("name", ["syn3", "syn4"])
def test_membership_switches(name):
    ds = datasets.load(name)
    ids4, from4, to4 = _label_changes(ds, 3)  # t = 4
    ids5, from5, to5 = _label_changes(ds, 4)  # t = 5
    ids6, from6, to6 = _label_changes(ds, 5)  # t = 6
    for ids, origin, destination in ((ids4, from4, to4), (ids5, from5, to5)):
        assert ids.size == 15
        assert set(origin.tolist()) == {MOVING}
        assert Counter(destination.tolist()) == {0: 5, 1: 5, 3: 5}
    assert not set(ids4.tolist()) & set(ids5.tolist())
    assert sorted(ids6.tolist()) == sorted(ids5.tolist())  # the t = 5 switchers come back
    assert set(to6.tolist()) == {MOVING}
    assert Counter(from6.tolist()) == {0: 5, 1: 5, 3: 5}
    for index in (1, 2, 6, 7, 8, 9):
        assert _label_changes(ds, index)[0].size == 0
    assert Counter(ds[9].labels.tolist()) == {0: 55, 1: 55, 2: 35, 3: 55}
    # the t = 4 switchers stay in their new clusters
    position = {i: p for p, i in enumerate(ds[9].ids.tolist())}
    assert [ds[9].labels[position[i]] for i in ids4.tolist()] == to4.tolist()


def test_switched_samples_keep_their_offset_around_the_new_mean():
    ds = datasets.load("syn3", noise="fixed")
    ids, _, destination = _label_changes(ds, 3)  # t = 4
    step, before = ds[3], ds[2]
    offset_now = step.X[np.searchsorted(step.ids, ids)] - ds.metadata["true_means"][3][destination]
    offset_before = before.X[np.searchsorted(before.ids, ids)] - ds.metadata["true_means"][2][MOVING]
    np.testing.assert_allclose(offset_now, offset_before, atol=1e-12)


@pytest.mark.parametrize("name", ["syn5", "syn6"])
def test_inserted_and_removed_samples(name):
    ds = datasets.load(name)
    seen: set[int] = set()
    gone: set[int] = set()
    for index, snapshot in enumerate(ds):
        ids = set(snapshot.ids.tolist())
        assert not ids & gone, "a removed sample came back"
        if index > 0:
            previous = set(ds[index - 1].ids.tolist())
            gone |= previous - ids
            new = ids - previous
            if index == 5:  # t = 6: 10 new samples per cluster, with never-used ids
                assert len(new) == 40
                assert not new & seen
                assert min(new) >= 200
                labels = dict(zip(snapshot.ids.tolist(), snapshot.labels.tolist()))
                assert Counter(labels[i] for i in new) == {0: 10, 1: 10, 2: 10, 3: 10}
            else:
                assert not new
        seen |= ids
    assert len(gone) == 80


def test_syn5_removes_ten_per_cluster():
    ds = datasets.load("syn5")
    for index in (3, 7):  # t = 4 and t = 8
        before, after = ds[index - 1], ds[index]
        removed = ~np.isin(before.ids, after.ids)
        assert Counter(before.labels[removed].tolist()) == {0: 10, 1: 10, 2: 10, 3: 10}


def test_syn6_combines_drift_with_insert_remove():
    ds = datasets.load("syn6")
    ids5, from5, to5 = _label_changes(ds, 4)
    assert ids5.size == 15 and set(from5.tolist()) == {MOVING}
    assert Counter(to5.tolist()) == {0: 5, 1: 5, 3: 5}
    ids6, _, to6 = _label_changes(ds, 5)
    assert sorted(ids6.tolist()) == sorted(ids5.tolist()) and set(to6.tolist()) == {MOVING}


@pytest.mark.parametrize(("name", "parent"), [("syn7", "syn3"), ("syn8", "syn4")])
def test_moving_cluster_disappears_at_t5_t6(name, parent):
    ds, base = datasets.load(name), datasets.load(parent)
    for index in range(10):
        np.testing.assert_array_equal(ds[index].ids, base[index].ids)
        labels = ds[index].labels
        if index in (4, 5):  # t = 5, 6
            assert MOVING not in labels
            assert ds.metadata["true_mean_labels"][index].tolist() == [0, 1, 3]
        else:
            np.testing.assert_array_equal(labels, base[index].labels)
    assert np.count_nonzero(ds[6].labels == MOVING) == 35  # back at t = 7
    # one fixed destination per sample over t = 5 and 6, spread evenly
    np.testing.assert_array_equal(ds[4].labels, ds[5].labels)
    members = base[5].labels == MOVING
    assert sorted(Counter(ds[5].labels[members].tolist()).values()) == [11, 12, 12]


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("noise", ["redrawn", "fixed"])
def test_same_seed_same_data_other_seed_other_data(name, noise):
    a, b = datasets.load(name, seed=3, noise=noise), datasets.load(name, seed=3, noise=noise)
    c = datasets.load(name, seed=4, noise=noise)
    for sa, sb, sc in zip(a, b, c):
        np.testing.assert_array_equal(sa.ids, sb.ids)
        np.testing.assert_array_equal(sa.X, sb.X)
        np.testing.assert_array_equal(sa.labels, sb.labels)
        assert not np.array_equal(sa.X, sc.X)


def test_noise_modes():
    fixed, redrawn = datasets.load("syn1", noise="fixed"), datasets.load("syn1", noise="redrawn")
    static = fixed[0].labels != MOVING
    for index in range(1, 10):
        # static clusters: a fixed offset means the very same position
        np.testing.assert_array_equal(fixed[index].X[static], fixed[0].X[static])
        shift = fixed.metadata["true_means"][index][MOVING] - fixed.metadata["true_means"][0][MOVING]
        np.testing.assert_allclose(fixed[index].X[~static], fixed[0].X[~static] + shift, atol=1e-12)
        assert not np.any(redrawn[index].X[static] == redrawn[0].X[static])


def test_untouched_samples_match_the_parent_scenario():
    syn1, syn3 = datasets.load("syn1"), datasets.load("syn3")
    for s1, s3 in zip(syn1, syn3):
        same = s1.labels == s3.labels
        assert same.sum() >= 170
        np.testing.assert_array_equal(s1.X[same], s3.X[same])
        assert not np.any(np.all(s1.X[~same] == s3.X[~same], axis=1))


@pytest.mark.parametrize("cov_scale", [0.8, 0.2])
def test_within_cluster_variance(cov_scale):
    ds = datasets.load("syn4", cov_scale=cov_scale)
    residuals = np.vstack(
        [s.X - means[np.searchsorted(mean_labels, s.labels)]
         for s, means, mean_labels in zip(ds, ds.metadata["true_means"], ds.metadata["true_mean_labels"])]
    )
    np.testing.assert_allclose(residuals.var(axis=0), cov_scale, rtol=0.08)
    np.testing.assert_allclose(residuals.mean(axis=0), 0.0, atol=0.1)


def test_parameters_change_the_data():
    ds = datasets.load("syn3", n_steps=3, n_per_cluster=40, step_size=1.0)
    assert len(ds) == 3 and ds.n_samples_per_step.tolist() == [160] * 3
    np.testing.assert_allclose(ds.metadata["true_means"][2][MOVING], [-2 + 2 / math.sqrt(2)] * 2)
    assert ds.metadata["events"].empty  # the first switch would be at t = 4


def test_oracle_partition_syn1_band():
    ds = datasets.load("syn1")
    scores = mean_scores(ds, datasets.oracle_partition(ds))
    print(f"\noracle on syn1 (seed 0): mRI={scores['mRI']:.4f}, mNMI={scores['mNMI']:.4f}")
    assert 0.85 < scores["mRI"] < 0.97
    assert 0.65 < scores["mNMI"] < 0.90


def test_oracle_partition_is_nearest_true_mean():
    ds = datasets.load("syn7")
    partition = datasets.oracle_partition(ds)
    for index, (snapshot, labels) in enumerate(zip(ds, partition)):
        means = ds.metadata["true_means"][index]
        mean_labels = ds.metadata["true_mean_labels"][index]
        brute = [mean_labels[np.argmin([np.sum((x - m) ** 2) for m in means])] for x in snapshot.X]
        assert labels.tolist() == list(brute)
        assert labels.dtype == np.int64
    assert MOVING not in partition[4] and MOVING not in partition[5]
    # slices keep the per-step true means aligned
    sliced = datasets.oracle_partition(ds[4:])
    assert all(np.array_equal(a, b) for a, b in zip(sliced, partition[4:]))


def test_oracle_partition_needs_true_means():
    ds = TemporalDataset.from_arrays([np.zeros((2, 2))], name="plain")
    with pytest.raises(ValueError, match="'plain' has no true means"):
        datasets.oracle_partition(ds)
    ds.metadata["true_means"] = [np.zeros((2, 2)), np.zeros((2, 2))]
    with pytest.raises(ValueError, match="2 entries but the dataset has 1 steps"):
        datasets.oracle_partition(ds)
    ds.metadata["true_means"] = [np.zeros((2, 3))]
    with pytest.raises(ValueError, match=r"step 0 .*shape \(k, 2\)"):
        datasets.oracle_partition(ds)


def test_load_registry():
    assert datasets.available()[: len(ALL)] == ALL
    assert datasets.load("SyN3").name == "syn3"
    with pytest.raises(ValueError, match="unknown dataset 'syn9'; available: syn1, syn2, .*syn8"):
        datasets.load("syn9")
    with pytest.raises(ValueError, match="step_mode must be one of"):
        datasets.load("syn1", step_mode="diagonal")
    with pytest.raises(ValueError, match="noise must be one of"):
        datasets.load("syn1", noise="sometimes")
    with pytest.raises(ValueError, match=r"n_steps must be an int in \[1, "):
        datasets.load("syn1", n_steps=0)
    with pytest.raises(ValueError, match="cov_scale must be"):
        datasets.load("syn1", cov_scale=-1.0)
    with pytest.raises(ValueError, match=r"syn3: at t=5, a switch needs 15 samples .* only 5"):
        datasets.load("syn3", n_per_cluster=20)
    with pytest.raises(TypeError):
        datasets.load("syn1", colour="red")


def test_seed_none_is_recorded_and_reproducible():
    ds = datasets.load("syn2", seed=None)
    again = datasets.load("syn2", seed=ds.metadata["params"]["seed"])
    np.testing.assert_array_equal(ds[5].X, again[5].X)
