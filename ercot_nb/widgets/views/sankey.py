"""Sankey view: how clusters persist, split and merge between the steps around the current one."""
from __future__ import annotations

from dataclasses import replace

import ipywidgets as W
import pandas as pd
import plotly.graph_objects as go

from ... import figures
from ...events import lifecycle_events
from ...figures import FLOW
from ...result import ClusteringResult
from .._state import AppState
from ._base import FigureView, Parts, placeholder_parts

__all__ = ["SankeyView", "WINDOW"]

WINDOW = 24
"""Most steps (columns) the view shows: a 1,140 px Sankey of a longer run shows no flow."""


def window(n_steps: int, step: int, size: int = WINDOW) -> tuple[int, int]:
    """The steps ``[lo, hi)`` shown around ``step``: the window moves by half its size.

    Scrubbing step by step thus redraws the columns once every ``size // 2``
    steps, and a live run that follows its newest step shows the last ones.
    """
    half = max(size // 2, 1)
    lo = max(min(step // half * half - half // 2, n_steps - size), 0)
    return lo, min(lo + size, n_steps)


def _steps(result: ClusteringResult, lo: int, hi: int) -> ClusteringResult:
    """Steps ``lo..hi-1`` of ``result`` as a run of their own (numbered from 0)."""
    if (lo, hi) == (0, len(result)):
        return result
    steps = [replace(step, t=t) for t, step in enumerate(result.steps[lo:hi])]
    return ClusteringResult(result.algorithm, result.params, steps)


class SankeyView(FigureView):
    """Cluster flow of a run around the current step, its clusters and flows in focus.

    With "events" ticked (the default) every node carries its lifecycle
    event (birth, death, split, merge, grow, shrink; in capitals when the
    permutation test finds it significant, see
    :func:`ercot_nb.figures.sankey_figure`); the run's events table is
    computed once per step and extended as a live run grows.

    At most ``WINDOW`` steps are drawn (all of a shorter run): the
    figure's cost is then the same at any length of the run, during a live
    run and when scrubbing.  The figure is
    :func:`ercot_nb.figures.sankey_parts` of those steps, with the hover's
    step numbers those of the whole run.

    Parameters
    ----------
    result : ClusteringResult, optional
    step : int, default=0
    width, height : int
        Figure size in pixels.
    """

    what = "cluster-flow view"

    def __init__(
        self,
        result: ClusteringResult | None = None,
        *,
        step: int = 0,
        width: int = 1140,
        height: int = 440,
    ) -> None:
        self._use_state(AppState.of(result=result, step=step))
        self._window = (0, 0)  # the steps drawn
        self._focus = -1  # the step drawn in focus
        self._events: tuple[ClusteringResult | None, dict[int, pd.DataFrame]] = (None, {})
        self.show_events = W.Checkbox(value=True, description="events (hover a node)", indent=False,
                                      tooltip="mark births, deaths, splits, merges, growth and shrinkage")
        super().__init__(self._parts(), [self.show_events], width=width, height=height)
        self.show_events.observe(lambda _: self._draw_content(), names="value")

    def _has_run(self) -> bool:
        return self.result is not None and len(self.result) > 0

    def _parts(self) -> Parts:
        if not self._has_run():
            self._window = (0, 0)
            return placeholder_parts("Run an algorithm to see how its clusters flow over time.",
                                     "cluster flow")
        n, t = len(self.result), self.step
        lo, hi = self._window = window(n, t)
        self._focus = t
        events = False
        if self.show_events.value:
            events = self.events(lo + 1, hi).assign(t=lambda f: f["t"] - lo)
        traces, layout = figures.sankey_parts(_steps(self.result, lo, hi), t=t - lo,
                                              title=self._title(t), events=events)
        if lo:  # hover and focus name the steps of the whole run
            flow = traces[0]
            flow.node.customdata = [[row[0] + lo, *row[1:]] for row in flow.node.customdata]
            if flow.link.customdata is not None:
                flow.link.customdata = [[*row[:4], row[4] + lo] for row in flow.link.customdata]
        return Parts(traces, layout)

    def events(self, lo: int = 0, hi: int | None = None) -> pd.DataFrame:
        """Lifecycle events of steps ``lo..hi-1`` of the run shown (each against the step before).

        The rows of :meth:`ClusteringResult.events <ercot_nb.result.ClusteringResult.events>` with ``lo <= t < hi``
        (births of the first step excepted), computed once per step: a
        window or a grown run costs only its new steps.
        """
        steps = self.result.steps  # a live run grows in another thread: take what is there
        hi = len(steps) if hi is None else min(hi, len(steps))
        if self._events[0] is not self.result:
            self._events = (self.result, {})
        cache = self._events[1]
        for t in range(max(lo, 1), hi):
            if t not in cache:
                pair = ClusteringResult(self.result.algorithm, self.result.params, [steps[t - 1], steps[t]])
                cache[t] = lifecycle_events(pair, start=1)
        frames = [cache[t] for t in range(max(lo, 1), hi)]
        return pd.concat(frames, ignore_index=True) if frames else lifecycle_events(
            ClusteringResult(self.result.algorithm, self.result.params, []))

    def _title(self, t: int) -> str:
        lo, hi = self._window
        n = len(self.result)
        shown = f" · steps {lo + 1}–{hi} of {n}" if (lo, hi) != (0, n) else ""
        return figures.sankey_title(self.result, t) + shown

    def load(self, result: ClusteringResult | None, *, step: int = 0) -> None:
        """Show another run (None: a placeholder): the state shown is set to it."""
        self.state.show(self.state.dataset, result, step=step)
        self._state_changed()

    def _draw_content(self) -> None:
        """Redraw (another run, or a live run grew: one redraw of the steps around the step)."""
        self._show(self._parts())

    def _draw_step(self) -> None:
        """Bring the state's step into focus (its clusters and flows in strong colours)."""
        if not self._has_run():
            return
        t = self.step
        if t == self._focus:
            return
        if window(len(self.result), t) != self._window:
            self._draw_content()
            return
        self._focus = t
        try:
            trace = self.figure.data[figures.trace_index(self.figure, FLOW)]
        except KeyError:  # a placeholder
            return
        nodes = trace.node.customdata
        links = trace.link.customdata if trace.link.customdata is not None else []
        node_colors, link_colors = figures.sankey_colors(
            [int(row[1]) for row in nodes], [int(row[0]) for row in nodes],
            [int(row[1]) for row in links], [int(row[4]) for row in links], t,
        )
        figures.update_by_name(
            self.figure, traces={FLOW: {"node.color": node_colors, "link.color": link_colors}},
            layout={"title.text": self._title(t)},
        )


    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.sankey_figure` of the steps shown."""
        return self._static(go.Figure(*self._parts()))
