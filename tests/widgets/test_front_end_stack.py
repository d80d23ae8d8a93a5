"""One consistent front-end stack (issue 36, item 5): Voila's page satisfies what its lab extensions ask.

Voila's page is a small JupyterLab: its own bundle provides JupyterLab's packages
(``@jupyterlab/services``, ``@jupyterlab/rendermime``, ...) at one version, and each lab
extension the page loads (the widget managers, anywidget, ...) names the versions it accepts
in its ``remoteEntry`` file.  When one asks for more than the page has, the browser logs
"Unsatisfied version 4.2.5 ... of shared singleton module @jupyterlab/... (required ^4.6.2)"
once per package on every page (a dozen with voila 0.5.13 and jupyterlab_widgets 3.0.17).
This reads the installed files, so it names the package and the two versions at odds; the
browser check of the console is tests/browser/test_console_clean.py.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("voila")
from jupyter_core.paths import jupyter_path  # noqa: E402

from ercot_nb.widgets.serve.app_server import APP_LAB_EXTENSIONS  # noqa: E402

# the page's own packages, as its bundle registers them: "@jupyterlab/services","7.2.5"
PROVIDED = re.compile(r'"(@jupyterlab/[\w-]+)","(\d+\.\d+\.\d+)"')
# what an extension asks, in either of webpack's two spellings:
#   shareKey:"@jupyterlab/notebook",import:null,requiredVersion:"^4.6.2"
#   ("default","@jupyterlab/statedb",!1,[1,4,5,10])   ([1, ...] is ^, [2, ...] ~, [0, ...] >=)
ASKED_TEXT = re.compile(r'shareKey:\s*"(@jupyterlab/[\w-]+)"[^}]{0,200}?requiredVersion:\s*"([^"]+)"')
ASKED_ARRAY = re.compile(r'"default",\s*"(@jupyterlab/[\w-]+)",\s*!?\d?,\s*\[(-?\d+(?:,\d+)+)\]')
_PREFIX = {1: "^", 2: "~", 0: ">="}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def satisfies(version: str, wanted: str) -> bool:
    """Whether ``version`` (x.y.z) meets an npm range ``^x.y.z``, ``~x.y.z``, ``>=x.y.z`` or ``*``."""
    if wanted in ("*", ""):
        return True
    have, need = _version(version), _version(wanted)
    if wanted.startswith("^"):
        fixed = next((i for i, part in enumerate(need) if part), len(need) - 1) + 1  # ^0.y: y fixed
        return have >= need and have[:fixed] == need[:fixed]
    if wanted.startswith("~"):
        return have >= need and have[:2] == need[:2]
    if wanted.startswith(">="):
        return have >= need
    return have == need


def asked(remote_entry: str) -> dict[str, str]:
    """``{package: range}`` of the JupyterLab packages a ``remoteEntry`` file asks for."""
    ranges = {name: wanted for name, wanted in ASKED_TEXT.findall(remote_entry)}
    for name, array in ASKED_ARRAY.findall(remote_entry):
        fix, *parts = (int(n) for n in array.split(","))
        ranges[name] = _PREFIX.get(fix, "=") + ".".join(map(str, parts))
    return ranges


def _voila_core() -> dict[str, str]:
    for folder in jupyter_path("voila", "templates", "base", "static"):
        bundle = Path(folder, "voila.js")
        if bundle.is_file():
            return dict(PROVIDED.findall(bundle.read_text(encoding="utf-8", errors="replace")))
    pytest.fail("Voila's page bundle (voila/templates/base/static/voila.js) is not installed")


def _extensions() -> dict[str, Path]:
    """The remoteEntry file of each installed extension the apps' pages load (first on Jupyter's path)."""
    found: dict[str, Path] = {}
    for folder in jupyter_path("voila", "labextensions") + jupyter_path("labextensions"):
        for name in APP_LAB_EXTENSIONS:
            entries = sorted(Path(folder, name, "static").glob("remoteEntry.*.js"))
            if name not in found and entries:
                found[name] = entries[0]
    return found


def test_satisfies_reads_npm_ranges():
    assert satisfies("4.2.5", "^4.2.4") and satisfies("4.6.6", "^4.2.4")
    assert not satisfies("4.2.5", "^4.6.2") and not satisfies("5.0.0", "^4.2.4")
    assert satisfies("4.2.5", "~4.2.0") and not satisfies("4.3.0", "~4.2.0")
    assert satisfies("0.3.2", "^0.3.0") and not satisfies("0.4.0", "^0.3.0")
    assert asked('x("default","@jupyterlab/statedb",!1,[1,4,5,10])') == {"@jupyterlab/statedb": "^4.5.10"}
    assert asked('{shareKey:"@jupyterlab/notebook",import:null,requiredVersion:"^4.6.2",') == {
        "@jupyterlab/notebook": "^4.6.2"}


def test_voila_page_provides_what_its_extensions_ask():
    core = _voila_core()
    assert "@jupyterlab/services" in core, "Voila's page bundle names no JupyterLab packages"
    extensions = _extensions()
    for needed in ("@jupyter-widgets/jupyterlab-manager", "@voila-dashboards/widgets-manager8"):
        assert needed in extensions, f"{needed} is not installed"
    unmet = []
    checked = 0
    for name, entry in extensions.items():
        for package, wanted in asked(entry.read_text(encoding="utf-8", errors="replace")).items():
            if package in core:
                checked += 1
                if not satisfies(core[package], wanted):
                    unmet.append(f"{name} asks {package} {wanted}, Voila's page has {core[package]}")
    assert checked >= 10, f"only {checked} requirements found: has the remoteEntry format changed?"
    assert not unmet, ("the lab extensions ask for newer JupyterLab packages than Voila's page has "
                       "(pin the set of pyproject.toml's notebook extra): " + "; ".join(unmet))
