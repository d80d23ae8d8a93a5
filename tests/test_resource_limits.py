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


# ---------------------------------------------------------------------------
# memory caps: the limit that applies to this process, not the machine's free memory
# ---------------------------------------------------------------------------

# A fit planned at about 6 GiB: within a machine's free memory, not within a 3 GB cap.
_BIG_FIT = textwrap.dedent("""
    import numpy as np
    from ercot_nb import StaticEC, TemporalDataset
    rng = np.random.default_rng(0)
    data = TemporalDataset.from_arrays([rng.random((1000, 2))], times=[0])
    try:
        StaticEC(pop_size=20000, max_clusters=1000, n_evaluations=40000, seed=0, progress=False).fit(data)
    except ValueError as exc:
        print("REFUSED", exc)
    else:
        print("FITTED")
""")
BIG_FIT_BYTES = 6 * 2**30


def _run_capped(preexec, env_extra=None):
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env_extra or {})}
    return subprocess.run([sys.executable, "-c", _BIG_FIT], env=env, capture_output=True, text=True,
                          timeout=300, preexec_fn=preexec)


def test_the_memory_check_reads_the_address_space_limit():
    from ercot_nb.evolution._memory import available_memory

    machine = available_memory()
    if machine is None or machine < 1.3 * BIG_FIT_BYTES:
        pytest.skip("the machine itself has too little free memory for the comparison")
    resource = pytest.importorskip("resource")
    cap = 3 * 10**9

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    done = _run_capped(limit)
    print(done.stdout.strip(), done.stderr[-500:])
    assert done.returncode == 0 and "Traceback" not in done.stderr and "MemoryError" not in done.stderr
    line = done.stdout.strip()
    assert line.startswith("REFUSED") and "\n" not in line
    assert "address-space limit (RLIMIT_AS" in line and "2.79 GiB" in line and "pop_size=20000" in line


def test_the_memory_check_reads_the_cgroup_limit():
    """A real cgroup (v1 or v2) with a 2 GiB cap, where this machine lets root make one."""
    from ercot_nb.evolution._memory import available_memory

    machine = available_memory()
    if machine is None or machine < 1.3 * BIG_FIT_BYTES:
        pytest.skip("the machine itself has too little free memory for the comparison")
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("making a cgroup needs root")
    name = f"ercot-nb-test-{uuid.uuid4().hex[:8]}"
    candidates = [(Path("/sys/fs/cgroup/memory") / name, "memory.limit_in_bytes"),
                  (Path("/sys/fs/cgroup") / name, "memory.max")]
    for folder, limit_file in candidates:
        try:
            folder.mkdir()
        except OSError:
            continue
        try:
            (folder / limit_file).write_text(str(2 * 2**30))
        except OSError:
            folder.rmdir()
            continue
        break
    else:
        pytest.skip("cannot make a memory cgroup here")
    procs = str(folder / "cgroup.procs")
    try:
        def enter():
            with open(procs, "w") as file:
                file.write(str(os.getpid()))

        done = _run_capped(enter)
    finally:
        with contextlib.suppress(OSError):
            folder.rmdir()
    print(done.stdout.strip(), done.stderr[-500:])
    line = done.stdout.strip()
    assert line.startswith("REFUSED") and "\n" not in line and "cgroup memory limit" in line, done.stderr[-500:]
    assert "of 2 GiB" in line


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_cgroup_limit_is_read_from_the_cgroup_and_its_parents(tmp_path, monkeypatch, version):
    from ercot_nb.evolution import _memory

    proc = tmp_path / "cgroup"
    root = tmp_path / "sys"
    if version == "v2":
        proc.write_text("0::/slice/job\n")
        (root / "slice" / "job").mkdir(parents=True)
        (root / "slice" / "job" / "memory.max").write_text("max\n")
        (root / "slice" / "memory.max").write_text(f"{2**30}\n")
        (root / "slice" / "memory.current").write_text(f"{2**28}\n")
        where = "slice/memory.max"
    else:
        proc.write_text("4:memory:/job\n3:cpu:/elsewhere\n")
        (root / "memory" / "job").mkdir(parents=True)
        (root / "memory" / "job" / "memory.limit_in_bytes").write_text(f"{2**30}\n")
        (root / "memory" / "job" / "memory.usage_in_bytes").write_text(f"{2**28}\n")
        (root / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # no limit
        where = "job/memory.limit_in_bytes"
    monkeypatch.setattr(_memory, "_PROC_CGROUP", proc)
    monkeypatch.setattr(_memory, "_CGROUP_ROOT", root)
    monkeypatch.setattr(_memory, "_machine_available", lambda: 20 * 2**30)
    assert _memory.available_memory() == 2**30 - 2**28
    with pytest.raises(ValueError, match=f"under the cgroup memory limit .*{where}.* of 1 GiB, 256 MiB in use"):
        _memory.check_fit_memory("ERCOT", pop_size=20000, n_max=200, n_samples=100, n_features=2)
