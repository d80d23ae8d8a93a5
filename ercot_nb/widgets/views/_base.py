"""Shared frame of the figure views: one persistent figure, controls, static copy, the state rendered.

A view keeps no copy of what is shown: it always draws one
:class:`~ercot_nb.widgets._state.AppState` (an app's, or its own when made
alone, :meth:`AppState.of`), reads the dataset, run, step and member from it
when it draws, and its methods (``show_step``, ``load``, ``select``...) change
that state.  What it remembers is only what its figure holds (to send the
smallest update): :attr:`FigureView._drawn`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import ipywidgets as W
import plotly.graph_objects as go

from ... import figures
from ...data import TemporalDataset
from ...figures import Parts
from ...result import ClusteringResult
from ._figure_widget import SyncedFigureWidget, replace_content
from .._messages import explain
from .._state import AppState

__all__ = ["FigureView", "Parts", "placeholder_parts"]


def placeholder_parts(text: str, title: str = "") -> Parts:
    """Empty axes with a centred note (e.g. "no run yet"), as figure parts.

    Parameters
    ----------
    text : str
        The note.
    title : str, default=""
        Figure title.

    Returns
    -------
    Parts
        No traces and a layout with the note.
    """
    return Parts([], dict(
        title=dict(text=title),
        template=figures.TEMPLATE,
        xaxis=dict(visible=False),
        yaxis=dict(visible=False),
        annotations=[dict(text=text, x=0.5, y=0.5, xref="paper", yref="paper",
                          showarrow=False, font=dict(size=14, color="#9E9E9E"))],
    ))


class FigureView(W.VBox):
    """A view: optional controls above one :class:`SyncedFigureWidget`, drawing one :class:`AppState`.

    The figure widget is created once, with its data in the constructor,
    and only its content changes afterwards (see :mod:`._figure_widget`).
    Subclasses compute figure parts with the ``*_parts`` builders of
    :mod:`ercot_nb.figures` (the same parts the public figures wrap, see
    :mod:`ercot_nb.figures.layers`), pass them to :meth:`_show`, and change
    single traces and shapes by name (:func:`ercot_nb.figures.update_by_name`);
    :meth:`static` returns the kernel-free figure of what is on screen.
    The box never grows wider than its container: a figure wider than the
    output area scrolls instead of being cut off.

    What is shown is read from :attr:`state` whenever the view draws:
    :attr:`result`, :attr:`step`, :attr:`member` are the state's (the step
    clamped to the run's steps by :meth:`AppState.step_of`).  A subclass
    calls :meth:`_draw_state` (or :meth:`FigureView.__init__` with its
    parts) after :meth:`_use_state`.

    Parameters
    ----------
    parts : (traces, layout)
        Initial content.
    controls : sequence of Widget, optional
        Shown in a row above the figure.
    width, height : int
        Figure size in pixels.
    """

    what = "view"
    """What the view shows, in words (named in its error messages)."""
    draws_first = False
    """Redraw before the other views when the state changes (``AppState.follow`` in
    ``ercot_nb/widgets/_state.py``)."""

    state: AppState
    """The state the view draws (its own until :meth:`follow` gives it an app's)."""
    run_name: str | None = None
    _when: Callable[[TemporalDataset], bool] | None = None
    _drawn: tuple[Any, ...] | None = None
    """What the figure holds: (content, size, step asked, step, member) of the state when last drawn."""

    def __init__(
        self,
        parts: Parts,
        controls: Sequence[W.Widget] = (),
        *,
        width: int,
        height: int,
    ) -> None:
        self.width, self.height = width, height
        traces, layout = parts
        self.figure = SyncedFigureWidget(data=list(traces), layout=self._sized(layout))
        state = getattr(self, "state", None)
        self.figure.use_lock(state.lock if state is not None else None)  # live runs update it under it
        self.controls = W.HBox(list(controls), layout=W.Layout(align_items="center"))
        super().__init__([self.controls, self.figure] if controls else [self.figure],
                         layout=W.Layout(max_width="100%", overflow="auto"))
        self._drawn = self._state_key()

    def _sized(self, layout: dict[str, Any]) -> dict[str, Any]:
        return {**layout, "width": self.width, "height": self.height}

    def _show(self, parts: Parts) -> None:
        """Replace the content in place (same trace layout: one small update)."""
        traces, layout = parts
        replace_content(self.figure, traces, self._sized(layout))

    def _static(self, figure: go.Figure) -> go.Figure:
        figure.update_layout(width=self.width, height=self.height)
        return figure

    def static(self) -> go.Figure:
        """A plain Plotly figure of what the view shows (no kernel needed)."""
        raise NotImplementedError

    # -- what is shown: read from the state ------------------------------------------------
    def state_run(self) -> ClusteringResult | None:
        """The run of the state this view shows (None: the dataset)."""
        name = self.state_run_name()
        return self.state.runs.get(name) if name is not None else None

    def state_run_name(self) -> str | None:
        """The name of the run shown: the view's own run (Compare), else the state's selected one."""
        return self.state.run if self.run_name is None else self.run_name

    def state_member(self) -> int | None:
        """The front member to show instead of the knee (only of the state's selected run)."""
        return self.state.member if self.run_name is None else None

    @property
    def dataset(self) -> TemporalDataset | None:
        """The data shown (the state's)."""
        return self.state.dataset

    @property
    def result(self) -> ClusteringResult | None:
        """The run shown (the state's), or None."""
        return self.state_run()

    @property
    def step(self) -> int:
        """The step shown: the state's, clamped to the run's steps (:meth:`AppState.step_of`)."""
        return self.state.step_of(self.result)

    @property
    def member(self) -> int | None:
        """The population member shown instead of the knee, or None (the state's)."""
        return self.state_member()

    # -- changes: made on the state, drawn from it -----------------------------------------
    def show_step(self, step: int) -> None:
        """Show ``step`` (the state's step changes; every view of the state follows)."""
        self.state.set_step(step)
        self._state_changed()

    def refresh(self) -> None:
        """Take in the steps a live run added (the state's run grew in place)."""
        name = self.state_run_name()
        if name is not None and name in self.state.runs:
            self.state.grow(name)
        self._state_changed()

    def redraw(self) -> None:
        """Draw the state afresh (a control of the view changed how it is drawn)."""
        self._drawn = None
        self._state_changed()

    # -- following an AppState ---------------------------------------------------------------
    def _use_state(self, state: AppState) -> None:
        """Draw ``state`` from now on (observed; nothing is drawn here)."""
        old = getattr(self, "state", None)
        if old is not None:
            old.unfollow(self._state_changed)
        self.state = state
        state.follow(self._state_changed, first=self.draws_first)
        figure = getattr(self, "figure", None)
        if figure is not None:
            figure.use_lock(state.lock)

    def follow(self, state: AppState, *, run: str | None = None,
               when: Callable[[TemporalDataset], bool] | None = None,
               drawn: bool = False) -> FigureView:
        """Draw ``state`` from now on: its dataset, run, step and member, and nothing else.

        The view observes the state and redraws only what changed: another
        dataset or run is loaded, a grown run is taken in, another step or
        member is shown.  An error while drawing goes to the state's status
        line.

        Parameters
        ----------
        state : AppState
        run : str, optional
            Always show this run (Compare's one view per algorithm);
            default the state's selected run, and its member.
        when : callable, optional
            Draw only datasets for which ``when(dataset)`` is true (the
            video view and the scatter view share a place in the page).
        drawn : bool, default=False
            The view was just made from the state's dataset, run and step:
            it is not drawn a second time.

        Returns
        -------
        FigureView
            This view.
        """
        self.run_name, self._when = run, when
        self._use_state(state)
        self._drawn = self._state_key() if drawn else None
        self._state_changed()
        return self

    def unfollow(self) -> None:
        """Stop drawing the state (the figure keeps what it shows)."""
        self.state.unfollow(self._state_changed)

    def _state_key(self) -> tuple[Any, ...]:
        """What of the state the figure shows: content (by identity), size, step asked, step, member."""
        return (self._state_content(), self._state_size(), self.state.step, self.step, self.member)

    def _state_changed(self, change: dict[str, Any] | None = None) -> None:
        state = self.state
        if self._when is not None and (state.dataset is None or not self._when(state.dataset)):
            return  # another view's data
        try:
            with state.lock:
                key, drawn = self._state_key(), self._drawn
                if drawn is None or len(drawn[0]) != len(key[0]) or any(
                        a is not b for a, b in zip(drawn[0], key[0])):
                    self._draw_content()
                else:
                    if drawn[1] != key[1]:
                        self._draw_growth()
                    if drawn[2:] != key[2:]:
                        self._draw_step()
                self._drawn = key
        except Exception as exc:  # noqa: BLE001 - shown in the status line, logged
            self._drawn = None  # redo it all at the next change
            state.status = explain(exc, f"drawing the {self.what}")

    # what the view draws, for _state_changed; a view of one run draws that run
    def _state_content(self) -> tuple[Any, ...]:
        return (self.state.dataset, self.state_run())

    def _state_size(self) -> Any:
        result = self.state_run()
        return len(result) if result is not None else 0

    def _draw_content(self) -> None:
        """Draw the state's dataset and run, at its step and member."""
        raise NotImplementedError

    def _draw_step(self) -> None:
        """Show the state's step and member."""
        raise NotImplementedError

    def _draw_growth(self) -> None:
        """Take in the steps a live run added (then :meth:`_draw_step` runs if the step moved)."""
        self._draw_content()
