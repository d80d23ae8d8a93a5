"""The views and their registry: each view of a run defined once (see :mod:`.protocol`).

:data:`VIEWS` lists every view in reading order.  The static report
(:func:`~ercot_nb.figures.report_figures`), the offline page
(:mod:`ercot_nb.page`) and the widgets iterate it and keep the views that
apply to the data (:func:`views_for`); none of them names a view.

==============  ==============================================  ==========================
key             shows                                           applies to
==============  ==============================================  ==========================
``partition``   the samples of a step coloured by cluster       a dataset, not a video
``partition3d`` the same in 3-D (first three features)          3+ features, not a video
``video``       frame, segmentation and ground truth            a video dataset
``pareto``      the final population and its knee               runs with a population
``alpha``       the smoothness weight over time                 every run
``n_clusters``  chosen (and true) number of clusters            every run
``sizes``       each cluster's number of samples over time      every run
``ri``, ``nmi`` accuracy against the ground truth per step      a dataset with labels
``flows``       cluster flow between steps (Sankey)             every run
==============  ==============================================  ==========================

A new view is one :class:`~.protocol.View` subclass added to :data:`VIEWS`
(:class:`ClusterSizesView` below was added so).
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ..events import lifecycle_events
from ..result import ClusteringResult, cluster_flows
from .flows import FLOW, FLOW_WINDOW, flow_window, steps_between, sankey_colors, sankey_figure, sankey_nodes, sankey_parts, sankey_title
from .layers import Parts
from .lines import ALPHA, LABEL_FREE_SHOWN, PAIRS, AlphaLine, LabelFreeTables, alpha_figure, alpha_parts, n_clusters_parts, scores_figure, scores_parts
from .pareto import SELECTED, KMax, is_member_trace, pareto_animation, pareto_plain
from .partition import PartitionLayer, cluster_name, partition_animation
from .protocol import (
    CLICK_MEMBER, CLICK_STEP, Change, Patch, View, ViewData, click_meta,
)
from .style import (
    CURRENT_STEP, INK, as_trace, base_layout, title_layout, counted, escape, label_color, plain_times, step_index, time_axis,
)
from .video import VIDEO_MAX_PIXELS, VideoLayer, video_segmentation_animation

__all__ = [
    "VIEWS", "view", "views_for", "PartitionView", "VideoView", "ParetoView", "AlphaView",
    "NClustersView", "ClusterSizesView", "ScoresView", "FlowsView", "cluster_sizes",
    "cluster_sizes_parts", "cluster_sizes_figure",
    # the protocol, re-exported
    "View", "ViewData", "Change", "Patch", "CLICK_STEP", "CLICK_MEMBER", "click_meta",
]


def _with_click(parts: Parts, action: str, names: Any = None) -> Parts:
    """Declare the traces named ``names`` (default: all) clickable with ``action``."""
    for trace in parts.traces:
        if names is None or (callable(names) and names(trace.name)) or (not callable(names) and trace.name in names):
            trace.meta = click_meta(action)
    return parts


def _line_step_change(data: ViewData, t: int, times: list[Any]) -> Change:
    t = step_index(data.result, t)
    return Change(shapes={CURRENT_STEP: {"x0": times[t], "x1": times[t]}})


# --------------------------------------------------------------------- partition
class PartitionView(View):
    """The partition of one step (or of a member of its final population), 2-D or 3-D.

    Options: ``features``, ``projection`` (2-D view; default PCA for 3+
    features), ``show_centroids``, ``webgl``, ``max_points`` (at most this
    many samples per step drawn, a fixed choice of ids; None: all).
    """

    member = True

    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.key = "partition" if dims == 2 else "partition3d"
        self.title = "Partition" if dims == 2 else "Partition in 3-D"
        self.hint = ("Each point is a sample, coloured by its cluster (a cluster keeps its colour over time); "
                     "X marks the centroids." if dims == 2 else
                     "The first three features; drag to rotate. Colours follow the aligned cluster labels.")
        self.options = {"features": None, "show_centroids": True, "webgl": None, "max_points": None}
        if dims == 2:
            self.options["projection"] = None

    def applies(self, data: ViewData) -> bool:
        return data.dataset is not None and not data.is_video and (self.dims == 2 or data.n_features >= 3)

    def layer(self, data: ViewData, **options: Any) -> PartitionLayer:
        """The run's partition layer with these options (made once per data)."""
        key = (self.key, "layer", tuple(sorted(options.items())))  # options as given: not completed per call
        try:
            hash(key)
        except TypeError:  # unhashable option values (a list of features)
            return self._layer(data, options)
        return data.memo(key, lambda: self._layer(data, options))

    def _layer(self, data: ViewData, options: dict[str, Any]) -> PartitionLayer:
        o = self.with_defaults(options)
        projection = "3d" if self.dims == 3 else o.get("projection") or ("pca" if data.n_features >= 3 else None)
        features = None if o["features"] is None else tuple(o["features"])
        key = (self.key, projection, features, o["show_centroids"], o["webgl"], o["max_points"])
        return data.memo(key, lambda: PartitionLayer(
            data.dataset, data.result, features=features, projection=projection,
            show_centroids=o["show_centroids"], webgl=o["webgl"], max_points=o["max_points"]))

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        return self.layer(data, **options).parts(t, member)

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        return self.member_change(data, t, None, **options)

    def member_change(self, data: ViewData, t: int, member: int | None, **options: Any) -> Change:
        # the traces as plain dicts (no plotly object per step and member); the layout differs
        # between steps and members by its title only (axes are fixed over all steps)
        traces, title = self.layer(data, **options).plain(t, member)
        return Change(data=list(traces), layout={"title": title_layout(title)})

    def notes(self, data: ViewData, **options: Any) -> list[str]:
        layer = self.layer(data, **options)
        if not layer.subsampled:
            return []
        return [f"The scatter plots show at most {layer.max_points_shown:,} of the {layer.max_points:,} "
                "samples per step (a fixed random choice of ids); the other views use all samples."]

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        o = self.with_defaults(options)
        projection = "3d" if self.dims == 3 else o.get("projection") or ("pca" if data.n_features >= 3 else None)
        return [partition_animation(data.dataset, data.result, projection=projection, features=o["features"],
                                    show_centroids=o["show_centroids"], webgl=o["webgl"])]


