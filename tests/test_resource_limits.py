"""Every resource limit is one line: a full disk (outputs, the numba cache), memory caps.

The full disk is a real one where this machine lets the tests mount a small
tmpfs (as root); otherwise those tests are skipped and the write is
simulated by the ones that patch it.
"""
from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from ercot_nb._files import OutputError, WriteLimitError, atomic_write_text, check_outputs
from ercot_nb.cli import main

REPO = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "1m"):
    """A tmpfs of ``size`` mounted at ``folder`` (skips the test when mounting is not permitted)."""
    folder.mkdir(parents=True, exist_ok=True)
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                             capture_output=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> None:
    """Write a filler file until the disk is full."""
    with open(folder / f"filler-{uuid.uuid4().hex}", "wb", buffering=0) as filler:
        try:
            while True:
                filler.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC


def one_line_error(err: str) -> bool:
    return err.startswith("ercot-nb: error: ") and err.count("\n") == 1 and "Traceback" not in err


def leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith((".tmp", ".partial"))]


# ---------------------------------------------------------------------------
# a full disk
# ---------------------------------------------------------------------------


def test_atomic_write_on_a_full_disk_is_one_line_naming_the_file(tmp_path):
    with small_disk(tmp_path / "disk", "64k") as disk:
        (disk / "kept.txt").write_text("old\n")
        fill(disk)
        for overwrite in (False, True):
            target = disk / ("kept.txt" if overwrite else "new.txt")
            with pytest.raises(WriteLimitError) as caught:
                atomic_write_text(check_outputs({"path": target}, overwrite=overwrite)["path"], "x" * 100_000)
            message = str(caught.value)
            print(message)
            assert "\n" not in message and str(target) in message and "disk is full" in message
            assert isinstance(caught.value, OSError) and isinstance(caught.value, OutputError)
        assert (disk / "kept.txt").read_text() == "old\n" and not (disk / "new.txt").exists()
        assert leftovers(disk) == []


def _sweep_runs(runs_dir: Path) -> None:
    from ercot_nb.experiments.runner import execute_run
    from ercot_nb.experiments.spec import RunSpec
    from ercot_nb.experiments.store import save_run

    runs_dir.mkdir(parents=True)
    for run_index in range(2):
        spec = RunSpec("staticEC", "syn1", run_index, params={"pop_size": 20, "n_evaluations": 40},
                       dataset_params={"n_steps": 2})
        save_run(runs_dir, spec, execute_run(spec))


REPORT_ONLY = ["--runs", "2", "--algorithms", "staticEC", "--datasets", "syn1", "--report-only", "--no-progress"]


@pytest.mark.parametrize("mode", ["report-only", "out"])
def test_experiments_on_a_full_disk_is_one_line(tmp_path, capsys, mode):
    with small_disk(tmp_path / "disk", "4m") as disk:
        out = disk / "E"
        if mode == "report-only":
            _sweep_runs(out / "runs")
        fill(disk)
        argv = ["experiments", "--out", str(out)]
        argv += REPORT_ONLY if mode == "report-only" else [
            "--runs", "1", "--algorithms", "staticEC", "--datasets", "syn1", "--no-progress", "--workers", "1"]
        code = main(argv)
        _, err = capsys.readouterr()
        print(f"[{mode}] exit {code}: {err.strip()}")
        assert code == 1 and one_line_error(err) and "disk is full" in err and str(out) in err
        assert leftovers(disk) == []


def test_experiments_on_a_full_disk_simulated(tmp_path, capsys, monkeypatch):
    """The same without a mount: the first write of the report runs out of space."""
    import ercot_nb._files as files

    out = tmp_path / "E"
    _sweep_runs(out / "runs")

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full)
    code = main(["experiments", "--out", str(out), *REPORT_ONLY])
    _, err = capsys.readouterr()
    assert code == 1 and one_line_error(err) and "disk is full" in err, err
    assert leftovers(tmp_path) == []


# ---------------------------------------------------------------------------
# the numba cache on a full disk
# ---------------------------------------------------------------------------

_CACHED_KERNEL = """
import numpy as np
from numba import njit

@njit(cache=True)
def total(x):
    s = 0.0
    for v in x:
        s += v
    return s
"""


def test_a_full_numba_cache_compiles_in_memory_with_one_warning(tmp_path):
    """A kernel compiled with ``cache=True`` into a full NUMBA_CACHE_DIR: one warning, right answers."""
    (tmp_path / "kernelmod.py").write_text(_CACHED_KERNEL)
    script = textwrap.dedent("""
        import warnings, numpy as np
        warnings.simplefilter("always")
        import ercot_nb.kernels._compile  # what every fit imports first
        import kernelmod
        print(kernelmod.total(np.arange(10.0)), kernelmod.total(np.arange(4, dtype=np.int64)))
    """)
    with small_disk(tmp_path / "disk", "64k") as disk:
        fill(disk)
        env = {**os.environ, "NUMBA_CACHE_DIR": str(disk / "cache"),
               "PYTHONPATH": os.pathsep.join([str(REPO), str(tmp_path)])}
        (disk / "cache").mkdir()
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                              timeout=300)
    print(done.stdout, done.stderr)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["45.0", "6.0"]
    warnings = [line for line in done.stderr.splitlines() if "cannot write the numba cache" in line]
    assert len(warnings) == 1 and "disk is full" in warnings[0] and "Traceback" not in done.stderr
