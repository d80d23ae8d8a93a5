"""Tests of a-posteriori choices carried forward: ClusteringResult.choose and ERCOT.adopt."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ercot_nb import ERCOT, StaticEC, datasets

SMALL = dict(pop_size=20, n_evaluations=200, seed=3)


def snapshot_of(result) -> list[dict]:
    """Every field of every step except the wall time."""
    return [
        {f.name: np.copy(getattr(s, f.name)) for f in dataclasses.fields(s) if f.name != "seconds"}
        for s in result
    ]


def assert_same_steps(a: list[dict], b: list[dict]) -> None:
    assert len(a) == len(b)
    for t, (x, y) in enumerate(zip(a, b)):
        for name in x:
            np.testing.assert_array_equal(x[name], y[name], err_msg=f"step {t}, field {name}")


@pytest.fixture(scope="module")
def data():
    return datasets.load("syn5", seed=0)  # samples leave at t = 4, 8 and arrive at t = 6


def test_adopting_the_knee_reproduces_the_run_at_every_step(data) -> None:
    model = ERCOT(**SMALL).fit(data)
    original = snapshot_of(model.result_)
    for t in range(len(data)):
        assert model.result_.choose(t) == model.result_[t].knee
        model.adopt(t, model.result_[t].knee)
        assert_same_steps(snapshot_of(model.result_), original)


def test_adopting_another_member_changes_only_what_follows(data) -> None:
    model = ERCOT(**SMALL).fit(data)
    original = snapshot_of(model.result_)
    t = 5
    step = model.result_[t]
    front = np.flatnonzero(step.first_front)
    member = next(int(m) for m in front
                  if step.population_n_clusters[m] != step.population_n_clusters[step.knee])
    expected_labels = model.result_.labels_of_member(data[t].X, t, member)
    model.adopt(t, member)
    after = snapshot_of(model.result_)
    assert_same_steps(after[:t], original[:t])
    np.testing.assert_array_equal(model.result_[t].labels, expected_labels)
    assert model.result_[t].knee == member
    np.testing.assert_array_equal(model.result_[t].population, original[t]["population"])
    assert len(model.result_) == len(data)
    assert any(not np.array_equal(a["labels"], b["labels"]) for a, b in zip(after[t:], original[t:]))
    # Deterministic, and reversible: adopting the knee again restores the original run.
    model.adopt(t, member)
    assert_same_steps(snapshot_of(model.result_), after)
    model.adopt(t, int(original[t]["knee"]))
    assert_same_steps(snapshot_of(model.result_), original)


def test_static_ec_adopt_touches_only_that_step(data) -> None:
    model = StaticEC(**SMALL).fit(data)
    original = snapshot_of(model.result_)
    step = model.result_[2]
    other = int(next(m for m in np.flatnonzero(step.first_front) if m != step.knee))
    model.adopt(-8, other)  # t = 2
    after = snapshot_of(model.result_)
    assert_same_steps(after[:2], original[:2])
    assert after[2]["knee"] == other
    # Later steps are searched without history: the same except the time-aligned names.
    for step in after[3:] + original[3:]:
        del step["aligned_labels"]
    assert_same_steps(after[3:], original[3:])


def test_adopt_refuses_bad_arguments(data) -> None:
    model = ERCOT(**SMALL)
    with pytest.raises(RuntimeError, match="not fitted"):
        model.adopt(0, 0)
    model.fit(data)
    with pytest.raises(ValueError, match=r"t must be an int in \[-10, 9\]"):
        model.adopt(10, 0)
    with pytest.raises(ValueError, match=r"member must be an int in \[0, 19\]"):
        model.adopt(0, 20)
    model._step_states = []  # as after unpickling an estimator fitted elsewhere
    with pytest.raises(ValueError, match="fit it again"):
        model.adopt(0, 0)


def test_choose_rules_and_hypervolume_column(data) -> None:
    result = ERCOT(**SMALL).fit(data).result_
    frame = result.steps_frame()
    assert frame["hypervolume"].between(0.0, 1.21).all()
    for t, step in enumerate(result):
        for rule in ("chord", "asf", "pseudo_weights"):
            assert step.first_front[result.choose(t, rule)]
        k = int(step.population_n_clusters[step.first_front].max())
        assert step.population_n_clusters[result.choose(t, "fixed_k", k=k)] == k
    with pytest.raises(ValueError, match="mock"):
        result.choose(0, "mock")


def test_a_copied_or_unpickled_estimator_adopts_like_the_original(data) -> None:
    # a copy (the Explorer adopts on a copy so both runs stay adoptable) or a pickle drops the
    # compiled engine; adopt rebuilds it like the next fitted step would
    import copy
    import pickle

    model = ERCOT(**SMALL).fit(data)
    member = int(np.flatnonzero(model.result_[5].first_front)[0])
    expected = snapshot_of(copy.deepcopy(model).adopt(5, member).result_)  # a copy first: model stays
    assert_same_steps(snapshot_of(pickle.loads(pickle.dumps(model)).adopt(5, member).result_), expected)
    assert_same_steps(snapshot_of(model.adopt(5, member).result_), expected)
