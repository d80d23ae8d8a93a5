"""Sankey view: how clusters persist, split and merge between the steps around the current one."""
from __future__ import annotations

from dataclasses import replace

import plotly.graph_objects as go

from .. import figures
from ..figures.flows import FLOW
from ..result import ClusteringResult
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

    At most :data:`WINDOW` steps are drawn (all of a shorter run): the
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

    def __init__(
        self,
        result: ClusteringResult | None = None,
        *,
        step: int = 0,
        width: int = 1140,
        height: int = 380,
    ) -> None:
        self.result = result
        self._step = step
        self._window = (0, 0)
        super().__init__(self._parts(), width=width, height=height)

    @property
    def step(self) -> int:
        return self._step

    def _has_run(self) -> bool:
        return self.result is not None and len(self.result) > 0

    def _parts(self) -> Parts:
        if not self._has_run():
            self._window = (0, 0)
            return placeholder_parts("Run an algorithm to see how its clusters flow over time.",
                                     "cluster flow")
        n = len(self.result)
        t = min(self._step, n - 1)
        lo, hi = self._window = window(n, t)
        traces, layout = figures.sankey_parts(_steps(self.result, lo, hi), t=t - lo,
                                              title=self._title(t))
        if lo:  # hover and focus name the steps of the whole run
            flow = traces[0]
            flow.node.customdata = [[row[0] + lo, *row[1:]] for row in flow.node.customdata]
            if flow.link.customdata is not None:
                flow.link.customdata = [[*row[:4], row[4] + lo] for row in flow.link.customdata]
        return Parts(traces, layout)

    def _title(self, t: int) -> str:
        lo, hi = self._window
        n = len(self.result)
        shown = f" · steps {lo + 1}–{hi} of {n}" if (lo, hi) != (0, n) else ""
        return figures.sankey_title(self.result, t) + shown

    def load(self, result: ClusteringResult | None, *, step: int = 0) -> None:
        """Show another run (None: a placeholder)."""
        self.result, self._step = result, step
        self.refresh()

    def refresh(self) -> None:
        """Redraw (another run, or a live run grew)."""
        self._show(self._parts())

    def show_step(self, step: int) -> None:
        """Bring ``step`` into focus (its clusters and flows in strong colours)."""
        self._step = step
        if not self._has_run():
            return
        t = min(step, len(self.result) - 1)
        if window(len(self.result), t) != self._window:
            self.refresh()
            return
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

    def _draw_content(self) -> None:
        self.load(self.state_run(), step=self.state.step)

    def _draw_step(self) -> None:
        if self.state.step != self._step:
            self.show_step(self.state.step)

    def _draw_growth(self) -> None:
        self._step = self.state.step  # one redraw of the steps around the new one
        self.refresh()

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.sankey_figure` of the steps shown."""
        return self._static(go.Figure(*self._parts()))
