"""Share plotly's front-end bundle between figure widgets (local apps only).

Every ``FigureWidget`` carries plotly's ~5 MB JavaScript bundle in its
``_esm`` state, and the browser evaluates it once per figure: an Explorer
page with five figures spends most of its load time there.  anywidget
imports ``_esm`` from a URL instead when the value is an ``http(s)`` URL, and
the browser then loads and evaluates the module once for all figures.

When the environment variable :data:`SHARED_BUNDLE_ENV` is ``"1"`` (set by
``ercot-nb app``, whose browser runs on the same computer as the kernel),
:func:`shared_bundle_url` serves the bundle file — and nothing else — from a
small HTTP server on 127.0.0.1 in a daemon thread of the kernel, and
returns its URL.  Otherwise it returns None and figures embed the bundle as
usual (JupyterLab, Binder, remote servers).
"""
from __future__ import annotations

import http.server
import importlib.util
import os
import threading
from pathlib import Path

__all__ = ["SHARED_BUNDLE_ENV", "shared_bundle_url"]

SHARED_BUNDLE_ENV = "ERCOT_NB_SHARED_BUNDLE"



def _bundle_path() -> Path:
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
        body = _bundle_path().read_bytes()
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
    if os.environ.get(SHARED_BUNDLE_ENV) != "1" or not _bundle_path().is_file():
        return None
    with _lock:
        if _url is None:
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _BundleHandler)
            threading.Thread(target=server.serve_forever, name="ercot-nb plotly bundle",
                             daemon=True).start()
            _url = f"http://127.0.0.1:{server.server_address[1]}/widgetbundle.js"
    return _url
