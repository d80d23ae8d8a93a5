"""Binder files: consistent with pyproject.toml (the warm-up that Binder's postBuild runs: tests/test_warmup.py)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"

try:
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name
except ImportError:  # pragma: no cover - packaging ships with pip
    Requirement = None

    def canonicalize_name(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()


def _parse(line: str) -> tuple[str, str]:
    """Return (canonical name, specifier text) of one requirement line."""
    if Requirement is not None:
        req = Requirement(line)
        return canonicalize_name(req.name), str(req.specifier)
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)", line)
    return canonicalize_name(m.group(1)), m.group(3).strip()


def _pyproject_names() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = project["dependencies"] + project["optional-dependencies"]["notebook"]
    return {_parse(line)[0] for line in lines}


def _binder_requirements() -> dict[str, str]:
    reqs = {}
    for raw in (BINDER / "requirements.txt").read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line == ".":
            continue
        name, spec = _parse(line)
        assert name not in reqs, f"{name} listed twice in binder/requirements.txt"
        reqs[name] = spec
    return reqs


def _exported(script: Path, var: str) -> str:
    values = re.findall(rf"^\s*export\s+{var}=(.+?)\s*$", script.read_text(), re.M)
    assert len(values) == 1, f"{script.name} must export {var} exactly once"
    return values[0]


def test_runtime_pins_python_311():
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"


def test_requirements_match_pyproject_and_are_pinned():
    reqs = _binder_requirements()
    expected = _pyproject_names()
    assert set(reqs) == expected, (
        f"missing in binder: {sorted(expected - set(reqs))}, "
        f"not in pyproject: {sorted(set(reqs) - expected)}"
    )
    unpinned = {n: s for n, s in reqs.items() if not re.fullmatch(r"==[^,]+", s)}
    assert not unpinned, f"not pinned with ==: {unpinned}"
    lines = [l.split("#", 1)[0].strip() for l in (BINDER / "requirements.txt").read_text().splitlines()]
    assert "." in lines, "binder/requirements.txt must install the package with '.'"
    assert "voila" in reqs  # needed for the ?urlpath=voila/render/... badge


def test_postbuild_and_start_agree_on_numba_settings():
    post, start = BINDER / "postBuild", BINDER / "start"
    for script in (post, start):
        assert os.access(script, os.X_OK), f"{script.name} is not executable"
        assert script.read_text().startswith("#!/usr/bin/env bash")
        assert _exported(script, "NUMBA_CPU_NAME") == "generic"
    assert "set -euo pipefail" in post.read_text()
    assert "python -m ercot_nb.warmup" in post.read_text()
    assert _exported(post, "NUMBA_CACHE_DIR") == _exported(start, "NUMBA_CACHE_DIR")
    body = [l for l in start.read_text().splitlines() if l.strip() and not l.startswith("#")]
    assert body[-1].strip() == 'exec "$@"'


def test_start_exports_and_execs(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["CONDA_DIR"] = str(tmp_path)
    out = subprocess.run(
        [str(BINDER / "start"), sys.executable, "-c",
         "import os, json; print(json.dumps({k: os.environ.get(k) for k in "
         "('NUMBA_CPU_NAME', 'NUMBA_CACHE_DIR')}))"],
        env=env, capture_output=True, text=True, check=True,
    ).stdout
    assert json.loads(out) == {"NUMBA_CPU_NAME": "generic",
                               "NUMBA_CACHE_DIR": f"{tmp_path}/numba-cache"}


def test_check_script_builds_the_environment_like_repo2docker():
    """binder/check.sh (run by hand: it installs from the index) follows repo2docker's steps."""
    script = BINDER / "check.sh"
    assert os.access(script, os.X_OK), "binder/check.sh is not executable"
    subprocess.run(["bash", "-n", str(script)], check=True)
    text = script.read_text()
    steps = ["-m venv", "pip install --quiet -r binder/requirements.txt", "bash binder/postBuild",
             'binder/start" env NUMBA_DEBUG_CACHE=1 python "$REPO/binder/first_fit.py"',
             'binder/start" python -m pytest']
    positions = [text.find(step) for step in steps]
    assert -1 not in positions and positions == sorted(positions), dict(zip(steps, positions))
    assert 'CONDA_DIR="$WORK/env"' in text  # postBuild and start put the cache under CONDA_DIR


# binder/first_fit.py on a cold cache, then after the warm-up: tests/test_warmup.py
# (test_a_cold_cache_compiles_and_after_the_warmup_nothing_does), one cold cache for both.


def test_plain_voila_uses_the_installed_template_without_a_cdn():
    """`voila widgets/explorer.ipynb` from the repository root (Binder) takes its template from the
    repository's voila.json: the package's "ercot-nb" (Voila's lab page less Font Awesome from a
    CDN), which pyproject.toml's data-files install where Voila finds templates by name (setup.py
    copies them in an editable install too), the same files the hub's image copies."""
    name = json.loads((ROOT / "voila.json").read_text())["VoilaConfiguration"].get("template")
    assert name == json.loads((ROOT / "deploy" / "voila.json").read_text())["VoilaConfiguration"]["template"]
    data_files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    shipped = data_files[f"share/jupyter/voila/templates/{name}"]
    assert sorted(shipped) == [f"deploy/voila-template/{name}/conf.json",
                               "ercot_nb/widgets/serve/templates/index.html.j2"]
    assert all((ROOT / path).is_file() for path in shipped)
    assert 'self.run_command("install_data")' in (ROOT / "setup.py").read_text()


def test_plain_voila_loads_the_lab_extensions_of_the_app():
    """Binder and `voila widgets/explorer.ipynb` read the repository's voila.json (Voila reads it
    from the folder it runs in): the same lab extensions as `ercot-nb app`, not nbgrader's or
    notebook 7's, which fail in a Voila page (module-federation errors in the console)."""
    from ercot_nb.widgets.serve.app_server import APP_LAB_EXTENSIONS

    for path in (ROOT / "voila.json", ROOT / "deploy" / "voila.json"):  # Binder/checkout, the hub's image
        config = json.loads(path.read_text())
        assert config["VoilaConfiguration"]["extension_allowlist"] == list(APP_LAB_EXTENSIONS), path
