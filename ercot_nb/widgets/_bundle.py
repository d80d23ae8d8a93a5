"""Share plotly's front-end bundle between figure widgets (local apps only).

Every ``FigureWidget`` carries plotly's ~5 MB JavaScript bundle in its
``_esm`` state, and the browser evaluates it once per figure: an Explorer
page with five figures spends most of its load time there.  anywidget
imports ``_esm`` from a URL instead when the value is an ``http(s)`` URL, and
the browser then loads and evaluates the module once for all figures.

When the environment variable :data:`SHARED_BUNDLE_ENV` is ``"1"`` (set by
``ercot-nb app``, whose browser runs on the same computer as the kernel),
:func:`shared_bundle_url` returns the bundle's URL:

* in a page of the app server (``ercot_nb/widgets/serve/app_server.py``),
  which serves the bundle itself at :data:`BUNDLE_ROUTE` and names that path
  in :data:`BUNDLE_PATH_ENV`: that path on the origin the page was asked
  from (Voila gives a page's kernel the request's URL).  The page's head
  imports the same URL, so the browser loads and evaluates plotly (about 1 s
  on two cores) while the kernel still runs the app notebook, and each
  figure then finds the module already evaluated;
* elsewhere (a kernel not started by that server), from a small HTTP
  server on 127.0.0.1 in a daemon thread of the kernel, serving the bundle
  file and nothing else.

Otherwise it returns None (JupyterLab, plain Voila, Binder, remote
servers): each figure then carries the bundle's text in a trait
(:data:`BUNDLE_TRAIT`) and imports :data:`SHARED_MODULE`, which evaluates the
bundle once per page and hands each figure plotly's widget.

Why not plotly's own ``_esm`` (the bundle's text): anywidget (0.9 to 0.11)
gives a model 2 s from its creation to import and initialise its module,
and a model that misses them never applies a later message from the kernel
(its figure stays as first drawn).  anywidget imports a text ``_esm`` from a
new blob URL per figure, so the browser evaluated 5 MB of JavaScript once
per figure, one figure after another (0.5 to 6 s each on two cores, by
load): the Explorer's later figures, or all of them, froze on plain Voila
and in JupyterLab.  :data:`SHARED_MODULE` initialises at once and starts
the one evaluation when the page is idle after a figure's first view is
drawn (the evaluation holds the page's only thread: any model still loading
its module then would miss its 2 s); while the bundle evaluates, the
kernel's changes reach no listener, so once it is ready the module asks
the kernel for the figure as it is now (a custom
message ``{"ercot_nb": "resync"}``, answered by :class:`SyncedFigureWidget
<ercot_nb.widgets.views._figure_widget.SyncedFigureWidget>` with the current
traces and layout and then ``{"ercot_nb": "resynced"}``) and only then starts
plotly's model and views.
"""
from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import threading
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["SHARED_BUNDLE_ENV", "BUNDLE_PATH_ENV", "BUNDLE_ROUTE", "BUNDLE_TRAIT", "SHARED_MODULE",
           "RESYNC", "RESYNCED", "bundle_file", "bundle_text", "shared_bundle_url"]

SHARED_BUNDLE_ENV = "ERCOT_NB_SHARED_BUNDLE"
BUNDLE_PATH_ENV = "ERCOT_NB_BUNDLE_PATH"
"""The URL path at which the page's server serves the bundle (set by that server for its kernels)."""
BUNDLE_ROUTE = "ercot-nb/widgetbundle.js"
"""That path, below the server's base URL."""
_REQUEST_URL_ENV = "VOILA_REQUEST_URL"  # Voila's: the URL of the page a kernel serves


def bundle_file() -> Path:
    """plotly's widget bundle (found without importing plotly)."""
    spec = importlib.util.find_spec("plotly")
    origin = spec.origin if spec is not None and spec.origin else ""
    return Path(origin).parent / "package_data" / "widgetbundle.js"

_lock = threading.Lock()
_url: str | None = None


