"""Sphinx helpers of ercot-nb's documentation: notebook outputs that work offline.

The tutorials are stored with their outputs and rendered without running them
(myst-nb, ``nb_execution_mode = "off"``). Their Plotly figures carry two
representations: the figure as JSON (``application/vnd.plotly.v1+json``) and an
HTML snippet that loads plotly.js and MathJax from CDNs. The site renders the
JSON instead, with the plotly.js that ships inside the installed ``plotly``
package, so every figure is interactive without a network and the site can be
opened from disk:

- ``NotebookOutputs`` is a myst-nb mime renderer (registered through the entry
  point in ``ercot_docs-0.1.dist-info``, found because ``conf.py`` puts this
  folder on ``sys.path``). It writes each figure's JSON into a
  ``<script type="application/json">`` element (``<``, ``>`` and ``&`` escaped,
  so no output text can close the element), drops plotly's CDN loader snippet,
  and replaces a live widget (which needs a kernel) with a short note.
- ``setup`` copies ``plotly.min.js`` into ``_static`` and adds it, with
  ``_static/ercot-plotly.js`` that draws the figures, to the pages that have one.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes

PLOTLY_MIME = "application/vnd.plotly.v1+json"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
FIGURE_CLASS = "ercot-plotly-figure"
_SCRIPTS_ONLY = re.compile(r"\s*(?:<script\b[^>]*>.*?</script>\s*)+", re.S | re.I)
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def figure_html(figure: dict[str, Any]) -> str:
    """HTML of one Plotly figure: an empty plot div and the figure as escaped JSON.

    Parameters
    ----------
    figure : dict
        A Plotly figure as stored in a notebook (``data``, ``layout``, optionally
        ``frames`` and ``config``).

    Returns
    -------
    str
        A ``div`` holding the plot div and a ``<script type="application/json">``
        that ``_static/ercot-plotly.js`` reads.
    """
    if not isinstance(figure, dict):
        raise TypeError(f"a Plotly output must be a JSON object, got {type(figure).__name__}")
    height = (figure.get("layout") or {}).get("height")
    height = int(height) if isinstance(height, (int, float)) and 50 <= height <= 5000 else 450
    payload = json.dumps(figure, separators=(",", ":"), allow_nan=False)
    payload = re.sub(r"[<>&]", lambda m: _JSON_ESCAPES[m.group()], payload)
    return (
        '<div class="ercot-plotly">'
        f'<div class="plotly-graph-div" style="height:{height}px; width:100%;"></div>'
        f'<script type="application/json" class="{FIGURE_CLASS}">{payload}</script>'
        "</div>"
    )


def is_plotly_loader(html: str) -> bool:
    """True for plotly's "load plotly.js from the CDN" snippet (scripts only, no figure)."""
    return ("cdn.plot.ly" in html or "PlotlyConfig" in html) and bool(_SCRIPTS_ONLY.fullmatch(html))


class NotebookOutputs:
    """myst-nb mime renderer plugin: Plotly JSON, plotly's CDN loader, live widgets."""

    # Lower is preferred; myst-nb's HTML default puts widgets at 10 and text/html at 30.
    mime_priority_overrides = [("html", PLOTLY_MIME, 5), ("dirhtml", PLOTLY_MIME, 5)]

    @staticmethod
    def handle_mime(renderer: Any, data: Any, inline: bool) -> list[nodes.Element] | None:
        """Render ``data`` (a myst-nb ``MimeData``) or return None to leave it to myst-nb."""
        if inline:
            return None
        if data.mime_type == PLOTLY_MIME:
            content = data.content
            if isinstance(content, str):
                content = json.loads(content)
            return [nodes.raw("", figure_html(content), format="html", classes=["output", "plotly"])]
        if data.mime_type == "text/html" and is_plotly_loader(data.string):
            return []
        if data.mime_type == WIDGET_MIME:
            note = nodes.paragraph(
                text="(A live Jupyter widget: it needs a running kernel. Open this notebook "
                     "on Binder or in JupyterLab to use it.)",
                classes=["output", "ercot-widget-note"],
            )
            return [note]
        return None


