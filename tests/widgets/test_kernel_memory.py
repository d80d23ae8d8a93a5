"""What an app kernel holds: the figures' template validates only the trace types the package draws."""
from __future__ import annotations


def test_the_template_keeps_plotly_white_for_every_trace_the_explorer_draws():
    """The package's template is plotly_white less the defaults of trace types it never draws
    (validated again for every figure: their classes and validators)."""
    import plotly.io as pio

    from ercot_nb.figures.style import TEMPLATE, TEMPLATE_TRACE_TYPES
    from ercot_nb.widgets import Explorer

    ours, white = pio.templates[TEMPLATE].to_plotly_json(), pio.templates["plotly_white"].to_plotly_json()
    assert ours["layout"] == white["layout"]
    assert set(ours["data"]) == set(white["data"]) & set(TEMPLATE_TRACE_TYPES)
    assert all(ours["data"][name] == white["data"][name] for name in ours["data"])
    explorer = Explorer("syn3")
    explorer.run(wait=True)
    figures = explorer.static()
    drawn = {trace.type for figure in figures for trace in figure.data}
    assert drawn and drawn <= set(TEMPLATE_TRACE_TYPES), drawn
    assert all(figure.layout.template.layout.paper_bgcolor == "white" for figure in figures)
