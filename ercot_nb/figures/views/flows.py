"""The ``flows`` view: cluster flow between steps (Sankey); the step in focus stands out."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from ...events import lifecycle_events
from ...result import ClusteringResult, cluster_flows
from ..flows import FLOW, flow_window, sankey_colors, sankey_figure, sankey_nodes, sankey_parts, sankey_title, steps_between
from ..layers import Parts
from ..protocol import Change, Patch, View, ViewData
from ..style import step_index

__all__ = ["Flows", "VIEW"]


class Flows(View):
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


VIEW = Flows()
