"""The parts protocol: traces and shapes found and changed by name, whatever their position."""
from __future__ import annotations

import plotly.graph_objects as go
import pytest

from ercot_nb import figures
from ercot_nb.figures.style import CURRENT_STEP


def parts() -> figures.Parts:
    return figures.Parts(
        [go.Scatter(x=[1], y=[1], name="a"), go.Scatter(x=[2], y=[2], name="b"),
         go.Scatter(x=[3], y=[3], name=CURRENT_STEP)],
        dict(shapes=[dict(type="line", name="other", x0=0, x1=0),
                     dict(type="line", name=CURRENT_STEP, x0=1, x1=1)]),
    )


@pytest.mark.parametrize("widget", [False, True])
def test_update_by_name_changes_only_the_named_traces_and_shapes(widget):
    fig = parts().figure()
    if widget:
        fig = go.FigureWidget(fig)
    figures.update_by_name(fig, traces={CURRENT_STEP: {"x": [7]}, "a": {"x": [5]}},
                           shapes={CURRENT_STEP: {"x0": 7, "x1": 7}}, layout={"title.text": "t"})
    assert [tr.x for tr in fig.data] == [(5,), (2,), (7,)]
    assert (fig.layout.shapes[0].x0, fig.layout.shapes[1].x0, fig.layout.shapes[1].x1) == (0, 7, 7)
    assert fig.layout.title.text == "t"


def test_names_find_traces_wherever_they_are():
    built = parts()
    assert built.names == ["a", "b", CURRENT_STEP]
    assert built.trace("b").x == (2,)
    reordered = go.Figure(data=built.traces[::-1])
    assert figures.trace_index(reordered, "a") == 2
    assert figures.shape_index(built.layout, CURRENT_STEP) == 1
    with pytest.raises(KeyError, match="no trace named 'c'"):
        built.trace("c")
    with pytest.raises(KeyError, match="no shape named"):
        figures.shape_index(go.Figure().layout, CURRENT_STEP)
    with pytest.raises(ValueError, match="same property paths"):
        figures.update_by_name(built.figure(), traces={"a": {"x": [1]}, "b": {"y": [1]}})


def test_every_parts_builder_gives_the_figure_the_public_builder_gives(syn3):
    data, result = syn3
    pairs = [
        (figures.partition_parts(data, result, 3), figures.partition_figure(data, result, 3)),
        (figures.pareto_parts(result, 3), figures.pareto_figure(result, 3)),
        (figures.pareto_parts(result, 3, fixed=True), figures.pareto_frame(result, 3)),
        (figures.alpha_parts(result, show_pairs=True, t=3), figures.alpha_figure(result, show_pairs=True, t=3)),
        (figures.scores_parts(data, {"ERCOT": result}, t=3), figures.scores_figure(data, {"ERCOT": result}, t=3)),
        (figures.sankey_parts(result, t=3), figures.sankey_figure(result, t=3)),
    ]
    for built, fig in pairs:
        assert built.figure().to_json() == fig.to_json()
        assert all(name for name in built.names)  # every trace has a role name
