"""Export: one offline HTML page, and the report's views."""
from __future__ import annotations

import pytest
from plotly.offline import get_plotlyjs

from ercot_nb import figures
from .plot_helpers import tiny_video, result_of, split_labels


def test_save_html_embeds_plotly_js_once_and_no_cdn(syn3, tmp_path):
    data, result = syn3
    figs = [figures.partition_animation(data, result), figures.alpha_figure(result)]
    path = figures.save_html(figs, tmp_path / "sub" / "report.html", title="Syn3 <run>")
    text = path.read_text(encoding="utf-8")
    assert path == tmp_path / "sub" / "report.html"
    assert get_plotlyjs()[:5000] in text  # the bundle itself, inline
    assert "cdn.plot.ly" not in text and "<script src=" not in text
    assert text.count('id="ercot-nb-figure-') == 2
    assert "<title>Syn3 &lt;run&gt;</title>" in text
    single = figures.save_html(figs[1], tmp_path / "one.html").read_text(encoding="utf-8")
    assert single.count('id="ercot-nb-figure-') == 1 and "cdn.plot.ly" not in single
    with pytest.raises(TypeError):
        figures.save_html([], tmp_path / "empty.html")


def test_report_figures_show_the_video_instead_of_the_scatter():
    data = tiny_video()
    result = result_of(data, split_labels(data))
    first = figures.report_figures(result, data)[0]
    assert len(first.frames) == 3 and {tr.type for tr in first.data} == {"image"}
