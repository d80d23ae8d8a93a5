"""The live front end of any registered view: one widget over one :class:`ercot_nb.figures.View`.

A view of the registry (``ercot_nb.figures.VIEWS``) says, for a run and
its data, what it draws (:meth:`~ercot_nb.figures.View.base`) and what changes
with the step and the picked member (:meth:`~ercot_nb.figures.View.step_change`,
:meth:`~ercot_nb.figures.View.member_change`), by trace, shape and layout
name.  :class:`RegistryView` shows the base in a
:class:`~.._figure_widget.SyncedFigureWidget`, applies those changes by name
when the state's step or member moves, and turns the clicks its traces
declare (``meta["click"]``) into changes of the state.  It knows no view by
name: a view added to the registry is shown by the apps as it is.
"""
from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import ipywidgets as W
import numpy as np
import plotly.graph_objects as go
from plotly.basedatatypes import Undefined

from ... import figures
from ...figures import CLICK_MEMBER, CLICK_STEP, Change, Parts, Patch, View, ViewData
from .._state import OWN_RUN, AppState
from ._base import FigureView, placeholder_parts

__all__ = ["RegistryView", "apply_change", "Shown"]


Shown = list[dict[str, Any]]
"""What a figure's traces hold, as :func:`apply_change` sent them: per trace, property path -> value."""


def apply_change(figure: go.FigureWidget, change: Change, base: Parts, layout: dict[str, Any],
                 shown: Shown | None = None) -> Shown | None:
    """Show ``change`` on ``figure`` (which shows ``base`` or another step of it), by name.

    A change with a whole trace list (``change.data``) replaces the content
    (``layout``: the base's layout, sized, updated by the change's top-level
    layout entries).  Where the figure's traces are of the same types and
    names (a step of a view whose trace layout is fixed), only the values
    that differ from ``shown`` (what the last call sent) go, in one
    ``plotly_update`` message and without plotly's validation (the values
    are a registered view's); else the traces are swapped.  Then named
    traces, shapes and layout paths are set; ``Patch`` values edit the base's
    arrays, and traces that get the same property paths are changed in one
    message.

    Returns
    -------
    list of dict or None
        What the figure's traces now hold, for the next call's ``shown``
        (None: not known, the next trace list is sent whole).
    """
    from ._figure_widget import replace_content

    if change.empty:
        return shown
    layout_paths = dict(change.layout)
    now: Shown | None = shown
    if change.data is not None:
        top = {key: value for key, value in layout_paths.items() if "." not in key}
        flat = [_flat(trace) for trace in change.data]
        if shown is not None and _same_traces(figure, flat):
            _send_changed(figure, flat, shown, top)
        else:
            traces = [figures.as_trace(trace) if isinstance(trace, dict) else trace for trace in change.data]
            replace_content(figure, traces, {**layout, **top})
        now = flat
        layout_paths = {key: value for key, value in layout_paths.items() if "." in key}
    if change.traces:
        now = None  # named values set below: the next trace list goes whole
    groups: dict[tuple[str, ...], dict[str, dict[str, Any]]] = {}
    for name, resolved in change.trace_values(base).items():  # Patch values on the base's arrays
        groups.setdefault(tuple(sorted(resolved)), {})[name] = resolved
    batches = list(groups.values())
    if (change.shapes or layout_paths) and not batches:
        batches.append({})  # else they go with the last traces: one message
    for i, traces in enumerate(batches):
        last = i == len(batches) - 1
        figures.update_by_name(figure, traces=traces or None, shapes=change.shapes if last else None,
                               layout=layout_paths if last else None)
    return now


def _flat(trace: Any) -> dict[str, Any]:
    """A trace (plain dict or plotly trace) as ``{property path: value}``, down to the leaves."""
    spec = trace if isinstance(trace, dict) else trace.to_plotly_json()
    out: dict[str, Any] = {}

    def walk(prefix: str, node: dict[str, Any]) -> None:
        for key, value in node.items():
            path = f"{prefix}{key}"
            if isinstance(value, dict) and value and path not in ("meta", "customdata"):
                walk(path + ".", value)
            else:
                out[path] = value

    walk("", spec)
    out.pop("uid", None)
    return out


def _same_traces(figure: go.FigureWidget, flat: Shown) -> bool:
    return len(figure.data) == len(flat) and all(
        old.type == new.get("type", "scatter") and old.name == new.get("name")
        for old, new in zip(figure.data, flat))


def _unchanged(old: Any, new: Any) -> bool:
    """Cheap sameness: the same object, equal scalars or strings, or two empty sequences."""
    if old is new:
        return True
    if isinstance(new, (str, int, float, bool)) and isinstance(old, (str, int, float, bool)):
        return type(old) is type(new) and old == new
    try:
        return len(old) == 0 and len(new) == 0
    except TypeError:
        return False


