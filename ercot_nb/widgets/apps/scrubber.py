"""Time scrubber: a Play button and a step slider that drive every view."""
from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as W

from .._aria import AriaNames
from .._state import AppState, clamp_step

__all__ = ["TimeScrubber", "StepTimes"]

SCOPE = "ercot-nb-scrubber"
# what a screen reader says for the Play widget's icon buttons and the slider's handle
# (ipywidgets gives them no name); the slider's value is read as the time label's text
ARIA_NAMES = {
    ".widget-play button:nth-of-type(1)": "play or pause the steps",
    ".widget-play button:nth-of-type(2)": "stop playing and go back to the first step",
    ".widget-play button:nth-of-type(3)": "repeat",
    ".widget-slider [role=slider]": "time step",
}
ARIA_VALUETEXT = {".widget-slider [role=slider]": ".ercot-nb-time-label"}


class StepTimes(Sequence[Any]):
    """The time labels of the first ``n`` steps of a run or dataset, read when asked (O(1) to make).

    Parameters
    ----------
    steps : ClusteringResult or TemporalDataset
        Anything whose items have a ``time``.
    n : int
        Steps reachable.
    """

    def __init__(self, steps: Any, n: int) -> None:
        self.steps, self.n = steps, min(int(n), len(steps))

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(self.n)[index]]
        if not -self.n <= index < self.n:
            raise IndexError(f"step {index} is not among the {self.n} reachable steps")
        return self.steps[index % self.n].time


class TimeScrubber(W.HBox):
    """Play + slider over time steps, with the current time label.

    The position is shown once, as the time label (``time 1990``): the
    slider has no numeric readout of its own.  A screen reader reads the
    buttons' and the slider's names (``ARIA_NAMES`` in this module) and the slider's
    value as that label; Tab reaches the slider, the arrow keys move it.

    The Play widget and the slider are tied in the kernel, not with
    ``jslink``: a kernel-side change of either (a test, a live run following
    the newest step) moves both, and a browser-side change reaches the
    kernel, so views update in both worlds.

    Following an :class:`~ercot_nb.widgets._state.AppState` (:meth:`follow`),
    it reaches the steps of the state's run (or dataset) shown so far and
    moves the state's step; the state moves it back when it clamps.

    Parameters
    ----------
    times : sequence, optional
        Time label of every step (shown next to the slider).
    interval : int, default=700
        Milliseconds per step when playing.

    Attributes
    ----------
    slider : ipywidgets.IntSlider
        The step index (0-based); observe its ``value``.
    play : ipywidgets.Play
    """

    def __init__(self, times: Sequence[Any] = (), *, interval: int = 700) -> None:
        n = max(len(times), 2)  # noUiSlider needs a non-empty range
        self.play = W.Play(value=0, min=0, max=n - 1, interval=interval, description="play",
                           tooltip="play the steps in order", show_repeat=False)
        self.slider = W.IntSlider(value=0, min=0, max=n - 1, description="", continuous_update=True,
                                  readout=False, tooltip="time step: drag, or focus it and use the "
                                                         "arrow keys",
                                  style={"description_width": "0px"},
                                  layout=W.Layout(width="420px"))
        self.time_label = W.HTML(layout=W.Layout(flex="0 0 auto"))  # "time 10" on one line
        self.time_label.add_class("ercot-nb-time-label")
        # kernel-side two-way tie (not W.link: an owner that moves the slider back, e.g. to
        # the last computed step, from inside an update would break a traitlets link)
        self.play.observe(self._play_moved, names="value")
        self.slider.observe(self._slider_moved, names="value")
        self._times: Sequence[Any] = list(times)
        self.state: AppState | None = None
        self._drawn: tuple[Any, int] | None = None
        super().__init__([self.play, self.slider, self.time_label,
                          AriaNames(SCOPE, ARIA_NAMES, ARIA_VALUETEXT)],
                         layout=W.Layout(align_items="center"))
        self.add_class(SCOPE)
        self.slider.observe(self._show_time, names="value")
        self.slider.disabled = self.play.disabled = len(times) <= 1
        self._show_time()

    @property
    def value(self) -> int:
        """Current step index."""
        return int(self.slider.value)

    @value.setter
    def value(self, step: int) -> None:
        self.slider.value = int(step)

    def _play_moved(self, change: dict[str, Any]) -> None:
        if self.slider.value != change["new"]:
            self.slider.value = change["new"]

    def _slider_moved(self, change: dict[str, Any]) -> None:
        if self.play.value != change["new"]:
            self.play.value = change["new"]

    @property
    def max(self) -> int:
        """Last step index the scrubber can reach."""
        return int(self.slider.max)

    def set_steps(self, times: Sequence[Any], *, value: int | None = None) -> None:
        """Set the reachable steps and their time labels, keeping the position if possible.

        Parameters
        ----------
        times : sequence
            Time label of every reachable step.
        value : int, optional
            Step to move to; default the current one, clamped to the range.

        Notes
        -----
        Range and value go to the page as separate messages, in an order
        that never leaves the value outside the range: the page's slider
        clamps an out-of-range value and sends the clamped one back, which
        would move the kernel's step behind the user's back.  A single step
        keeps a range of two with the slider disabled (noUiSlider needs a
        non-empty range).
        """
        self._times = times if isinstance(times, StepTimes) else list(times)
        last = max(len(self._times) - 1, 0)
        target = clamp_step(self.value if value is None else value, len(self._times))
        top = max(last, 1)
        if top >= self.slider.max:  # grow the range first, then move
            self.slider.max = self.play.max = top
            self.slider.value = target
        else:  # move first, then shrink
            self.slider.value = target
            self.slider.max = self.play.max = top
        self.slider.disabled = self.play.disabled = last == 0
        self._show_time()

    def follow(self, state: AppState) -> TimeScrubber:
        """Reach the steps of ``state``'s run or dataset shown so far and move its step.

        Returns
        -------
        TimeScrubber
            This scrubber.
        """
        self.state = state
        state.observe(self._state_changed, names=["dataset", "runs", "run", "n_done", "step"])
        self.observe_step(self._moved)
        self._state_changed()
        return self

    def _state_changed(self, change: dict[str, Any] | None = None) -> None:
        state = self.state
        with state.lock:
            steps = state.result if state.result is not None else state.dataset
            if steps is None:
                return
            if self._drawn is None or self._drawn[0] is not steps or self._drawn[1] != state.n_done:
                self._drawn = (steps, state.n_done)
                self.set_steps(StepTimes(steps, max(state.n_done, 1)), value=state.step)
            elif self.value != state.step:
                self.value = state.step

    def _moved(self, step: int) -> None:
        state = self.state
        with state.lock:
            state.set_step(step)
            if self.value != state.step:  # a step not reached yet: back
                self.value = state.step

    def observe_step(self, handler: Callable[[int], None]) -> None:
        """Call ``handler(step)`` whenever the step changes."""
        self.slider.observe(lambda change: handler(int(change["new"])), names="value")

    @property
    def label(self) -> str:
        """The time label of the current step, as plain text."""
        step = self.value
        return str(self._times[step]) if step < len(self._times) else "–"

    def _show_time(self, change: dict[str, Any] | None = None) -> None:
        # time labels come from the data (a CSV column): escaped
        self.time_label.value = f"time <b>{html.escape(self.label)}</b>"
