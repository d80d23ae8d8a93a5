"""Alpha view: the smoothness weight over time, per-cluster alpha_i on demand.

During a live run the time lines grow: each redraw reads only the steps the
run added since the previous one and appends their points (O(new steps) of
work; the arrays on screen are then replaced in one message, as the
widget protocol has no "append"), so a long run costs no more per redraw
than a short one.  What is shown stays equal to
:func:`ercot_nb.figures.alpha_parts` of the run so far.
"""
from __future__ import annotations

from typing import Any

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go

from ... import figures
from ...figures import ALPHA, CURRENT_STEP, PAIRS, plain_times, time_axis
from ...result import ClusteringResult
from .._state import AppState
from ._base import FigureView, Parts, placeholder_parts

__all__ = ["AlphaView"]

# time_axis lists the tick of every time up to this many numeric steps (ercot_nb/figures/style.py)
_TICKED_STEPS = 30


def _none_if_nan(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


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

    what = "smoothness-weight view"

    def __init__(
        self,
        result: ClusteringResult | None = None,
        *,
        step: int = 0,
        show_pairs: bool = False,
        width: int = 560,
        height: int = 340,
    ) -> None:
        self._use_state(AppState.of(result=result, step=step))
        self.pairs = W.Checkbox(value=show_pairs, description="weight per cluster pair", indent=False,
                                tooltip="alpha_i: weights of the matched cluster pairs that alpha aggregates")
        super().__init__(self._parts(), [self.pairs], width=width, height=height)
        self.pairs.observe(lambda _: self._show_pairs(), names="value")

    def _has_run(self) -> bool:
        return self.result is not None and len(self.result) > 0

    def _parts(self) -> Parts:
        self._reset_lines()
        if not self._has_run():
            return placeholder_parts("Run an algorithm to see its smoothness weight here.",
                                     "smoothness weight α")
        parts = figures.alpha_parts(self.result, show_pairs=bool(self.pairs.value), t=self.step,
                                    pairs_trace=True)
        self._take_new_steps()
        return parts

    # -- the time lines, grown step by step --------------------------------------------------
    def _reset_lines(self) -> None:
        """Forget the points taken (another run, or none)."""
        self._taken = 0
        self._x: list[Any] = []
        self._y: list[float | None] = []
        self._pair_x: list[Any] = []
        self._pair_y: list[float] = []
        self._alpha_max: float | None = None  # largest alpha that is not NaN
        self._any_finite = False  # some alpha is finite
        self._pair_max: float | None = None
        self._numeric = True  # every time so far is a number
        self._text_time: Any = None  # the first time that is not a number

    def _take_new_steps(self) -> bool:
        """Append the points of the steps added since the last call; whether there were any."""
        result = self.result
        n = len(result) if result is not None else 0
        if n <= self._taken:
            return False
        for t in range(self._taken, n):
            step = result[t]
            time = plain_times([step.time])[0]
            alpha = _none_if_nan(step.alpha)
            self._x.append(time)
            self._y.append(alpha)
            if alpha is not None:
                self._alpha_max = alpha if self._alpha_max is None else max(self._alpha_max, alpha)
                self._any_finite = self._any_finite or bool(np.isfinite(alpha))
            pairs = np.asarray(step.alpha_pairs, dtype=np.float64)
            pairs = pairs[np.isfinite(pairs)].tolist()
            if pairs:
                self._pair_x.extend([time] * len(pairs))
                self._pair_y.extend(pairs)
                top = max(pairs)
                self._pair_max = top if self._pair_max is None else max(self._pair_max, top)
            if self._numeric and (isinstance(time, bool) or not isinstance(time, (int, float))):
                self._numeric, self._text_time = False, time
        self._taken = n
        return True

    def _time_axis(self) -> dict[str, Any]:
        """:func:`time_axis` of every time so far, in O(1) after the first 30 steps.

        Past ``_TICKED_STEPS`` steps the axis only depends on whether every
        time is a number; the last times (with a text time, if any) say the same.
        """
        if len(self._x) <= _TICKED_STEPS:
            return time_axis(self._x)
        window = self._x[-_TICKED_STEPS - 1:]
        return time_axis(window if self._numeric else [self._text_time, *window])

    def _show_pairs(self) -> None:
        if self._has_run():
            figures.update_by_name(self.figure, traces={PAIRS: {"visible": bool(self.pairs.value)}})

    def load(self, result: ClusteringResult | None, *, step: int = 0) -> None:
        """Show another run (None: a placeholder): the state shown is set to it."""
        self.state.show(self.state.dataset, result, step=step)
        self._state_changed()

    def _y_range(self) -> list[float]:
        """The y range :func:`ercot_nb.figures.alpha_parts` gives for the points taken."""
        y_max = self._alpha_max if self._any_finite else 1.0
        if self._pair_max is not None:
            y_max = max(y_max, self._pair_max)
        return [0.0, max(1.0, y_max) + 0.02]

    def _draw_growth(self) -> None:
        """Take in the steps a live run added: their points are appended, nothing is rebuilt.

        One message replaces the two lines' arrays (copies of the grown
        lists: plotly keeps the ones it was given) and the axes; the
        current-step marker is moved by :meth:`show_step`.
        """
        if not self._has_run() or self._taken == 0:
            self._show(self._parts())
            return
        had_weight = self._any_finite
        if not self._take_new_steps():
            return
        if self._any_finite != had_weight:  # the first weight: the note "no weight" goes
            self._show(self._parts())
            return
        names = [trace.name for trace in self.figure.data]
        axis = self._time_axis()
        relayout = {f"xaxis.{key}": axis.get(key) for key in ("tickmode", "tickvals", "type")}
        relayout["yaxis.range"] = self._y_range()
        self.figure.plotly_update(
            restyle_data={"x": [list(self._x), list(self._pair_x)],
                          "y": [list(self._y), list(self._pair_y)]},
            relayout_data=relayout,
            trace_indexes=[names.index(ALPHA), names.index(PAIRS)],
        )

    def _draw_step(self) -> None:
        """Move the current-step marker and line to the state's step."""
        if not self._has_run():
            return
        t = self.step
        time = plain_times([self.result[t].time])[0]
        value = self.result[t].alpha
        figures.update_by_name(
            self.figure,
            traces={CURRENT_STEP: {"x": [time], "y": [None if np.isnan(value) else float(value)]}},
            shapes={CURRENT_STEP: {"x0": time, "x1": time}},
        )

    def _draw_content(self) -> None:
        self._show(self._parts())

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.alpha_figure` of what is shown."""
        if not self._has_run():
            return self._static(go.Figure(*placeholder_parts("no run yet", "smoothness weight α")))
        return self._static(figures.alpha_figure(self.result, show_pairs=bool(self.pairs.value),
                                                 t=self.step))
