"""The Voila server behind ``ercot-nb app``: Host check, kernel cap, clean pages.

``ercot-nb app`` runs ``python -m ercot_nb.widgets.serve.app_server NOTEBOOK
[Voila options]``: Voila, with three additions for serving a class.

* **Host check.**  Every request whose ``Host`` header is not an allowed name
  is refused with 403 before any handler runs (page, API and kernel
  websocket alike), which defeats DNS rebinding.  Allowed: ``localhost``,
  loopback addresses, the address the server is bound to, any IP address
  when it is bound to all interfaces (``0.0.0.0``/``::``) together with the
  machine's host names, and the names in ``ErcotVoila.allowed_hosts``
  (``ercot-nb app --allow-host NAME``; ``*`` turns the check off).
* **A queue, and a kernel cap.**  At most ``ErcotVoila.max_starting`` pages
  start (kernel start and notebook run) at once and at most
  ``ErcotVoila.max_kernels`` kernels live (starting or running, one per open
  page); every other page gets a short page saying its place in the queue
  (or that the server is full), which opens the app by itself when its turn
  comes (:mod:`.admission`).  nbclient's timeouts are raised
  (:data:`EXECUTOR_TIMEOUTS`): its 4 s wait for a cell's outputs dropped the
  app's own output under load, a blank page.  A kernel whose page has not
  connected yet is kept from the culler (``first_connect_grace``).
* **Token from the environment.**  A token in :data:`TOKEN_ENV` protects the
  server (``ercot-nb app --ip`` sets one); it is removed from the
  environment before kernels start, and never appears in a process list.

* **Uploads up to 50 MiB.**  A file chosen in the page reaches the kernel as
  one websocket message; tornado drops a connection whose message exceeds
  ``websocket_max_message_size`` (10 MiB by default), losing the file
  silently.  This server allows :data:`~._limits.APP_MESSAGE_LIMIT` and tells
  its kernels so (:data:`~._limits.MESSAGE_LIMIT_ENV`); the upload button
  refuses a larger file in the browser, with a message.

* **plotly's bundle while the notebook runs.**  In a local app (the launcher
  sets :data:`~.._bundle.SHARED_BUNDLE_ENV`), the figures share plotly's
  front-end bundle (``ercot_nb/widgets/_bundle.py``); this server serves it
  at :data:`~.._bundle.BUNDLE_ROUTE`, and the page's head (the template
  in ``templates/``) imports it at once: the browser loads and evaluates it
  (about 1 s on two cores) while the kernel still runs the app notebook,
  instead of after.

* **Kernels of closed pages shut down.**  Voila's page posts a shutdown
  beacon when it is closed, carrying the ``_xsrf`` cookie; this server sets
  that cookie with the page (Voila 0.5 does not, so the beacon was refused).
  A page closed before it was fully sent (its kernel still starting, or its
  notebook still running: no beacon yet, and no page will ever connect to
  that kernel) gives its kernel back too: at once when its kernel has just
  started, else as soon as its notebook ran (:class:`OpeningPage`).
  Kernels of pages that vanish without closing (a crashed browser, a laptop
  put to sleep) are culled by jupyter_server's
  ``MappingKernelManager.cull_idle_timeout``, which ``ercot-nb app`` sets.
"""
from __future__ import annotations

import contextvars
import html
import ipaddress
import os
import posixpath
import re
import socket
import tempfile
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import tornado.web
from jupyter_server.log import log_request
from jupyter_server.utils import url_path_join
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from jupyter_core.paths import jupyter_config_path
from traitlets import Bool, Integer, List, Unicode, default
from voila.app import Voila
from voila.tornado.handler import TornadoVoilaHandler

from .._bundle import BUNDLE_PATH_ENV, BUNDLE_ROUTE, SHARED_BUNDLE_ENV, bundle_file
from .._limits import APP_MESSAGE_LIMIT, MESSAGE_LIMIT_ENV
from .admission import TICKET_ARG, Admission, Decision

__all__ = ["TOKEN_ENV", "ServerBusy", "PageGone", "OpeningPage", "HostRule", "CappedKernelManager",
           "ErcotVoila", "main"]

