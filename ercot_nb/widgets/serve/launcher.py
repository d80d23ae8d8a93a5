"""Serve the notebook apps with Voila (``ercot-nb app``).

Which notebooks the package ships, where they are found and how the
tutorials are copied out is :mod:`.shipped`'s (its names are imported here
too: :func:`find_app_notebook`, :func:`copy_tutorials`, ...).

Voila runs as :mod:`ercot_nb.widgets.serve.app_server`, which refuses requests
for foreign ``Host`` names and caps the number of kernels; ``serve`` also
turns on the culling of idle kernels.  By default it listens on 127.0.0.1
only; another address (a classroom server) must be asked for with ``ip``,
and is then protected by a token, which ``serve`` prints.  ``serve`` checks
the address and port before starting the server (:func:`check_address`: one
error line for a bad address, a port outside 1..65535 or a port in use) and
prints the address once the server listens.

The dataset the app preselects reaches the kernel through the
``ERCOT_NB_DATASET`` environment variable, which the notebook reads.  When
the browser runs on this computer (the default), the kernel also shares one
copy of plotly's front-end code between all figures (:mod:`._bundle`).
"""
from __future__ import annotations

import importlib.util
import errno
import ipaddress
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from .._bundle import SHARED_BUNDLE_ENV
from .fit_pool import FitPool
from .shipped import APPS, APPS_ENV, copy_tutorials, find_app_notebook, find_tutorials

__all__ = [
    "APPS", "APPS_ENV", "DATASET_ENV", "TOKEN_ENV", "find_app_notebook", "find_tutorials",
    "copy_tutorials", "voila_command", "check_address", "serve", "default_max_kernels",
]

DATASET_ENV = "ERCOT_NB_DATASET"
TOKEN_ENV = "ERCOT_NB_APP_TOKEN"  # read (and removed) by app_server
HOST = "127.0.0.1"


def _is_local(ip: str) -> bool:
    if ip == "localhost":
        return True
    try:
        return ipaddress.ip_address(ip.strip("[]")).is_loopback
    except ValueError:
        return False


PAGE_MIB = {"pool": 300, "kernel": 450}
"""Memory planned per open page: its kernel fits in the shared pool, or fits by itself.

Measured (``ercot-nb bench kernel``): 190 and 300 MiB resident after a first run on syn3; the rest
is headroom for larger datasets and longer runs."""
WORKER_MIB = 350
"""Memory planned per fit pool worker (measured: 225 MiB resident once warm)."""
MEMORY_SHARE = 0.8
"""Share of the memory available at start that the pages and the pool may plan to use."""


