"""Each figure view shows exactly what its static parts give, after any sequence of actions.

The partition, video and Pareto widgets draw the registry's views
(:data:`ercot_nb.figures.VIEWS`); their figure data at (run, step, member) is
compared, trace by trace, with the registered view's parts for the same
arguments; the other views with the static parts builders.
"""
from __future__ import annotations

import base64
import json

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ercot_nb import ERCOT, TemporalDataset, datasets, figures
from ercot_nb.result import ClusteringResult
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
    data = [_lists(trace) for trace in json.loads(go.Figure(data=list(traces)).to_json())["data"]]
    for trace in data:
        trace.pop("uid", None)
    return data


def _lists(value):
    """Typed arrays (``{"dtype", "bdata"}``) as lists: a list and an array of the same values are the same."""
    if isinstance(value, list):
        return [_lists(v) for v in value]
    if not isinstance(value, dict):
        return value
    if isinstance(value.get("bdata"), str) and "dtype" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]).newbyteorder("<"))
        if value.get("shape") and "," in str(value["shape"]):
            array = array.reshape(-1, int(str(value["shape"]).split(",")[1]))
        return array.tolist()
    return {key: _lists(v) for key, v in value.items()}


def assert_shows(view, parts: figures.Parts, layout_paths=("title",)) -> None:
    assert traces_json(view.figure.data) == traces_json(parts.traces)
    shown = json.loads(view.figure.layout.to_json())
    expected = json.loads(go.Layout(parts.layout).to_json())
    for path in layout_paths:
        assert shown.get(path) == expected.get(path), path


def registry(key: str, result, data, t: int, member=None, **options) -> figures.Parts:
    """The registered view ``key``'s parts of ``result`` on ``data`` at step ``t`` (and ``member``)."""
    return figures.view(key).parts(figures.ViewData(result, data), t, member, **options)


def partition_of(axes: str, result, data, t: int, member=None) -> figures.Parts:
    """What the partition widget with these axes shows: the registered 2-D (projected) or 3-D view."""
    if axes == "3d":
        return registry("partition3d", result, data, t, member)
    return registry("partition", result, data, t, member, projection=axes)


def members(result, t: int) -> list[int]:
    return [m for m in range(len(result[t].population)) if m != result[t].knee]


def test_partition_view_equals_the_registered_views_on_every_axes(syn2):
    data, result = syn2
    for axes in PROJECTION:
        view = PartitionView(data, result, step=2, axes=axes)
        assert_shows(view, partition_of(axes, result, data, 2), ("title", "xaxis", "yaxis", "scene"))
        member = members(result, 5)[0]
        view.show_step(5, member)
        assert_shows(view, partition_of(axes, result, data, 5, member), ("title",))


def test_video_view_equals_the_registered_view(video):
    data, result = video
    view = VideoView(data, result, step=1)
    assert_shows(view, registry("video", result, data, 1, slots=3), ("title", "xaxis", "xaxis3"))
    member = members(result, 2)[0]
    view.show_step(2, member)
    assert_shows(view, registry("video", result, data, 2, member, slots=3), ("title",))
    preview = VideoView(data, step=3)  # no run: the frame and the ground truth
    truth = ClusteringResult.from_labels(data)
    assert_shows(preview, registry("video", truth, data, 3, slots=3, preview=True), ("title",))
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
        assert_shows(partition, partition_of(partition.axes.value, result, data, step, member))
        assert_shows(pareto, registry("pareto", result, None, step, member, accumulated=pareto.accumulated),
                     ("title", "annotations"))
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
        if name == "baseline":  # no population: the view says so
            notes = [a.text for a in view.figure.layout.annotations]
            assert notes == ["Pareto front: not shown for this data or run."], notes
        else:
            assert_shows(view, registry("pareto", run, None, 3))
        legend[name] = [tr.name for tr in view.figure.data if tr.showlegend is not False]
    assert legend["baseline"] == []
    assert legend["ERCOT"] == legend["ERCOT again"] and figures.pareto.ON_FRONT in legend["ERCOT"]
