"""Shared frame of the figure views: one persistent figure, controls, static copy."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ipywidgets as W
import plotly.graph_objects as go

from .. import figures
from ..figures import Parts
from ._figure_widget import SyncedFigureWidget, replace_content

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
