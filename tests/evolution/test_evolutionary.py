"""ERCOT and staticEC estimators: API contract, reproducibility, streaming, validation."""
from __future__ import annotations

import numba
import numpy as np
import pytest

from ercot_nb import ERCOT, StaticEC, TemporalDataset, datasets
from ercot_nb.metrics import rand_index

FAST = dict(pop_size=20, n_evaluations=60)


@pytest.fixture(scope="module")
def syn1():
    return datasets.load("syn1", seed=0)


@pytest.fixture(scope="module")
def small_changing():
    """Four blobs, ids coming and going, 5 steps."""
    rng = np.random.default_rng(3)
    means = np.array([[0, 0], [6, 0], [0, 6], [6, 6]], dtype=float)
    X_list, ids_list, labels_list = [], [], []
    next_id = 0
    ids = np.arange(80)
    labels = np.repeat(np.arange(4), 20)
    next_id = 80
    for t in range(5):
        if t in (2, 4):  # drop 8 samples, add 6 new ones
            keep = rng.permutation(len(ids))[8:]
            ids, labels = ids[keep], labels[keep]
            new_labels = rng.integers(0, 4, 6)
            ids = np.r_[ids, np.arange(next_id, next_id + 6)]
            labels = np.r_[labels, new_labels]
            next_id += 6
        X_list.append(means[labels] + rng.normal(scale=0.7, size=(len(ids), 2)))
        ids_list.append(ids.copy())
        labels_list.append(labels.copy())
    return TemporalDataset.from_arrays(X_list, ids=ids_list, labels=labels_list)


def assert_same_result(a, b):
    assert len(a) == len(b)
    for sa, sb in zip(a, b):
        np.testing.assert_array_equal(sa.labels, sb.labels)
        np.testing.assert_array_equal(sa.population, sb.population)
        np.testing.assert_array_equal(sa.objectives_accumulated, sb.objectives_accumulated)
        assert sa.knee == sb.knee
        np.testing.assert_equal(sa.alpha, sb.alpha)


@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("estimator", [ERCOT, StaticEC])
def test_same_seed_same_result(estimator, precision, small_changing):
    a = estimator(seed=11, precision=precision, **FAST).fit(small_changing).result_
    b = estimator(seed=11, precision=precision, **FAST).fit(small_changing).result_
    assert_same_result(a, b)
    c = estimator(seed=12, precision=precision, **FAST).fit(small_changing).result_
    assert any(not np.array_equal(x.population, y.population) for x, y in zip(a, c))


def test_partial_fit_equals_fit(small_changing):
    batch = ERCOT(seed=5, **FAST).fit(small_changing).result_
    stream = ERCOT(seed=5, **FAST)
    for snapshot in small_changing:
        stream.partial_fit(snapshot)
    assert_same_result(batch, stream.result_)
    for a, b in zip(batch, stream.result_):
        np.testing.assert_array_equal(a.aligned_labels, b.aligned_labels)


def test_partial_fit_accepts_bare_arrays():
    rng = np.random.default_rng(0)
    model = ERCOT(seed=0, **FAST)
    for _ in range(3):
        model.partial_fit(rng.normal(size=(30, 2)))
    assert len(model.labels_) == 3 and all(len(l) == 30 for l in model.labels_)


def test_result_independent_of_thread_count(small_changing):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = ERCOT(seed=2, **FAST).fit(small_changing).result_
        numba.set_num_threads(max(2, before))
        many = ERCOT(seed=2, **FAST).fit(small_changing).result_
    finally:
        numba.set_num_threads(before)
    assert_same_result(one, many)


def test_numpy_backend_gives_the_same_partitions(small_changing):
    compiled = ERCOT(seed=4, **FAST).fit(small_changing).result_
    twin = ERCOT(seed=4, backend="numpy", **FAST).fit(small_changing).result_
    # Same random draws and the same arithmetic up to summation order: the runs
    # agree unless a float tie flips a selection, which these data do not produce.
    for a, b in zip(compiled, twin):
        np.testing.assert_array_equal(a.labels, b.labels)
        np.testing.assert_allclose(a.objectives, b.objectives, rtol=1e-9)


