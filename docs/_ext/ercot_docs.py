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


def setup(app: Any) -> dict[str, Any]:
    """Register the plotly.js copy and the per-page scripts."""
    app.connect("build-finished", _copy_plotly_js)
    app.connect("autodoc-process-docstring", _reexported_data_doc)
    app.connect("autodoc-process-signature", _class_signature)
    app.connect("html-page-context", _add_plotly_scripts)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
