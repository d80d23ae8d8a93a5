"""The tuned widgets are front ends of the registry's views: each rule is written once, in the view.

The Explorer's alpha widget (``ercot_nb.widgets.AlphaView``) shows the registered view
``"alpha"`` (``ercot_nb.figures.views.Alpha``) with its own checkbox as the view's
``show_pairs`` option.  Before, the widget re-derived the time line's rules (the y range,
NaN weights, text times, the axis past 30 steps) in an incremental copy of its own; now
the view keeps one :class:`ercot_nb.figures.AlphaLine` per run and a grown run's change
(:meth:`View.grown_base`) comes from it.
"""
from __future__ import annotations

import json

import plotly.graph_objects as go
import pytest

from ercot_nb import figures
from ercot_nb.figures import AlphaLine, ViewData
from ercot_nb.result import ClusteringResult
from ercot_nb.widgets import RegistryView
from ercot_nb.widgets._state import AppState
from ercot_nb.widgets.views.alpha import AlphaView

from .test_alpha_view import steps_of


def shown(figure) -> dict:
    """A widget's or a figure's traces and layout as plain JSON (no uids, size or template)."""
    out = json.loads(go.Figure(data=list(figure.data), layout=figure.layout).to_json())
    for trace in out["data"]:
        trace.pop("uid", None)
    for key in ("width", "height", "template"):
        out["layout"].pop(key, None)
    return out


def registry_figure(result, t: int, show_pairs: bool, dataset=None) -> go.Figure:
    return figures.view("alpha").figure(ViewData(result, dataset), t, show_pairs=show_pairs)


@pytest.mark.parametrize("times", [None, [f"day <{t}>" for t in range(40)]])
@pytest.mark.parametrize("show_pairs", [False, True])
def test_the_alpha_widget_shows_the_registered_views_parts_as_a_run_grows(times, show_pairs):
    """NaN weights (the first step, none at all until step 3), text times, past 30 steps."""
    data, steps = steps_of(40, times)
    for step in steps[:3]:
        step.alpha = float("nan")  # no weight yet: the note, then the first weight
    state = AppState()
    state.set_dataset(data, data.name)
    widget = AlphaView(show_pairs=show_pairs).follow(state)
    assert isinstance(widget, RegistryView) and widget.view is figures.view("alpha")
    run = ClusteringResult(algorithm="ERCOT", params={})
    run.append(steps[0])
    name = state.add_run("ERCOT", run)
    for t, step in enumerate(steps[1:], start=1):
        run.append(step)
        state.grow(name)
        if t in (1, 2, 3, 4, 29, 30, 31, 39):
            assert shown(widget.figure) == shown(registry_figure(run, state.step, show_pairs, data)), t
    state.set_step(5)
    widget.pairs.value = not show_pairs
    assert shown(widget.figure) == shown(registry_figure(run, 5, not show_pairs, data))


def test_a_grown_runs_change_gives_the_grown_runs_base():
    """The protocol's invariant of ``grown_base``: applied to the shorter run's base, the grown run's base."""
    data, steps = steps_of(40)
    view = figures.view("alpha")
    run = ClusteringResult(algorithm="ERCOT", params={})
    for step in steps[:5]:
        run.append(step)
    before = ViewData(run, data)
    base = view.base(before)
    for step in steps[5:]:
        run.append(step)
    grown = before.grown()
    change = view.grown_base(grown, base)
    assert change is not None and change.data is None  # no whole new trace list
    expected = view.base(ViewData(run, data))
    assert shown(change.apply(base).figure()) == shown(expected.figure())


def test_the_alpha_line_reads_each_step_once():
    _, steps = steps_of(12)
    run = ClusteringResult(algorithm="ERCOT", params={})
    line = AlphaLine()
    for step in steps:
        run.append(step)
        line.extend(run)
    assert line.x == figures.plain_times([s.time for s in steps]) and len(line) == 12
    assert line.pair_steps == sorted(line.pair_steps)  # steps in order, each pair weight once
    assert line.extend(ClusteringResult(algorithm="ERCOT", params={}, steps=steps[:3])).x == line.x[:3]