class _BundleHandler(http.server.BaseHTTPRequestHandler):
    """Answers ``GET /widgetbundle.js`` with the bundle; 404 for anything else."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        if self.path.split("?")[0] != "/widgetbundle.js":
            self.send_error(404)
            return
        body = bundle_file().read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "text/javascript; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Access-Control-Allow-Origin", "*")  # the page is on another port
        self.send_header("Cache-Control", "max-age=86400")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet
        pass


def shared_bundle_url() -> str | None:
    """URL of the shared bundle, starting its server on first use; None when disabled.

    Returns
    -------
    str or None
    """
    global _url
    if os.environ.get(SHARED_BUNDLE_ENV) != "1" or not bundle_file().is_file():
        return None
    served_at, page = os.environ.get(BUNDLE_PATH_ENV), urlsplit(os.environ.get(_REQUEST_URL_ENV, ""))
    if served_at and served_at.startswith("/") and page.scheme in ("http", "https") and page.netloc:
        return f"{page.scheme}://{page.netloc}{served_at}"
    with _lock:
        if _url is None:
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _BundleHandler)
            threading.Thread(target=server.serve_forever, name="ercot-nb plotly bundle",
                             daemon=True).start()
            _url = f"http://127.0.0.1:{server.server_address[1]}/widgetbundle.js"
    return _url


BUNDLE_TRAIT = "_ercot_nb_plotly_bundle"
"""The figure trait that carries the bundle's text to :data:`SHARED_MODULE` (empty with a URL)."""
RESYNC = {"ercot_nb": "resync"}
"""The message :data:`SHARED_MODULE` sends once the bundle is evaluated, if it was not at first."""
RESYNCED = {"ercot_nb": "resynced"}
"""The kernel's answer, sent after the figure's current traces and layout."""

SHARED_MODULE = """// plotly's widget bundle, evaluated once per page (ercot_nb/widgets/_bundle.py says why)
const key = Symbol.for("ercot-nb: plotly's widget bundle");
const shared = (globalThis[key] ??= { loads: new Map() });
const whenIdle = globalThis.requestIdleCallback
  ? (task) => globalThis.requestIdleCallback(task, { timeout: 1000 })
  : (task) => setTimeout(task, 200);

function bundle(code) {  // its evaluation starts when a figure is first drawn (start)
  const id = code.length + ":" + code.slice(-256);
  let load = shared.loads.get(id);
  if (!load) {
    load = { module: null, started: false };
    load.promise = new Promise((resolve, reject) => {
      load.start = () => {
        if (load.started) return;
        load.started = true;
        import(URL.createObjectURL(new Blob([code], { type: "text/javascript" })))
          .then((module) => resolve((load.module = module)), reject);
      };
    });
    shared.loads.set(id, load);
  }
  return load;
}

export default () => {
  let load = null;
  let widget = null;
  let started = null;
  return {
    initialize(context) {
      load = bundle(context.model.get("%(trait)s"));
      if (load.module) {
        widget = load.module.default();
        return widget.initialize(context);
      }
      const { model } = context;
      started = load.promise.then(() => new Promise((resolve) => {
        const answer = (message) => {
          if (message?.ercot_nb !== "resynced") return;
          model.off("msg:custom", answer);
          widget = load.module.default();
          widget.initialize(context);
          resolve();
        };
        model.on("msg:custom", answer);
        model.send({ ercot_nb: "resync" });
      }));
    },
    async render(context) {
      // Evaluating the bundle holds the page's only thread for seconds: not while other
      // models of the page still load their modules (each within anywidget's 2 s).
      if (!load.started) whenIdle(() => load.start());
      await started;
      return widget.render(context);
    },
  };
};
""" % {"trait": BUNDLE_TRAIT}
"""The ``_esm`` of figures without a bundle URL: see the module docstring."""


@functools.lru_cache(maxsize=2)
def _read(path: str, mtime_ns: int) -> str:
    return Path(path).read_text(encoding="utf-8")


def bundle_text() -> str:
    """plotly's widget bundle, as text (read once per file version).

    Returns
    -------
    str

    Raises
    ------
    FileNotFoundError
        When plotly's bundle is missing (plotly without its widget).
    """
    path = bundle_file()
    if not path.is_file():
        raise FileNotFoundError(f"plotly's widget bundle {path} is missing; reinstall plotly "
                                "(pip install --force-reinstall plotly)")
    return _read(str(path), path.stat().st_mtime_ns)
