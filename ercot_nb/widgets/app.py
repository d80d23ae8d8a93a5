"""Serve the Explorer app with Voila on this computer (``ercot-nb app``).

The app is the notebook ``widgets/explorer.ipynb`` of the repository (the
Voila apps are notebooks, kept in the top-level ``widgets/`` folder, not in
the Python package).  :func:`find_app_notebook` looks for it, in order:

1. the folder named by the ``ERCOT_NB_APPS`` environment variable;
2. ``widgets/`` next to the ``ercot_nb`` package, i.e. the repository
   checkout of an editable install (``pip install -e .``);
3. ``widgets/`` in the current directory.

A wheel installed from PyPI has no ``widgets/`` folder: run ``ercot-nb app``
from a checkout, set ``ERCOT_NB_APPS``, or pass ``--notebook PATH``.

The dataset the app preselects reaches the kernel through the
``ERCOT_NB_DATASET`` environment variable, which the notebook reads; the
kernel also shares one copy of plotly's front-end code between all figures
(:mod:`._bundle`), which is safe here because the browser is local.
"""
from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import webbrowser
from collections.abc import Sequence
from pathlib import Path

from ._bundle import SHARED_BUNDLE_ENV

__all__ = ["APPS_ENV", "DATASET_ENV", "find_app_notebook", "voila_command", "serve"]

APPS_ENV = "ERCOT_NB_APPS"
DATASET_ENV = "ERCOT_NB_DATASET"
HOST = "127.0.0.1"


def find_app_notebook(name: str = "explorer") -> Path:
    """Path of the app notebook ``<name>.ipynb``.

    Parameters
    ----------
    name : str, default="explorer"
        ``"explorer"`` or ``"compare"``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    FileNotFoundError
        Listing the places searched and what to do.
    """
    filename = f"{name}.ipynb"
    folders = []
    if os.environ.get(APPS_ENV):
        folders.append(Path(os.environ[APPS_ENV]))
    folders.append(Path(__file__).resolve().parents[2] / "widgets")
    folders.append(Path.cwd() / "widgets")
    for folder in folders:
        if (folder / filename).is_file():
            return (folder / filename).resolve()
    searched = ", ".join(str(folder) for folder in folders)
    raise FileNotFoundError(
        f"the app notebook {filename} ships with the repository's widgets/ folder and was not "
        f"found (searched: {searched}); run from a checkout of the repository, set "
        f"{APPS_ENV}=/path/to/widgets, or pass --notebook PATH"
    )


def voila_command(notebook: Path, port: int) -> list[str]:
    """The command that serves ``notebook`` with Voila on 127.0.0.1:``port``.

    Parameters
    ----------
    notebook : pathlib.Path
    port : int

    Returns
    -------
    list of str
    """
    return [
        sys.executable, "-m", "voila", str(notebook),
        f"--port={port}", f"--Voila.ip={HOST}", "--no-browser",
    ]


def _open_when_listening(url: str, port: int, process: subprocess.Popen,
                         timeout: float = 60.0) -> None:
    """Open ``url`` in the web browser once Voila accepts connections on ``port``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        with socket.socket() as probe:
            if probe.connect_ex((HOST, port)) == 0:
                webbrowser.open(url)
                return
        time.sleep(0.25)


def serve(
    *,
    port: int = 8866,
    open_browser: bool = True,
    dataset: str = "syn3",
    notebook: str | os.PathLike[str] | None = None,
    extra_args: Sequence[str] = (),
) -> int:
    """Run Voila in the foreground until it stops (Ctrl-C).

    Parameters
    ----------
    port : int, default=8866
        Port on 127.0.0.1.
    open_browser : bool, default=True
        Open the app in the default web browser.
    dataset : str, default="syn3"
        Built-in scenario preselected in the app.
    notebook : path, optional
        App notebook; default :func:`find_app_notebook`.
    extra_args : sequence of str
        More Voila options.

    Returns
    -------
    int
        Voila's exit code (0 after Ctrl-C).

    Raises
    ------
    ValueError
        For an unknown dataset, a missing notebook or a missing Voila.
    """
    from ..datasets import available

    if dataset.lower() not in available():
        raise ValueError(f"unknown dataset {dataset!r}; available: {', '.join(available())}")
    if importlib.util.find_spec("voila") is None:
        raise ValueError("Voila is not installed: pip install 'ercot-nb[notebook]'")
    try:
        path = Path(notebook).resolve() if notebook is not None else find_app_notebook()
    except FileNotFoundError as exc:
        raise ValueError(str(exc)) from None
    if not path.is_file():
        raise ValueError(f"notebook not found: {path}")
    url = f"http://{HOST}:{port}/"
    print(f"Serving {path.name} with Voila at {url} (dataset {dataset.lower()}); Ctrl-C stops it.",
          flush=True)
    # The browser runs here too, so the figures can share one plotly bundle (see _bundle).
    env = {**os.environ, DATASET_ENV: dataset.lower(), SHARED_BUNDLE_ENV: "1"}
    process = subprocess.Popen([*voila_command(path, port), *extra_args], env=env, cwd=path.parent)
    if open_browser:
        threading.Thread(target=_open_when_listening, args=(url, port, process),
                         name="ercot-nb open browser", daemon=True).start()
    # Ctrl-C and a plain `kill` both stop Voila too, never leaving it running alone.
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if in_main_thread else None
    try:
        return process.wait()
    except KeyboardInterrupt:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        return 0
    finally:
        if in_main_thread:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
