"""Clicking a point of a step's Pareto front shows that member's partition (a-posteriori choice)."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import figures
from ercot_nb.metrics import rand_index
from ercot_nb.widgets import Explorer

FAST = {"pop_size": 20, "n_evaluations": 40}


@pytest.fixture(scope="module")
def explorer() -> Explorer:
    app = Explorer("syn3", params=FAST)
    app.run(wait=True)
    return app


def click(fig, trace_index: int, point_index: int) -> None:
    """The message the browser sends when a point of the figure is clicked."""
    trace = fig.data[trace_index]
    fig._js2py_pointsCallback = {
        "event_type": "plotly_click",
        "points": {
            "trace_indexes": [trace_index],
            "point_indexes": [point_index],
            "xs": [trace.x[point_index]],
            "ys": [trace.y[point_index]],
        },
        "device_state": {"alt": False, "ctrl": False, "meta": False, "shift": False,
                         "button": 0, "buttons": 1},
        "selector": None,
    }


def front_member_other_than_knee(explorer: Explorer) -> tuple[int, int, int]:
    """(trace index, point index, member) of a first-front member that is not the knee."""
    step = explorer.result[explorer.step]
    for trace_index, trace in enumerate(explorer.pareto.figure.data):
        if not trace.name.split()[0].isdigit() or trace.customdata is None:  # "3 clusters"
            continue
        for point_index, row in enumerate(trace.customdata):
            member = int(row[0])
            if step.first_front[member] and member != step.knee:
                return trace_index, point_index, member
    pytest.fail("the fixture's step should have a first-front member other than the knee")


def cluster_points(fig) -> dict[str, np.ndarray]:
    return {
        trace.name: np.column_stack([np.asarray(trace.x, float), np.asarray(trace.y, float)])
        for trace in fig.data
        if trace.name.startswith("cluster ") and trace.x is not None and len(trace.x)
    }


def same_view(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return a.keys() == b.keys() and all(
        a[k].shape == b[k].shape and np.allclose(a[k], b[k]) for k in a
    )


def test_clicking_a_front_point_shows_its_partition(explorer):
    explorer.step = 5
    knee_view = cluster_points(explorer.partition.figure)
    trace_index, point_index, member = front_member_other_than_knee(explorer)
    click(explorer.pareto.figure, trace_index, point_index)

    assert explorer.pareto.selected == member
    assert explorer.partition.member == member
    title = explorer.partition.figure.layout.title.text
    assert f"member {member}" in title and f"knee is member {explorer.result[5].knee}" in title
    expected = figures.partition_figure(explorer.dataset, explorer.result, 5, member=member)
    shown = cluster_points(explorer.partition.figure)
    assert shown.keys() == cluster_points(expected).keys()
    for name, points in cluster_points(expected).items():
        np.testing.assert_allclose(shown[name], points)
    labels = explorer.result.labels_of_member(explorer.dataset[5].X, 5, member)
    assert sum(len(p) for p in shown.values()) == len(labels)
    assert not same_view(shown, knee_view)  # the picture really changed
    ring = next(t for t in explorer.pareto.figure.data if t.name == "selected member")
    assert ring.showlegend and int(ring.customdata[0][0]) == member
    assert not explorer.pareto.knee_button.disabled
    assert explorer.partition.static().layout.title.text == title  # static copy follows


def test_back_to_the_knee(explorer):
    explorer.step = 5
    trace_index, point_index, member = front_member_other_than_knee(explorer)
    click(explorer.pareto.figure, trace_index, point_index)
    assert explorer.partition.member == member
    explorer.pareto.knee_button.click()
    assert explorer.partition.member is None and explorer.pareto.selected is None
    assert explorer.partition.figure.layout.title.text == figures.partition_figure(
        explorer.dataset, explorer.result, 5).layout.title.text
    ring = next(t for t in explorer.pareto.figure.data if t.name == "selected member")
    assert len(ring.x) == 0 and not ring.showlegend


def test_clicking_the_knee_or_scrubbing_drops_the_choice(explorer):
    explorer.step = 5
    trace_index, point_index, member = front_member_other_than_knee(explorer)
    click(explorer.pareto.figure, trace_index, point_index)
    explorer.step = 6
    assert explorer.partition.member is None and explorer.pareto.selected is None
    knee_index = [t.name for t in explorer.pareto.figure.data].index("knee (chosen)")
    click(explorer.pareto.figure, knee_index, 0)
    assert explorer.partition.member is None


def test_raw_and_accumulated_objectives_toggle(explorer):
    explorer.step = 4
    population = [t for t in explorer.pareto.figure.data if t.name.split()[0].isdigit()]
    accumulated = np.concatenate([np.asarray(t.x, float) for t in population])
    explorer.pareto.objectives.value = False
    population = [t for t in explorer.pareto.figure.data if t.name.split()[0].isdigit()]
    raw = np.concatenate([np.asarray(t.x, float) for t in population])
    assert "raw objectives" in explorer.pareto.figure.layout.title.text
    assert explorer.result[4].alpha > 0 and not np.allclose(np.sort(raw), np.sort(accumulated))
    static = explorer.pareto.static()
    assert "raw objectives" in static.layout.title.text
    explorer.pareto.objectives.value = True


def member_with_other_k(explorer: Explorer, t: int) -> tuple[int, int, int]:
    """(trace index, point index, member) of a first-front member whose number of clusters is not the knee's."""
    step = explorer.result[t]
    knee_k = int(step.population_n_clusters[step.knee])
    for trace_index, trace in enumerate(explorer.pareto.figure.data):
        if not trace.name.split()[0].isdigit() or trace.customdata is None:
            continue
        for point_index, row in enumerate(trace.customdata):
            member = int(row[0])
            if step.first_front[member] and int(step.population_n_clusters[member]) != knee_k:
                return trace_index, point_index, member
    pytest.fail("the fixture's step should have a first-front member with another number of clusters")