def default_max_kernels(fit_workers: int, available: int | None = None) -> tuple[int, str]:
    """Most app pages at once that the memory available now holds, and why, in words.

    Parameters
    ----------
    fit_workers : int
        The fit pool's workers (0: each page's kernel fits by itself).
    available : int, optional
        Bytes available; default: what this process can get now (the least of the machine's
        available memory and its own limits, :func:`ercot_nb.evolution.memory_limit`).

    Returns
    -------
    (int, str)
        At least 1 page; and a phrase for the banner ("from 18.2 GiB free at 300 MiB a page").
    """
    if available is None:
        from ...evolution import memory_limit

        limit = memory_limit()
        available = limit[0] if limit is not None else 4 * 2**30
    per_page = PAGE_MIB["pool" if fit_workers else "kernel"]
    budget = MEMORY_SHARE * available / 2**20 - fit_workers * WORKER_MIB
    pages = max(1, int(budget // per_page))
    return pages, f"{MEMORY_SHARE:.0%} of {available / 2**30:.1f} GiB free at {per_page} MiB a page"


def _host_name() -> str:
    """This computer's name as other computers would type it (best guess)."""
    fqdn = socket.getfqdn()
    return fqdn if "." in fqdn and not fqdn.startswith("localhost") else socket.gethostname()


def voila_command(
    notebook: Path,
    port: int,
    *,
    ip: str = HOST,
    max_kernels: int = 10,
    cull_idle: int = 300,
    allowed_hosts: Sequence[str] = (),
    own_app: bool = False,
    max_starting: int = 2,
) -> list[str]:
    """The command that serves ``notebook`` with the app server on ``ip:port``.

    Parameters
    ----------
    notebook : pathlib.Path
    port : int
    ip : str, default="127.0.0.1"
    max_kernels : int, default=10
        Most app pages (kernels) at once; 0: no cap.
    cull_idle : int, default=300
        Seconds after which a kernel without a page is shut down; 0: never.
    allowed_hosts : sequence of str
        Host names accepted besides localhost and the bound address.
    own_app : bool, default=False
        ``notebook`` is one of the package's apps (:data:`APPS`): its page
        loads no plotly lab extension (its figures are anywidgets).
    max_starting : int, default=2
        Most pages starting (kernel start and notebook run) at once; the
        others wait in a queue, told their place; 0: no limit.

    Returns
    -------
    list of str
    """
    command = [
        sys.executable, "-m", "ercot_nb.widgets.serve.app_server", str(notebook),
        f"--port={port}", f"--Voila.ip={ip}", "--no-browser", "--Voila.port_retries=0",
        f"--ErcotVoila.max_kernels={max_kernels}", f"--ErcotVoila.max_starting={max_starting}",
        f"--MappingKernelManager.cull_idle_timeout={cull_idle}",
        f"--MappingKernelManager.cull_interval={max(1, min(60, cull_idle // 4 or 60))}",
        "--MappingKernelManager.cull_connected=False",
    ]
    command += [f"--ErcotVoila.allowed_hosts={name}" for name in allowed_hosts]
    if own_app:
        command.append("--ErcotVoila.own_app=True")
    return command


def _check_port(port: int) -> None:
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ValueError(f"--port must be a number from 1 to 65535, got {port!r}; e.g. --port 8866")


def _free_port(ip: str) -> int | None:
    """A port free on ``ip`` now (to suggest one), or None."""
    try:
        with socket.socket(socket.AF_INET6 if ":" in ip else socket.AF_INET) as probe:
            probe.bind((ip.strip("[]") or "0.0.0.0", 0))
            return probe.getsockname()[1]
    except OSError:
        return None


def check_address(ip: str, port: int) -> None:
    """Refuse an address and port the server could not listen on, before starting it.

    Binds (and closes) the sockets the server would bind, with tornado's
    :func:`~tornado.netutil.bind_sockets`, as the server does.

    Parameters
    ----------
    ip : str
        Address or host name to listen on (``""`` or ``0.0.0.0``: every interface).
    port : int

    Raises
    ------
    ValueError
        One line naming the address or port and what to do: a port out of
        1..65535, an address that is not an IP address nor a host name that
        resolves, an address of another computer, a port in use.
    """
    from tornado.netutil import bind_sockets

    _check_port(port)
    where = f"{ip}:{port}" if ":" not in ip else f"[{ip.strip('[]')}]:{port}"
    try:
        sockets = bind_sockets(port, ip.strip("[]") or None)
    except socket.gaierror as exc:
        raise ValueError(
            f"--ip {ip!r} is neither an IP address nor a host name that resolves ({exc.strerror}); "
            "give an address of this computer: 127.0.0.1 (this computer only) or 0.0.0.0 (every "
            "network interface)"
        ) from None
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            free = _free_port(ip)
            raise ValueError(
                f"port {port} is in use on {ip} (another server, or another ercot-nb app); choose "
                f"another port with --port" + (f", e.g. --port {free}" if free else "")
            ) from None
        if exc.errno == errno.EADDRNOTAVAIL:
            raise ValueError(
                f"--ip {ip} is not an address of this computer; give one of its addresses: "
                "127.0.0.1 (this computer only) or 0.0.0.0 (every network interface)"
            ) from None
        if exc.errno == errno.EACCES:
            raise ValueError(
                f"listening on port {port} needs administrator rights here; choose a port above "
                "1023 with --port, e.g. --port 8866"
            ) from None
        raise ValueError(f"cannot listen on {where}: {exc.strerror or exc}") from None
    for bound in sockets:
        bound.close()


def _probe_host(ip: str) -> str:
    """Where to connect to reach a server bound to ``ip``."""
    return {"": HOST, "0.0.0.0": HOST, "::": "::1", "[::]": "::1"}.get(ip, ip.strip("[]"))


def _listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def _wait_until_listening(process: subprocess.Popen, host: str, port: int, step: float = 0.2) -> bool:
    """Wait until the server accepts connections (True) or exits first (False)."""
    while process.poll() is None:
        if _listening(host, port):
            return True
        time.sleep(step)
    return False


def serve(
    *,
    port: int = 8866,
    open_browser: bool = True,
    dataset: str = "syn3",
    notebook: str | os.PathLike[str] | None = None,
    app: str = "explorer",
    ip: str = HOST,
    allowed_hosts: Sequence[str] = (),
    max_kernels: int | None = None,
    cull_idle: int = 300,
    extra_args: Sequence[str] = (),
    max_starting: int = 2,
    fit_workers: int | None = None,
) -> int:
    """Run the app server in the foreground until it stops (Ctrl-C).

    Parameters
    ----------
    port : int, default=8866
    open_browser : bool, default=True
        Open the app in the default web browser.
    dataset : str, default="syn3"
        Built-in scenario preselected in the app.
    notebook : path, optional
        App notebook; default :func:`find_app_notebook` of ``app``.
    app : {"explorer", "compare"}, default="explorer"
    ip : str, default="127.0.0.1"
        Address to listen on.  Any other than a loopback address serves
        other computers, protected by a token (printed; taken from the
        ``ERCOT_NB_APP_TOKEN`` environment variable when set).
    allowed_hosts : sequence of str
        Host names (as typed in the browser) accepted besides localhost and
        ``ip``; ``"*"`` accepts any.
    max_kernels : int, optional
        Most app pages open at once (each runs a kernel of ~190 MiB after its first run with the
        fit pool, ~300 MiB with ``fit_workers=0``); 0: no cap.  Default: as many as the memory
        available at start holds (:func:`default_max_kernels`), so that a class opening the link
        at once is let in in turn (``max_starting``), not told the server is full.
    cull_idle : int, default=300
        Seconds after which the kernel of a page that went away is shut down.
    extra_args : sequence of str
        More Voila options.
    max_starting : int, default=2
        Most pages starting at once; the others wait in a queue, told their place.
    fit_workers : int, optional
        Worker processes that run the fits of every page (:mod:`.fit_pool`): the kernels then
        never import numba (about 110 MiB less resident each); at most this many fits run at
        once, the others wait, told so.  Default: the cores this process may use; 0: each kernel fits by itself.

    Returns
    -------
    int
        The server's exit code (0 after Ctrl-C).

    Raises
    ------
    ValueError
        For an unknown dataset or app, a missing notebook, a missing Voila,
        or an address or port the server cannot listen on (see
        :func:`check_address`); checked before the server starts.
    """
    from ...datasets import available

    if dataset.lower() not in available():
        raise ValueError(f"unknown dataset {dataset!r}; available: {', '.join(available())}")
    if app not in APPS:
        raise ValueError(f"unknown app {app!r}; available: {', '.join(APPS)}")
    if importlib.util.find_spec("voila") is None:
        raise ValueError("Voila is not installed: pip install 'ercot-nb[notebook]'")
    if fit_workers is None:
        fit_workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    sized = ""
    if max_kernels is None:
        max_kernels, why = default_max_kernels(fit_workers)
        sized = f" ({why})"
    if max_kernels < 0 or cull_idle < 0 or max_starting < 0 or fit_workers < 0:
        raise ValueError("--max-kernels, --max-starting, --cull-idle and --fit-workers must be 0 or more")
    try:
        path = Path(notebook).resolve() if notebook is not None else find_app_notebook(app)
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None
    if not path.is_file():
        raise ValueError(f"notebook not found: {path}")
    check_address(ip, port)  # before anything starts: one line naming what to change
    local = _is_local(ip)
    env = {**os.environ, DATASET_ENV: dataset.lower()}
    shown_ip = f"[{ip.strip('[]')}]" if ":" in ip else ip
    if local:
        env.pop(TOKEN_ENV, None)
        # The browser runs here too, so the figures can share one plotly bundle (see _bundle).
        env[SHARED_BUNDLE_ENV] = "1"
        url = f"http://{'127.0.0.1' if ip == 'localhost' else shown_ip}:{port}/"
        banner = f"Serving {path.name} at {url} (dataset {dataset.lower()}); Ctrl-C stops it."
    else:
        env[TOKEN_ENV] = token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(18)
        env.pop(SHARED_BUNDLE_ENV, None)
        name = _host_name() if ip in ("0.0.0.0", "::", "[::]", "") else shown_ip
        url = f"http://{name}:{port}/?token={token}"
        banner = (f"Serving {path.name} to other computers on {shown_ip}:{port} (dataset "
                  f"{dataset.lower()}); Ctrl-C stops it.\n"
                  f"Students open:  {url}\n"
                  f"The token is {token}: share it only with your class.")
    banner += (f"\nAt most {max_kernels} pages at once{sized}; " if max_kernels else "\nNo cap on pages; ") + \
        f"{max_starting or 'any number'} start at a time, the others are told their place in the queue."
    command = voila_command(path, port, ip=ip, max_kernels=max_kernels, cull_idle=cull_idle,
                            allowed_hosts=allowed_hosts, own_app=notebook is None, max_starting=max_starting)
    # the workers run what kernels send them, so they get no more than a kernel: not the token
    pool = FitPool(fit_workers, env={k: v for k, v in env.items() if k != TOKEN_ENV}).start() if fit_workers else None
    if pool is not None:  # the kernels (Voila's children) find it in their environment; no command line has the key
        env.update(pool.env())
        banner += f"\nFits run in {fit_workers} shared worker process{'es' if fit_workers != 1 else ''}."
    try:
        process = subprocess.Popen([*command, *extra_args], env=env, cwd=path.parent)
    except BaseException:
        if pool is not None:
            pool.close()
        raise
    # Ctrl-C and a plain `kill` both stop the server too, never leaving it running alone.
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if in_main_thread else None
    try:
        # The address is printed (and opened) once the server listens, not before.
        if not _wait_until_listening(process, _probe_host(ip), port):
            code = process.wait()
            check_address(ip, port)  # taken meanwhile: one line naming the port (ValueError)
            print(f"ercot-nb: error: the app server stopped before listening on {shown_ip}:{port} "
                  f"(exit code {code}); see its messages above", file=sys.stderr, flush=True)
            return code or 1
        print(banner, flush=True)
        if open_browser:
            webbrowser.open(url)
        return process.wait()
    except KeyboardInterrupt:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        return 0
    finally:
        if pool is not None:
            pool.close()
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