def _send_changed(figure: go.FigureWidget, flat: Shown, shown: Shown, layout: dict[str, Any]) -> None:
    """Send the values of ``flat`` that differ from ``shown`` (the same traces), and ``layout``:
    one message, a trace's unchanged paths left ``Undefined`` (plotly's "leave as it is")."""
    differs: dict[int, set[str]] = {}
    for i, (new, old) in enumerate(zip(flat, shown)):
        differ = {path for path in new.keys() | old.keys()
                  if path != "type" and not _unchanged(old.get(path), new.get(path))}
        # a sub-object the trace no longer has goes whole (no empty "marker": {} left)
        gone = {path for path in differ if path not in new and "." in path
                and not any(key.startswith(path.split(".")[0] + ".") for key in new)}
        differ = (differ - gone) | {path.split(".")[0] for path in gone}
        if differ:
            differs[i] = differ
    changed = sorted(differs)
    paths = sorted(set().union(*differs.values())) if differs else []
    restyle = {path: [_sendable(flat[i].get(path)) if path in differs[i] else Undefined for i in changed]
               for path in paths}
    figure.plotly_update(restyle_data=restyle, relayout_data=dict(layout), trace_indexes=changed)


def _sendable(value: Any) -> Any:
    """Arrays leave the kernel as buffers, which must be C-contiguous (a column of a 2-D array is not)."""
    if isinstance(value, np.ndarray) and not value.flags.c_contiguous:
        return np.ascontiguousarray(value)
    return value


