"""penaltyEC: first step = staticEC, second objective = 1 - NMI, reproducibility."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import StaticEC, TemporalDataset, algorithms, datasets
from ercot_nb.knee import select_knee
from ercot_nb.baselines import PenaltyEC
from ercot_nb.baselines._penalty import batch_nmi
from ercot_nb.data import common_ids
from ercot_nb.metrics import nmi

FAST = dict(pop_size=20, n_evaluations=60)


@pytest.fixture(scope="module")
def changing():
    """Three blobs; samples dropped and added at steps 2 and 3."""
    rng = np.random.default_rng(5)
    means = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]])
    ids = np.arange(60)
    labels = np.repeat(np.arange(3), 20)
    X_list, ids_list, labels_list = [], [], []
    for t in range(4):
        if t in (2, 3):
            keep = np.sort(rng.permutation(len(ids))[6:])
            ids, labels = ids[keep], labels[keep]
            ids = np.r_[ids, 100 * t + np.arange(4)]
            labels = np.r_[labels, rng.integers(0, 3, 4)]
        X_list.append(means[labels] + rng.normal(scale=0.9, size=(len(ids), 2)))
        ids_list.append(ids.copy())
        labels_list.append(labels.copy())
    return TemporalDataset.from_arrays(X_list, ids=ids_list, labels=labels_list)


def test_first_step_equals_static_ec(changing):
    penalty = PenaltyEC(seed=7, **FAST).fit(changing).result_[0]
    static = StaticEC(seed=7, **FAST).fit(changing[:1]).result_[0]
    np.testing.assert_array_equal(penalty.labels, static.labels)
    np.testing.assert_array_equal(penalty.population, static.population)
    np.testing.assert_array_equal(penalty.objectives, static.objectives)
    assert penalty.knee == static.knee


@pytest.mark.parametrize("n_clusters", [None, 3])
def test_second_objective_is_one_minus_nmi_to_previous_partition(changing, n_clusters):
    result = PenaltyEC(n_clusters, seed=3, **FAST).fit(changing).result_
    checked = 0
    for t in range(1, len(changing)):
        previous, current = changing[t - 1], changing[t]
        at_previous, at_current = common_ids(previous, current)
        assert 0 < len(at_current) < current.n_samples or t == 1
        step = result[t]
        for member in range(0, len(step.population), 4):
            # independent path: NumPy-backend decoding of the member, metrics.nmi
            labels = result.labels_of_member(current.X, t, member)
            expected = 1.0 - nmi(labels[at_current], result[t - 1].labels[at_previous])
            assert step.objectives[member, 1] == pytest.approx(expected, abs=1e-12)
            checked += 1
        # the first objective is still f_cp: positive, and not an NMI
        assert np.all(step.objectives[:, 0] > 0)
    assert checked >= 3 * 5
    assert np.all(np.isnan(result.alpha))


def test_knee_is_chosen_on_the_penalty_objectives(changing):
    result = PenaltyEC(seed=2, **FAST).fit(changing).result_
    for step in result.steps[1:]:
        front = np.flatnonzero(step.first_front)
        chosen = select_knee(step.objectives[front], step.population_n_clusters[front], rule="ideal")
        assert step.knee == front[chosen]
        np.testing.assert_array_equal(step.objectives, step.objectives_accumulated)  # no accumulation


def test_same_seed_same_result_and_different_seed_differs(changing):
    a = PenaltyEC(seed=11, **FAST).fit(changing).result_
    b = PenaltyEC(seed=11, **FAST).fit(changing).result_
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.labels, y.labels)
        np.testing.assert_array_equal(x.population, y.population)
        np.testing.assert_array_equal(x.objectives, y.objectives)
    c = PenaltyEC(seed=12, **FAST).fit(changing).result_
    assert any(not np.array_equal(x.population, y.population) for x, y in zip(a, c))


def test_partial_fit_equals_fit(changing):
    whole = PenaltyEC(seed=4, **FAST).fit(changing).result_
    streaming = PenaltyEC(seed=4, **FAST)
    for snapshot in changing:
        streaming.partial_fit(snapshot)
    for x, y in zip(whole, streaming.result_):
        np.testing.assert_array_equal(x.labels, y.labels)
        np.testing.assert_array_equal(x.objectives, y.objectives)


def test_batch_nmi_matches_metrics_nmi():
    rng = np.random.default_rng(0)
    reference = rng.integers(0, 4, 50)
    labelings = np.vstack([
        rng.integers(0, 6, (20, 50)),
        np.zeros((1, 50), dtype=np.int64),  # a single cluster vs several
        reference[None, :] + 2,  # the same partition, other names
        np.where(reference == 0, 5, 1)[None, :],
    ])
    expected = [nmi(reference, row) for row in labelings]
    np.testing.assert_allclose(batch_nmi(labelings, reference), expected, atol=1e-12)
    single = np.zeros(50, dtype=np.int64)
    np.testing.assert_allclose(batch_nmi(np.vstack([single, reference]), single), [1.0, 0.0])


def test_parameters_registry_and_validation():
    model = algorithms.make("penaltyEC", seed=1, pop_size=20)
    assert isinstance(model, PenaltyEC) and model.pop_size == 20
    params = model.get_params()
    assert "n_folds" not in params and "alpha_aggregate" not in params and "keep_fraction" in params
    assert "n_control_sets" not in PenaltyEC.__doc__ and "keep_fraction" in PenaltyEC.__doc__
    with pytest.raises(ValueError, match="mock"):
        PenaltyEC(knee="mock").fit(datasets.load("syn1", seed=0)[:2])
    with pytest.raises(ValueError, match="keep_fraction"):
        PenaltyEC(keep_fraction=1.5, **FAST).fit(datasets.load("syn1", seed=0)[:2])