# ------------------------------------------------------------------------- video
class VideoView(View):
    """A video frame, its segmentation (of the knee or a member) and the ground truth."""

    key = "video"
    title = "Video frame and segmentation"
    hint = "Grey pixels are absent at this step. The truth's colours are matched to the shown clusters."
    member = True
    wide = True
    options = {"truth": True, "max_pixels": VIDEO_MAX_PIXELS}

    def applies(self, data: ViewData) -> bool:
        return data.is_video

    def layer(self, data: ViewData, **options: Any) -> VideoLayer:
        o = self.with_defaults(options)
        return data.memo((self.key, o["truth"], o["max_pixels"]), lambda: VideoLayer(
            data.dataset, data.result, truth=o["truth"], max_pixels=o["max_pixels"]))

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        return self.layer(data, **options).parts(t, member)

    def notes(self, data: ViewData, **options: Any) -> list[str]:
        layer, o = self.layer(data, **options), self.with_defaults(options)
        if layer.stride == 1:
            return []
        return [f"Video images are shown at 1/{layer.stride} resolution (at most {o['max_pixels']:,} pixels each)."]

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        o = self.with_defaults(options)
        return [video_segmentation_animation(data.result, data.dataset, truth=o["truth"],
                                             max_pixels=o["max_pixels"])]