def test_the_sankey_widget_shows_the_registered_flow_views_window_as_a_run_grows():
    """The window of steps around the step shown and the events are the registered view's options."""
    from ercot_nb.widgets.views.flows import WINDOW, FlowsView

    data, steps = steps_of(2 * WINDOW + 5)
    state = AppState()
    state.set_dataset(data, data.name)
    widget = FlowsView().follow(state)
    assert isinstance(widget, RegistryView) and widget.view is figures.view("flows")
    run = ClusteringResult(algorithm="ERCOT", params={})
    run.append(steps[0])
    name = state.add_run("ERCOT", run)
    view, options = figures.view("flows"), {"window": WINDOW, "events": True}
    for t, step in enumerate(steps[1:], start=1):
        run.append(step)
        state.grow(name)
        if t in (1, WINDOW - 1, WINDOW, WINDOW + 7, len(steps) - 1):
            assert shown(widget.figure) == shown(view.figure(ViewData(run, data), state.step, **options)), t
    for t in (3, WINDOW, len(steps) - 1, 0):
        state.set_step(t)
        assert shown(widget.figure) == shown(view.figure(ViewData(run, data), t, **options)), t
    widget.show_events.value = False
    assert shown(widget.figure) == shown(view.figure(ViewData(run, data), 0, window=WINDOW, events=False))


def test_the_scores_widget_shows_the_registered_score_views_as_runs_grow():
    """RI, NMI and the label-free scores: the registered ``scores`` view's parts with its ``metric``
    as the toggle chooses (the toggle offers the view's choices), label-free tables grown per step."""
    from ercot_nb import ERCOT, datasets
    from ercot_nb.figures.views.scores import METRIC_CHOICES
    from ercot_nb.metrics import label_free_steps
    from ercot_nb.widgets.views.scores import LABEL_FREE, ScoresView

    data = datasets.load("syn1", seed=0)[:6]
    result = ERCOT(**ERCOT._unit_test_params(), seed=0).fit(data).result_
    state = AppState()
    state.set_dataset(data, data.name)
    widget = ScoresView(None).follow(state)
    run = ClusteringResult(result.algorithm, result.params, list(result.steps[:2]))
    name = state.add_run("ERCOT", run)
    view = figures.view("scores")
    assert [value for _, value in widget.metric.options] == list(METRIC_CHOICES)
    for choice in METRIC_CHOICES:
        widget.metric.value = choice
        assert widget.view is view and widget.options == {"metric": choice}
        assert shown(widget.figure) == shown(view.figure(ViewData(run, data, {name: run}), state.step,
                                                         metric=choice)), choice
    assert choice == LABEL_FREE
    for step in result.steps[2:]:
        run.append(step)
        state.grow(name)
    state.set_step(3)
    expected = view.figure(ViewData(run, data, {name: run}), 3, metric=LABEL_FREE)
    assert shown(widget.figure) == shown(expected)
    churn = [None if value != value else value for value in label_free_steps(result, data, sample_size=500)["churn"]]
    assert [trace.y for trace in widget.figure.data if trace.name.endswith("churn")][0] == tuple(churn)


def test_the_alpha_legend_is_one_row_above_the_plot_so_a_half_width_column_shows_it():
    """The legend to the right of the plot was cut in the Explorer's half-width column
    ("smoothness weight o..."): it is one horizontal row above the plot, without the
    current-step marker (the dashed line marks the step)."""
    _, steps = steps_of(12)
    parts = figures.view("alpha").parts(ViewData(ClusteringResult("ERCOT", {}, steps)), 5)
    legend = parts.layout["legend"]
    assert legend["orientation"] == "h" and legend["y"] >= 1.0 and legend["yanchor"] == "bottom"
    in_legend = [trace.name for trace in parts.traces if trace.showlegend is not False]
    assert in_legend == [figures.ALPHA, figures.PAIRS]


def test_one_name_per_view():
    """The registry's names everywhere: no class name in both ``figures.views`` and ``widgets``, and each
    Explorer view is named by its registered key (the scores too: one view ``scores``, its metric an option)."""
    from ercot_nb.figures import VIEWS as REGISTERED, views as registry
    from ercot_nb import widgets
    from ercot_nb.widgets.apps.explorer import VIEWS as SHOWN

    classes = {name for name in registry.__all__ if isinstance(getattr(registry, name), type)}
    assert not classes & set(widgets.__all__), classes & set(widgets.__all__)
    keys = {v.key for v in REGISTERED}
    assert set(SHOWN) <= keys, set(SHOWN) - keys
    with pytest.warns(DeprecationWarning, match="FlowsView"):
        assert widgets.SankeyView is widgets.FlowsView
