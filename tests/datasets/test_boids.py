"""Tests of the bird_flocks Boids scenario (ercot_nb.datasets)."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import datasets
from ercot_nb.data import common_ids
from ercot_nb.metrics import mean_scores


@pytest.fixture(scope="module")
def flocks():
    return datasets.load("bird_flocks", seed=0)


def _changed(ds, index):
    ia, ib = common_ids(ds[index - 1], ds[index])
    before, after = ds[index - 1].labels[ia], ds[index].labels[ib]
    return ds[index].ids[ib][before != after], before[before != after], after[before != after]


def test_sizes_ids_and_metadata(flocks):
    assert "bird_flocks" in datasets.available()
    assert len(flocks) == 30
    assert flocks.times == list(range(1, 31))
    assert flocks.n_samples_per_step.tolist() == [100] * 30
    assert flocks.feature_names == ["x", "y"]
    for snapshot in flocks:
        assert snapshot.ids.tolist() == list(range(100))
        assert set(snapshot.labels.tolist()) == {0, 1, 2, 3}
    meta = flocks.metadata
    assert meta["k"] is None
    assert meta["params"]["n_flocks"] == 4 and meta["params"]["strays"] == "each_flock"
    assert "Boids" in meta["description"]
    assert len(meta["true_means"]) == len(meta["true_mean_labels"]) == 30


def test_exactly_one_stray_per_flock_per_step(flocks):
    assert np.bincount(flocks[0].labels).tolist() == [25] * 4
    for index in range(1, 30):
        ids, before, after = _changed(flocks, index)
        assert ids.size == 4
        assert sorted(before.tolist()) == [0, 1, 2, 3]  # one stray from each flock
        assert np.all(before != after)
        assert np.bincount(flocks[index].labels, minlength=4).min() >= 2
    events = flocks.metadata["events"]
    assert len(events) == 29 * 4
    assert events.groupby("time").size().tolist() == [4] * 29


def test_switched_bird_keeps_its_position(flocks):
    # The stray is where its old flock was: much closer to its old flock's
    # centroid (at the previous step) than to its new one.
    for index in (1, 2):
        ids, before, after = _changed(flocks, index)
        means = flocks.metadata["true_means"][index - 1]
        for bird, old, new in zip(ids, before, after):
            x = flocks[index].X[bird]
            assert np.linalg.norm(x - means[old]) < np.linalg.norm(x - means[new])


def test_flocks_start_in_separated_lanes(flocks):
    first = flocks[0]
    lane_y = [first.X[first.labels == f, 1].mean() for f in range(4)]
    assert np.allclose(lane_y, [0, 60, 120, 180], atol=10)
    for f in range(4):
        assert np.ptp(first.X[first.labels == f, 1]) < 40
    oracle = datasets.oracle_partition(flocks)
    assert mean_scores(flocks[:1], oracle[:1])["mRI"] == pytest.approx(1.0)
    # The oracle stays good while few birds are in transit ...
    assert mean_scores(flocks[:5], oracle[:5])["mRI"] > 0.85
    # ... and the flocks fly forward along the lanes.
    for f in range(4):
        assert flocks[-1].X[flocks[-1].labels == f, 0].mean() > flocks[0].X[:, 0].max()


def _lane_centres(ds):
    return np.array([[s.X[s.labels == f, 1].mean() for f in range(4)] for s in ds])


def test_lane_rule_keeps_parallel_paths_and_the_design_generator_does_not(flocks):
    # Default (lane_pull=0.3, speed_limit=20): at every step the flocks keep
    # their lane order, with centroids well apart; strays reach their lane soon.
    centres = _lane_centres(flocks)
    assert np.all(np.diff(centres, axis=1) > 30)
    assert mean_scores(flocks, datasets.oracle_partition(flocks))["mRI"] > 0.85
    # The plain generator (no lane rule, v_lim 4): lanes drift together.
    plain = datasets.load("bird_flocks", seed=0, lane_pull=0.0, speed_limit=4.0)
    plain_centres = _lane_centres(plain)
    assert np.min(np.diff(plain_centres[-5:], axis=1)) < 30
    assert mean_scores(plain, datasets.oracle_partition(plain))["mRI"] < 0.8


def test_true_means_are_flock_centroids(flocks):
    snapshot = flocks[10]
    means = flocks.metadata["true_means"][10]
    for f in range(4):
        np.testing.assert_allclose(means[f], snapshot.X[snapshot.labels == f].mean(axis=0))


def test_seed_reproducibility():
    a, b = datasets.load("bird_flocks", seed=3), datasets.load("bird_flocks", seed=3)
    c = datasets.load("bird_flocks", seed=4)
    for sa, sb in zip(a, b):
        np.testing.assert_array_equal(sa.X, sb.X)
        np.testing.assert_array_equal(sa.labels, sb.labels)
    assert not np.array_equal(a[-1].X, c[-1].X)


def test_noise_changes_observations_not_paths():
    clean = datasets.load("bird_flocks", seed=1)
    noisy = datasets.load("bird_flocks", seed=1, noise=0.5)
    residual = np.vstack([n.X - c.X for n, c in zip(noisy, clean)])
    assert 0.4 < residual.std() < 0.6
    for n, c in zip(noisy, clean):
        np.testing.assert_array_equal(n.labels, c.labels)


def test_three_dimensions_and_in_place_order():
    ds = datasets.load("bird_flocks", dims=3, n_steps=8)
    assert ds.n_features == 3 and ds.feature_names == ["x", "y", "z"]
    assert len(ds) == 8 and ds.n_samples_per_step.tolist() == [100] * 8
    sequential = datasets.load("bird_flocks", n_steps=8, synchronous=False)
    synchronous = datasets.load("bird_flocks", n_steps=8)
    np.testing.assert_array_equal(sequential[-1].labels, synchronous[-1].labels)
    assert not np.allclose(sequential[-1].X, synchronous[-1].X)


def test_one_stray_variant_and_minimum_flock_size():
    ds = datasets.load("bird_flocks", strays="one", n_steps=6)
    for index in range(1, 6):
        assert _changed(ds, index)[0].size == 1
    # Tiny flocks: nobody leaves a flock of 2, so sizes never drop below 2.
    tiny = datasets.load("bird_flocks", n_flocks=3, n_birds=3, n_steps=20)
    for snapshot in tiny:
        assert np.bincount(snapshot.labels, minlength=3).min() >= 2


@pytest.mark.parametrize(
    "params",
    [
        {"dims": 4}, {"strays": "all"}, {"noise": -1.0}, {"n_birds": 2}, {"n_flocks": 1},
        {"lane_pull": -0.1}, {"speed_limit": 0.0}, {"speed_limit": float("nan")},
    ],
)
def test_invalid_parameters(params):
    with pytest.raises(ValueError):
        datasets.load("bird_flocks", **params)
