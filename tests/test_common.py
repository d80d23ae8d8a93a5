"""The estimator contract, checked on every registered algorithm (ercot_nb.algorithms).

fit / partial_fit / fit_predict agree, the same seed gives the identical result, clone
gives an unfitted copy, fitted estimators pickle, every parameter spec refuses a bad value
naming the parameter, and the result's fields fit together.
"""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from ercot_nb import algorithms
from ercot_nb.data import TemporalDataset
from ercot_nb.algorithms import estimator_params
from ercot_nb.result import ClusteringResult, StepResult

ALGORITHMS = algorithms.available()


def _data(n_steps: int = 3) -> TemporalDataset:
    rng = np.random.default_rng(1)
    centres = np.array([[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]])
    X = [np.repeat(centres + 0.3 * t, 8, axis=0) + rng.normal(0, 0.7, (24, 2)) for t in range(n_steps)]
    return TemporalDataset.from_arrays(X, ids=[np.arange(100, 124)] * n_steps, times=[2000, 2001, 2002][:n_steps])


def _make(name: str, **extra):
    return algorithms.make(name, **{"seed": 0, **algorithms.get(name)._unit_test_params(), **extra})


def _labels(model) -> list[list[int]]:
    return [a.tolist() for a in model.labels_]


@pytest.mark.parametrize("name", ALGORITHMS)
def test_fast_test_parameters_live_on_the_class(name):
    """Each estimator declares the small budget the tests fit it with (as river's ``_unit_test_params``)."""
    cls = algorithms.get(name)
    params = cls._unit_test_params()
    assert isinstance(params, dict) and params, f"{name} declares no fast test parameters"
    assert set(params) <= set(cls().get_params()), f"{name}: not parameters of its own: {params}"
    assert _make(name).get_params() == {**cls().get_params(), "seed": 0, **params}


@pytest.mark.parametrize("name", ALGORITHMS)
def test_fit(name):
    data = _data()
    model = _make(name)
    assert model.fit(data) is model
    assert isinstance(model.result_, ClusteringResult) and len(model.result_) == len(data)
    for snapshot, labels in zip(data, model.labels_):
        assert labels.shape == (snapshot.n_samples,) and labels.dtype.kind == "i"
    assert model.n_clusters_.shape == (len(data),)
    assert model.alpha_.shape == (len(data),)
    assert model.n_features_in_ == 2


@pytest.mark.parametrize("name", ALGORITHMS)
def test_partial_fit_equals_fit(name):
    data = _data()
    batch = _make(name).fit(data)
    stream = _make(name)
    for snapshot in data:
        stream.partial_fit(snapshot)
    assert _labels(stream) == _labels(batch)
    np.testing.assert_array_equal(stream.n_clusters_, batch.n_clusters_)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_fit_predict_returns_labels(name):
    data = _data()
    model = _make(name)
    labels = model.fit_predict(data)
    assert [a.tolist() for a in labels] == _labels(model)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_same_seed_identical(name):
    data = _data()
    a, b = _make(name).fit(data), _make(name).fit(data)
    assert _labels(a) == _labels(b)
    for x, y in zip(a.result_, b.result_):
        np.testing.assert_array_equal(x.centroids, y.centroids)
        np.testing.assert_array_equal(x.objectives, y.objectives)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_clone(name):
    model = _make(name).fit(_data())
    copy = model.clone()
    assert type(copy) is type(model) and copy.get_params() == model.get_params()
    assert not hasattr(copy, "result_")
    with pytest.raises(RuntimeError, match="not fitted"):
        copy.labels_


@pytest.mark.parametrize("name", ALGORITHMS)
def test_pickling(name):
    data = _data()
    model = _make(name).fit(data[:2])
    restored = pickle.loads(pickle.dumps(model))
    assert _labels(restored) == _labels(model)
    assert restored.partial_fit(data[2]).labels_[-1].tolist() == model.partial_fit(data[2]).labels_[-1].tolist()


def _bad_values(spec):
    """Values every spec must refuse (with the parameter's name in the message)."""
    bad = [object()]
    if spec.kind in ("int", "float"):
        bad.append("1")  # text is never parsed by fit
        if spec.low is not None:
            bad.append(spec.low - 1)
        if spec.high is not None:
            bad.append(spec.high * 2 + 1)
    elif spec.kind == "bool":
        bad += ["yes", 1]
    elif spec.kind == "choice":
        bad.append("no-such-choice")
    elif spec.kind == "seed":
        bad += [-1, 1.5, "abc"]
    if not spec.optional and spec.kind != "seed":
        bad.append(None)
    return bad


@pytest.mark.parametrize("name", ALGORITHMS)
def test_bad_parameters(name):
    data = _data()
    with pytest.raises(ValueError, match="has no parameter 'colour'"):
        _make(name).set_params(colour="red")
    checked = 0
    for spec in estimator_params(name):
        for value in _bad_values(spec):
            model = _make(name, **{spec.name: value})
            with pytest.raises((TypeError, ValueError), match=rf"\b{spec.name}\b"):
                model.fit(data)
            checked += 1
    assert checked >= 2 * len(estimator_params(name))


@pytest.mark.parametrize("name", ALGORITHMS)
def test_a_fit_without_a_seed_records_the_seed_it_drew_and_that_seed_repeats_it(name):
    data = _data()
    drawn = _make(name, seed=None).fit(data).result_
    seed = drawn.params["seed"]
    assert isinstance(seed, int) and seed >= 0, drawn.params
    repeated = _make(name, seed=seed).fit(data).result_
    assert repeated.params == drawn.params
    assert [step.labels.tolist() for step in repeated] == [step.labels.tolist() for step in drawn]
    np.testing.assert_array_equal(np.concatenate([s.objectives for s in repeated]).ravel(),
                                  np.concatenate([s.objectives for s in drawn]).ravel())
    # a Generator is kept as given: its state is no seed to pass again
    generator = np.random.default_rng(5)
    assert _make(name, seed=generator).fit(data).result_.params["seed"] is generator


@pytest.mark.parametrize("name", ALGORITHMS)
def test_result_fields(name):
    data = _data()
    result = _make(name).fit(data).result_
    assert result.algorithm == name and result.params == _make(name).get_params()
    for t, (snapshot, step) in enumerate(zip(data, result)):
        assert isinstance(step, StepResult) and step.t == t and step.time == snapshot.time
        np.testing.assert_array_equal(step.ids, snapshot.ids)
        k = step.n_clusters
        assert step.labels.min() == 0 and step.labels.max() == k - 1
        assert step.aligned_labels.shape == step.labels.shape
        assert step.centroids.shape == (k, 2) and np.isfinite(step.centroids).all()
        P = len(step.population)
        assert step.objectives.shape == step.objectives_accumulated.shape == (P, 2)
        assert step.first_front.shape == step.population_n_clusters.shape == (P,)
        if P:
            assert step.first_front[step.knee]
        assert np.isnan(step.alpha) or 0.0 <= step.alpha <= 1.0