class RegistryView(FigureView):
    """The live widget of one registered view, drawing the state's run, step and member.

    Parameters
    ----------
    view : ercot_nb.figures.View or str
        A view of ``ercot_nb.figures.VIEWS`` (or its key).
    result : ClusteringResult, optional
        Shown alone (a view made on its own); an app's views ``follow`` its state.
    dataset : TemporalDataset, optional
    step : int, default=0
    options : mapping, optional
        The view's options (see ``view.options``).
    width, height : int
        Figure size in pixels.
    controls : sequence of Widget, optional
        Shown above the figure (a subclass's controls of the view's options, see :meth:`set_options`).
    state : AppState, optional
        The state drawn until the view follows another (default: one of ``dataset``, ``result``, ``step``).
    """

    def __init__(self, view: View | str, result: Any = None, *, dataset: Any = None, step: int = 0,
                 options: dict[str, Any] | None = None, width: int = 560, height: int = 340,
                 controls: Sequence[W.Widget] = (), state: AppState | None = None) -> None:
        self.view = figures.view(view) if isinstance(view, str) else view
        if "what" not in type(self).__dict__:  # a subclass may name its view in its own words
            self.what = f"{self.view.title.lower() or self.view.key} view"
        self.options = self.view.with_defaults(options or {})
        self._data: tuple[tuple[Any, ...], ViewData | None] = ((), None)  # the ViewData drawn, by content
        self._base: Parts | None = None  # what the figure was built from
        self._use_state(state if state is not None else AppState.of(dataset, result, step=step))
        self.notes = W.HTML()
        super().__init__(self._content_parts(), controls, width=width, height=height)
        self.children = [*self.children, self.notes]
        self._show_notes()
        self._connect_clicks()
        self._draw_step()  # the state's step and member (the figure holds the base)

    def set_options(self, **options: Any) -> None:
        """Draw the view with these options changed (a control of the view changed)."""
        options = self.view.with_defaults({**self.options, **options})
        if options != self.options:
            self.options = options
            self.redraw()

    @property
    def key(self) -> str:
        """The registered view's key."""
        return self.view.key

    def show_view(self, key: str) -> bool:
        """Draw the registered view ``key`` if this widget shows it (a subclass's controls may switch
        between views, e.g. the partition's axes); whether it now draws it."""
        return self.view.key == key

    # -- what is drawn ---------------------------------------------------------------------
    def state_run(self) -> Any:
        """The state's run; for a view of the chosen partition (``view.chosen``) that does not draw
        the member itself, the run as chosen (the picked member's partition at the step shown, see
        :meth:`~ercot_nb.widgets._state.AppState.chosen_run`)."""
        if self.view.member or not self.view.chosen or self.run_name is not None:
            return super().state_run()
        return self.state.chosen_run(self.state_run_name())

    def view_data(self) -> ViewData | None:
        """The state's run and data as the view takes them (None: nothing to show)."""
        result = self.state_run()
        if result is None or not len(result):
            return None
        content = (*self._state_content(), self._state_size())
        known, data = self._data
        same = len(known) == len(content) and all(a is b for a, b in zip(known[:-1], content[:-1]))
        if same and known[-1] != content[-1] and data is not None and list(data.runs or {}) == list(self._runs()):
            data = data.grown()  # the run grew in place: the view's growing work is kept
            self._data = (content, data)
        elif not same or known[-1] != content[-1]:
            data = ViewData(result, self.state.dataset, self._runs() or None)
            self._data = (content, data)
        return data

    def _runs(self) -> dict[str, Any]:
        """The state's runs with steps (none: a view made alone names its run by its algorithm)."""
        chosen = self.view.chosen and not self.view.member
        runs = {name: self.state.chosen_run(name) if chosen else run
                for name, run in self.state.runs.items() if len(run)}
        return {} if list(runs) == [OWN_RUN] else runs

    def _note(self) -> str | None:
        """Why nothing is drawn, or None."""
        data = self.view_data()
        if data is None:
            return f"Run an algorithm to see its {self.view.title.lower()} here."
        if not self.view.applies(data):
            return f"{self.view.title}: not shown for this data or run."
        return None

    def _content_parts(self) -> Parts:
        note = self._note()
        if note is not None:
            self._base = None
            data = self.view_data()  # a run the view does not apply to: the title names data and run
            title = self.view.title if data is None else \
                data.titled(f"{html.escape(data.result.algorithm)}: {self.view.title}")
            return placeholder_parts(note, title)
        data = self.view_data()
        self._base = self.view.base(data, **self.options)
        return self._base

    def _draw_content(self) -> None:
        self._show(self._content_parts())
        self._show_notes()
        self._connect_clicks()
        self._draw_step()

    def _show_notes(self) -> None:
        """What the view says it leaves out (plain text, escaped), under the figure."""
        notes = self.view.notes(self.view_data(), **self.options) if self._base is not None else []
        value = "".join(f"<small>{html.escape(note)}</small><br>" for note in notes)
        if self.notes.value != value:
            self.notes.value = value

    def _draw_growth(self) -> None:
        """The run grew in place: the view's change to the grown base if it has one, else the base."""
        base, data = self._base, self.view_data()
        change = None if base is None or data is None or not self.view.applies(data) else \
            self.view.grown_base(data, base, **self.options)
        if change is None and base is not None and data is not None and self.view.applies(data) \
                and self.view.member:
            # a view whose step changes hold the whole trace list (partition, video, Pareto) needs no new
            # base: the step shown is unchanged, or _state_changed draws the new one next
            return
        if change is None:
            self._draw_content()
            return
        self._shown = apply_change(self.figure, change, base, self._sized(base.layout), self._shown)
        if change.data is not None:
            self._base = Parts(list(self.figure.data), change.layout_of(base.layout))
            self._connect_clicks()
        else:  # the grown run's layout; its traces are made when a change patches them
            self._base = Parts(base.traces, change.layout_of(base.layout))
            self._base_grown = bool(change.traces)

    _base_grown = False

    def _draw_step(self) -> None:
        base = self._base
        if base is None:
            return
        data, t, member = self.view_data(), self.step, self.member
        if t == 0 and member is None and self._at_base:
            self._note_asked(t)
            return
        change = self.view.step_change(data, t, **self.options)
        if self.view.member and member is not None:
            change = change.then(self.view.member_change(data, t, member, **self.options))
        if self._base_grown and any(
                isinstance(value, Patch) for values in change.traces.values() for value in values.values()):
            base = self._base = self.view.base(data, **self.options)  # the grown run's base
            self._base_grown = False
        self._shown = apply_change(self.figure, change, base, self._sized(base.layout), self._shown)
        self._at_base = False
        if change.data is not None:
            self._connect_clicks()
        self._note_asked(t)

    def _note_asked(self, t: int) -> None:
        """The title says when the step asked is not computed yet (a live run): the last one is shown."""
        asked = self.state.step
        note = f" — step {asked} not computed yet" if asked > t and self.state_run() is not None else ""
        text = self.figure.layout.title.text or ""
        stripped = bool(self._title_note) and text.endswith(self._title_note)
        if stripped:
            text = text[:-len(self._title_note)]
        if not note and not stripped:
            self._title_note = ""
            return
        self._title_note = note
        self.figure.plotly_relayout({"title.text": text + note})

    def _show(self, parts: Parts) -> None:
        super()._show(parts)
        self._at_base, self._base_grown = True, False
        self._shown = [_flat(trace) for trace in parts.traces]
        self._title_note = ""

    _at_base = True
    _title_note = ""
    _shown: Shown | None = None

    def static(self) -> go.Figure:
        """The registered view's figure of what is shown (no kernel needed)."""
        note = self._note()
        if note is not None:
            return self._static(go.Figure(*placeholder_parts(note, self.view.title)))
        figure = self.view.figure(self.view_data(), self.step, self.member, **self.options)
        figure.data = [trace for trace in figure.data if trace.visible is not False]  # what is seen
        return self._static(figure)

    # -- clicks: declared on the traces, they change the state -----------------------------
    def _connect_clicks(self) -> None:
        for trace in self.figure.data:
            meta = trace.meta if isinstance(trace.meta, dict) else None
            if meta and meta.get("click") in (CLICK_STEP, CLICK_MEMBER):
                trace.on_click(self._clicked, append=False)

    def _clicked(self, trace: Any, points: Any, _state: Any) -> None:
        if not points.point_inds:
            return
        index, meta = points.point_inds[0], trace.meta
        if meta.get("click") == CLICK_STEP:
            steps = meta.get("steps")
            self.state.set_step(int(steps[index]) if steps else int(index))
        elif trace.customdata is not None:
            self.state.select_member(int(trace.customdata[index][0]))