def seen(explorer: Explorer, t: int) -> dict[str, object]:
    """What the member-dependent views show at step ``t``: chosen clusters, cluster sizes, Sankey nodes at t."""
    chosen = next(tr for tr in explorer.view("n_clusters").figure.data if tr.name.endswith("(chosen)"))
    sizes = explorer.view("sizes").figure
    stacked = sorted(int(tr.y[t]) for tr in sizes.data if tr.y is not None and int(tr.y[t]) > 0)
    flow = explorer.view("flows").figure.data[0]
    at_t = [row for row in flow.node.customdata if int(row[0]) == t]
    scores = explorer.view("scores")
    assert scores.metric.value == "RI"
    ri = next(tr for tr in scores.figure.data if tr.name.startswith(explorer.state.run))
    return {"k": int(chosen.y[t]), "sizes": stacked, "sizes title": sizes.layout.title.text,
            "flow nodes": len(at_t), "RI": round(float(ri.y[t]), 9)}


def test_a_click_moves_every_member_dependent_view(explorer):
    t = 5
    explorer.step = t
    knee = seen(explorer, t)
    trace_index, point_index, member = member_with_other_k(explorer, t)
    partition = explorer.result.member_partition(explorer.dataset[t].X, t, member)
    _, counts = np.unique(partition.labels, return_counts=True)
    click(explorer.pareto.figure, trace_index, point_index)
    assert explorer.state.member == member
    picked = seen(explorer, t)
    assert picked["k"] == len(counts) != knee["k"]
    assert picked["sizes"] == sorted(counts.tolist())
    assert f"{len(counts)} clusters" in picked["sizes title"]
    assert picked["flow nodes"] == len(counts)
    assert picked["RI"] == round(rand_index(explorer.dataset[t].labels, partition.labels), 9) != knee["RI"]
    explorer.pareto.knee_button.click()  # back to the knee: every view as before
    assert seen(explorer, t) == knee


def test_the_chosen_run_is_the_states_and_every_view_draws_it(explorer):
    """The state holds the choice: its chosen run is the run with the member's partition at the step
    shown (the same object while nothing changes); the views of the chosen partition draw that run, the
    partition and Pareto views the run and its member, alpha the run."""
    t = 5
    explorer.step = t
    explorer.pareto.select(None)
    state = explorer.state
    assert state.chosen_run() is state.result
    trace_index, point_index, member = member_with_other_k(explorer, t)
    click(explorer.pareto.figure, trace_index, point_index)
    chosen = state.chosen_run()
    assert chosen is state.chosen_run() and chosen is not state.result
    assert np.array_equal(chosen[t].labels, state.result.member_partition(explorer.dataset[t].X, t, member).labels)
    assert all(chosen[s] is state.result[s] for s in range(len(chosen)) if s != t)
    for name in ("n_clusters", "sizes", "flows"):
        assert explorer.view(name).result is chosen, name
    assert explorer.pareto.result is state.result and explorer.alpha.result is state.result
    explorer.step = t + 1  # another step drops the choice
    assert state.member is None and state.chosen_run() is state.result
    assert explorer.view("sizes").result is state.result
