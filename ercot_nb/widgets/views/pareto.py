"""Pareto view: the registry's Pareto view, with the objectives choice, "back to the knee" and "use this partition".

What is drawn, and what a click on a member does (its traces declare
``meta["click"] = "member"``), is the registered view's
(:class:`ercot_nb.figures.views.Pareto`), step by step through
:class:`~.registry.RegistryView`; this widget adds the buttons of its
``accumulated`` option, "back to the knee" and "Use this partition from here on".
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as W
import plotly.graph_objects as go

from ...figures import CLICK_MEMBER
from ...result import ClusteringResult
from .._state import AppState
from .registry import RegistryView

__all__ = ["ParetoView"]


class ParetoView(RegistryView):
    """Final population of the current step in normalised objective space.

    Clicking a point selects that member (the a-posteriori choice the paper
    argues for): registered handlers get its index, e.g. to show its
    partition.  "back to the knee" clears the choice.

    Parameters
    ----------
    result : ClusteringResult, optional
        The run; without one the view says so.
    step : int, default=0
    accumulated : bool, default=True
        Show the accumulated objectives the knee was chosen on, or the raw.
    cache_steps : int, default=128
        Steps :meth:`precompute` computes ahead.
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
        self.cache_steps = cache_steps
        self._handlers: list[Callable[[int | None], None]] = []
        self._use_handlers: list[Callable[[int, int], None]] = []
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
        super().__init__("pareto", options={"accumulated": bool(accumulated)}, width=width, height=height,
                         controls=[self.objectives, self.knee_button, self.hint],
                         state=AppState.of(result=result, step=step))
        self.children = [self.controls, W.HBox([self.use_button]), *self.children[1:]]
        self.objectives.observe(lambda change: self.set_options(accumulated=bool(change["new"])), names="value")
        self.knee_button.on_click(lambda _: self.select(None))
        self.use_button.on_click(lambda _: self._use())

    @property
    def accumulated(self) -> bool:
        """Whether the accumulated objectives are shown."""
        return bool(self.objectives.value)

    @property
    def selected(self) -> int | None:
        """The member picked instead of the knee, or None (the state's)."""
        return self.member

    def _draw_step(self) -> None:
        member = self.member
        self.knee_button.disabled = member is None
        self.use_button.disabled = member is None or not self._use_handlers
        super()._draw_step()

    def _draw_content(self) -> None:
        super()._draw_content()
        member = self.member
        self.knee_button.disabled = member is None
        self.use_button.disabled = member is None or not self._use_handlers

    def precompute(self) -> None:
        """Compute the first steps (knee selected) ahead of scrubbing."""
        data = self.view_data()
        if data is None or not self.view.applies(data):
            return
        for t in range(min(data.n_steps, self.cache_steps)):
            self.view.step_change(data, t, **self.options)

    def load(self, result: ClusteringResult | None, *, step: int = 0) -> None:
        """Show another run (None: a placeholder) at ``step``, with the knee selected (the state's)."""
        self.state.show(self.state.dataset, result, step=step)
        self._state_changed()

    def select(self, member: int | None) -> None:
        """Pick ``member`` of the current step (None or the knee: back to the knee).

        The state's member changes (every view of the state draws it, this
        one too).  Registered handlers (:meth:`on_select`) are called with
        the member, or None for the knee.
        """
        result = self.result
        if member is not None and result is not None and len(result):
            member = None if int(member) == result[self.step].knee else int(member)
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

    def _clicked(self, trace: Any, points: Any, _state: Any) -> None:
        """A click the registered view declares (``meta["click"]``): a member is picked through
        :meth:`select` (its handlers told)."""
        meta = trace.meta if isinstance(trace.meta, dict) else {}
        if meta.get("click") == CLICK_MEMBER and points.point_inds and trace.customdata is not None:
            self.select(int(trace.customdata[points.point_inds[0]][0]))
        else:
            super()._clicked(trace, points, _state)

    def static(self) -> go.Figure:
        """The registered view's figure of what is shown (no kernel needed)."""
        return super().static()
