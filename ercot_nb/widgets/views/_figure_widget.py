"""A Plotly ``FigureWidget`` whose views are never stale, and in-place figure updates.

Two browser-only traps of ``plotly.graph_objects.FigureWidget`` (see the
project's notebook-stack notes) shape this module:

* Changes made with ``batch_update``/``update``/``add_traces`` are sent as
  transient messages that only *existing* views receive.  A view created
  later (Voila renders the page after the whole notebook ran; JupyterLab
  re-renders widgets when a notebook is reopened) is built from the synced
  ``_widget_data``/``_widget_layout`` state, which plotly only refreshes on
  construction.  :class:`SyncedFigureWidget` refreshes that state whenever
  the *full* state is requested (a new front end asking for every model),
  and only then, so ordinary updates stay cheap.
* Each ``FigureWidget`` carries plotly's ~5 MB front-end bundle, so views
  keep one figure for their lifetime and change its content in place with
  :func:`replace_content` instead of creating new figures.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
import threading
from collections.abc import Mapping, Sequence
from copy import deepcopy
from typing import Any



class _OnFirstUse:
    """Stands for a module that is imported on its first attribute access."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __bool__(self) -> bool:  # "is it installed", as Plotly asks, without importing it
        return importlib.util.find_spec(self._name) is not None

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self._name), attribute)


def _defer_nbformat() -> None:
    """Import Plotly's widget without importing ``nbformat`` until Plotly uses it.

    ``plotly.io._renderers`` (imported with ``FigureWidget``) imports
    nbformat at once, which imports jsonschema, whose format checkers build a
    grammar at import (``rfc3987_syntax``): about 1.2 s of the Explorer's
    first page on an idle 2-core machine, for a module that only Plotly's
    ``fig.show()`` mime renderer reads (``nbformat.__version__``).  Plotly's
    optional-import registry is told nbformat is missing while that module
    imports; its reference is then a stand-in that imports nbformat on first
    use.  Where nbformat is already imported, or Plotly's internals differ,
    nothing changes.
    """
    if "nbformat" in sys.modules or "plotly.io._renderers" in sys.modules:
        return
    try:
        from _plotly_utils import optional_imports
        missing = optional_imports._not_importable
    except (ImportError, AttributeError):
        return
    if "nbformat" in missing or not isinstance(missing, set):
        return
    missing.add("nbformat")
    try:
        import plotly.io._renderers as renderers
    finally:
        missing.discard("nbformat")
    if getattr(renderers, "nbformat", "absent") is None:
        renderers.nbformat = _OnFirstUse("nbformat")


_defer_nbformat()

import plotly.graph_objects as go
from plotly.basedatatypes import BaseTraceType

import traitlets

from .._bundle import BUNDLE_TRAIT, RESYNC, RESYNCED, SHARED_MODULE, bundle_text, shared_bundle_url

__all__ = ["SyncedFigureWidget", "replace_content"]


