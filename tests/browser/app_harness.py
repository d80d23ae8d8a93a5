"""Shared pieces of the tests/browser/test_app_*.py tests: start `ercot-nb app`, drive Chromium.

Debian's Chromium through the `playwright` package (never `playwright install`),
scratch HOME and TMPDIR, the server stopped (its whole process group) afterwards.
"""
from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import psutil

from ercot_nb.bench.classroom import stop_group

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]
REPO = Path(__file__).resolve().parents[2]
PLOTS_READY = "() => document.querySelectorAll('.js-plotly-plot').length >= 1"


def _explorer_plots() -> int:
    """Figures of the Explorer app: one per view it shows (it iterates the view registry)."""
    from ercot_nb.widgets.apps.explorer import VIEWS

    return len(VIEWS)


EXPLORER_PLOTS = _explorer_plots()
EXPLORER_READY = f"() => document.querySelectorAll('.js-plotly-plot').length === {EXPLORER_PLOTS}"


# How the page fetched plotly's bundle: how many times, from where, and when (seconds from
# opening the page) against the end of Voila's HTML, which comes once the notebook has run.
BUNDLE_LOADS = """() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const loads = performance.getEntriesByType('resource').filter(e => e.name.includes('widgetbundle'));
    return JSON.stringify({
        'bundle fetches': loads.length,
        'bundle from the page origin': loads.every(e => new URL(e.name).origin === location.origin),
        'bundle requested': loads.length ? +(loads[0].startTime / 1000).toFixed(2) : null,
        'HTML ended': +(nav.responseEnd / 1000).toFixed(2),
    });
}"""


PORTS_ENV = "ERCOT_NB_TEST_PORTS"
"""``FIRST-LAST``: the ports the test servers may use (default: any free one)."""


def free_port() -> int:
    """A free port on 127.0.0.1: any, or one of ``$ERCOT_NB_TEST_PORTS`` (``FIRST-LAST``) when set."""
    first, _, last = os.environ.get(PORTS_ENV, "0-0").partition("-")
    for port in range(int(first), int(last or first) + 1):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return probe.getsockname()[1]
    raise RuntimeError(f"no free port in {PORTS_ENV}={os.environ[PORTS_ENV]}")


def wait_for_port(port: int, process: subprocess.Popen, timeout: float, host: str = "127.0.0.1") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"ercot-nb app exited with code {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex((host, port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"the app server did not listen on port {port} within {timeout} s")


def scratch_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of the server: scratch HOME and TMPDIR."""
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir(exist_ok=True)
    tmp.mkdir(exist_ok=True)
    return {**os.environ, "HOME": str(home), "TMPDIR": str(tmp), **extra}


@contextlib.contextmanager
def app_server(args: Sequence[str], tmp_path: Path, *, python: str = sys.executable,
               env: dict[str, str] | None = None, cwd: Path | None = None,
               host: str = "127.0.0.1") -> Iterator[tuple[subprocess.Popen, int, Path]]:
    """`ercot-nb app ARGS --port P --no-browser` running; yields (process, port, log path)."""
    port = free_port()
    log_path = tmp_path / f"server-{port}.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [python, "-m", "ercot_nb.cli", "app", *args, "--port", str(port), "--no-browser"],
            env=env or scratch_env(tmp_path), stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True, cwd=cwd,
        )
    try:
        wait_for_port(port, process, timeout=90, host=host)
        yield process, port, log_path
    finally:
        stop_group(process)  # the launcher and the server it started


def server_process(launcher: subprocess.Popen) -> psutil.Process:
    """The app server (Voila) process started by the `ercot-nb app` launcher."""
    for child in psutil.Process(launcher.pid).children(recursive=True):
        if "ercot_nb.widgets.serve.app_server" in " ".join(child.cmdline()):
            return child
    raise RuntimeError("the app server process was not found")


def kernels(server: psutil.Process) -> list[psutil.Process]:
    """The kernel processes of the app server (one per open page)."""
    found = []
    for child in server.children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):
            if "ipykernel" in " ".join(child.cmdline()):
                found.append(child)
    return found


def kernel_cpu(launcher: subprocess.Popen) -> float:
    """CPU seconds (user + system) of the app's kernels so far: unlike wall time, not inflated by load."""
    total = 0.0
    for kernel in kernels(server_process(launcher)):
        with contextlib.suppress(psutil.NoSuchProcess):
            times = kernel.cpu_times()
            total += times.user + times.system
    return round(total, 2)


