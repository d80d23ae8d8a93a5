"""Pareto view: a step's final population, raw or accumulated; click to pick a member."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import ipywidgets as W
import plotly.graph_objects as go

from ... import figures
from ...figures import KMax, is_member_trace
from ...result import ClusteringResult
from .._state import AppState
from ._base import FigureView, Parts, placeholder_parts
from ._figure_widget import apply_values, trace_values

__all__ = ["ParetoView"]

# What differs between steps of one run; the trace layout is fixed (pareto_frame).
_STEP_PATHS = ("x", "y", "customdata", "marker", "showlegend")


class ParetoView(FigureView):
    """Final population of the current step in normalised objective space.

    Clicking a point selects that member (the a-posteriori choice the paper
    argues for): registered handlers get its index, e.g. to show its
    partition.  "back to the knee" clears the choice.  The trace layout is
    fixed per run (:func:`ercot_nb.figures.pareto_parts` with ``fixed=True``,
    the parts of :func:`ercot_nb.figures.pareto_frame`), so scrubbing only
    updates data.

    Parameters
    ----------
    result : ClusteringResult, optional
        The run; without one the view says so.
    step : int, default=0
    accumulated : bool, default=True
        Show the accumulated objectives the knee was chosen on, or the raw.
    cache_steps : int, default=128
        Steps whose values are kept (a step costs the same at any length of
        the run: the largest k is kept up to date as the run grows).
    width, height : int
        Figure size in pixels.
    """

    what = "Pareto front view"

    def __init__(
        self,
        result: ClusteringResult | None = None,
        *,
        step: int = 0,
        accumulated: bool = True,
        cache_steps: int = 128,
        width: int = 560,
        height: int = 480,
    ) -> None:
        self._use_state(AppState.of(result=result, step=step))
        self.cache_steps = cache_steps
        self._k_max = KMax()  # the largest k of the run's steps: fixes the colours of k
        self._take_in_steps()
        self._handlers: list[Callable[[int | None], None]] = []
        self.objectives = W.ToggleButtons(
            options=[("accumulated", True), ("raw", False)], value=accumulated,
            tooltip="objectives the knee was chosen on (accumulated) or of this step alone (raw)",
            style={"button_width": "auto"},  # "accumulated" whole in JupyterLab's font too
        )
        self.knee_button = W.Button(description="back to the knee", icon="star", disabled=True,
                                    tooltip="show the knee's partition again",
                                    layout=W.Layout(width="150px"))
        self.use_button = W.Button(
            description="Use this partition from here on", icon="share", disabled=True,
            layout=W.Layout(width="260px"),
            tooltip="continue the run from this step with the member picked (steps before stay)")
        self.hint = W.HTML("<small>click a point to show its partition</small>")
        self._use_handlers: list[Callable[[int, int], None]] = []
        self._cache: OrderedDict[tuple[int, bool, int | None],
                                 tuple[dict[str, list[Any]], dict[str, Any]]] = OrderedDict()
        self._shown_values: dict[str, list[Any]] | None = None
        super().__init__(self._parts(), [self.objectives, self.knee_button, self.hint],
                         width=width, height=height)
        self.children = [self.controls, W.HBox([self.use_button]), self.figure]
        self._connect_clicks()
        self.objectives.observe(lambda _: self._redraw(), names="value")  # cache keyed by the choice
        self.knee_button.on_click(lambda _: self.select(None))
        self.use_button.on_click(lambda _: self._use())

    # -- content --------------------------------------------------------------------------
    @property
    def accumulated(self) -> bool:
        return bool(self.objectives.value)

    @property
    def selected(self) -> int | None:
        """The member picked instead of the knee, or None (the state's)."""
        return self.member

    def _parts(self, t: int | None = None, member: int | None = None) -> Parts:
        """The parts at step ``t`` with ``member`` picked (default: the state's step and member)."""
        if self.result is None or not len(self.result):
            return placeholder_parts("Run an algorithm to see its final population here.",
                                     "Pareto front")
        if t is None:
            t, member = self.step, self.member
        parts = figures.pareto_parts(self.result, t, accumulated=self.accumulated,
                                     selected=member, fixed=True, k_max=self._k_max.value)
        parts.layout["title"]["text"] = self._titled(parts.layout["title"]["text"])
        return parts

    def _titled(self, text: str) -> str:
        """``text`` naming the dataset shown, as every registered view's title does."""
        return figures.ViewData(self.result, self.state.dataset).titled(text)

    def _take_in_steps(self) -> bool:
        """Update the largest k with the steps added since the last call; whether it grew."""
        if self.result is None:
            self._k_max = KMax()
            return False
        return self._k_max.extend(self.result)

    def _step_values(self, t: int, member: int | None) -> tuple[dict[str, list[Any]], dict[str, Any]]:
        """Per-trace and layout values of step ``t`` with ``member`` picked, cached."""
        key = (t, self.accumulated, member)
        cached = self._cache.get(key)
        if cached is None:
            traces, layout = self._parts(t, member)
            cached = (trace_values(traces, _STEP_PATHS),
                      {"title.text": layout["title"]["text"], "annotations": layout["annotations"]})
            self._cache[key] = cached
            while len(self._cache) > self.cache_steps:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return cached

    def _draw_step(self) -> None:
        """Show the state's step and member (values only: the trace layout is the run's)."""
        member = self.member
        self.knee_button.disabled = member is None
        self.use_button.disabled = member is None or not self._use_handlers
        if self.result is None or not len(self.result):
            return
        values, layout = self._step_values(self.step, member)
        apply_values(self.figure, values, layout, shown=self._shown_values)
        self._shown_values = values

    def precompute(self) -> None:
        """Compute the content of the first steps the cache holds (knee selected) ahead of scrubbing."""
        if self.result is None:
            return
        for t in range(min(len(self.result), self.cache_steps)):
            self._step_values(t, None)

    def load(self, result: ClusteringResult | None, *, step: int = 0) -> None:
        """Show another run (None: a placeholder) at ``step``, with the knee selected (the state's)."""
        self.state.show(self.state.dataset, result, step=step)
        self._state_changed()

    def _draw_content(self) -> None:
        self._take_in_steps()
        self._cache.clear()
        self._show(self._parts())
        self._shown_values = None
        self._connect_clicks()
        member = self.member
        self.knee_button.disabled = member is None
        self.use_button.disabled = member is None or not self._use_handlers

    def _draw_growth(self) -> None:
        """Take in the steps a live run added: new traces only when a larger k appeared."""
        if self._take_in_steps() or self._shown_values is None:
            self._draw_content()
        else:
            self._draw_step()

    def _redraw(self) -> None:
        self._draw_step()  # the values of the other objectives (cached by the choice)

    def select(self, member: int | None) -> None:
        """Pick ``member`` of the current step (None or the knee: back to the knee).

        The state's member changes (every view of the state draws it, this
        one too: :attr:`selected` is the state's).  Registered
        handlers (:meth:`on_select`) are called with the member, or None for
        the knee.
        """
        if member is not None and self.result is not None and len(self.result):
            knee = self.result[self.step].knee
            member = None if int(member) == knee else int(member)
        self.state.select_member(member)
        self._state_changed()
        for handler in self._handlers:
            handler(member)

    def on_use(self, handler: Callable[[int, int], None]) -> None:
        """Call ``handler(step, member)`` when "Use this partition from here on" is pressed."""
        self._use_handlers.append(handler)

    def _use(self) -> None:
        if self.member is None:
            return
        step, member = self.step, self.member
        for handler in self._use_handlers:
            handler(step, member)

    def on_select(self, handler: Callable[[int | None], None]) -> None:
        """Call ``handler(member)`` when a member is picked (None: the knee)."""
        self._handlers.append(handler)

    # -- clicks -----------------------------------------------------------------------------
    def _connect_clicks(self) -> None:
        for trace in self.figure.data:
            if is_member_trace(trace.name):
                trace.on_click(self._clicked, append=False)

    def _clicked(self, trace: Any, points: Any, state: Any) -> None:
        if not points.point_inds or trace.customdata is None:
            return
        member = int(trace.customdata[points.point_inds[0]][0])
        self.select(member)

    def static(self) -> go.Figure:
        """:func:`ercot_nb.figures.pareto_figure` of what is shown."""
        if self.result is None or not len(self.result):
            return self._static(go.Figure(*placeholder_parts("no run yet", "Pareto front")))
        figure = figures.pareto_figure(self.result, self.step, accumulated=self.accumulated, selected=self.member)
        figure.layout.title.text = self._titled(figure.layout.title.text)
        return self._static(figure)
