"""Shared frame of the figure views: one persistent figure, controls, static copy."""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import ipywidgets as W
import plotly.graph_objects as go

from .. import figures
from ..figures import Parts
from ._figure_widget import SyncedFigureWidget, apply_values, replace_content

__all__ = ["FigureView", "CachedStepView", "Parts", "placeholder_parts"]


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
    """A view: optional controls above one :class:`SyncedFigureWidget`.

    The figure widget is created once, with its data in the constructor,
    and only its content changes afterwards (see :mod:`._figure_widget`).
    Subclasses compute figure parts with the ``*_parts`` builders of
    :mod:`ercot_nb.figures` (the same parts the public figures wrap, see
    :mod:`ercot_nb.figures.layers`), pass them to :meth:`_show`, and change
    single traces and shapes by name (:func:`ercot_nb.figures.update_by_name`);
    :meth:`static` returns the kernel-free figure of what is on screen.
    The box never grows wider than its container: a figure wider than the
    output area scrolls instead of being cut off.

    Parameters
    ----------
    parts : (traces, layout)
        Initial content.
    controls : sequence of Widget, optional
        Shown in a row above the figure.
    width, height : int
        Figure size in pixels.
    """

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
        self.controls = W.HBox(list(controls), layout=W.Layout(align_items="center"))
        super().__init__([self.controls, self.figure] if controls else [self.figure],
                         layout=W.Layout(max_width="100%", overflow="auto"))

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


_Payload = tuple[dict[str, list[Any]], str]


class CachedStepView(FigureView):
    """A view whose trace layout is fixed per (dataset, run): a step only changes values.

    Each (step, member)'s per-trace values and title are computed once
    (:meth:`_compute`) and kept for the last ``cache_steps`` steps shown;
    :meth:`show_step` sends only the values that changed, in one message.
    Subclasses set ``self.cache_steps`` and implement :meth:`_n_steps` and
    :meth:`_compute`, and call :meth:`_reset` when their content changes.
    """

    def _reset(self, step: int = 0) -> None:
        self._cache: OrderedDict[tuple[int, int | None], _Payload] = OrderedDict()
        self._step, self._member, self._requested = self._clamp(step), None, int(step)
        self._shown_values: dict[str, list[Any]] | None = None

    def _n_steps(self) -> int:
        raise NotImplementedError

    def _compute(self, t: int, member: int | None) -> _Payload:
        raise NotImplementedError

    @property
    def step(self) -> int:
        """The step shown."""
        return self._step

    @property
    def member(self) -> int | None:
        """The population member shown instead of the knee, or None."""
        return self._member

    def _clamp(self, step: int) -> int:
        return min(max(int(step), 0), max(self._n_steps() - 1, 0))

    def show_step(self, step: int, member: int | None = None) -> None:
        """Show ``step``: the knee's partition, or that of population ``member``.

        Parameters
        ----------
        step : int
            Step index; a step not computed yet shows the last computed one.
        member : int, optional
            Index into the step's final population (a-posteriori choice).
        """
        self._requested = int(step)
        self._step = self._clamp(step)
        self._member = member
        if not self._n_steps():
            return
        values, title = self._payload(self._step, member)
        if int(step) > self._step:
            title += f" — step {int(step)} not computed yet"
        apply_values(self.figure, values, {"title.text": title}, shown=self._shown_values)
        self._shown_values = values

    def show_member(self, member: int | None) -> None:
        """Show another member of the current step's population (None: the knee)."""
        self.show_step(self._step, member)

    def _payload(self, t: int, member: int | None) -> _Payload:
        key = (t, member)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        payload = self._compute(t, member)
        self._cache[key] = payload
        while len(self._cache) > self.cache_steps:
            self._cache.popitem(last=False)
        return payload

    def _show_structure(self, parts: Parts) -> None:
        """Replace the trace layout (new data, run or axes): values are sent afresh."""
        self._show(parts)
        self._shown_values = None

    def precompute(self, steps: Sequence[int] | None = None) -> None:
        """Compute and cache the values of ``steps`` (default: as many as the cache holds)."""
        for t in range(min(self._n_steps(), self.cache_steps)) if steps is None else steps:
            self._payload(t, None)