TOKEN_ENV = "ERCOT_NB_APP_TOKEN"
# The lab extensions the apps' pages use: Voila's own widget managers (it keeps the one matching
# ipywidgets), anywidget, Plotly, and pygments for code styles.
# Others installed beside Voila (nbgrader, notebook 7, ...) expect JupyterLab's shared modules
# and fail in a Voila page with console errors, so the app loads only these unless
# --VoilaConfiguration.extension_allowlist says otherwise.  The package's own apps draw their
# figures as anywidgets and skip jupyterlab-plotly (its 4.8 MB chunk: about 0.3 s of a first page).
APP_LAB_EXTENSIONS = (
    "@voila-dashboards/widgets-manager7", "@voila-dashboards/widgets-manager8",
    "@jupyter-widgets/jupyterlab-manager", "anywidget", "jupyterlab-plotly", "jupyterlab_pygments",
)

# Voila's "lab" page without Font Awesome's CSS from a CDN; its head also imports plotly's bundle
# (resources.ercot_nb_bundle) in a local app.
TEMPLATES = Path(__file__).with_name("templates")

EXECUTOR_TIMEOUTS = {"iopub_timeout": 300, "startup_timeout": 300}
"""Seconds ``VoilaExecutor`` (nbclient) waits for a cell's outputs and for a kernel to start,
unless set on the command line (``--VoilaExecutor.iopub_timeout=...``)."""

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>{title}</title></head>
<body style="font-family:sans-serif;max-width:40em;margin:3em auto;line-height:1.5">
<h1 style="font-size:1.4em">{title}</h1><p>{text}</p></body></html>
"""


def _page(title: str, text: str) -> str:
    return _PAGE.format(title=html.escape(title), text=html.escape(text))


class ServerBusy(Exception):
    """Raised instead of starting one more kernel than the cap allows."""


class PageGone(Exception):
    """Raised when the page a kernel was started for was closed meanwhile (the kernel is shut down)."""


@dataclass
class OpeningPage:
    """One page request of the app while it is being answered: whether its browser went away, and its kernel.

    A page closed before its HTML was all sent has no shutdown beacon yet (the page's
    scripts set it up once loaded), and no page will ever connect to its kernel, which the
    culler spares for ``first_connect_grace``: the server shuts that kernel down itself.
    """

    gone: bool = False
    kernel_id: str | None = None


_OPENING: contextvars.ContextVar[OpeningPage | None] = contextvars.ContextVar("ercot_nb_opening_page",
                                                                              default=None)
"""The page request whose handler is running (set by ``_AppPageHandler.get``; seen by ``start_kernel``)."""


class HostRule:
    """Which ``Host`` header values the server answers.

    Parameters
    ----------
    bound_ip : str
        The address the server listens on (``""``, ``0.0.0.0`` or ``::``
        for all interfaces).
    extra : iterable of str
        More allowed host names or addresses; ``"*"`` allows every host.
    """

    def __init__(self, bound_ip: str, extra: Iterable[str] = ()) -> None:
        extra = [name.strip().lower().strip("[]") for name in extra if name.strip()]
        self.allow_all = "*" in extra
        self.names = {"localhost", *extra}
        self.bound = bound_ip.strip("[]").lower()
        self.any_interface = self.bound in ("", "0.0.0.0", "::")
        if self.any_interface:
            self.names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
        elif self.bound:
            self.names.add(self.bound)

    def allows(self, host_header: str) -> bool:
        """Whether a request with this ``Host`` header is served."""
        if self.allow_all:
            return True
        host = host_header.strip().lower()
        if host.startswith("["):  # [IPv6]:port
            host = host[1:].split("]", 1)[0]
        elif host.count(":") == 1:  # name:port or IPv4:port
            host = host.split(":", 1)[0]
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return host in self.names
        # an address literal cannot be rebound by DNS
        return address.is_loopback or self.any_interface or host in self.names


class _RefusedHostHandler(tornado.web.RequestHandler):
    """403 for every method: the Host header is not one this server answers."""

    def prepare(self) -> None:
        self.set_status(403)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(_page(
            "Host not allowed",
            f"This app server does not answer requests for the host {self.request.host!r}. "
            "Open it with the address its ercot-nb app command printed; the person running "
            "the server can allow this name with ercot-nb app --allow-host NAME.",
        ))


class _HostCheckedApplication(tornado.web.Application):
    """A tornado Application that refuses requests for hosts its rule does not allow."""

    host_rule: HostRule

    def find_handler(self, request, **kwargs):  # noqa: ANN001 - tornado's signature
        if not self.host_rule.allows(request.host or ""):
            self.settings["ercot_nb_log"].warning("refused a request for Host %r", request.host)
            return self.get_handler_delegate(request, _RefusedHostHandler)
        return super().find_handler(request, **kwargs)


class CappedKernelManager(AsyncMappingKernelManager):
    """jupyter_server's kernel manager with a cap on live kernels.

    Live: starting or running, not being shut down.  A starting kernel is in
    jupyter_server's list before its start returns: it is counted once (by its id,
    chosen here), and the culler leaves it alone until it started (jupyter_server sets
    its ``last_activity`` only then: reading it earlier raised a ``TraitError``).

    Attributes
    ----------
    max_kernels : int
        Most kernels live at once; 0 means no cap.
    """

    max_kernels = Integer(0, config=True, help="most kernels at once; 0: no cap")
    first_connect_grace = Integer(
        600, config=True, help="seconds a kernel whose page never connected yet is kept from the culler "
                               "(a page still loading on a busy machine); then cull_idle_timeout applies")

    def __init__(self, **kwargs) -> None:  # noqa: ANN003 - forwarded to jupyter_server
        super().__init__(**kwargs)
        self._starting: set[str] = set()
        self._closing: set[str] = set()
        self._started_at: dict[str, float] = {}  # kernel id -> when it started, until its page connects

    def notify_connect(self, kernel_id: str) -> None:
        """A page connected to the kernel: from now on the culler's idle timeout applies."""
        self._started_at.pop(kernel_id, None)
        super().notify_connect(kernel_id)

    def live_kernels(self) -> int:
        """Kernels starting or running, not shutting down."""
        return len((set(self.list_kernel_ids()) | self._starting) - self._closing)

    async def shutdown_kernel(self, kernel_id: str, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
        """Shut a kernel down (a closed page's beacon, the culler), remembering it meanwhile."""
        self._closing.add(kernel_id)
        try:
            await super().shutdown_kernel(kernel_id, *args, **kwargs)
        finally:
            self._closing.discard(kernel_id)
            self._started_at.pop(kernel_id, None)

    async def cull_kernel_if_idle(self, kernel_id: str) -> None:
        """Cull an idle kernel, skipping one that is still starting, or is (or was) shut down
        since the culler listed the kernels: jupyter_server would log a TraitError or KeyError
        traceback for it, or shut it down twice."""
        if kernel_id in self._closing or kernel_id in self._starting or kernel_id not in self:
            return
        started = self._started_at.get(kernel_id)
        if started is not None and time.monotonic() - started < self.first_connect_grace:
            return  # its page has not connected yet: under load, the page's scripts load slowly
        await super().cull_kernel_if_idle(kernel_id)

    async def start_kernel(self, *args, **kwargs) -> str:  # noqa: ANN002, ANN003
        """Start a kernel, or raise :class:`ServerBusy` at the cap."""
        live = self.live_kernels()
        if self.max_kernels and live >= self.max_kernels:
            self.log.warning("kernel cap reached (%d live): page refused", live)
            raise ServerBusy(live)
        kernel_id = kwargs.get("kernel_id") or str(uuid.uuid4())
        kwargs["kernel_id"] = kernel_id
        self._starting.add(kernel_id)  # counted before the first await: no race between page loads
        try:
            started = await super().start_kernel(*args, **kwargs)
            self._started_at[started] = time.monotonic()
        finally:
            self._starting.discard(kernel_id)
        page = _OPENING.get()
        if page is not None:
            page.kernel_id = started
            if page.gone:  # closed while its kernel started: nobody would see its notebook run
                self.log.info("page closed while its kernel %s started: shutting it down", started)
                await self.shutdown_kernel(started)
                raise PageGone(started)
        return started


def _wait_page(decision: Decision, path: str, max_kernels: int) -> tuple[int, int, str]:
    """(status, seconds to the next check, HTML) of the page of a student in the queue."""
    again = 5 if decision.full else 2
    if decision.full:
        title = "Server full: you are in the queue"
        text = (f"All {max_kernels} Explorer pages this server runs at once are open. You are number "
                f"{decision.place} in the queue: the Explorer opens here by itself as soon as a page is "
                f"closed (this page checks every {again} s). Keep this tab open. If this keeps happening, "
                "ask the person running the server to raise ercot-nb app --max-kernels.")
    else:
        title = "The Explorer is starting: you are in the queue"
        text = (f"The Explorer is starting for {decision.starting} other students. You are number "
                f"{decision.place} in the queue: it opens here by itself (this page checks every "
                f"{again} s). Keep this tab open.")
    target = f"{path}?{urlencode({TICKET_ARG: decision.ticket})}"
    head = f'<meta http-equiv="refresh" content="{again}; url={html.escape(target)}">'
    body = (f'<p data-ercot-nb-wait="{"full" if decision.full else "queue"}" role="status">'
            f"{html.escape(text)}</p>")
    page = _PAGE.format(title=html.escape(title), text="").replace("<p></p>", body)
    return (503 if decision.full else 200), again, page.replace("</title>", "</title>" + head, 1)


class _AppPageHandler(TornadoVoilaHandler):
    """Voila's page handler, behind the queue (:class:`~.admission.Admission`); a page closed
    while it opens gives its kernel back (:class:`OpeningPage`)."""

    _opening: OpeningPage | None = None

    def on_connection_close(self) -> None:
        if self._opening is not None:
            self._opening.gone = True
        super().on_connection_close()

    async def _give_back(self, page: OpeningPage) -> None:
        """Shut down the kernel of a page closed before it was all sent (its notebook ran meanwhile)."""
        manager = self.kernel_manager
        if not page.gone or page.kernel_id is None or page.kernel_id not in manager:
            return
        self.log.info("page closed while it opened: shutting its kernel %s down", page.kernel_id)
        try:
            await manager.shutdown_kernel(page.kernel_id)
        except Exception:  # noqa: BLE001 - already shut down (its beacon, the culler): nothing left to do
            self.log.debug("kernel %s was shut down already", page.kernel_id, exc_info=True)

    def _wait(self, decision: Decision) -> None:
        status, again, page = _wait_page(decision, self.request.path, self.settings["ercot_nb_max_kernels"])
        self.set_status(status)
        self.set_header("Retry-After", str(again))
        self.set_header("Cache-Control", "no-store")
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(page)

    async def get(self, path=None):  # noqa: ANN001 - tornado's signature
        # Voila's page posts a shutdown beacon with the `_xsrf` cookie when it is closed;
        # its own handler never sets that cookie, so the beacon was refused (403) and the
        # kernel of every closed page lived on.  Reading the token sets the cookie.
        self.xsrf_token  # noqa: B018 - read for its side effect
        if self.notebook_path and path:  # not the app's page (a browser's /favicon.ico): Voila redirects
            await super().get(path)  # it to a file, with no kernel, and it takes no place in the queue
            return
        admission: Admission = self.settings["ercot_nb_admission"]
        ticket = self.get_argument(TICKET_ARG, None)
        decision = admission.ask(ticket)
        if not decision.admitted:
            self._wait(decision)
            return
        finished = False
        page = self._opening = OpeningPage()
        token = _OPENING.set(page)
        try:
            await super().get(path)
        except ServerBusy:
            if self._headers_written:  # cannot happen: the kernel starts before any output
                raise
            finished = True
            self.clear()
            self._wait(admission.requeue(ticket))
        except PageGone:
            pass  # its kernel is shut down; nobody to answer
        finally:
            _OPENING.reset(token)
            if not finished:
                admission.done()
            await self._give_back(page)


class ErcotVoila(Voila):
    """Voila with the Host check, the kernel cap and a token from the environment."""

    name = "ercot-nb-app"
    allowed_hosts = List(Unicode(), config=True, help="more allowed Host names ('*': any)")
    max_kernels = Integer(10, config=True, help="most app kernels at once; 0: no cap")
    max_starting = Integer(2, config=True, help="most pages starting (kernel start and notebook run) at "
                                                "once, the others queue; 0: no limit")
    own_app = Bool(False, config=True, help="the notebook is one of the package's apps, whose "
                                            "figures are anywidgets: jupyterlab-plotly is not loaded")

    @default("config_file_paths")
    def _config_file_paths_default(self) -> list[str]:
        """Jupyter's config folders, not the folder the app is started from (plain Voila reads that
        one too): the app is the same from any folder, and the repository's own voila.json is
        for plain Voila and Binder, not for the app's lab extensions."""
        return list(jupyter_config_path())

    @staticmethod
    def shares_bundle() -> bool:
        """Whether the pages' figures share plotly's bundle (a local app; see ``_bundle``)."""
        return os.environ.get(SHARED_BUNDLE_ENV) == "1" and bundle_file().is_file()

    def initialize(self, argv=None) -> None:  # noqa: ANN001 - traitlets' signature
        token = os.environ.pop(TOKEN_ENV, None)  # kernels inherit the environment: not the token
        os.environ[MESSAGE_LIMIT_ENV] = str(APP_MESSAGE_LIMIT)  # ... but this, for the upload button
        os.environ.pop(BUNDLE_PATH_ENV, None)
        super().initialize(argv)
        if self.shares_bundle():  # served here (init_handlers), imported by the head and the figures
            served_at = url_path_join(self.base_url, BUNDLE_ROUTE)
            os.environ[BUNDLE_PATH_ENV] = served_at
            resources = dict(self.voila_configuration.resources or {})
            self.config.VoilaConfiguration.resources = {**resources, "ercot_nb_bundle": served_at}
        if not self.voila_configuration.extension_allowlist:
            self.voila_configuration.extension_allowlist = [
                name for name in APP_LAB_EXTENSIONS if not (self.own_app and name == "jupyterlab-plotly")]
        if token:
            self.token = token
        # nbclient waits 4 s (iopub_timeout) for a cell's outputs after its reply, then drops those
        # not yet read: under load that was the app's own output, a blank page; and 60 s for a kernel
        # to start.  Each page waits its turn in the queue instead, so these only bound a stuck kernel.
        for name, seconds in EXECUTOR_TIMEOUTS.items():
            if name not in self.config.VoilaExecutor:
                setattr(self.config.VoilaExecutor, name, seconds)
        self.voila_configuration.multi_kernel_manager_class = CappedKernelManager

    def init_settings(self) -> dict:
        settings = super().init_settings()
        self.kernel_manager.max_kernels = self.max_kernels
        settings["ercot_nb_max_kernels"] = self.max_kernels
        settings["ercot_nb_admission"] = Admission(self.kernel_manager.live_kernels, self.max_starting,
                                                   self.max_kernels)
        settings["ercot_nb_log"] = self.log
        settings["log_function"] = log_request  # jupyter_server's: tokens scrubbed from the log
        settings["websocket_max_message_size"] = APP_MESSAGE_LIMIT  # uploads (tornado: 10 MiB)
        return settings

    def setup_template_dirs(self) -> None:
        super().setup_template_dirs()
        # extends lab/index.html.j2; "ercot-nb" is the same file installed in Jupyter's data folder
        # (named by the repository's voila.json): the package's own copy first, never a stale one
        if self.voila_configuration.template in ("lab", "ercot-nb"):
            self.template_paths.insert(0, str(TEMPLATES))

    def init_handlers(self) -> list:
        handlers = [
            (pattern, _AppPageHandler, *rest) if handler is TornadoVoilaHandler
            else (pattern, handler, *rest)
            for pattern, handler, *rest in super().init_handlers()
        ]
        if self.shares_bundle():
            folder, name = posixpath.split(BUNDLE_ROUTE)
            handlers.insert(0, (url_path_join(self.server_url or self.base_url, folder, f"({re.escape(name)})"),
                             tornado.web.StaticFileHandler, {"path": str(bundle_file().parent)}))
        return handlers

    def start(self) -> None:
        # Voila.start, with the host-checked Application
        self.connection_dir = tempfile.mkdtemp(prefix="voila_", dir=self.connection_dir_root)
        settings = self.init_settings()
        self.app = _HostCheckedApplication(**settings)
        self.app.host_rule = HostRule(self.ip, self.allowed_hosts)
        self.app.settings.update(self.tornado_settings)
        self.app.add_handlers(".*$", self.init_handlers())
        self.listen()


def main() -> None:
    """Run :class:`ErcotVoila` with the command line's arguments."""
    ErcotVoila.launch_instance()


if __name__ == "__main__":
    main()