def test_fitted_attributes_and_result_contents(small_changing):
    model = ERCOT(seed=0, **FAST)
    labels = model.fit_predict(small_changing)
    assert len(labels) == len(small_changing) == len(model.result_)
    for snapshot, step, lab in zip(small_changing, model.result_, labels):
        assert lab.shape == snapshot.ids.shape
        np.testing.assert_array_equal(step.ids, snapshot.ids)
        assert step.n_clusters == len(np.unique(lab)) == len(step.centroids)
        assert set(np.unique(lab)) == set(range(step.n_clusters))
        assert step.first_front[step.knee]
        assert 2 <= step.population_n_active.min() and step.population_n_active.max() <= 8
        assert np.all(step.population_n_clusters <= step.population_n_active)
        assert step.seconds > 0
    assert np.isnan(model.alpha_[0]) and np.all((model.alpha_[1:] >= 0) & (model.alpha_[1:] <= 1))
    # on these well separated blobs the partition is (nearly) right
    ri = [rand_index(s.labels, p) for s, p in zip(small_changing, labels)]
    assert np.mean(ri) > 0.9


def test_known_number_of_clusters_pins_every_mask(small_changing):
    model = ERCOT(n_clusters=4, seed=0, **FAST).fit(small_changing)
    for step in model.result_:
        assert step.population.shape[1] == 4 * 3
        np.testing.assert_array_equal(step.population[:, :4], 1.0)
        assert np.all(step.population_n_active == 4)


def test_static_ec_has_no_history(small_changing):
    model = StaticEC(seed=0, **FAST).fit(small_changing)
    assert np.all(np.isnan(model.alpha_))
    for step in model.result_:
        np.testing.assert_array_equal(step.objectives, step.objectives_accumulated)


def test_accumulated_objectives_mix_current_and_previous(syn1):
    model = ERCOT(seed=1, **FAST).fit(syn1[:3])
    step = model.result_[2]
    assert 0 < step.alpha < 1
    assert not np.allclose(step.objectives, step.objectives_accumulated)


def test_callback_can_stop_and_keeps_finished_steps(small_changing):
    seen = []

    def callback(step):
        seen.append(step.t)
        return step.t < 2 and None  # returns False at t == 2

    model = ERCOT(seed=0, **FAST).fit(small_changing, callback=callback)
    assert seen == [0, 1, 2] and len(model.result_) == 3


def test_get_set_params_and_clone():
    model = ERCOT(max_clusters=6, seed=3)
    params = model.get_params()
    assert params["max_clusters"] == 6 and params["seed"] == 3 and params["knee"] == "ideal"
    clone = model.clone()
    assert clone.get_params() == params and clone is not model
    model.set_params(knee="chord")
    assert model.knee == "chord"
    with pytest.raises(ValueError, match="no parameter"):
        model.set_params(colour="red")
    assert "max_clusters=6" in repr(model)


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(pop_size=7), "pop_size"),
        (dict(pop_size=20, n_evaluations=30), "n_evaluations"),
        (dict(n_clusters=1), "n_clusters"),
        (dict(max_clusters=1), "max_clusters"),
        (dict(crossover_rate=1.5), "crossover_rate"),
        (dict(mutation_mode="sometimes"), "mutation_mode"),
        (dict(knee="elbow"), "knee"),
        (dict(backend="cuda"), "backend"),
        (dict(keep_fraction=2.0), "keep_fraction"),
        (dict(alpha_aggregate="mean"), "alpha_aggregate"),
    ],
)
def test_bad_parameters_are_named(params, message, small_changing):
    with pytest.raises(ValueError, match=message):
        ERCOT(**params).fit(small_changing)


def test_unfitted_and_wrong_features():
    model = ERCOT(seed=0, **FAST)
    with pytest.raises(RuntimeError, match="not fitted"):
        model.labels_
    rng = np.random.default_rng(0)
    model.partial_fit(rng.normal(size=(30, 2)))
    with pytest.raises(ValueError, match="3 features"):
        model.partial_fit(rng.normal(size=(30, 3)))


def test_predict_uses_the_step_centroids(small_changing):
    model = ERCOT(seed=0, **FAST).fit(small_changing)
    step = model.result_[-1]
    np.testing.assert_array_equal(model.predict(step.centroids), np.arange(step.n_clusters))


def test_mock_knee_runs(small_changing):
    model = ERCOT(seed=0, knee="mock", n_control_sets=2, **FAST).fit(small_changing[:2])
    assert len(model.labels_) == 2


