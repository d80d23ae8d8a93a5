"""Alpha view: the smoothness weight over time, per-cluster alpha_i on demand."""
from __future__ import annotations

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from .. import figures
from ..figures.lines import PAIRS
from ..figures.style import CURRENT_STEP, plain_times
from ..result import ClusteringResult
from ._base import FigureView, Parts, placeholder_parts

__all__ = ["AlphaView"]


class AlphaView(FigureView):
    """alpha at every step with the current step marked; alpha_i on request.

    The figure holds :func:`ercot_nb.figures.alpha_parts` with the per-pair
    trace always present (hidden unless asked for), so the checkbox and the
    scrubber change named traces in place.

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
        self.pairs = W.Checkbox(value=show_pairs, description="weight per cluster pair", indent=False,
                                tooltip="alpha_i: weights of the matched cluster pairs that alpha aggregates")
        super().__init__(self._parts(), [self.pairs], width=width, height=height)
        self.pairs.observe(lambda _: self._show_pairs(), names="value")

    @property
    def step(self) -> int:
        return self._step

    def _has_run(self) -> bool:
        return self.result is not None and len(self.result) > 0

    def _parts(self) -> Parts:
        if not self._has_run():
            return placeholder_parts("Run an algorithm to see its smoothness weight here.",
                                     "smoothness weight α")
        t = min(self._step, len(self.result) - 1)
        return figures.alpha_parts(self.result, show_pairs=bool(self.pairs.value), t=t,
                                   pairs_trace=True)

    def _show_pairs(self) -> None:
        if self._has_run():
            figures.update_by_name(self.figure, traces={PAIRS: {"visible": bool(self.pairs.value)}})

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
        if not self._has_run():
            return
        t = min(step, len(self.result) - 1)
        time = plain_times([self.result[t].time])[0]
        value = self.result[t].alpha
        figures.update_by_name(
            self.figure,
            traces={CURRENT_STEP: {"x": [time], "y": [None if np.isnan(value) else float(value)]}},
            shapes={CURRENT_STEP: {"x0": time, "x1": time}},
        )

    def _draw_content(self) -> None:
        self.load(self.state_run(), step=self.state.step)

    def _draw_step(self) -> None:
        if self.state.step != self._step:
            self.show_step(self.state.step)

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.alpha_figure` of what is shown."""
        if not self._has_run():
            return self._static(go.Figure(*placeholder_parts("no run yet", "smoothness weight α")))
        t = min(self._step, len(self.result) - 1)
        return self._static(figures.alpha_figure(self.result, show_pairs=bool(self.pairs.value), t=t))
