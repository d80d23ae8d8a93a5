"""Tests of the cluster lifecycle events and their null model (ercot_nb.events)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ercot_nb.events import EVENT_COLUMNS, EVENT_TYPES, lifecycle_events, step_events
from ercot_nb.result import ClusteringResult, StepResult


@st.composite
def flows(draw):
    """Step t-1 with clusters A (splits), C + D (merge), E.. (continue), Z (dies);
    step t adds a new cluster N of new ids.  Labels at t are renamed at random."""
    n_continue = draw(st.integers(1, 3))
    size_a = draw(st.integers(20, 60))
    size_c = draw(st.integers(20, 60))
    size_d = draw(st.integers(1, 200))  # a merge needs no balance: all of C and D pour into M
    sizes_e = draw(st.lists(st.integers(5, 60), min_size=n_continue, max_size=n_continue))
    size_z = draw(st.integers(1, 30))
    size_n = draw(st.integers(1, 30))
    cut = draw(st.floats(0.35, 0.65))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    names_prev = ["A", "C", "D", *[f"E{i}" for i in range(n_continue)], "Z"]
    sizes = [size_a, size_c, size_d, *sizes_e, size_z]
    labels_prev = np.repeat(names_prev, sizes)
    ids_prev = rng.permutation(len(labels_prev)) * 3 + 1
    n_split = int(round(cut * size_a))
    after = {"A": np.array(["A1"] * n_split + ["A2"] * (size_a - n_split)), "C": "M", "D": "M", "Z": None}
    labels_curr, ids_curr = [], []
    for name in names_prev:
        members = ids_prev[labels_prev == name]
        target = after.get(name, name)
        if target is None:
            continue  # Z's ids vanish
        ids_curr.extend(members)
        labels_curr.extend(np.broadcast_to(target, members.shape))
    new_ids = np.arange(size_n) * 3 + 2  # ids never seen at t-1
    ids_curr.extend(new_ids)
    labels_curr.extend(["N"] * size_n)
    order = rng.permutation(len(ids_curr))
    rename = {name: int(v) for name, v in zip(["A1", "A2", "M", "N", *[f"E{i}" for i in range(n_continue)]],
                                              rng.permutation(100)[: 4 + n_continue])}
    labels_curr = np.array([rename[v] for v in np.asarray(labels_curr)[order]])
    return ids_prev, labels_prev, np.asarray(ids_curr)[order], labels_curr, rename, n_continue


@settings(max_examples=60, deadline=None)
@given(flow=flows())
def test_known_splits_merges_births_deaths(flow) -> None:
    ids_prev, labels_prev, ids_curr, labels_curr, rename, n_continue = flow
    events = step_events(ids_prev, labels_prev, ids_curr, labels_curr, n_permutations=0)
    found = {(row.event, row.before, tuple(sorted(row.after))) for row in events.itertuples()}
    expected = {
        ("split", ("A",), tuple(sorted([rename["A1"], rename["A2"]]))),
        ("merge", ("C", "D"), (rename["M"],)),
        ("death", ("Z",), ()),
        ("birth", (), (rename["N"],)),
        *{("continue", (f"E{i}",), (rename[f"E{i}"],)) for i in range(n_continue)},
    }
    assert found == expected
    assert set(events["event"]) <= set(EVENT_TYPES)
    assert events["p_value"].isna().all()


@settings(max_examples=30, deadline=None)
@given(parts=st.integers(2, 6), size=st.integers(1, 20), seed=st.integers(0, 1000))
def test_many_way_splits_and_merges(parts, size, seed) -> None:
    rng = np.random.default_rng(seed)
    ids = rng.permutation(parts * size * 3)
    whole = np.zeros(parts * size, int)  # one cluster at t-1 ...
    pieces = np.repeat(np.arange(parts), size)  # ... in `parts` equal pieces at t
    others = np.repeat([1, 2], parts * size)  # two clusters that continue
    prev = np.concatenate([whole, others])
    curr = np.concatenate([pieces + 10, others + 100])
    events = step_events(ids, prev, ids, curr, n_permutations=0)
    split = events[events["event"] == "split"]
    assert len(split) == 1 and split.iloc[0]["before"] == (0,)
    assert sorted(split.iloc[0]["after"]) == list(range(10, 10 + parts))
    # The reverse flow is a merge of all the pieces.
    events = step_events(ids, curr, ids, prev, n_permutations=0)
    merge = events[events["event"] == "merge"]
    assert len(merge) == 1 and merge.iloc[0]["after"] == (0,)
    assert sorted(merge.iloc[0]["before"]) == list(range(10, 10 + parts))


def test_a_cluster_spread_over_three_others_dies() -> None:
    # Syn7's vanishing cluster: 51 members go 17 to each of three clusters of 50.
    prev = np.repeat([0, 1, 2, 3], [50, 50, 51, 50])
    curr = prev.copy()
    curr[prev == 2] = np.repeat([0, 1, 3], 17)
    ids = np.arange(len(prev))
    events = step_events(ids, prev, ids, curr, n_permutations=0)
    assert set(zip(events["event"], events["before"], events["after"])) == {
        ("death", (2,), ()), ("grow", (0,), (0,)), ("grow", (1,), (1,)), ("grow", (3,), (3,))}
    # Halves of it into two others: split, and each half merges there.
    curr[prev == 2] = np.repeat([0, 1], [25, 26])
    kinds = sorted(step_events(ids, prev, ids, curr, n_permutations=0)["event"])
    assert kinds == ["continue", "merge", "merge", "split"]


def test_grow_and_shrink_follow_the_size_threshold() -> None:
    ids_prev = np.arange(100)
    labels_prev = np.repeat([0, 1], 50)
    # Cluster 0 loses 15 ids (leave), cluster 1 gains 15 new ids: 35/50 = 0.7, 65/50 = 1.3.
    ids_curr = np.concatenate([np.arange(15, 100), np.arange(200, 215)])
    labels_curr = np.concatenate([np.repeat([0, 1], [35, 50]), np.ones(15, int)])
    events = step_events(ids_prev, labels_prev, ids_curr, labels_curr, n_permutations=0)
    assert set(zip(events["event"], events["before"])) == {("shrink", (0,)), ("grow", (1,))}
    events = step_events(ids_prev, labels_prev, ids_curr, labels_curr, size_change=0.35, n_permutations=0)
    assert set(events["event"]) == {"continue"}


def test_null_model_tells_a_real_split_from_noise() -> None:
    rng = np.random.default_rng(0)
    ids = np.arange(200)
    labels_prev = np.repeat([0, 1, 2, 3], 50)
    # A real split: cluster 0 goes half to 10 and half to 11, the others stay.
    real = np.where(labels_prev == 0, 10 + (ids % 2), labels_prev)
    events = step_events(ids, labels_prev, ids, real, n_permutations=99, seed=1)
    split = events[events["event"] == "split"].iloc[0]
    assert split["before"] == (0,) and split["p_value"] == pytest.approx(1 / 100)
    # Noise: two clusters whose members are re-drawn at random into two others.
    labels_prev = np.repeat([0, 1], 100)
    noise = rng.integers(0, 2, size=200)
    events = step_events(ids, labels_prev, ids, noise, n_permutations=99, seed=1)
    assert (events["event"] == "split").any()
    assert (events.loc[events["event"].isin(["split", "merge"]), "p_value"] > 0.2).all()
    again = step_events(ids, labels_prev, ids, noise, n_permutations=99, seed=1)
    assert events.equals(again)


def test_options_are_checked() -> None:
    for bad in ({"min_share": 0.0}, {"majority": 0.2}, {"size_change": 1.0}, {"n_permutations": -1}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            step_events([0], [0], [0], [0], **bad)


def _step(t, ids, labels) -> StepResult:
    X = np.zeros((len(ids), 1))
    return StepResult.from_partition(t, t + 1, np.asarray(ids), np.asarray(labels), X, 0.0)


def test_result_events_table() -> None:
    result = ClusteringResult(algorithm="hand", params={})
    result.append(_step(0, np.arange(60), np.repeat([0, 1], 30)))
    result.append(_step(1, np.arange(60), np.repeat([0, 1, 2], [30, 15, 15])))  # 1 splits
    result.append(_step(2, np.arange(60), np.repeat([0, 1, 2], [30, 15, 15])))
    table = result.events(n_permutations=19, seed=0)
    assert tuple(table.columns) == EVENT_COLUMNS
    assert table.loc[table["t"] == 0, "event"].tolist() == ["birth", "birth"]
    at_1 = table[table["t"] == 1]
    assert sorted(at_1["event"]) == ["continue", "split"]
    split = at_1[at_1["event"] == "split"].iloc[0]
    assert split["before"] == (1,) and sorted(split["after"]) == [1, 2]
    assert split["p_value"] == pytest.approx(1 / 20)
    assert set(table.loc[table["t"] == 2, "event"]) == {"continue"}
    assert table.equals(lifecycle_events(result, n_permutations=19, seed=0))


def test_a_small_cluster_halved_into_two_big_ones_dies() -> None:
    # 10 ids, 5 into each of two clusters of 50: half is not "most", and 5/55 is no share.
    prev = np.repeat([0, 1, 2], [50, 50, 10])
    curr = prev.copy()
    curr[prev == 2] = np.repeat([0, 1], 5)
    ids = np.arange(len(prev))
    events = step_events(ids, prev, ids, curr, n_permutations=0)
    assert set(zip(events["event"], events["before"])) == {("death", (2,)), ("continue", (0,)), ("continue", (1,))}


def test_events_from_a_later_step_are_the_tail_of_the_table() -> None:
    result = ClusteringResult(algorithm="hand", params={})
    result.append(_step(0, np.arange(60), np.repeat([0, 1], 30)))
    result.append(_step(1, np.arange(60), np.repeat([0, 1, 2], [30, 15, 15])))
    result.append(_step(2, np.arange(60), np.repeat([0, 1], [45, 15])))
    whole = lifecycle_events(result, n_permutations=19, seed=0)
    tail = lifecycle_events(result, n_permutations=19, seed=0, start=2)
    pd.testing.assert_frame_equal(tail, whole[whole["t"] >= 2].reset_index(drop=True))
    assert len(lifecycle_events(result, start=3)) == 0
    with pytest.raises(ValueError, match="start"):
        lifecycle_events(result, start=4)