class SyncedFigureWidget(go.FigureWidget):
    """``go.FigureWidget`` that sends its current traces and layout to new front ends.

    Its front-end module evaluates plotly's ~5 MB bundle once per page, not
    once per figure, and answers the module's request for the current figure
    once the bundle is ready (:mod:`.._bundle` says why); in local apps it
    loads the bundle from one shared URL instead.

    A figure updated from another thread (a live run) is given that
    thread's lock with :meth:`use_lock`: plotly changes the figure first and
    sends the change after, so a full state taken in between would hold the
    change *and* be followed by its message, which the new front end then
    applies twice (a trace swap fails there: "indices must be valid indices
    for gd.data").
    """

    _update_lock: threading.RLock | None = None
    _ercot_nb_plotly_bundle = traitlets.Unicode("").tag(sync=True)  # _bundle.BUNDLE_TRAIT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_msg(self._answer_resync)

    @traitlets.default(BUNDLE_TRAIT)
    def _bundle_default(self) -> str:  # read when the first state is sent
        return "" if shared_bundle_url() is not None else bundle_text()

    def use_lock(self, lock: threading.RLock | None) -> None:
        """Take the full state (for a new front end) only while holding ``lock``.

        Parameters
        ----------
        lock : threading.RLock or None
            The lock every update of the figure from another thread holds
            (an app's :attr:`AppState.lock`); None: none.
        """
        self._update_lock = lock

    @property
    def _esm(self) -> Any:
        """The front-end module, read once by anywidget before the model opens.

        The shared URL must be in the model's first state: a later ``_esm``
        change makes anywidget reload the module and draw the views again,
        and plotly's old views keep listening, so the figure's next trace
        swap fails in the page ("indices must be valid indices for gd.data").
        """
        url = shared_bundle_url()
        return url if url is not None else SHARED_MODULE

    def get_state(self, key: Any = None, drop_defaults: bool = False) -> dict[str, Any]:
        """The widget state; a full-state request carries the current figure.

        Parameters
        ----------
        key : str or iterable of str, optional
            Trait names; ``None`` asks for the full state (a front end
            creating the model), which first refreshes ``_widget_data`` and
            ``_widget_layout`` from the figure without sending an update.
        drop_defaults : bool, default=False
            As in :meth:`ipywidgets.Widget.get_state`.

        Returns
        -------
        dict
        """
        if key is None and "_layout_obj" in self.__dict__:  # not while plotly builds the figure
            with self._locked():
                self._refresh_figure_state()
                return super().get_state(key=key, drop_defaults=drop_defaults)
        return super().get_state(key=key, drop_defaults=drop_defaults)

    def _locked(self) -> contextlib.AbstractContextManager:
        """No update half done (changed here, its message not yet sent) while held."""
        return self._update_lock if self._update_lock is not None else contextlib.nullcontext()

    def _refresh_figure_state(self) -> None:
        # Written past traitlets on purpose: a notification would send the
        # whole figure again to the views that already have it.
        self._trait_values["_widget_data"] = deepcopy(self._data)
        self._trait_values["_widget_layout"] = deepcopy(self._layout_obj._props)

    def _answer_resync(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """The front end's module missed changes while plotly's bundle evaluated: send the figure now."""
        if content != RESYNC:
            return
        with self._locked():  # no change between the state and the answer
            self._refresh_figure_state()
            self.send_state(["_widget_data", "_widget_layout"])
            self.send(RESYNCED)


def _props(plotly_object: Any) -> dict[str, Any]:
    props = plotly_object.to_plotly_json()
    props.pop("type", None)
    return props


def replace_content(
    widget: go.FigureWidget,
    traces: Sequence[BaseTraceType],
    layout: Mapping[str, Any],
) -> None:
    """Make ``widget`` show ``traces`` and ``layout``, reusing the widget and its views.

    When the trace types match the widget's, every trace and the layout are
    updated in place in one message (only changed values are sent);
    otherwise the traces are swapped.  Properties set before but absent now
    are removed.  The layout's ``template`` is left as the widget has it:
    validating a template costs tens of milliseconds, and every figure of
    this package uses the same one.

    Parameters
    ----------
    widget : plotly.graph_objects.FigureWidget
        The figure on screen.
    traces : sequence of plotly traces
        The new traces.
    layout : mapping
        The new layout, as a plain dict.
    """
    layout = {name: value for name, value in layout.items() if name != "template"}
    same_traces = len(widget.data) == len(traces) and all(
        old.type == new.type for old, new in zip(widget.data, traces)
    )
    if not same_traces:
        with widget.batch_update():
            widget.data = ()
        widget.add_traces(list(traces))
    with widget.batch_update():
        if same_traces:
            for old, new in zip(widget.data, traces):
                new_props = _props(new)
                # plotly keeps explicitly set values in _props: clear the ones now unset
                stale = {
                    name: None for name in old._props
                    if name not in new_props and name not in ("uid", "type")
                }
                if stale:
                    old.update(stale, overwrite=True)
                old.update(new_props, overwrite=True)
        stale_layout = {
            name: None for name in widget.layout._props if name not in layout and name != "template"
        }
        if stale_layout:
            widget.layout.update(stale_layout, overwrite=True)
        widget.layout.update(layout, overwrite=True)
