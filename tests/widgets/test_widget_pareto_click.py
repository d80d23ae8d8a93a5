"""Clicking a point of a step's Pareto front shows that member's partition (a-posteriori choice)."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import figures
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