# ------------------------------------------------------------------------ pareto
class ParetoView(View):
    """The final population of a step on its two objectives; click a member to show its partition."""

    key = "pareto"
    title = "Pareto front"
    hint = ("Final population on the accumulated objectives (min-max normalised). Filled: first front, "
            "click one to show its partition; hollow: dominated; star: the knee (chosen).")
    member = True
    options = {"accumulated": True}

    def applies(self, data: ViewData) -> bool:
        return data.has_population

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        traces, layout = self.plain(data, t, member, **options)
        return Parts([as_trace(spec) for spec in traces], layout)

    def plain(self, data: ViewData, t: int = 0, member: int | None = None,
              **options: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The traces of :meth:`parts` as plain dicts (see :func:`~.style.plain_trace`), and the layout."""
        o = self.with_defaults(options)
        k_max = data.growing((self.key, "k_max"), KMax)
        k_max.extend(data.result)  # reads only the steps a growing run added
        traces, layout = pareto_plain(data.result, t, accumulated=o["accumulated"], selected=member, fixed=True,
                                      k_max=k_max.value)
        for spec in traces:
            if is_member_trace(spec.get("name")):
                spec["meta"] = click_meta(CLICK_MEMBER)
        return traces, layout

    def _step(self, data: ViewData, t: int, options: dict[str, Any]) -> tuple[tuple, dict[int, tuple]]:
        """The plain traces and layout of step ``t`` and each member's point (x, y, customdata row),
        kept for one step."""
        try:
            key = (self.key, "last step", tuple(sorted(options.items())))
            hash(key)
        except TypeError:
            key = (self.key, "last step", repr(sorted(options.items())))
        cached = data.memo(key, dict)
        if t not in cached:
            cached.clear()
            traces, layout = self.plain(data, t, None, **options)
            points: dict[int, tuple] = {}
            for spec in traces:
                if spec["name"] != SELECTED and is_member_trace(spec["name"]) and spec.get("customdata") is not None:
                    xs, ys = np.asarray(spec["x"]).tolist(), np.asarray(spec["y"]).tolist()  # plain floats
                    for x, y, row in zip(xs, ys, spec["customdata"]):
                        points.setdefault(int(row[0]), (x, y, list(row)))
            cached[t] = ((traces, layout), points)
        return cached[t]

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        t = step_index(data.result, t)
        traces, layout = self._step(data, t, options)[0]
        return Change(data=list(traces), layout={"title": layout["title"], "annotations": layout["annotations"]})

    def member_change(self, data: ViewData, t: int, member: int | None, **options: Any) -> Change:
        """Only the ring around the selected member: its point, as the step's member traces draw it."""
        t = step_index(data.result, t)
        _, points = self._step(data, t, options)
        if member is None or member == data.result[t].knee:
            return Change(traces={SELECTED: {"x": [], "y": [], "customdata": [], "showlegend": False}})
        if int(member) not in points:
            raise ValueError(f"step {t}: member {member} is not in the final population "
                             f"({len(data.result[t].population)} members)")
        x, y, row = points[int(member)]
        return Change(traces={SELECTED: {"x": [x], "y": [y], "customdata": [row], "showlegend": True}})

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        return [pareto_animation(data.result, accumulated=self.with_defaults(options)["accumulated"])]


# ------------------------------------------------------------------ time lines
class AlphaView(View):
    """The smoothness weight alpha over time (and alpha_i of every matched cluster pair).

    Option ``show_pairs`` (default True): show each matched cluster pair's weight (a hidden trace
    without).  The run's :class:`~.lines.AlphaLine` is kept as it grows (:meth:`ViewData.growing`).
    """

    key = "alpha"
    title = "Smoothness weight alpha"
    hint = ("Weight of the previous step in the accumulated fitness (none at the first step); "
            "grey rings: the weight of each matched cluster pair.")
    options = {"show_pairs": True}

    def line(self, data: ViewData) -> AlphaLine:
        """The run's time line, taken up to its last step."""
        return data.growing((self.key, "line"), AlphaLine).extend(data.result)

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        o = self.with_defaults(options)
        return alpha_parts(data.result, show_pairs=o["show_pairs"], t=t, pairs_trace=True, line=self.line(data))

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        t = step_index(data.result, t)
        line = self.line(data)
        time = line.x[t]
        return Change(traces={CURRENT_STEP: {"x": [time], "y": [line.y[t]]}},
                      shapes={CURRENT_STEP: {"x0": time, "x1": time}})

    def grown_base(self, data: ViewData, base: Parts, **options: Any) -> Change | None:
        """The lines' points, the time axis and the y range; None when the note "no weight" comes or goes."""
        line = self.line(data)
        if ("annotations" in base.layout) == line.any_finite or PAIRS not in base.names:
            return None
        axis = line.time_axis()
        return Change(
            traces={ALPHA: {"x": list(line.x), "y": list(line.y), "meta": click_meta(CLICK_STEP)},  # one message
                    PAIRS: {"x": list(line.pair_x), "y": list(line.pair_y),
                            "meta": click_meta(CLICK_STEP, line.pair_steps)}},
            layout={**{f"xaxis.{key}": axis.get(key) for key in ("tickmode", "tickvals", "type")},
                    "yaxis.range": line.y_range(True)},
        )

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        return [alpha_figure(data.result, show_pairs=self.with_defaults(options)["show_pairs"])]


class NClustersView(View):
    """The chosen number of clusters per step (and the true number, with labels)."""

    key = "n_clusters"
    title = "Number of clusters"
    hint = "Clusters of the chosen (knee) partition at each step; dashed: the true number."

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        return _with_click(n_clusters_parts(data.result, data.dataset, t=t), CLICK_STEP)

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        return _line_step_change(data, t, data.memo("times", lambda: plain_times(data.result.times)))

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        return [n_clusters_parts(data.result, data.dataset).figure()]


class ScoresView(View):
    """One accuracy score (RI or NMI) against the ground truth per step, or (``metric=None``)
    the label-free scores :data:`LABEL_FREE_SHOWN`; every run compared, the step marked.

    Label-free scores are computed once per step of a run (:meth:`ViewData.growing`).
    ``ScoresView(None)`` is not in :data:`VIEWS` (the Explorer's scores widget offers it).
    """

    def __init__(self, metric: str | None) -> None:
        self.metric = metric
        if metric is None:
            self.key = "label_free"
            self.title = "Scores without labels"
            self.hint = ("Silhouette, NMI with the previous step and churn of the chosen partition, per step: "
                         "scores that need no ground truth.")
            return
        self.key = metric.lower()
        names = {"RI": "Rand index", "NMI": "normalised mutual information"}
        self.title = f"Accuracy against the ground truth: {metric}"
        self.hint = f"{names[metric]} ({metric}) of the chosen partition against the true labels, per step."

    def applies(self, data: ViewData) -> bool:
        return data.dataset is not None if self.metric is None else data.has_labels

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        runs = {name: run for name, run in data.compared.items()}
        if self.metric is None:
            return scores_parts(data.dataset, runs, None, t=t, label_free=list(LABEL_FREE_SHOWN),
                                tables=self.tables(data))
        return scores_parts(data.dataset, runs, self.metric, t=t, label_free=False)  # its points select a step

    def tables(self, data: ViewData) -> dict[str, pd.DataFrame]:
        """Each compared run's label-free table, scoring only the steps a run added since the last call."""
        return data.growing((self.key, "tables"), LabelFreeTables).update(data.dataset, data.compared)

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        t = step_index(data.dataset, t, "dataset")  # the runs compared may be shorter than the data
        times = data.memo("dataset times", lambda: plain_times(data.dataset.times))
        return Change(shapes={CURRENT_STEP: {"x0": times[t], "x1": times[t]}})

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        if self.metric is None:
            return [self.parts(data, 0).figure()]
        return [scores_figure(data.dataset, data.compared, self.metric)]


# ------------------------------------------------------------------------- flows
class FlowsView(View):
    """Cluster flow between steps (Sankey); the step in focus stands out.

    Options: ``window`` (None: every step; an int: at most that many steps around the step
    shown, see :func:`~.flows.flow_window`; hovers name the whole run's steps); ``events``
    (mark each node's lifecycle event, computed once per step and kept as the run grows).
    """

    key = "flows"
    title = "Cluster flow over time"
    hint = ("Each column is a step, each block a cluster (its size is its sample count); bands show how "
            "many samples go from a cluster to the next step's clusters.")
    wide = True
    options = {"window": None, "events": False}

    def steps_shown(self, data: ViewData, t: int, **options: Any) -> tuple[int, int]:
        """The steps ``[lo, hi)`` drawn at step ``t``."""
        size, n = self.with_defaults(options)["window"], data.n_steps
        return (0, n) if size is None or n <= size else flow_window(n, step_index(data.result, t), size)

    def parts(self, data: ViewData, t: int = 0, member: int | None = None, **options: Any) -> Parts:
        o = self.with_defaults(options)
        t = step_index(data.result, t)
        lo, hi = self.steps_shown(data, t, **options)
        if (lo, hi) == (0, data.n_steps) and not o["events"]:
            return sankey_parts(data.result, t=t)
        return self._parts_in(data, t, lo, hi, o["events"])

    def _parts_in(self, data: ViewData, t: int, lo: int, hi: int, events: bool) -> Parts:
        """Steps ``lo..hi-1`` with ``t`` in focus."""
        events = self.events(data, lo + 1, hi).assign(t=lambda f: f["t"] - lo) if events else False
        traces, layout = sankey_parts(steps_between(data.result, lo, hi), t=t - lo, title=self._title(data, t, lo, hi),
                                      events=events)
        if lo:  # hover and focus name the steps of the whole run
            flow = traces[0]
            flow.node.customdata = [[row[0] + lo, *row[1:]] for row in flow.node.customdata]
            if flow.link.customdata is not None:
                flow.link.customdata = [[*row[:4], row[4] + lo] for row in flow.link.customdata]
        return Parts(traces, layout)

    def _title(self, data: ViewData, t: int, lo: int, hi: int) -> str:
        n = data.n_steps
        shown = f" · steps {lo + 1}–{hi} of {n}" if (lo, hi) != (0, n) else ""
        return sankey_title(data.result, t) + shown

    def events(self, data: ViewData, lo: int = 0, hi: int | None = None) -> pd.DataFrame:
        """Lifecycle events of steps ``lo..hi-1`` (each against the step before; births of step 0 left out).

        Computed once per step of the run and kept as it grows (:meth:`ViewData.growing`).
        """
        result = data.result
        steps = result.steps[: data.n_steps]
        hi = len(steps) if hi is None else min(hi, len(steps))
        cache = data.growing((self.key, "events"), dict)
        for t in range(max(lo, 1), hi):
            if t not in cache:
                pair = ClusteringResult(result.algorithm, result.params, [steps[t - 1], steps[t]])
                cache[t] = lifecycle_events(pair, start=1)
        frames = [cache[t] for t in range(max(lo, 1), hi)]
        return pd.concat(frames, ignore_index=True) if frames else lifecycle_events(
            ClusteringResult(result.algorithm, result.params, []))

    def _tables(self, data: ViewData) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        def make():
            nodes = sankey_nodes(data.result)
            flows = cluster_flows(data.result)
            return (np.asarray(nodes["node_label"], dtype=np.int64), np.asarray(nodes["node_step"], dtype=np.int64),
                    np.array([f["source"] for f in flows], dtype=np.int64),
                    np.array([f["t"] for f in flows], dtype=np.int64))
        return data.memo((self.key, "tables"), make)

    def step_change(self, data: ViewData, t: int, **options: Any) -> Change:
        """Every step drawn: only the colours of step ``t``'s nodes and links (and of the base's
        step 0) change; a window: its trace, recoloured for step ``t``."""
        t = step_index(data.result, t)
        lo, hi = self.steps_shown(data, t, **options)
        if (lo, hi) != (0, data.n_steps):
            return self._window_change(data, t, lo, hi, self.with_defaults(options))
        node_label, node_step, link_source, link_step = self._tables(data)
        nodes = np.flatnonzero(np.isin(node_step, (0, t)))
        links = np.flatnonzero(np.isin(link_step, (0, 1, t, t + 1)))
        node_colors, link_colors = sankey_colors(node_label[nodes].tolist(), node_step[nodes].tolist(),
                                                 link_source[links].tolist(), link_step[links].tolist(), t)
        return Change(
            traces={FLOW: {"node.color": Patch(nodes.tolist(), node_colors),
                           "link.color": Patch(links.tolist(), link_colors)}},
            layout={"title.text": self._title(data, t, lo, hi)},
        )

    def _window_change(self, data: ViewData, t: int, lo: int, hi: int, o: dict[str, Any]) -> Change:
        """The window's trace (made once, kept as the run grows: its steps are final) in ``t``'s colours."""
        made = data.growing((self.key, "window", lo, hi, o["events"]), dict)
        if not made:
            parts = self._parts_in(data, t, lo, hi, o["events"])
            made.update(focus=t, trace=parts.traces[0], layout=parts.layout)
        title = {**made["layout"]["title"], "text": self._title(data, t, lo, hi)}
        change_layout = {"title": title, "annotations": made["layout"].get("annotations", [])}
        if made["focus"] == t:  # as made (a live run's newest window): no copy
            return Change(data=[made["trace"]], layout=change_layout)
        trace = made.get("plain") or made.setdefault("plain", made["trace"].to_plotly_json())
        nodes, links = trace["node"]["customdata"], trace["link"].get("customdata")
        links = [] if links is None else links
        node_colors, link_colors = sankey_colors(
            [int(row[1]) for row in nodes], [int(row[0]) for row in nodes],
            [int(row[1]) for row in links], [int(row[4]) for row in links], t)
        trace = {**trace, "node": {**trace["node"], "color": node_colors},
                 "link": {**trace["link"], "color": link_colors}}
        return Change(data=[trace], layout=change_layout)

    def grown_base(self, data: ViewData, base: Parts, **options: Any) -> Change | None:
        """A window that stays the first steps: only the title (the run's length) changes."""
        size = self.with_defaults(options)["window"]
        if size is None or data.n_steps <= size or FLOW not in base.names:
            return None
        if len({int(row[0]) for row in base.trace(FLOW).node.customdata}) != size:
            return None  # the base showed every step of a shorter run
        return Change(layout={"title.text": self._title(data, 0, *self.steps_shown(data, 0, **options))})

    def report(self, data: ViewData, **options: Any) -> list[go.Figure]:
        o = self.with_defaults(options)
        return [sankey_figure(data.result, events=o["events"])]


# ------------------------------------------------------------- cluster sizes
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


class ClusterSizesView(View):
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


# ---------------------------------------------------------------------- registry
VIEWS: tuple[View, ...] = (
    PartitionView(2), PartitionView(3), VideoView(), ParetoView(), AlphaView(), NClustersView(),
    ClusterSizesView(), ScoresView("RI"), ScoresView("NMI"), FlowsView(),
)
"""Every view, in reading order; front ends iterate it (see :func:`views_for`)."""


def view(key: str) -> View:
    """The registered view with ``key``.

    Raises
    ------
    KeyError
        If no view has that key (the keys are listed).
    """
    for item in VIEWS:
        if item.key == key:
            return item
    raise KeyError(f"no view {key!r}; views: {[item.key for item in VIEWS]}")


def views_for(data: ViewData) -> Iterator[View]:
    """The registered views that apply to ``data``, in order."""
    return (item for item in VIEWS if item.applies(data))
