"""The time scrubber drives every view of the Explorer, in place and in sync."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import figures
from ercot_nb.widgets import VIEWS, Explorer

FAST = {"pop_size": 20, "n_evaluations": 40}


@pytest.fixture(scope="module")
def explorer() -> Explorer:
    app = Explorer("syn3", params=FAST)
    job = app.run(wait=True)
    assert job.state == "finished" and len(app.result) == 10
    return app


def cluster_points(fig) -> dict[str, np.ndarray]:
    """Points of every non-empty cluster trace, by trace name."""
    return {
        trace.name: np.column_stack([np.asarray(trace.x, float), np.asarray(trace.y, float)])
        for trace in fig.data
        if trace.name.startswith("cluster ") and trace.x is not None and len(trace.x)
    }


def decoded(value) -> np.ndarray:
    """An array as the widget protocol sends it (binary buffer or list)."""
    if isinstance(value, dict) and "buffer" in value:
        return np.frombuffer(value["buffer"], dtype=value["dtype"]).reshape(value["shape"])
    return np.asarray(value, dtype=float)


def view_state(app: Explorer) -> dict[str, object]:
    """What each view shows that depends on the step."""
    sankey = app.flows.figure.data[0]
    return {
        "partition": (app.partition.figure.layout.title.text,
                      {k: v.tolist() for k, v in cluster_points(app.partition.figure).items()}),
        "pareto": (app.pareto.figure.layout.title.text,
                   [list(np.asarray(t.x, float)) for t in app.pareto.figure.data]),
        "alpha": (tuple(app.alpha.figure.data[-1].x), app.alpha.figure.layout.shapes[0].x0),
        "scores": app.scores.figure.layout.shapes[0].x0,
        "flows": (tuple(sankey.node.color), app.flows.figure.layout.title.text),
    }


def test_moving_the_slider_changes_every_view(explorer):
    explorer.scrubber.slider.value = 2
    before = view_state(explorer)
    explorer.scrubber.slider.value = 7
    after = view_state(explorer)
    assert set(before) == {"partition", "pareto", "alpha", "scores", "flows"}
    for view in before:
        assert before[view] != after[view], f"{view} did not follow the scrubber"
    assert explorer.scrubber.play.value == 7  # Play and slider are linked in the kernel too
    assert all(view.step == 7 for view in explorer.views)


def test_each_view_shows_the_step_it_is_at(explorer):
    data, result = explorer.dataset, explorer.result
    explorer.scrubber.play.value = 4  # Play drives the slider
    assert explorer.scrubber.slider.value == 4
    time = data.times[4]
    static = figures.partition_figure(data, result, 4)
    shown = cluster_points(explorer.partition.figure)
    expected = cluster_points(static)
    assert shown.keys() == expected.keys()
    for name in shown:
        np.testing.assert_allclose(shown[name], expected[name])
    assert explorer.partition.figure.layout.title.text == static.layout.title.text
    knee = explorer.pareto.figure.data[figures.trace_index(explorer.pareto.figure, "knee (chosen)")]
    assert knee.name == "knee (chosen)" and int(knee.customdata[0][0]) == result[4].knee
    assert explorer.alpha.figure.data[-1].x == (time,)
    assert explorer.alpha.figure.data[-1].y[0] == pytest.approx(result[4].alpha)
    assert explorer.scores.figure.layout.shapes[0].x0 == time
    sankey = explorer.flows.figure.data[0]
    strong = [row[0] for row, color in zip(sankey.node.customdata, sankey.node.color)
              if not str(color).startswith("rgba")]
    assert set(strong) == {4}  # only step 4's clusters in full colour
    assert explorer.scrubber.time_label.value.startswith(f"time <b>{time}</b>")


def test_a_new_front_end_gets_the_current_figure_not_the_first(explorer):
    """Voila renders after all cells ran: the full widget state must hold what is shown."""
    explorer.step = 8
    fig = explorer.partition.figure
    state = fig.get_state()  # what a page attaching now receives
    shown = {trace["name"]: decoded(trace["x"]) for trace in state["_widget_data"]}
    for trace in fig.data:
        np.testing.assert_allclose(shown[trace.name], np.asarray(trace.x, float))
    assert state["_widget_layout"]["title"]["text"] == fig.layout.title.text
    # a partial update does not resend the whole figure
    assert set(fig.get_state(key="_py2js_update")) == {"_py2js_update"}


def test_scrubbing_reuses_one_figure_per_view(explorer):
    figures_before = [id(view.figure) for view in explorer.views]
    traces_before = [len(view.figure.data) for view in explorer.views]
    for step in (0, 9, 3):
        explorer.step = step
    assert [id(view.figure) for view in explorer.views] == figures_before
    assert [len(view.figure.data) for view in explorer.views] == traces_before


def test_static_copies_match_the_views(explorer):
    explorer.step = 6
    statics = explorer.static()
    assert len(statics) == len(explorer.views) == len(VIEWS)  # one per view, in layout order
    shown = dict(zip(VIEWS, statics))
    partition, pareto, alpha, scores, sankey = (shown[name] for name in (
        "partition", "pareto", "alpha", "scores", "flows"))
    for name in set(VIEWS) - {"partition", "pareto", "alpha", "scores", "flows"}:  # registry views
        assert shown[name].layout.title.text == explorer.view(name).figure.layout.title.text, name
    assert partition.layout.title.text == explorer.partition.figure.layout.title.text
    assert pareto.layout.title.text == explorer.pareto.figure.layout.title.text
    assert alpha.data[-1].x == explorer.alpha.figure.data[-1].x
    assert scores.layout.shapes[0].x0 == explorer.scores.figure.layout.shapes[0].x0
    assert list(sankey.data[0].node.color) == list(explorer.flows.figure.data[0].node.color)
    for fig in statics:
        assert '"uid"' not in fig.to_json()  # plain, kernel-free figures


def test_alpha_i_appear_on_demand(explorer):
    pairs = explorer.alpha.figure.data[1]
    assert pairs.name == figures.lines.PAIRS and pairs.visible is False
    explorer.alpha.pairs.value = True
    assert explorer.alpha.figure.data[1].visible is True
    assert explorer.alpha.static().data[1].name == figures.lines.PAIRS
    explorer.alpha.pairs.value = False
    assert len(explorer.alpha.static().data) == 2  # alpha line and current-step marker


def test_the_explorer_rejects_unknown_views():
    with pytest.raises(ValueError, match="unknown view"):
        Explorer("syn1", views=("partition", "histogram"))
