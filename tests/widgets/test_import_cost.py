"""What importing the Explorer loads: nothing that only Plotly's ``fig.show()`` needs."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import json, sys
from ercot_nb.widgets import Explorer  # noqa: F401 (the app notebook's import)
import ercot_nb.widgets.apps.explorer  # noqa: F401 (resolves the lazy name: Plotly's FigureWidget)
loaded = {name: name in sys.modules for name in ("nbformat", "jsonschema", "plotly.io._renderers")}
import plotly.io._renderers as renderers
loaded["installed"] = bool(renderers.nbformat)  # Plotly's own check, before its mime renderer
loaded["version"] = renderers.nbformat.__version__  # imports nbformat now
loaded["nbformat after use"] = "nbformat" in sys.modules
print(json.dumps(loaded))
"""


def test_explorer_import_leaves_nbformat_and_jsonschema_until_plotly_uses_them():
    """nbformat pulls jsonschema, whose import builds a grammar (about 1.2 s of the first page);
    Plotly reads it only to render ``fig.show()`` as a mime bundle, where it still finds it."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True, timeout=300)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert loaded["plotly.io._renderers"]
    assert not loaded["nbformat"] and not loaded["jsonschema"]
    assert loaded["installed"] and loaded["version"].count(".") >= 1 and loaded["nbformat after use"]