def _reexported_data_doc(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """Give a constant re-exported by a package (``ercot_nb.figures.WEBGL_THRESHOLD``)
    the docstring written under its assignment in the defining module."""
    if what != "data" or lines or "." not in name:
        return
    import importlib
    import pkgutil

    from sphinx.pycode import ModuleAnalyzer

    package_name, attr = name.rsplit(".", 1)
    package = importlib.import_module(package_name)
    for info in pkgutil.walk_packages(getattr(package, "__path__", []), package_name + "."):
        module = importlib.import_module(info.name)
        if getattr(module, attr, None) is not obj:
            continue
        docs = ModuleAnalyzer.for_module(info.name).find_attr_docs().get(("", attr))
        if docs:
            lines.extend(docs)
            return


def _class_signature(app: Any, what: str, name: str, obj: Any, options: Any,
                     signature: str | None, return_annotation: str | None) -> tuple[str, str] | None:
    """Show a class's own call signature where autodoc only finds ``(*args, **kwargs)``
    (the estimators' base class defines ``__new__`` that way)."""
    if what != "class" or signature != "(*args, **kwargs)":
        return None
    import inspect

    params = [p.replace(annotation=inspect.Parameter.empty) for p in inspect.signature(obj).parameters.values()]
    return str(inspect.Signature(params)), ""


def _copy_plotly_js(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    import plotly

    source = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not source.is_file():
        raise FileNotFoundError(f"{source} is missing: reinstall plotly (pip install plotly)")
    shutil.copy2(source, Path(app.outdir) / "_static" / "plotly.min.js")


def _add_plotly_scripts(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    if FIGURE_CLASS in context.get("body", ""):
        app.add_js_file("plotly.min.js")
        app.add_js_file("ercot-plotly.js")


# -- the tutorial gallery ----------------------------------------------------------------------
_THUMB_W, _THUMB_H, _THUMB_PAD = 160, 100, 6
_THUMB_COLORS = ("#636efa", "#ef553b", "#00cc96", "#ab63fa", "#ffa15a", "#19d3f3")


def _numbers(values: Any) -> list[float] | None:
    """A trace's x or y as floats (plain lists or plotly's base64 typed arrays), else None."""
    import base64

    import numpy as np

    if isinstance(values, dict) and "bdata" in values:
        array = np.frombuffer(base64.b64decode(values["bdata"]), dtype=np.dtype(values.get("dtype", "f8")))
        return [float(v) for v in array.ravel()]
    if isinstance(values, list) and values and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                   for v in values):
        return [float(v) for v in values]
    return None


def first_figure(notebook: Path) -> dict[str, Any] | None:
    """The first Plotly figure stored in a notebook's outputs, else None."""
    data = json.loads(Path(notebook).read_text(encoding="utf-8"))
    for cell in data.get("cells", []):
        for output in cell.get("outputs", []):
            figure = output.get("data", {}).get(PLOTLY_MIME)
            if isinstance(figure, dict) and any(_numbers(t.get("x")) and _numbers(t.get("y"))
                                                for t in figure.get("data", []) if isinstance(t, dict)):
                return figure
    return None


def thumbnail_svg(figure: dict[str, Any] | None, label: str) -> str:
    """A small SVG sketch of a figure's x-y traces (points or lines); a lettered tile without one."""
    import html as _html

    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_THUMB_W}" height="{_THUMB_H}" '
            f'viewBox="0 0 {_THUMB_W} {_THUMB_H}" role="img" aria-label="{_html.escape(label)}">'
            f'<rect width="{_THUMB_W}" height="{_THUMB_H}" rx="6" fill="#f7f7fb" stroke="#d0d0e0"/>')
    traces = []
    for trace in (figure or {}).get("data", []):
        x, y = _numbers(trace.get("x")), _numbers(trace.get("y"))
        if x and y and len(x) == len(y):
            traces.append((trace.get("mode", "markers") or "markers", x[:400], y[:400]))
    points = [(a, b) for _, xs, ys in traces for a, b in zip(xs, ys)
              if a == a and b == b and abs(a) != float("inf") and abs(b) != float("inf")]
    if not points:
        return head + (f'<text x="50%" y="55%" text-anchor="middle" font-family="sans-serif" font-size="14" '
                       f'fill="#555">{_html.escape(label)}</text></svg>\n')
    x0, x1 = min(p[0] for p in points), max(p[0] for p in points)
    y0, y1 = min(p[1] for p in points), max(p[1] for p in points)

    def at(a: float, b: float) -> str:
        px = _THUMB_PAD + (a - x0) / ((x1 - x0) or 1.0) * (_THUMB_W - 2 * _THUMB_PAD)
        py = _THUMB_H - _THUMB_PAD - (b - y0) / ((y1 - y0) or 1.0) * (_THUMB_H - 2 * _THUMB_PAD)
        return f"{px:.1f},{py:.1f}"

    body = []
    for index, (mode, xs, ys) in enumerate(traces[:12]):
        color = _THUMB_COLORS[index % len(_THUMB_COLORS)]
        pairs = [(a, b) for a, b in zip(xs, ys) if (a, b) in set(points)]
        if "lines" in mode:
            body.append(f'<polyline fill="none" stroke="{color}" stroke-width="1.5" '
                        f'points="{" ".join(at(a, b) for a, b in pairs)}"/>')
        else:
            body += [f'<circle cx="{at(a, b).split(",")[0]}" cy="{at(a, b).split(",")[1]}" r="1.8" '
                     f'fill="{color}" fill-opacity="0.8"/>' for a, b in pairs]
    return head + "".join(body) + "</svg>\n"


