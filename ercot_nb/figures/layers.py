"""The layer protocol shared by the static figures and the widget views.

Every view of :mod:`ercot_nb.figures` is built by a ``*_parts`` function
(e.g. :func:`~ercot_nb.figures.partition.partition_parts`) that returns
:class:`Parts`: the traces, each named by its role (``"cluster 3"``,
``"centroids"``, ``"current step"``, ...), and a plain layout dict.  The
public ``*_figure`` builders wrap the parts in a ``go.Figure``; the widget
views show the same parts in a ``FigureWidget`` and later change single
traces and shapes *by name* with :func:`update_by_name`, never by position.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import plotly.graph_objects as go
from plotly.basedatatypes import BaseTraceType

__all__ = ["Parts", "trace_index", "shape_index", "update_by_name"]


class Parts(NamedTuple):
    """A figure not yet built: traces named by role and a plain layout dict.

    Building a ``go.Figure`` validates the whole layout, which costs tens of
    milliseconds; widgets take the parts as they are.
    """

    traces: list[BaseTraceType]
    layout: dict[str, Any]

    @property
    def names(self) -> list[str | None]:
        """The traces' names, in order."""
        return [trace.name for trace in self.traces]

    def trace(self, name: str) -> BaseTraceType:
        """The trace named ``name``.

        Raises
        ------
        KeyError
            If no trace has that name.
        """
        return self.traces[trace_index(self.traces, name)]

    def figure(self) -> go.Figure:
        """The parts as a ``plotly.graph_objects.Figure`` (every trace property checked by plotly)."""
        return go.Figure(data=[trace.to_plotly_json() for trace in self.traces], layout=self.layout)


def trace_index(traces: Any, name: str) -> int:
    """Position of the trace named ``name`` in a figure or a sequence of traces.

    Parameters
    ----------
    traces : Figure, FigureWidget or sequence of traces
    name : str

    Returns
    -------
    int

    Raises
    ------
    KeyError
        If no trace has that name (the names present are listed).
    """
    data = traces.data if hasattr(traces, "data") else traces
    for index, trace in enumerate(data):
        if trace.name == name:
            return index
    raise KeyError(f"no trace named {name!r}; traces: {[trace.name for trace in data]}")


def shape_index(layout: Any, name: str) -> int:
    """Position of the layout shape named ``name`` (a figure's layout, or a layout dict).

    Raises
    ------
    KeyError
        If no shape has that name.
    """
    shapes = layout.get("shapes") if isinstance(layout, Mapping) else layout.shapes
    for index, shape in enumerate(shapes or ()):
        shape_name = shape.get("name") if isinstance(shape, Mapping) else shape.name
        if shape_name == name:
            return index
    raise KeyError(f"no shape named {name!r}")


def update_by_name(
    figure: go.Figure,
    traces: Mapping[str, Mapping[str, Any]] | None = None,
    shapes: Mapping[str, Mapping[str, Any]] | None = None,
    layout: Mapping[str, Any] | None = None,
) -> None:
    """Change named traces, named shapes and layout paths of ``figure`` in one update.

    One ``plotly_update`` call: a ``FigureWidget`` sends one message, and
    values are stored without running plotly's validators again (give
    values a validated figure would hold).

    Parameters
    ----------
    figure : Figure or FigureWidget
    traces : mapping of str to mapping, optional
        Trace name -> ``{property path: new value}``.  Every trace named
        here must get the same property paths.
    shapes : mapping of str to mapping, optional
        Shape name -> ``{shape property: new value}`` (e.g. ``{"x0": 3}``).
    layout : mapping, optional
        Layout paths (``"title.text"``) and their values.

    Raises
    ------
    KeyError
        If a named trace or shape is missing.
    ValueError
        If the traces named get different property paths.
    """
    traces = dict(traces or {})
    paths: Sequence[str] = ()
    if traces:
        keys = {tuple(sorted(values)) for values in traces.values()}
        if len(keys) != 1:
            raise ValueError(f"every trace must get the same property paths, got {sorted(keys)}")
        paths = keys.pop()
    indexes = [trace_index(figure, name) for name in traces]
    relayout = dict(layout or {})
    for name, values in (shapes or {}).items():
        position = shape_index(figure.layout, name)
        relayout.update({f"shapes[{position}].{key}": value for key, value in values.items()})
    figure.plotly_update(
        restyle_data={path: [values[path] for values in traces.values()] for path in paths},
        relayout_data=relayout,
        trace_indexes=indexes,
    )
