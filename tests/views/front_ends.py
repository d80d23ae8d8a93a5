"""What each front end shows of one view at a step (and member), as comparable plotly JSON.

* the static figure: ``view.figure(data, t, member)`` of the registry;
* the offline page: the view's entry of :func:`ercot_nb.page.page_data`, read and applied by
  the page's own ``ercot_nb/page/explorer.js`` run in node (:class:`ExplorerJs`: base, then the
  step's change, then the member's change);
* the widget: the one an :class:`ercot_nb.widgets.Explorer` on the data displays for the view
  (:func:`widget_for`: what users see, a :class:`~ercot_nb.widgets.RegistryView` or a subclass
  with controls), moved to the step and member through the app's state; its figure
  size (``width``, ``height``) is the widget's own and left out.

:func:`plain` turns any of them into plain JSON (typed arrays as lists, NaN as None) and
:func:`assert_same` compares two, floats to float32 precision (the page stores them so).
"""
from __future__ import annotations

import base64
import copy
import math
from typing import Any

import numpy as np
import plotly.graph_objects as go

TYPES = {"i1", "u1", "i2", "u2", "i4", "u4", "f4", "f8"}


def typed(spec: dict[str, Any]) -> list[Any]:
    """A plotly.js typed array ``{"dtype", "bdata"[, "shape"]}`` as a (nested) list."""
    values = np.frombuffer(base64.b64decode(spec["bdata"]), dtype=np.dtype(spec["dtype"]).newbyteorder("<"))
    if spec.get("shape") and "," in str(spec["shape"]):
        values = values.reshape(-1, int(str(spec["shape"]).split(",")[1]))
    return values.tolist()


