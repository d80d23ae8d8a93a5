"""Reports and export: every kernel-free view of a run, and one offline HTML page."""
from __future__ import annotations

import html
import re
from collections.abc import Sequence
from os import PathLike
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio

from .._files import atomic_write_text, check_outputs
from ..data import TemporalDataset
from ..result import ClusteringResult
from .style import as_result
from .views import ViewData, views_for

__all__ = ["report_figures", "save_html"]


def report_figures(result: ClusteringResult, dataset: TemporalDataset | None = None) -> list[go.Figure]:
    """The kernel-free views of a run, in reading order.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    dataset : TemporalDataset, optional
        The data the run was fitted on; adds the partition animation (with
        three or more features, the PCA projection and next to it a 3-D
        scatter of the first three features; for a video, see
        :attr:`TemporalDataset.is_video <ercot_nb.data.TemporalDataset.is_video>`, the frame/segmentation animation
        instead) and, when the data has labels, RI and NMI per step.

    Returns
    -------
    list of plotly.graph_objects.Figure
        The report figures of every view of ``ercot_nb.figures.views.VIEWS``
        that applies, in its order: partition (PCA and 3-D) or video animation
        (with ``dataset``), Pareto animation (runs with a population), alpha with
        per-cluster alpha_i, number of clusters, cluster sizes over time, RI
        and NMI (with labelled data) and the cluster flow.
    """
    result = as_result(result)
    if not len(result):
        raise ValueError("the result has no steps to show")
    data = ViewData(result, dataset)
    return [figure for item in views_for(data) for figure in item.report(data)]


# plotly.js's only CDN address is the default map-data (topojson) URL of geo
# plots, which these figures never use; pointing it at a local folder keeps
# the page free of network references.
_CDN_URL = re.compile(r"https?://cdn\.plot\.ly/[^\"'\s]*")


def save_html(
    figures: go.Figure | Sequence[go.Figure],
    path: str | PathLike[str],
    *,
    title: str = "ercot-nb figures",
    overwrite: bool = False,
) -> Path:
    """Write one or several figures to a self-contained offline HTML page.

    plotly.js is embedded once (about 4.8 MB); the page loads nothing from
    the network and keeps working without a kernel (animations included).

    Parameters
    ----------
    figures : Figure or sequence of Figure
        Shown top to bottom.
    path : str or path-like
        Output file (``.html``); parent folders are created.
    title : str, default="ercot-nb figures"
        The page title.
    overwrite : bool, default=False
        Replace an existing file (otherwise a ``ValueError``); the write is
        atomic either way (see :mod:`ercot_nb._files`).

    Returns
    -------
    pathlib.Path
        The written file.
    """
    path = check_outputs({"path": path}, overwrite=overwrite, create_parents=True)["path"]
    figs = [figures] if isinstance(figures, go.Figure) else list(figures)
    if not figs or not all(isinstance(f, go.Figure) for f in figs):
        raise TypeError("figures must be a plotly Figure or a non-empty sequence of Figures")
    parts = [
        pio.to_html(
            fig,
            include_plotlyjs=index == 0,
            full_html=False,
            auto_play=False,
            div_id=f"ercot-nb-figure-{index}",
        )
        for index, fig in enumerate(figs)
    ]
    body = "\n".join(f'<div class="ercot-nb-figure">{part}</div>' for part in parts)
    page = (
        "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{html.escape(title)}</title>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
    )
    page = _CDN_URL.sub("./topojson/", page)
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write_text(path, page)

