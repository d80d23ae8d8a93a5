"""Binder files: consistent with pyproject.toml, and the numba warm-up really caches."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

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


FIRST_FIT = """
import json, time
t0 = time.perf_counter()
import ercot_nb
from ercot_nb import ERCOT, datasets
ERCOT(seed=0).fit(datasets.load("syn1", seed=0)[:2])
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""


@pytest.mark.slow
def test_warmup_fills_cache_so_first_fit_does_not_compile(tmp_path):
    """Cold warm-up in one process, then a first fit in a fresh process hits the cache."""
    cache = tmp_path / "numba-cache"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(cache), NUMBA_CPU_NAME="generic")
    run = dict(env=env, cwd=tmp_path, capture_output=True, text=True, check=True, timeout=180)

    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ercot_nb.warmup"], **run)
    cold_s = time.perf_counter() - started
    assert list(cache.rglob("*.nbi")), "warm-up wrote no numba cache index"

    started = time.perf_counter()
    fit = subprocess.run([sys.executable, "-c", FIRST_FIT], **run)
    process_s = time.perf_counter() - started  # interpreter + import + first fit
    first_fit_s = json.loads(fit.stdout)["seconds"]
    print(f"cold warm-up {cold_s:.1f} s; fresh process after it: import + first fit "
          f"{first_fit_s:.2f} s ({process_s:.2f} s wall)")
    assert process_s < cold_s / 3, (cold_s, process_s)


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


@pytest.mark.slow
def test_first_fit_check_fails_on_a_cold_cache_and_passes_after_warmup(tmp_path):
    """binder/first_fit.py (a fresh kernel, NUMBA_DEBUG_CACHE=1) tells compiling from loading."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "numba-cache"), NUMBA_CPU_NAME="generic",
               NUMBA_DEBUG_CACHE="1", HOME=str(tmp_path))
    run = dict(env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    check = [sys.executable, str(BINDER / "first_fit.py")]

    cold = subprocess.run(check, **run)
    assert cold.returncode == 1, cold.stdout + cold.stderr
    cold_report = json.loads(cold.stdout.strip().splitlines()[-1])
    assert cold_report["dispatcher_cache_misses"] > 0
    assert cold_report["numba_debug_cache"]["data_saved"] > 0

    subprocess.run([sys.executable, "-m", "ercot_nb.warmup"], check=True,
                   **{**run, "env": {**env, "NUMBA_DEBUG_CACHE": "0"}})
    warm = subprocess.run(check, **run)
    assert warm.returncode == 0, warm.stdout + warm.stderr
    report = json.loads(warm.stdout.strip().splitlines()[-1])
    print("cold:", cold_report, "\nwarm:", report)
    assert report["dispatcher_cache_misses"] == 0 and report["numba_debug_cache"]["data_saved"] == 0
    assert report["dispatcher_cache_hits"] > 0 and report["numba_debug_cache"]["data_loaded"] > 0
    assert report["import_and_first_fit_s"] < cold_report["import_and_first_fit_s"] / 2


def test_plain_voila_loads_the_lab_extensions_of_the_app():
    """Binder and `voila widgets/explorer.ipynb` read the repository's voila.json (Voila reads it
    from the folder it runs in): the same lab extensions as `ercot-nb app`, not nbgrader's or
    notebook 7's, which fail in a Voila page (module-federation errors in the console)."""
    from ercot_nb.widgets.serve.app_server import APP_LAB_EXTENSIONS

    for path in (ROOT / "voila.json", ROOT / "deploy" / "voila.json"):  # Binder/checkout, the hub's image
        config = json.loads(path.read_text())
        assert config["VoilaConfiguration"]["extension_allowlist"] == list(APP_LAB_EXTENSIONS), path
