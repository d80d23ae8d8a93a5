"""The ``sizes`` view: each cluster's number of samples over time (stacked areas)."""
from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from ..layers import Parts
from ..partition import cluster_name
from ..protocol import CLICK_STEP, Change, View, ViewData, click_meta
from ..style import CURRENT_STEP, INK, base_layout, counted, escape, label_color, plain_times, step_index, time_axis

__all__ = ["Sizes", "VIEW", "cluster_sizes", "cluster_sizes_parts", "cluster_sizes_figure"]


def cluster_sizes(result: Any) -> tuple[list[int], np.ndarray]:
    """Each aligned cluster's number of samples at every step.

    Returns
    -------
    labels : list of int
        The aligned labels used at any step, sorted.
    sizes : ndarray of shape (n_labels, n_steps)
        ``sizes[i, t]``: samples of cluster ``labels[i]`` at step ``t`` (0 where absent).
    """
    result = ViewData(result).result
    labels = sorted({int(k) for step in result for k in np.unique(step.aligned_labels)})
    row = {label: i for i, label in enumerate(labels)}
    sizes = np.zeros((len(labels), len(result)), dtype=np.int64)
    for step in result:
        present, counts = np.unique(step.aligned_labels, return_counts=True)
        sizes[[row[int(k)] for k in present], step.t] = counts
    return labels, sizes


def cluster_sizes_parts(result: Any, *, t: int | None = None, title: str | None = None) -> Parts:
    """Parts of :func:`cluster_sizes_figure`: one stacked area per aligned cluster (``"cluster k"``)."""
    result = ViewData(result).result
    times = plain_times(result.times)
    labels, sizes = cluster_sizes(result)
    traces = [go.Scatter(
        x=times, y=sizes[i], mode="lines", name=cluster_name(label), stackgroup="sizes",
        line=dict(color=label_color(label), width=0.5), fillcolor=label_color(label),
        hovertemplate=f"time %{{x}}<br>cluster {label}: %{{y}} samples<extra></extra>",
        meta=click_meta(CLICK_STEP),
    ) for i, label in enumerate(labels)]
    top = int(sizes.sum(axis=0).max()) if sizes.size else 1
    layout = base_layout(
        "line", title or f"{escape(result.algorithm)}: samples per cluster over time",
        xaxis=time_axis(times),
        yaxis=dict(title=dict(text="samples (stacked by cluster)"), range=[0, top * 1.05 + 0.5]),
        legend=dict(itemsizing="constant"),
    )
    if t is not None:
        t = step_index(result, t)
        layout["shapes"] = [dict(type="line", name=CURRENT_STEP, xref="x", yref="paper", x0=times[t], x1=times[t],
                                 y0=0, y1=1, line=dict(color=INK, width=1.5, dash="dot"))]
        layout["title"]["text"] += f"<br><sup>time {escape(result[t].time)}: " \
                                   f"{counted(int(sizes[:, t].astype(bool).sum()), 'cluster')}</sup>"
    return Parts(traces, layout)


def cluster_sizes_figure(result: Any, *, t: int | None = None, title: str | None = None) -> go.Figure:
    """Each aligned cluster's number of samples per step, stacked and coloured like the partition.

    Works for any run, with or without ground truth (only the run's labels
    are used); a cluster keeps its colour and place in the stack over time.

    Parameters
    ----------
    result : ClusteringResult
        The run (a fitted estimator with ``result_`` is accepted too).
    t : int, optional
        The current step, marked by a dotted vertical line.
    title : str, optional
        Figure title.

    Returns
    -------
    plotly.graph_objects.Figure
    """
    return cluster_sizes_parts(result, t=t, title=title).figure()


class Sizes(View):
    """Each aligned cluster's number of samples over time (stacked areas); the current step marked."""

    key = "sizes"
    title = "Cluster sizes over time"
    hint = "Samples of each cluster per step, stacked, in the partition's colours; click a step to go there."

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        return cluster_sizes_parts(data.result, t=t)

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        t = step_index(data.result, t)
        times = data.memo("times", lambda: plain_times(data.result.times))
        return Change(shapes={CURRENT_STEP: {"x0": times[t], "x1": times[t]}},
                      layout={"title.text": self._title(data, t)})

    def _title(self, data: ViewData, t: int) -> str:
        sizes = data.memo((self.key, "sizes"), lambda: cluster_sizes(data.result)[1])
        return (f"{escape(data.result.algorithm)}: samples per cluster over time<br><sup>time "
                f"{escape(data.result[t].time)}: {counted(int(sizes[:, t].astype(bool).sum()), 'cluster')}</sup>")

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        return [cluster_sizes_figure(data.result)]


VIEW = Sizes()
