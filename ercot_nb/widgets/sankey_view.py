"""Sankey view: how clusters persist, split and merge between steps."""
from __future__ import annotations

import plotly.graph_objects as go

from .. import figures
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
        return figures._sankey_parts(self.result, t=min(self._step, len(self.result) - 1), title=None)

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
        if self.result is None or not len(self.result) or self.figure.data[0].type != "sankey":
            return
        t = min(step, len(self.result) - 1)
        trace = self.figure.data[0]
        nodes = trace.node.customdata
        links = trace.link.customdata if trace.link.customdata is not None else []
        node_colors, link_colors = figures.sankey_colors(
            [int(row[1]) for row in nodes], [int(row[0]) for row in nodes],
            [int(row[1]) for row in links], [int(row[4]) for row in links], t,
        )
        self.figure.plotly_update(
            restyle_data={"node.color": [node_colors], "link.color": [link_colors]},
            relayout_data={"title.text": figures.sankey_title(self.result, t)},
            trace_indexes=[0],
        )

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.sankey_figure` of what is shown."""
        return self._static(go.Figure(*self._parts()))
