"""ERCOT's final_partition="mixture": EM of a Gaussian mixture from the knee's clusters."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import ERCOT, TemporalDataset
from ercot_nb.evolution._final import MIXTURE_ITERATIONS
from ercot_nb.evolution._mixture import fit_mixture
from ercot_nb.metrics import mean_scores
from ercot_nb.algorithms import estimator_params

FAST = dict(pop_size=20, n_evaluations=100)


@pytest.fixture(scope="module")
def unequal():
    """One large, spread segment beside two small, tight ones (a background and two objects), 4 steps."""
    rng = np.random.default_rng(5)
    sizes, spreads = (400, 40, 40), (1.0, 0.15, 0.15)
    means = np.array([[0.0, 0.0], [2.6, 0.0], [0.0, 2.6]])
    labels = np.repeat(np.arange(3), sizes)
    X_list = []
    for t in range(4):
        noise = rng.normal(size=(len(labels), 2)) * np.array(spreads)[labels, None]
        X_list.append(means[labels] + 0.1 * t + noise)
    return TemporalDataset.from_arrays(X_list, ids=[np.arange(len(labels))] * 4, labels=[labels] * 4)


@pytest.fixture(scope="module")
def unequal_large():
    """As ``unequal`` with enough samples for the held-out choice (1,500 per step, 4 steps)."""
    rng = np.random.default_rng(6)
    sizes, spreads = (1200, 150, 150), (1.0, 0.15, 0.15)
    means = np.array([[0.0, 0.0], [2.6, 0.0], [0.0, 2.6]])
    labels = np.repeat(np.arange(3), sizes)
    X_list = []
    for t in range(4):
        noise = rng.normal(size=(len(labels), 2)) * np.array(spreads)[labels, None]
        X_list.append(means[labels] + 0.1 * t + noise)
    return TemporalDataset.from_arrays(X_list, ids=[np.arange(len(labels))] * 4, labels=[labels] * 4)


def test_declared_in_the_specs_with_the_paper_as_default():
    spec = {p.name: p for p in estimator_params("ERCOT")}["final_partition"]
    assert spec.default == "nearest" and spec.choices == ("nearest", "mixture", "cv_mixture")
    assert ERCOT().final_partition == "nearest"
    with pytest.raises(ValueError, match="final_partition"):
        ERCOT(final_partition="gmm", **FAST).fit([np.zeros((5, 2))])


def test_default_is_the_paper(unequal):
    a = ERCOT(seed=1, **FAST).fit(unequal).result_
    b = ERCOT(seed=1, final_partition="nearest", **FAST).fit(unequal).result_
    for sa, sb in zip(a, b):
        np.testing.assert_array_equal(sa.labels, sb.labels)


def test_mixture_refines_the_knee_and_is_carried_over_time(unequal):
    model = ERCOT(seed=1, final_partition="mixture", **FAST).fit(unequal)
    nearest = ERCOT(seed=1, **FAST).fit(unequal)
    # step 0 has no history: the same search, the knee's partition refined by EM
    first, first_nearest = model.result_[0], nearest.result_[0]
    np.testing.assert_array_equal(first.population, first_nearest.population)
    X = unequal[0].X
    spread = X.var(axis=0).mean()
    twin = fit_mixture(X, first_nearest.labels, n_iter=MIXTURE_ITERATIONS, reg=1e-6 * spread)
    _, twin_labels = np.unique(twin.labels, return_inverse=True)
    np.testing.assert_array_equal(first.labels, twin_labels)
    # the history of the next step is the mixture's partition
    assert model._history.labels is model.result_[-1].labels
    # predict labels the fitted samples as the step does
    for t in range(len(unequal)):
        np.testing.assert_array_equal(model.predict(unequal[t].X, t=t), model.labels_[t])
    # the large spread segment keeps its samples: the mixture is far closer to the truth
    assert mean_scores(unequal, model.labels_)["mRI"] > mean_scores(unequal, nearest.labels_)["mRI"] + 0.02
    # seeded: the same seed gives the same labels
    again = ERCOT(seed=1, final_partition="mixture", **FAST).fit(unequal)
    for a, b in zip(model.labels_, again.labels_):
        np.testing.assert_array_equal(a, b)


def test_adopting_the_knee_reproduces_a_mixture_run(unequal):
    model = ERCOT(seed=2, final_partition="mixture", **FAST).fit(unequal)
    before = [labels.copy() for labels in model.labels_]
    model.adopt(1, model.result_[1].knee)
    for a, b in zip(before, model.labels_):
        np.testing.assert_array_equal(a, b)
    for t in range(len(unequal)):
        np.testing.assert_array_equal(model.predict(unequal[t].X, t=t), model.labels_[t])


def test_clusters_of_equal_spread_keep_the_paper_labels(monkeypatch):
    # four equal spherical blobs: the equal-spread model's BIC wins at every step, so the labels are the paper's
    rng = np.random.default_rng(0)
    means = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0], [6.0, 6.0]])
    labels = np.repeat(np.arange(4), 40)
    X_list = [means[labels] + rng.normal(size=(160, 2)) for _ in range(3)]
    data = TemporalDataset.from_arrays(X_list, ids=[np.arange(160)] * 3, labels=[labels] * 3)
    import ercot_nb.evolution._final as evolutionary

    iterations = []

    def counting(*args, **kwargs):
        iterations.append(kwargs["n_iter"])
        return fit_mixture(*args, **kwargs)

    monkeypatch.setattr(evolutionary, "fit_mixture", counting)
    nearest = ERCOT(seed=3, **FAST).fit(data)
    mixture = ERCOT(seed=3, final_partition="mixture", **FAST).fit(data)
    for a, b in zip(nearest.labels_, mixture.labels_):
        np.testing.assert_array_equal(a, b)
    assert all(m is None for m in mixture._mixtures)
    assert iterations == [0, 0, 0]  # the clusters' own spreads did not beat a common one: no EM was run


def test_cv_mixture_chooses_the_number_of_segments_on_held_out_samples(unequal_large):
    nearest = ERCOT(seed=1, **FAST).fit(unequal_large)
    mixture = ERCOT(seed=1, final_partition="mixture", **FAST).fit(unequal_large)
    model = ERCOT(seed=1, final_partition="cv_mixture", **FAST).fit(unequal_large)
    # step 0: the same search as the paper's, another partition
    np.testing.assert_array_equal(model.result_[0].population, nearest.result_[0].population)
    truth = mean_scores(unequal_large, model.labels_)["mRI"]
    assert truth > mean_scores(unequal_large, nearest.labels_)["mRI"] + 0.02
    assert truth >= mean_scores(unequal_large, mixture.labels_)["mRI"]
    # the search keeps more clusters than the three segments; the held-out choice comes closer to three
    assert (nearest.n_clusters_ > 3).any()
    assert np.abs(model.n_clusters_ - 3).sum() < np.abs(nearest.n_clusters_ - 3).sum()
    assert model._history.labels is model.result_[-1].labels
    for t in range(len(unequal_large)):
        np.testing.assert_array_equal(model.predict(unequal_large[t].X, t=t), model.labels_[t])
    again = ERCOT(seed=1, final_partition="cv_mixture", **FAST).fit(unequal_large)
    for a, b in zip(model.labels_, again.labels_):
        np.testing.assert_array_equal(a, b)


def test_cv_mixture_adopting_the_knee_reproduces_the_run(unequal):
    model = ERCOT(seed=2, final_partition="cv_mixture", **FAST).fit(unequal)
    before = [labels.copy() for labels in model.labels_]
    model.adopt(1, model.result_[1].knee)
    for a, b in zip(before, model.labels_):
        np.testing.assert_array_equal(a, b)
    # another member: its own clusters refined, none merged and no other member chosen
    step = model.result_[1]
    other = next(i for i in np.flatnonzero(step.first_front) if step.population_n_clusters[i] > 3)
    model.adopt(1, int(other))
    assert len(np.unique(model.labels_[1])) == step.population_n_clusters[other]


def test_cv_mixture_split_is_seeded_by_a_generator_too(unequal):
    a = ERCOT(seed=np.random.default_rng(7), final_partition="cv_mixture", **FAST).fit(unequal)
    b = ERCOT(seed=np.random.default_rng(7), final_partition="cv_mixture", **FAST).fit(unequal)
    for x, y in zip(a.labels_, b.labels_):
        np.testing.assert_array_equal(x, y)


def test_cv_mixture_keeps_the_paper_labels_on_clusters_of_equal_spread():
    rng = np.random.default_rng(0)
    means = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0], [6.0, 6.0]])
    labels = np.repeat(np.arange(4), 40)
    X_list = [means[labels] + rng.normal(size=(160, 2)) for _ in range(3)]
    data = TemporalDataset.from_arrays(X_list, ids=[np.arange(160)] * 3, labels=[labels] * 3)
    nearest = ERCOT(seed=3, **FAST).fit(data)
    model = ERCOT(seed=3, final_partition="cv_mixture", **FAST).fit(data)
    for a, b in zip(nearest.labels_, model.labels_):
        np.testing.assert_array_equal(a, b)
    assert all(m is None for m in model._mixtures)


def test_cv_mixture_keeps_the_paper_labels_where_samples_are_too_few_to_judge():
    # 60 samples of unequal segments: the training half (30) cannot fit any candidate's mixture
    rng = np.random.default_rng(8)
    labels = np.repeat(np.arange(3), (40, 10, 10))
    means = np.array([[0.0, 0.0], [2.6, 0.0], [0.0, 2.6]])
    spreads = np.array([1.0, 0.15, 0.15])[labels, None]
    X_list = [means[labels] + rng.normal(size=(60, 2)) * spreads for _ in range(3)]
    data = TemporalDataset.from_arrays(X_list, ids=[np.arange(60)] * 3, labels=[labels] * 3)
    nearest = ERCOT(seed=4, **FAST).fit(data)
    model = ERCOT(seed=4, final_partition="cv_mixture", **FAST).fit(data)
    for a, b in zip(nearest.labels_, model.labels_):
        np.testing.assert_array_equal(a, b)
    assert all(m is None for m in model._mixtures)


def _repeated_blobs(data_seed: int, per_blob: int, repeats: int) -> TemporalDataset:
    """Three blobs of ``per_blob`` points each, every point repeated ``repeats`` times (issue 35)."""
    rng = np.random.default_rng(data_seed)
    means = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    points = np.concatenate([m + 0.4 * rng.normal(size=(per_blob, 2)) for m in means])
    X = np.repeat(points, repeats, axis=0)
    return TemporalDataset.from_arrays([X], ids=[np.arange(len(X))])


@pytest.mark.parametrize("data_seed, per_blob, repeats", [(0, 30, 10), (1, 30, 10), (2, 100, 10)])
def test_cv_mixture_on_repeated_points_finds_the_three_blobs(data_seed, per_blob, repeats):
    """Copies of a point on both sides of the held-out split rewarded splitting: 4-7 clusters before."""
    data = _repeated_blobs(data_seed, per_blob, repeats)
    found = [int(ERCOT(seed=seed, final_partition="cv_mixture", pop_size=20, n_evaluations=200,
                       progress=False).fit(data).n_clusters_[0]) for seed in range(4)]
    assert found == [3, 3, 3, 3]
