"""Shared helper of the tutorial builders: execute a list of cells and write the notebook.

Each ``notebooks/_build/NN_name.py`` defines its cells and calls :func:`build`;
run it from anywhere, e.g. ``python notebooks/_build/03_smoothness_a_posteriori.py``.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

NOTEBOOKS = Path(__file__).resolve().parents[1]

# Stored Plotly outputs carry both the Plotly JSON (drawn by JupyterLab) and an
# HTML version that loads plotly.js from its CDN (drawn by nbviewer and in HTML
# exports), so the notebooks read well with outputs only.  The kernel inherits
# this variable; plotly reads it at import.
PLOTLY_RENDERER = "plotly_mimetype+notebook_connected"
os.environ["PLOTLY_RENDERER"] = PLOTLY_RENDERER

md = new_markdown_cell
code = new_code_cell


def build(name: str, cells: list) -> Path:
    """Execute ``cells`` in a fresh kernel (cwd ``notebooks/``) and write ``notebooks/<name>``."""
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    started = time.perf_counter()
    NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=False,
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    print(f"{name}: executed in {time.perf_counter() - started:.1f} s")
    for index, cell in enumerate(nb.cells):  # stable ids across rebuilds
        cell["id"] = f"cell-{index:02d}"
    path = NOTEBOOKS / name
    nbformat.write(nb, path)
    return path