def gallery_markdown(notebooks: list[Path], thumbs: Path, docs: Path, binder: str) -> str:
    """A Markdown table of the tutorials: thumbnail, title, Binder launch and download links.

    ``binder`` is the README's Binder link of the first tutorial; each row's launch link opens
    its own notebook. The thumbnails are written into ``thumbs`` (a build folder).
    """
    thumbs.mkdir(parents=True, exist_ok=True)
    first = re.search(r"notebooks/[^/&?]+\.ipynb", binder)
    if first is None:
        raise ValueError(f"the Binder link {binder} does not open a notebook of notebooks/")
    rows = ["| | tutorial | run it |", "|---|---|---|"]
    for notebook in notebooks:
        data = json.loads(notebook.read_text(encoding="utf-8"))
        title = next((line.lstrip("# ").strip() for cell in data.get("cells", [])
                      if cell.get("cell_type") == "markdown"
                      for line in "".join(cell.get("source", "")).splitlines() if line.startswith("# ")),
                     notebook.stem)
        svg = thumbs / f"{notebook.stem}.svg"
        content = thumbnail_svg(first_figure(notebook), notebook.stem[:2])
        if not svg.is_file() or svg.read_text(encoding="utf-8") != content:
            svg.write_text(content, encoding="utf-8")
        where = notebook.relative_to(docs).as_posix()
        launch = binder.replace(first.group(), f"notebooks/{notebook.name}")
        title = title.replace("|", "\\|").replace("[", "\\[").replace("]", "\\]")
        rows.append(f"| ![{notebook.stem}]({svg.relative_to(docs).as_posix()}) | "
                    f"[{title}]({where}) | [launch on Binder]({launch}) · "
                    f"{{download}}`download <{where}>` |")
    return "\n".join(rows) + "\n"


def setup(app: Any) -> dict[str, Any]:
    """Register the plotly.js copy and the per-page scripts."""
    app.connect("build-finished", _copy_plotly_js)
    app.connect("autodoc-process-docstring", _reexported_data_doc)
    app.connect("autodoc-process-signature", _class_signature)
    app.connect("html-page-context", _add_plotly_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
