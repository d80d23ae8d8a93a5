"""Alpha view: the smoothness weight over time, per-cluster alpha_i on demand."""
from __future__ import annotations

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from .. import figures
from ..result import ClusteringResult
from ._base import FigureView, Parts, placeholder_parts

__all__ = ["AlphaView"]


class AlphaView(FigureView):
    """alpha at every step with the current step marked; alpha_i on request.

    Parameters
    ----------
    result : ClusteringResult, optional
    step : int, default=0
    show_pairs : bool, default=False
        Show the per-cluster weights alpha_i.
    width, height : int
        Figure size in pixels.
    """

    def __init__(
        self,
        result: ClusteringResult | None = None,
        *,
        step: int = 0,
        show_pairs: bool = False,
        width: int = 560,
        height: int = 340,
    ) -> None:
        self.result = result
        self._step = step
        self.pairs = W.Checkbox(value=show_pairs, description="alpha_i per cluster", indent=False,
                                tooltip="weights of the matched cluster pairs that alpha aggregates")
        super().__init__(self._parts(), [self.pairs], width=width, height=height)
        self.pairs.observe(lambda _: self._show_pairs(), names="value")

    @property
    def step(self) -> int:
        return self._step

    def _parts(self) -> Parts:
        if self.result is None or not len(self.result):
            return placeholder_parts("Run an algorithm to see its smoothness weight here.",
                                     "smoothness weight alpha")
        t = min(self._step, len(self.result) - 1)
        traces, layout = figures._alpha_parts(self.result, show_pairs=True, title=None, t=t)
        traces[1].visible = bool(self.pairs.value)
        return traces, layout

    def _show_pairs(self) -> None:
        if len(self.figure.data) > 1:
            self.figure.data[1].visible = bool(self.pairs.value)

    def load(self, result: ClusteringResult | None, *, step: int = 0) -> None:
        """Show another run (None: a placeholder)."""
        self.result, self._step = result, step
        self._show(self._parts())

    def refresh(self) -> None:
        """Redraw after the result grew (live runs)."""
        self._show(self._parts())

    def show_step(self, step: int) -> None:
        """Move the current-step marker and line to ``step``."""
        self._step = step
        if self.result is None or not len(self.result):
            return
        t = min(step, len(self.result) - 1)
        time = figures._plain(self.result[t].time)
        value = self.result[t].alpha
        self.figure.plotly_update(
            restyle_data={"x": [[time]], "y": [[None if np.isnan(value) else float(value)]]},
            relayout_data={"shapes[0].x0": time, "shapes[0].x1": time},
            trace_indexes=[len(self.figure.data) - 1],
        )

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.alpha_figure` of what is shown."""
        if self.result is None or not len(self.result):
            return self._static(go.Figure(*placeholder_parts("no run yet", "smoothness weight alpha")))
        t = min(self._step, len(self.result) - 1)
        return self._static(figures.alpha_figure(self.result, show_pairs=bool(self.pairs.value), t=t))
