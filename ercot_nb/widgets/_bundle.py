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

Otherwise it returns None and figures embed the bundle as usual
(JupyterLab, Binder, remote servers).
"""
from __future__ import annotations

import http.server
import importlib.util
import os
import threading
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["SHARED_BUNDLE_ENV", "BUNDLE_PATH_ENV", "BUNDLE_ROUTE", "bundle_file", "shared_bundle_url"]

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