def plain(value: Any) -> Any:
    """Plain JSON: typed arrays and numpy values as lists and numbers, NaN and inf as None."""
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, dict):
        if isinstance(value.get("bdata"), str) and value.get("dtype") in TYPES:
            return plain(typed(value))
        return {str(key): plain(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def figure_json(traces: list[Any], layout: Any, *, validate: bool = False) -> dict[str, Any]:
    """Traces and layout as plain JSON: traces as plotly serialises them (no uids); the layout
    as given, or through plotly's validation with ``validate`` (for a layout a widget holds, in
    which ``title="..."`` has become ``title={"text": "..."}``)."""
    data = [plain(t.to_plotly_json() if hasattr(t, "to_plotly_json") else t) for t in traces]
    for trace in data:
        trace.pop("uid", None)
    if hasattr(layout, "to_plotly_json"):
        layout = layout.to_plotly_json()
    elif validate:
        layout = go.Layout(layout).to_plotly_json()
    shown = plain({key: value for key, value in layout.items() if key != "template"})
    return {"data": data, "layout": shown}  # the template: the same object everywhere


# ---------------------------------------------------------------- the static figure
def static_json(view, data, t: int, member: int | None = None, *, validate: bool = False,
                options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The registry's static figure of ``view`` at step ``t`` (and ``member``); made once per data.

    ``validate``: its layout through plotly's validation, to compare with a widget's;
    ``options``: the view's options (default its defaults; a widget's ``options``: what it shows)."""
    options = dict(options or {})

    def make() -> dict[str, Any]:
        parts = view.parts(data, t, member, **options)
        return figure_json(list(parts.traces), parts.layout, validate=validate)

    key = ("conformance: static json", view.key, t, member, validate, repr(sorted(options.items())))
    return copy.deepcopy(data.memo(key, make))


# ---------------------------------------------------------------- the widget
SIZE = ("width", "height")


APPS = ("explorer", "compare")
"""The apps whose widgets the suite runs: every figure they display is a registry view's widget."""


def app_for(data, app: str = "explorer"):
    """An app showing ``data``'s dataset and run (made once per data), as a user has it: the
    Explorer with the run, or Compare with the run as its one algorithm's."""
    from ercot_nb.widgets import Compare, Explorer

    def make():
        if app == "explorer":
            return Explorer(data.dataset, result=data.result)
        compare = Compare(data.dataset, algorithms=("ERCOT",))
        compare.state.add_run("ERCOT", data.result, name="ERCOT", select=False)
        return compare

    return data.memo(("conformance: app", app), make)


def explorer_for(data):
    """The Explorer of :func:`app_for`."""
    return app_for(data, "explorer")


def displayed(app) -> list[Any]:
    """Every figure ``app`` displays now, found by walking its widget tree (a hidden box and what it
    holds left out): the view widget holding it, or a bare ``FigureWidget`` no view holds."""
    import ipywidgets as W

    found: list[Any] = []

    def walk(widget: Any) -> None:
        layout = getattr(widget, "layout", None)
        if layout is not None and getattr(layout, "display", None) == "none":
            return
        if isinstance(getattr(widget, "figure", None), go.FigureWidget) or isinstance(widget, go.FigureWidget):
            found.append(widget)
            return
        if isinstance(widget, W.Box):
            for child in widget.children:
                walk(child)

    walk(app)
    return found


def widget_for(view, data, app: str = "explorer"):
    """The live widget ``app`` (:data:`APPS`) on ``data`` displays for ``view``, set to show it (the
    partition's axes), or None where the app displays no widget drawing that view (it does not
    apply to the data, or the app does not show it)."""
    for widget in displayed(app_for(data, app)):
        if hasattr(widget, "show_view") and widget.show_view(view.key):
            return widget
    return None


def shown_data(widget, data):
    """``data`` with the runs named as the app names them (``"ERCOT #1"``), for the static figure
    the widget is compared with (made once per data and names)."""
    from ercot_nb.figures import ViewData

    runs = {name: run for name, run in widget.state.runs.items() if len(run)}
    if list(runs) in ([], [data.result.algorithm]):
        return data
    return data.memo(("conformance: named runs", tuple(runs)), lambda: ViewData(data.result, data.dataset, runs))


def widget_json(widget, t: int, member: int | None = None) -> dict[str, Any]:
    """What the widget shows once the state is at step ``t`` (and ``member``), without its size."""
    widget.state.set_step(t)
    widget.state.select_member(member)
    figure = widget.figure
    # an empty entry left from an earlier content (a placeholder's annotations) draws nothing
    layout = {key: value for key, value in figure.layout.to_plotly_json().items()
              if key not in SIZE and not (isinstance(value, (dict, list, tuple)) and not len(value))}
    return figure_json(list(figure.data), layout)  # validated by the widget


def without_size(shown: dict[str, Any]) -> dict[str, Any]:
    """A figure's JSON without the figure size (a widget sizes itself)."""
    return {**shown, "layout": {key: value for key, value in shown["layout"].items() if key not in SIZE}}


# ---------------------------------------------------------------- the offline page
_NODE_READER = r"""
const reader = require(process.argv[1]);
const plain = (v) => ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain) :
  (v && typeof v === "object") ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v;
const read = new Map();
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const ask = JSON.parse(line);
  let out;
  try {
    if (ask.drawing) {
      read.set(ask.id, reader.reader(ask.drawing));
      out = {};
    } else {
      const drawing = read.get(ask.id);
      let parts = { data: drawing.base.data, layout: drawing.base.layout };
      for (const [t, member] of ask.chain) {   // each step's change on what the last one showed
        parts = reader.apply(parts, drawing.change("step", t), drawing.base);
        if (member !== null) { parts = reader.apply(parts, drawing.change("member", t, member), drawing.base); }
      }
      out = { parts: plain(parts) };
    }
  } catch (error) { out = { error: String(error.stack || error) }; }
  process.stdout.write(JSON.stringify(out) + "\n");
});
"""


class ExplorerJs:
    """The offline page's own reader, ``ercot_nb/page/explorer.js``, run in node: what the page draws
    of a stored view (its tables read, typed arrays, inherited and gathered traces, shared member
    trace lists and patches unpacked, changes applied) -- the page's code, not a copy of it."""

    def __init__(self) -> None:
        import shutil
        import subprocess
        from importlib import resources

        node = shutil.which("node")
        if node is None:
            raise RuntimeError("the view conformance suite runs the offline page's explorer.js in node, and no "
                               "`node` is on PATH: install Node.js (apt-get install nodejs)")
        script = str(resources.files("ercot_nb.page").joinpath("explorer.js"))
        self._process = subprocess.Popen([node, "-e", _NODE_READER, script], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self._ids: dict[int, int] = {}
        self._kept: list[Any] = []  # the drawings sent (their ids stay theirs)

    def _ask(self, question: dict[str, Any]) -> dict[str, Any]:
        import json

        self._process.stdin.write(json.dumps(question, allow_nan=False) + "\n")
        self._process.stdin.flush()
        answer = json.loads(self._process.stdout.readline() or '{"error": "node ended"}')
        assert "error" not in answer, f"explorer.js: {answer['error']}"
        return answer

    def draw(self, drawing: dict[str, Any], chain: list[tuple[int, int | None]]) -> dict[str, Any]:
        """What the page shows of ``drawing`` (a view's stored base and changes, as ``page_data``
        writes them) after the step (and member) changes of ``chain``, each applied to the last."""
        if id(drawing) not in self._ids:
            self._ids[id(drawing)] = len(self._kept)
            self._kept.append(drawing)
            self._ask({"id": self._ids[id(drawing)], "drawing": drawing})
        return self._ask({"id": self._ids[id(drawing)], "chain": [list(link) for link in chain]})["parts"]

    def close(self) -> None:
        self._process.stdin.close()
        self._process.wait(timeout=10)


def page_entry(page: dict[str, Any], key: str, **choice: Any) -> dict[str, Any]:
    """The page's stored drawing of the view ``key`` (as ``page_data`` wrote it: explorer.js reads it);
    for a view with a choice, the drawing of ``choice`` (``metric="NMI"``; default: the first, which
    the page shows first)."""
    entries = [entry for entry in page["views"] if entry["key"] == key]
    assert len(entries) == 1, f"the page holds {len(entries)} views {key!r}"
    entry = entries[0]
    if "choices" in entry:
        values = [drawing["value"] for drawing in entry["choices"]]
        value = choice.get(entry["choice"], values[0])
        assert value in values, f"the page's view {key!r} offers {values}, not {value!r}"
        assert set(choice) <= {entry["choice"]}, f"the page's view {key!r} chooses {entry['choice']}, not {choice}"
        return entry["choices"][values.index(value)]
    assert not choice, f"the page's view {key!r} has no choice"
    return entry


def stored_members(entry: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The members stored per step of a page drawing (their keys), or None (a view of no member)."""
    from ercot_nb.page import read_table

    return read_table(entry["members"]) if "members" in entry else None


def page_json(js: ExplorerJs, entry: dict[str, Any], t: int, member: int | None = None,
              *, after: list[tuple[int, int | None]] = ()) -> dict[str, Any]:
    """What the page draws of the view ``entry`` at step ``t`` (and ``member``), as plain JSON
    (``after``: the steps shown before, each change applied to the last)."""
    if member is not None:
        stored = stored_members(entry)
        assert stored is not None, "the page's view does not follow the member"
        assert str(member) in stored[t], f"member {member} of step {t} is not on the page ({sorted(stored[t])})"
    parts = js.draw(entry, [*after, (t, member)])
    return figure_json(parts["data"], parts["layout"])


# ---------------------------------------------------------------- comparison
def assert_same(shown: Any, expected: Any, path: str = "", rtol: float = 2e-7 * 8) -> None:
    """Equal plain JSON; floats equal to float32 precision (the page stores f4)."""
    if isinstance(expected, dict):
        assert isinstance(shown, dict), f"{path}: {type(shown).__name__} instead of an object"
        assert sorted(shown) == sorted(expected), (
            f"{path}: keys differ: only shown {sorted(set(shown) - set(expected))}, "
            f"only expected {sorted(set(expected) - set(shown))}")
        for key in expected:
            assert_same(shown[key], expected[key], f"{path}.{key}" if path else key, rtol)
    elif isinstance(expected, list):
        assert isinstance(shown, list), f"{path}: {type(shown).__name__} instead of an array"
        assert len(shown) == len(expected), f"{path}: {len(shown)} entries instead of {len(expected)}"
        for i, (a, b) in enumerate(zip(shown, expected)):
            assert_same(a, b, f"{path}[{i}]", rtol)
    elif isinstance(expected, float) and isinstance(shown, (int, float)) and not isinstance(shown, bool):
        assert math.isclose(shown, expected, rel_tol=rtol, abs_tol=1e-6), f"{path}: {shown!r} != {expected!r}"
    else:
        assert shown == expected, f"{path}: {shown!r} != {expected!r}"
