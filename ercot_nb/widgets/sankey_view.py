"""Sankey view: how clusters persist, split and merge between steps."""
from __future__ import annotations

import plotly.graph_objects as go

from .. import figures
from ..figures.flows import FLOW
from ..result import ClusteringResult
from ._base import FigureView, Parts, placeholder_parts

__all__ = ["SankeyView"]


class SankeyView(FigureView):
    """Cluster flow of a run, the current step's clusters and flows in focus.

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
        super().__init__(self._parts(), width=width, height=height)

    @property
    def step(self) -> int:
        return self._step

    def _parts(self) -> Parts:
        if self.result is None or not len(self.result):
            return placeholder_parts("Run an algorithm to see how its clusters flow over time.",
                                     "cluster flow")
        return figures.sankey_parts(self.result, t=min(self._step, len(self.result) - 1))

    def load(self, result: ClusteringResult | None, *, step: int = 0) -> None:
        """Show another run (None: a placeholder)."""
        self.result, self._step = result, step
        self.refresh()

    def refresh(self) -> None:
        """Redraw after the result grew (live runs)."""
        self._show(self._parts())

    def show_step(self, step: int) -> None:
        """Bring ``step`` into focus (its clusters and flows in strong colours)."""
        self._step = step
        if self.result is None or not len(self.result):
            return
        try:
            trace = self.figure.data[figures.trace_index(self.figure, FLOW)]
        except KeyError:  # a placeholder
            return
        t = min(step, len(self.result) - 1)
        nodes = trace.node.customdata
        links = trace.link.customdata if trace.link.customdata is not None else []
        node_colors, link_colors = figures.sankey_colors(
            [int(row[1]) for row in nodes], [int(row[0]) for row in nodes],
            [int(row[1]) for row in links], [int(row[4]) for row in links], t,
        )
        figures.update_by_name(
            self.figure, traces={FLOW: {"node.color": node_colors, "link.color": link_colors}},
            layout={"title.text": figures.sankey_title(self.result, t)},
        )

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.sankey_figure` of what is shown."""
        return self._static(go.Figure(*self._parts()))
