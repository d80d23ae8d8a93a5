"""The built wheel runs the app without a checkout: `ercot-nb app` from an empty folder.

Builds the wheel from a copy of the working tree, installs it (with the notebook
extra) into a fresh venv outside the repository (with --system-site-packages, so
the dependencies are already there: nothing is downloaded), checks that the
venv's Python imports ercot_nb from the venv and that the shipped app notebooks
and tutorials equal their sources, copies the tutorials with `ercot-nb
tutorials`, then starts `ercot-nb app` in an empty folder and loads the page in
Chromium, as a new user's first page (empty numba cache, no warm-up): the views and a
provisional first partition come at once, the run's own steps after (first_page.py).
"""
from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from .app_harness import REPO, scratch_env
from .first_page import check_first_page, first_partition_timings

from ercot_nb.widgets.serve.shipped import APPS, TUTORIAL_FILES, tutorial_files



def run(*command, **kwargs) -> str:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def source_copy(target: Path) -> Path:
    """The tracked and new (not ignored) files of the working tree, copied to ``target``."""
    listed = run("git", "-C", REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    for name in filter(None, listed.split("\0")):
        if (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / name, target / name)
    return target


def test_the_installed_wheel_serves_the_app_from_an_empty_folder(tmp_path, capsys):
    timings = {}
    started = time.monotonic()
    mirrored = {node.targets[0].id: ast.literal_eval(node.value)
                for node in ast.parse((REPO / "setup.py").read_text()).body
                if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in ("APPS", "TUTORIAL_FILES")}
    assert mirrored == {"APPS": APPS, "TUTORIAL_FILES": TUTORIAL_FILES}  # setup.py's copies agree
    env = scratch_env(tmp_path)
    env.pop("PYTHONPATH", None)  # nothing from the checkout
    # numba then caches next to the imported package, which the end of the test checks
    # (CI points NUMBA_CACHE_DIR elsewhere)
    env.pop("NUMBA_CACHE_DIR", None)
    # The dependencies come from the base environment, their data files too (Voila's templates,
    # the widget extensions), which a venv's Jupyter looks for under its own prefix only.
    env["JUPYTER_PATH"] = str(Path(sys.base_prefix) / "share" / "jupyter")
    source = source_copy(tmp_path / "source")
    dist = tmp_path / "dist"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", dist, source, env=env)
    wheel = next(dist.glob("ercot_nb-*.whl"))
    timings["wheel built"] = time.monotonic() - started

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--system-site-packages", venv, env=env)
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", wheel, env=env)
    run(python, "-m", "pip", "install", "--quiet", f"{wheel}[notebook]", env=env)  # extras present
    timings["installed"] = time.monotonic() - started

    empty = tmp_path / "empty"
    empty.mkdir()
    where = run(python, "-c", "import ercot_nb; print(ercot_nb.__file__)", env=env, cwd=empty).strip()
    package = Path(where).parent
    assert package.is_relative_to(venv), f"ercot_nb imported from {where}, not from the venv"
    for name in APPS:  # the shipped app notebooks are the repository's sources
        assert (package / "apps" / f"{name}.ipynb").read_bytes() == (
            REPO / "widgets" / f"{name}.ipynb").read_bytes()
    sources = tutorial_files(REPO / "notebooks")
    assert tutorial_files(package / "tutorials") == sources and len(sources) > 8
    for relative in sources:
        assert (package / "tutorials" / relative).read_bytes() == (
            REPO / "notebooks" / relative).read_bytes()

    out = run(venv / "bin" / "ercot-nb", "tutorials", "my-tutorials", env=env, cwd=empty)
    assert f"copied {len(sources)} file(s)" in out
    assert (empty / "my-tutorials" / "01_quickstart.ipynb").is_file()
    assert (empty / "my-tutorials" / "exercises" / "README.md").is_file()
    shutil.rmtree(empty / "my-tutorials")

    # a new user's first page: fresh venv, empty numba cache (numba caches next to the installed
    # package), no warm-up: the views and a provisional first partition at once, then the run
    first = first_partition_timings(tmp_path, tmp_path / "wheel-app.png", env=env, cwd=empty,
                                    python=str(python), empty_cache=False)
    timings["page loaded"] = time.monotonic() - started
    with capsys.disabled():
        print("\n" + ", ".join(f"{step} at {seconds:.0f} s" for step, seconds in timings.items())
              + f"; {wheel.name}, {wheel.stat().st_size / 2**20:.1f} MiB; from opening the page "
              f"(empty numba cache, load {os.getloadavg()[0]:.1f}): views drawn {first.get('page')} s, "
              f"preview {first.get('preview')} s (kernel CPU {first.get('kernel CPU s at preview', 0):.1f} s), "
              f"first step {first.get('first step')} s, finished {first.get('finished')} s")
    check_first_page(first)
    # the kernel ran the venv's ercot_nb: numba cached its kernels next to it
    assert list((package / "kernels" / "__pycache__").glob("*.nbi"))
    assert os.listdir(empty) == []  # the app wrote nothing into the folder it ran from
    text = Path(first["server log"]).read_text()
    assert "Serving explorer.ipynb" in text and "Traceback" not in text
