"""Calling a student's function in a clean Python process: the grader's view of an answer.

A notebook's kernel runs the student's code, so nothing in it can be trusted to
report a grade: the student may have replaced :func:`~ercot_nb.exercises.grade`,
patched NumPy, or returned objects whose ``==`` is always true.
:func:`call_in_clean_process` runs only the given answer cells in a new
``python -I`` process (no ``PYTHONPATH``, no user site, a fresh temporary
working folder; ``ercot_nb`` imports there give stubs whose every function
raises, so an answer that calls the package's own reference fails), calls one function of
theirs on the given inputs and sends back plain numbers (``float`` or ``None``
and an error line per case) as JSON. The grader compares these numbers with its
own expected values in its own process: whatever the answer cells do, they
can only change the numbers their function returns.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

_HARNESS = r'''
import importlib.abc, json, math, sys, traceback

import importlib.machinery, types

def _unavailable(*args, **kwargs):
    raise RuntimeError("ercot_nb is not available while grading: write the function with NumPy")

class _Stub(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _unavailable

class _NoPackage(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name == "ercot_nb" or name.startswith("ercot_nb."):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None
    def create_module(self, spec):
        module = _Stub(spec.name)
        module.__path__ = []
        return module
    def exec_module(self, module):
        pass

sys.meta_path.insert(0, _NoPackage())
job_path, out_path = sys.argv[1], sys.argv[2]
with open(job_path, encoding="utf-8") as fh:
    job = json.load(fh)
import numpy as np
namespace = {"__name__": "__main__", "np": np}
setup_errors = []
for index, cell in enumerate(job["cells"]):
    try:
        exec(compile(cell, f"<answer cell {index + 1}>", "exec"), namespace)
    except BaseException as exc:
        setup_errors.append(f"{type(exc).__name__}: {exc}"[:300])
inputs = np.load(job["inputs"], allow_pickle=False)
function = namespace.get(job["function"])
values, errors = [], []
for case in range(job["n_cases"]):
    args = [inputs[f"case{case}_arg{i}"] for i in range(job["n_args"])]
    if not callable(function):
        values.append(None); errors.append(f"no function {job['function']} was defined"); continue
    try:
        raw = function(*[a.copy() for a in args])
        if raw is None:
            values.append(None); errors.append("returned None"); continue
        arr = np.asarray(raw)
        if arr.dtype == object or arr.size != 1:
            raise TypeError(f"returned a {type(raw).__name__}, not a single number")
        number = float(arr.reshape(()).item())
        values.append(number if math.isfinite(number) else repr(number)); errors.append(None)
    except BaseException as exc:
        values.append(None); errors.append(f"{type(exc).__name__}: {exc}"[:300])
with open(out_path, "w", encoding="utf-8") as fh:
    json.dump({"values": values, "errors": errors, "setup_errors": setup_errors}, fh)
'''


class CleanRunTimeout(Exception):
    """The answer cells and calls did not finish within the time limit."""


def call_in_clean_process(cells: Sequence[str], function: str, cases: Sequence[Sequence[np.ndarray]],
                          *, timeout: float) -> tuple[list[float | None], list[str | None], list[str]]:
    """Run ``cells`` in a new isolated Python, then ``function(*case)`` for every case.

    Parameters
    ----------
    cells : sequence of str
        Python sources (the answer cells), run in order in one namespace that
        starts with ``np`` (NumPy) only. An error in a cell is recorded, not raised.
    function : str
        Name of the function the cells define.
    cases : sequence of sequences of numpy.ndarray
        Positional arguments of each call (copies are passed).
    timeout : float
        Seconds for the whole run; past it the process is killed.

    Returns
    -------
    values : list of float or None
        What each call returned, as a float (``inf``/``nan`` as ``float``), or None.
    errors : list of str or None
        Why a call gave no number (one line), else None.
    setup_errors : list of str
        Errors raised while running the cells.

    Raises
    ------
    CleanRunTimeout
        When the run takes longer than ``timeout`` seconds.
    """
    n_args = len(cases[0]) if cases else 0
    with tempfile.TemporaryDirectory(prefix="ercot-grade-") as work:
        folder = Path(work)
        arrays = {f"case{c}_arg{i}": np.asarray(arg) for c, case in enumerate(cases)
                  for i, arg in enumerate(case)}
        np.savez(folder / "inputs.npz", **arrays)
        job = {"cells": list(cells), "function": function, "n_cases": len(cases), "n_args": n_args,
               "inputs": str(folder / "inputs.npz")}
        (folder / "job.json").write_text(json.dumps(job), encoding="utf-8")
        (folder / "harness.py").write_text(_HARNESS, encoding="utf-8")
        out = folder / "out.json"
        env = {key: value for key, value in os.environ.items()
               if key in ("PATH", "HOME", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP")}
        env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        command = [sys.executable, "-I", str(folder / "harness.py"), str(folder / "job.json"), str(out)]
        try:
            subprocess.run(command, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise CleanRunTimeout(f"the answer took longer than {timeout:g} s") from None
        try:
            report: Any = json.loads(out.read_text(encoding="utf-8"))
            values = [float(v) if isinstance(v, (int, float, str)) else None for v in report["values"]]
            errors = [None if e is None else str(e) for e in report["errors"]]
            setup = [str(e) for e in report.get("setup_errors", [])]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            values = [None] * len(cases)
            errors = [f"the answer cells stopped the grading process ({type(exc).__name__})"] * len(cases)
            setup = []
    if len(values) != len(cases) or len(errors) != len(cases):
        values, errors = [None] * len(cases), ["the grading process returned a wrong number of values"] * len(cases)
    return values, errors, setup
