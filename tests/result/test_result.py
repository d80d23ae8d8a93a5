"""Result object: time-aligned labels, tidy export, save/load round trip."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ercot_nb import ERCOT, ClusteringResult, TemporalDataset
from ercot_nb.result import align_labels


def test_align_labels_keeps_persisting_clusters():
    prev_ids = np.array([1, 2, 3, 4, 5, 6])
    prev_aligned = np.array([7, 7, 7, 9, 9, 9])
    ids = np.array([2, 3, 4, 5, 6, 10, 11])
    labels = np.array([1, 1, 0, 0, 0, 2, 2])  # 1 ~ old 7, 0 ~ old 9, 2 is new
    aligned, next_label = align_labels(prev_ids, prev_aligned, ids, labels, next_label=10)
    np.testing.assert_array_equal(aligned, [7, 7, 9, 9, 9, 10, 10])
    assert next_label == 11


def test_align_labels_split_gives_the_larger_part_the_old_label():
    prev_ids = np.arange(10)
    prev_aligned = np.zeros(10, dtype=int)
    labels = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 1])
    aligned, _ = align_labels(prev_ids, prev_aligned, prev_ids, labels, next_label=1)
    np.testing.assert_array_equal(aligned, [1, 1, 1, 0, 0, 0, 0, 0, 0, 0])


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    means = np.array([[0, 0], [5, 5], [0, 5]], dtype=float)
    labels = np.repeat(np.arange(3), 15)
    X = [means[labels] + rng.normal(scale=0.5, size=(45, 2)) for _ in range(3)]
    ids = [np.array([f"s{i}" for i in range(45)], dtype=object)] * 3
    data = TemporalDataset.from_arrays(X, ids=ids, labels=[labels] * 3, times=[2000, 2001, 2002])
    return data, ERCOT(seed=0, pop_size=20, n_evaluations=60).fit(data)


def test_aligned_labels_stable_on_stable_data(fitted):
    _, model = fitted
    first = model.result_[0].aligned_labels
    for step in model.result_:
        np.testing.assert_array_equal(step.aligned_labels, first)


def test_frames(fitted):
    data, model = fitted
    frame = model.result_.to_frame()
    assert list(frame.columns) == ["t", "time", "id", "label", "aligned_label"]
    assert len(frame) == sum(s.n_samples for s in data)
    assert set(frame["time"]) == {2000, 2001, 2002}
    fronts = model.result_.fronts_frame()
    assert len(fronts) == 3 * 20 and fronts.groupby("t")["knee"].sum().eq(1).all()
    assert fronts.loc[fronts.knee, "first_front"].all()
    steps = model.result_.steps_frame()
    assert list(steps["n_clusters"]) == list(model.n_clusters_)
    assert "<table" in model.result_._repr_html_()


def test_save_load_round_trip(fitted, tmp_path):
    _, model = fitted
    path = model.result_.save(tmp_path / "run")
    assert path.suffix == ".npz"
    loaded = ClusteringResult.load(path)
    assert loaded.algorithm == "ERCOT" and loaded.params["seed"] == 0
    assert len(loaded) == len(model.result_)
    for a, b in zip(model.result_, loaded):
        for name in ("labels", "aligned_labels", "centroids", "population", "objectives",
                     "objectives_accumulated", "first_front", "alpha_pairs", "matched_pairs"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        assert list(a.ids) == list(b.ids) and a.knee == b.knee and a.time == b.time
        np.testing.assert_equal(a.alpha, b.alpha)
    pd.testing.assert_frame_equal(model.result_.to_frame(), loaded.to_frame())


def test_labels_of_another_front_member(fitted):
    data, model = fitted
    step = model.result_[1]
    np.testing.assert_array_equal(model.result_.labels_of_member(data[1].X, 1, step.knee), step.labels)
    others = np.flatnonzero(step.first_front & (step.population_n_clusters != step.n_clusters))
    if len(others):
        other = model.result_.labels_of_member(data[1].X, 1, others[0])
        assert len(np.unique(other)) == step.population_n_clusters[others[0]]


def test_align_labels_matches_a_per_sample_mapping_on_random_partitions():
    """Each current cluster takes one label (its matched previous label, or a fresh one),
    checked against the mapping applied sample by sample."""
    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(0, 40))
        prev_ids = rng.permutation(60)[:n]
        prev_aligned = rng.integers(0, 5, n) * 3
        ids = rng.permutation(60)[: int(rng.integers(0, 40))]
        labels = rng.integers(-1, 6, len(ids)) * 2
        aligned, next_label = align_labels(prev_ids, prev_aligned, ids, labels, next_label=100)
        assert aligned.dtype == np.int64 and aligned.shape == labels.shape
        mapping = {}
        for label, new in zip(labels.tolist(), aligned.tolist(), strict=True):
            assert mapping.setdefault(label, new) == new  # one label per cluster
        assert len(set(mapping.values())) == len(mapping)  # clusters stay apart
        fresh = sorted(new for new in mapping.values() if new >= 100)
        assert fresh == list(range(100, next_label))
