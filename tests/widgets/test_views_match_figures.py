"""Each figure view shows exactly what its static parts builder gives, after any sequence of actions.

The views and the static figures share :mod:`ercot_nb.figures`' parts
builders, so the figure data of a view at (run, step, member) is compared
directly, trace by trace, with the builder's parts for the same arguments.
"""
from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ercot_nb import ERCOT, TemporalDataset, datasets, figures
from ercot_nb.widgets.views.alpha import AlphaView
from ercot_nb.widgets.views.pareto import ParetoView
from ercot_nb.widgets.views.partition import PartitionView
from ercot_nb.widgets.views.flows import FlowsView
from ercot_nb.widgets.views.scores import ScoresView
from ercot_nb.widgets.views.video import VideoView

FAST = {"pop_size": 20, "n_evaluations": 60}
PROJECTION = {"features": None, "pca": "pca", "3d": "3d"}


@pytest.fixture(scope="module")
def syn2():
    """Four features: 3-D, PCA and feature axes all apply."""
    data = datasets.load("syn2", seed=0)
    return data, ERCOT(seed=0, **FAST).fit(data).result_


@pytest.fixture(scope="module")
def video():
    """A 6 x 8 video of two colour segments whose boundary moves."""
    height, width, n_steps = 6, 8, 4
    rng = np.random.default_rng(0)
    X, truth = [], []
    for t in range(n_steps):
        pixels = np.arange(height * width)
        left = pixels % width < 3 + t
        X.append(np.where(left[:, None], [0.9, 0.2, 0.1], [0.1, 0.3, 0.9]) + rng.normal(0, 0.02, (len(pixels), 3)))
        truth.append(left.astype(int))
    data = TemporalDataset.from_arrays(
        X, ids=[np.arange(height * width)] * n_steps, labels=truth, feature_names=["r", "g", "b"],
        name="tiny video", metadata={"kind": "video", "frame_shape": (height, width)},
    )
    return data, ERCOT(seed=0, **FAST).fit(data).result_


def traces_json(traces) -> list[dict]:
    """Trace properties as JSON values (arrays and lists alike), without widget uids."""
    data = json.loads(go.Figure(data=list(traces)).to_json())["data"]
    for trace in data:
        trace.pop("uid", None)
    return data


def assert_shows(view, parts: figures.Parts, layout_paths=("title",)) -> None:
    assert traces_json(view.figure.data) == traces_json(parts.traces)
    shown = json.loads(view.figure.layout.to_json())
    expected = json.loads(go.Layout(parts.layout).to_json())
    for path in layout_paths:
        assert shown.get(path) == expected.get(path), path


def members(result, t: int) -> list[int]:
    return [m for m in range(len(result[t].population)) if m != result[t].knee]


def test_partition_view_equals_partition_parts_on_every_axes(syn2):
    data, result = syn2
    for axes, projection in PROJECTION.items():
        view = PartitionView(data, result, step=2, axes=axes)
        assert_shows(view, figures.partition_parts(data, result, 2, projection=projection, fixed=True),
                     ("title", "xaxis", "yaxis", "scene"))
        member = members(result, 5)[0]
        view.show_step(5, member)
        assert_shows(view, figures.partition_parts(data, result, 5, projection=projection, fixed=True,
                                                   member=member), ("title",))


def test_video_view_equals_video_parts(video):
    data, result = video
    view = VideoView(data, result, step=1)
    assert_shows(view, figures.video_parts(result, data, 1, slots=3), ("title", "xaxis", "xaxis3"))
    member = members(result, 2)[0]
    view.show_step(2, member)
    assert_shows(view, figures.video_parts(result, data, 2, member=member, slots=3), ("title",))
    preview = VideoView(data, step=3)  # no run: the frame and the ground truth
    assert_shows(preview, figures.video_parts(None, data, 3, slots=3), ("title",))


actions = st.lists(
    st.tuples(st.sampled_from(["step", "member", "knee", "pairs", "metric", "axes", "objectives"]),
              st.integers(0, 9), st.integers(0, 30)),
    min_size=1, max_size=12,
)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=actions)
def test_after_any_sequence_every_view_shows_its_static_parts(syn2, actions):
    data, result = syn2
    runs = {"ERCOT": result, "first steps": result.labels[:6]}
    partition, pareto = PartitionView(data, result), ParetoView(result)
    alpha, scores, sankey = AlphaView(result), ScoresView(data, runs), FlowsView(result)
    step, member = 0, None
    for action, t, pick in actions:
        if action == "step":  # a selection is kept on its own step only (ParetoView.show_step)
            member = member if t == step else None
            step = t
            for view in (pareto, alpha, scores, sankey):
                view.show_step(step)
            partition.show_step(step, member)
        elif action == "member":  # a click on a front member shows its partition
            options = members(result, step)
            member = options[pick % len(options)]
            pareto.select(member)
            partition.show_member(member)
        elif action == "knee":
            member = None
            pareto.select(None)
            partition.show_member(None)
        elif action == "pairs":
            alpha.pairs.value = not alpha.pairs.value
        elif action == "metric":
            scores.metric.value = "NMI" if scores.metric.value == "RI" else "RI"
        elif action == "axes":
            partition.axes.value = list(PROJECTION)[pick % 3]
            partition.show_step(step, member)
        else:
            pareto.objectives.value = not pareto.objectives.value
        projection = PROJECTION[partition.axes.value]
        fixed_labels = figures.PartitionLayer(data, result, projection=projection).fixed_labels()
        expected = figures.partition_parts(data, result, step, projection=projection, member=member,
                                           fixed=True)
        if set(partition.layer.labels_over_time()) == set(fixed_labels) and len(partition.figure.data) == len(expected.traces):
            assert_shows(partition, expected)
        else:  # a member added clusters earlier: the view keeps those traces (empty now)
            shown = {tr["name"]: tr for tr in traces_json(partition.figure.data)}
            for trace in traces_json(expected.traces):
                assert shown[trace["name"]] == trace
        assert_shows(pareto, figures.pareto_parts(result, step, accumulated=pareto.accumulated,
                                                  selected=member, fixed=True), ("title", "annotations"))
        assert_shows(alpha, figures.alpha_parts(result, show_pairs=alpha.pairs.value, t=step,
                                                pairs_trace=True), ("title", "shapes"))
        assert_shows(scores, figures.scores_parts(data, runs, scores.metric.value, t=step),
                     ("title", "shapes"))
        assert_shows(sankey, figures.sankey_parts(result, t=step, events=sankey.show_events.value),
                     ("title", "annotations"))


def test_the_pareto_legend_follows_the_run_shown(syn2):
    # ERCOT, then a run without a population (a baseline), then ERCOT again:
    # the legend explains markers, front and knee only where they are drawn,
    # and the view equals the static parts after each switch.
    from ercot_nb import algorithms

    data, result = syn2
    baseline = algorithms.make("k-meansCOT", n_clusters=4, seed=0).fit(data).result_
    view = ParetoView(result)
    legend = {}
    for name, run in (("ERCOT", result), ("baseline", baseline), ("ERCOT again", result)):
        view.load(run, step=3)
        assert_shows(view, figures.pareto_parts(run, 3, fixed=True))
        legend[name] = [tr.name for tr in view.figure.data if tr.showlegend is not False]
    assert legend["baseline"] == []
    assert legend["ERCOT"] == legend["ERCOT again"] and figures.pareto.ON_FRONT in legend["ERCOT"]