def wait_until(condition, timeout: float, step: float = 0.5) -> float:
    """Seconds until ``condition()`` held; TimeoutError after ``timeout``."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > timeout:
            raise TimeoutError(f"condition not met within {timeout} s")
        time.sleep(step)
    return time.monotonic() - started


@contextlib.contextmanager
def chromium(tmp_path: Path, *, height: int = 2000, profile: str = "profile",
             **context_args) -> Iterator[object]:
    """A fresh headless Chromium context (1300 px wide, ``height`` tall; its profile in tmp_path/``profile``)."""
    from playwright.sync_api import sync_playwright

    profile = tmp_path / profile
    profile.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport={"width": 1300, "height": height}, **context_args,
        )
        try:
            yield context
        finally:
            context.close()


KERNEL_SOCKET_DROPPED = re.compile(
    r"WebSocket connection to 'ws://127\.0\.0\.1:\d+/api/kernels/[0-9a-f-]{36}/channels\?session_id=[0-9a-f-]{36}' "
    r"failed: WebSocket is closed before the connection is established\.")
"""Chromium's warning when a page closes a kernel's websocket it is still opening.

JupyterLab's kernel connection (``KernelConnection._createSocket`` in its core bundle) closes
its socket and opens a new one when it reconnects; under load a reconnect can come while
the first socket still connects (seen once in CI, in JupyterLab, not reproduced here).  The
page then works on, on the new socket: this is the front end's own bookkeeping, not an error
of our page.  A kernel that died and was restarted reconnects the same way, so the browser
tests check the server's log with :func:`kernel_restarts` instead.
"""


JUPYTERLAB_SLOW_PLUGIN = re.compile(
    r"Plugin \S+ (\(with \d+ dependants\) took [\d.]+ms to activate|is taking too long to activate)\.?")
"""JupyterLab's note that one of its plugins started slowly (a busy machine), not an error of a page."""


def kernel_restarts(folder: Path) -> list[str]:
    """The lines of the server logs in ``folder`` (``server-PORT.log``) that say a kernel died or restarted."""
    return [line for log in sorted(folder.glob("server-*.log"))
            for line in log.read_text(errors="replace").splitlines()
            if "KernelRestarter" in line or re.search(r"[Kk]ernel \S+ (restarted|died)", line)]


def record_errors(page, errors: list[str]) -> None:
    """Page errors, console errors and warnings of ``page`` go to ``errors`` (not a missing resource's).

    A warning is kept as ``"warning: TEXT"``: the apps' pages log none (issue 36: a JupyterLab
    package of the page older than a widget asks for logs "Unsatisfied version ...").  Not
    kept: Chromium's own performance notes, on its software WebGL ("[.WebGL-...] GL Driver
    Message ...") and on a canvas read back often ("Canvas2D: Multiple readback operations ..."),
    nor its note that the Jupyter front end closed a kernel's socket it was still opening
    (:data:`KERNEL_SOCKET_DROPPED`; :func:`kernel_restarts` tells whether a kernel died instead),
    nor JupyterLab's notes on its own plugins' slow start on a busy machine.
    """
    def console(msg) -> None:
        if msg.type not in ("error", "warning") or "Failed to load resource" in msg.text:
            return
        if msg.type == "warning" and msg.text.startswith(("[.WebGL-", "Canvas2D: Multiple readback operations")):
            return
        if msg.type == "warning" and (KERNEL_SOCKET_DROPPED.fullmatch(msg.text)
                                      or JUPYTERLAB_SLOW_PLUGIN.fullmatch(msg.text)):
            return
        errors.append(msg.text if msg.type == "error" else f"warning: {msg.text}")

    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", console)


def block_outside(context, outside: list[str]) -> None:
    """Block every request of ``context``'s pages that leaves 127.0.0.1, and record its URL in ``outside``."""
    def route(route) -> None:
        url = route.request.url
        host = url.split("/")[2] if "://" in url else ""
        if url.startswith(("http", "ws")) and not host.startswith("127.0.0.1"):
            outside.append(url)
            route.abort()
        else:
            route.continue_()

    context.route("**/*", route)


def open_app(context, url: str, errors: list[str] | None = None, plots: int = EXPLORER_PLOTS,
             timeout: float = 120_000):
    """The app's page once its ``plots`` figures are drawn (default: the Explorer's).

    Page errors and console errors go to ``errors`` when given (the ``browser_context``
    fixture of tests/browser/conftest.py records them already). Voila runs the notebook
    (imports and a first fit) before the page renders.
    """
    page = context.pages[0] if context.pages else context.new_page()
    if errors is not None:
        record_errors(page, errors)
    page.goto(url, wait_until="domcontentloaded", timeout=timeout)
    page.wait_for_function(f"() => document.querySelectorAll('.js-plotly-plot').length === {plots}",
                           timeout=timeout)
    return page


def tiny_notebook(folder: Path) -> Path:
    """A one-cell app notebook (a widget), for tests of the server, not of the app."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("import ipywidgets as W\nW.HTML('tiny app ready')")]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    path = folder / "tiny.ipynb"
    nbformat.write(notebook, path)
    return path


