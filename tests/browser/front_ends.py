"""The three front ends users open the Explorer in, for the browser tests: serve it, open its page.

* ``voila``: plain Voila, as Binder serves it: ``voila widgets/explorer.ipynb`` from the
  repository root (so Voila reads the repository's ``voila.json``);
* ``app``: ``ercot-nb app`` (see app_harness.app_server);
* ``lab``: JupyterLab (no token), a notebook whose one cell shows ``Explorer()``, run from the page.

Each server gets a scratch HOME and TMPDIR and this checkout on PYTHONPATH, and is stopped
(its whole process group) afterwards.  :func:`open_explorer` returns the page once every view
of the Explorer is drawn.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from .app_harness import EXPLORER_PLOTS, REPO, app_server, free_port, scratch_env, stop_group, wait_for_port

FRONT_ENDS = ("voila", "app", "lab")

LAB_CELL = """from ercot_nb.widgets import Explorer

explorer = Explorer("syn3")
explorer.run(when_shown=True)
explorer"""


@contextlib.contextmanager
def _server(command: list[str], tmp_path: Path, port: int, cwd: Path) -> Iterator[None]:
    env = scratch_env(tmp_path, PYTHONPATH=os.pathsep.join(
        [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]))
    with open(tmp_path / f"server-{port}.log", "wb") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True, cwd=cwd)
    try:
        wait_for_port(port, process, timeout=90)
        yield
    finally:
        stop_group(process)


COMPARE_CELL = """from ercot_nb.widgets import Compare

compare = Compare("syn3", algorithms=("ERCOT", "staticEC"))
compare.run(wait=True)
compare"""


def _lab_notebook(folder: Path, cells: tuple[str, ...]) -> Path:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(cell) for cell in cells]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / "explorer.ipynb"
    nbformat.write(notebook, path)
    return path


@contextlib.contextmanager
def explorer_server(kind: str, tmp_path: Path, cells: tuple[str, ...] = (LAB_CELL,)) -> Iterator[str]:
    """The Explorer served by front end ``kind`` (one of :data:`FRONT_ENDS`); yields its page's URL.

    In JupyterLab the notebook holds ``cells`` (the Explorer's first; :func:`open_explorer`
    runs that one)."""
    if kind == "app":
        with app_server([], tmp_path, env=scratch_env(tmp_path)) as (_, port, _log):
            yield f"http://127.0.0.1:{port}/"
        return
    port = free_port()
    if kind == "voila":
        command = [sys.executable, "-m", "voila", "widgets/explorer.ipynb", "--no-browser",
                   f"--port={port}", "--Voila.ip=127.0.0.1"]
        with _server(command, tmp_path, port, cwd=REPO):
            yield f"http://127.0.0.1:{port}/"
        return
    if kind != "lab":
        raise ValueError(f"unknown front end {kind!r}; one of {FRONT_ENDS}")
    folder = tmp_path / "lab"
    folder.mkdir()
    _lab_notebook(folder, cells)
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
               "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
               f"--ServerApp.root_dir={folder}",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--allow-root"]
    with _server(command, tmp_path, port, cwd=folder):
        yield f"http://127.0.0.1:{port}/lab/tree/explorer.ipynb"


CELL_RAN = """() => /\\[(\\*|\\d+)\\]/.test(
    document.querySelector('.jp-Notebook .jp-Cell .jp-InputPrompt')?.textContent ?? '')"""
EXPLORER_DRAWN = f"() => document.querySelectorAll('.js-plotly-plot').length === {EXPLORER_PLOTS}"


def open_explorer(context, url: str, kind: str, timeout: float = 240_000):
    """The Explorer's page in ``context`` once its views are drawn (in JupyterLab: its cell run)."""
    page = context.pages[0] if context.pages else context.new_page()
    page.bring_to_front()  # a page behind another gets no animation frames: its figures stall (measured)
    page.goto(url, wait_until="domcontentloaded", timeout=timeout)
    if kind == "lab":
        page.wait_for_selector(".jp-Notebook .jp-Cell .cm-content", timeout=timeout)
        page.wait_for_function(  # the notebook's kernel started
            "() => document.querySelector('.jp-Notebook-ExecutionIndicator')"
            "?.getAttribute('data-status') === 'idle'", timeout=timeout)
        for _ in range(3):  # run the cell (again, if the key press came before the kernel took it)
            page.locator(".jp-Notebook .jp-Cell .cm-content").first.click()
            page.keyboard.press("Control+Enter")
            try:
                page.wait_for_function(CELL_RAN, timeout=30_000)
                break
            except Exception:  # playwright's TimeoutError
                continue
    page.wait_for_function(EXPLORER_DRAWN, timeout=timeout)
    return page