def _evolve_by_stacking(engine, X, rng, pop, objectives, accumulate=None):
    """Reference generation loop: stack parents and children into new arrays every generation."""
    cfg = engine.config
    lower, upper = engine.bounds(X)
    F, counts = objectives(engine, X, pop)
    F_selected = F
    rank, crowding = engine.rank_and_crowding(F)
    for generation in range(cfg.n_generations):
        children = engine.offspring(rng, pop, rank, crowding, lower, upper)
        if cfg.refine:
            engine.recentre(X, X, children, reseed_empty=cfg.reseed_empty)
        F_children, counts_children = objectives(engine, X, children)
        union, F_union = np.vstack([pop, children]), np.vstack([F, F_children])
        counts_union = np.vstack([counts, counts_children])
        F_for_selection = F_union
        if accumulate is not None and generation == cfg.n_generations - 1:
            F_for_selection = accumulate(union, F_union, counts_union)
        chosen, rank, crowding = engine.select(F_for_selection, cfg.pop_size)
        pop, F, counts = union[chosen], F_union[chosen], counts_union[chosen]
        F_selected = F_for_selection[chosen]
    return pop, F, counts, F_selected


@pytest.mark.parametrize("n_clusters", [None, 3])
def test_evolve_with_reused_buffers_equals_stacking_every_generation(syn1, n_clusters):
    from ercot_nb.evolution._engine import Engine
    from ercot_nb.evolution._nsga import evolve

    est = ERCOT(n_clusters=n_clusters, seed=0, pop_size=20, n_evaluations=100)
    engine = Engine(est._config(2))
    X = syn1[0].X
    seen = []

    def accumulate(union, F_union, counts_union):  # a stand-in for the fitness accumulation
        seen.append((union.copy(), F_union.copy(), counts_union.copy()))
        return F_union * [1.0, 0.5]

    runs = []
    for loop in (evolve, _evolve_by_stacking):
        rng = np.random.default_rng(5)
        lower, upper = engine.bounds(X)
        start = engine.random_population(rng, 20, lower, upper)
        runs.append(loop(engine, X, rng, start, lambda e, X, p: e.evaluate(X, p), accumulate))
        runs[-1] += (np.array(rng.random()),)  # the random stream must end in the same place
    for ours, reference in zip(runs[0], runs[1]):
        np.testing.assert_array_equal(ours, reference)
    for ours, reference in zip(seen[0], seen[1]):
        np.testing.assert_array_equal(ours, reference)


def test_offspring_writes_into_the_given_buffer(syn1):
    from ercot_nb.evolution._engine import Engine

    engine = Engine(ERCOT(seed=0, pop_size=20)._config(2))
    X = syn1[0].X
    lower, upper = engine.bounds(X)
    pop = engine.random_population(np.random.default_rng(1), 20, lower, upper)
    rank, crowding = engine.rank_and_crowding(engine.evaluate(X, pop)[0])
    fresh = engine.offspring(np.random.default_rng(2), pop, rank, crowding, lower, upper)
    out = np.full((40, pop.shape[1]), np.nan)
    given = engine.offspring(np.random.default_rng(2), pop, rank, crowding, lower, upper, out=out[20:])
    assert np.shares_memory(given, out)
    np.testing.assert_array_equal(out[20:], fresh)
    assert np.isnan(out[:20]).all()


def test_unknown_precision_is_refused_with_the_choices(small_changing):
    with pytest.raises(ValueError, match=r"precision.*float64.*float32"):
        ERCOT(precision="float16", **FAST).fit(small_changing)


def test_float32_refuses_a_feature_it_cannot_resolve():
    # A Unix time in seconds (about 1.7e9) over one day: float32's spacing there
    # is 128 s, so distances would be rounding noise.  The error names the
    # step, the feature and what to do; float64 clusters the same data.
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.uniform(0, 86_400, size=60), 1.7e9 + rng.uniform(0, 86_400, size=60)])
    with pytest.raises(ValueError, match=r"time .*feature column 'x1'.*precision='float64'.*centre"):
        ERCOT(precision="float32", **FAST).partial_fit(X)
    ERCOT(precision="float64", **FAST).partial_fit(X)
    # the same feature centred is fine in float32
    ERCOT(precision="float32", **FAST).partial_fit(X - X.mean(axis=0))


def test_an_estimator_pickled_before_a_parameter_existed_takes_its_default(small_changing):
    # An ERCOT pickled by a version without ``precision`` still unpickles,
    # reports the default and predicts as before.
    import pickle

    model = ERCOT(seed=3, **FAST).fit(small_changing)
    state = model.__getstate__()
    del state["precision"]
    old = ERCOT.__new__(ERCOT)
    old.__setstate__(state)
    assert old.get_params()["precision"] == "float64"
    restored = pickle.loads(pickle.dumps(old))
    np.testing.assert_array_equal(restored.predict(small_changing[-1].X), model.predict(small_changing[-1].X))
