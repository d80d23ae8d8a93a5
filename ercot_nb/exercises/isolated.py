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

:func:`values_in_clean_process` does the same for the answers that are values
(numbers, lists, letters about a fitted model): it runs the course's own cells
and the answer cells in a new process where the package is importable, and
sends back each answer as plain JSON; the trusted run of the teacher's
solution also hands back, pickled, the objects the checks read (``model``,
``data``...). The grader checks the plain values against those objects with the
package's checkers in its own process.
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

_SHELL = r'''
class _Shell:
    """get_ipython() of a replayed cell: timing magics run their code once, the rest do nothing."""
    def __init__(self, namespace):
        self.namespace = namespace
    def run_line_magic(self, name, line, *args, **kwargs):
        if name == "time" and line.strip():
            exec(compile(line, "<magic>", "exec"), self.namespace)
    def run_cell_magic(self, name, line, cell, *args, **kwargs):
        if name in ("time", "capture"):
            exec(compile(cell, "<magic>", "exec"), self.namespace)
    def system(self, *args, **kwargs):
        return None
    getoutput = system
'''

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

#SHELL#
namespace = {"__name__": "__main__", "np": np}
namespace["get_ipython"] = lambda: _Shell(namespace)
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
'''.replace("#SHELL#\n", _SHELL)


_VALUES_HARNESS = r'''
import json, math, numbers, pickle, signal, sys

job_path, out_path = sys.argv[1], sys.argv[2]
with open(job_path, encoding="utf-8") as fh:
    job = json.load(fh)
sys.path.insert(0, job["package_path"])
import numpy as np

def plain(value, depth=0):
    if depth > 6:
        raise TypeError("nested too deeply")
    if value is None or isinstance(value, bool):
        return None if value is None else bool(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, np.generic):
        return plain(value.item(), depth + 1)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, dict):
        return {str(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted((plain(v, depth + 1) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    if hasattr(value, "tolist"):
        return plain(value.tolist(), depth + 1)
    raise TypeError(f"a {type(value).__name__}, not a number, list, dict or set")

class CellTimeout(BaseException):
    pass

def _stop(signum, frame):
    raise CellTimeout(f"ran past its time limit of {job['cell_limits'][current]:g} s")

timer = hasattr(signal, "setitimer")
if timer:
    signal.signal(signal.SIGALRM, _stop)

#SHELL#
namespace = {"__name__": "__main__", "display": lambda *a, **k: None}
namespace["get_ipython"] = lambda: _Shell(namespace)
setup_errors = []
for index, cell in enumerate(job["cells"]):
    current = index
    try:
        if timer:
            signal.setitimer(signal.ITIMER_REAL, job["cell_limits"][index])
        exec(compile(cell, f"<cell {index + 1}>", "exec"), namespace)
    except BaseException as exc:
        setup_errors.append(f"cell {index + 1}: {type(exc).__name__}: {exc}"[:300])
    finally:
        if timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
values, errors = {}, {}
for key, expression in job["expressions"].items():
    try:
        values[key] = plain(eval(expression, namespace)); errors[key] = None
    except BaseException as exc:
        values[key] = None; errors[key] = f"{type(exc).__name__}: {exc}"[:300]
if job["context"]:
    context = {name: eval(name, namespace) for name in job["context"]}
    with open(out_path + ".pickle", "wb") as fh:
        pickle.dump(context, fh)
with open(out_path, "w", encoding="utf-8") as fh:
    json.dump({"values": values, "errors": errors, "setup_errors": setup_errors}, fh)
'''.replace("#SHELL#\n", _SHELL)


class CleanRunTimeout(Exception):
    """The answer cells and calls did not finish within the time limit."""


def _run(folder: Path, out: Path, timeout: float, extra_env: dict[str, str]) -> None:
    """Run ``folder/harness.py`` on ``folder/job.json`` in ``python -I``, killed after ``timeout`` s."""
    env = {key: value for key, value in os.environ.items()
           if key in ("PATH", "HOME", "LANG", "LC_ALL", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP",
                      "NUMBA_CACHE_DIR")}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", MPLBACKEND="Agg",
               PLOTLY_RENDERER="json", **extra_env)
    command = [sys.executable, "-I", str(folder / "harness.py"), str(folder / "job.json"), str(out)]
    try:
        subprocess.run(command, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise CleanRunTimeout(f"the answer took longer than {timeout:g} s") from None



def python_sources(cells: Sequence[str]) -> list[str]:
    """Notebook cells as plain Python: IPython's own transforms turn ``%magic`` and ``!cmd``
    into ``get_ipython()`` calls (the clean process answers them: timing magics run their
    code once, the others do nothing), so a magic in an answer is not a syntax error."""
    from IPython.core.inputtransformer2 import TransformerManager

    transform = TransformerManager().transform_cell
    return [transform(cell) if ("%" in cell or "!" in cell) else cell for cell in cells]


def values_in_clean_process(cells: Sequence[str], expressions: dict[str, str], *,
                            cell_limit: float | Sequence[float],
                            env: dict[str, str] | None = None, context: Sequence[str] = (),
                            ) -> tuple[dict[str, Any], dict[str, str | None], list[str], dict[str, Any] | None]:
    """Run ``cells`` in a new isolated Python that can import this package; evaluate ``expressions``.

    Parameters
    ----------
    cells : sequence of str
        Python sources run in order in one namespace (the course's cells and the answer cells).
        An error in a cell is recorded, not raised.
    expressions : dict of str to str
        ``{key: expression}``: each is evaluated after the cells and sent back as plain JSON
        (numbers, strings, lists, dicts; sets and tuples as lists).
    cell_limit : float or sequence of float
        Seconds for each cell (one for all, or one per cell): a cell past it is stopped (an error,
        as in nbgrader's run) and the next one runs. The whole run is killed after 60 s plus
        the cells' limits.
    env : dict, optional
        Extra environment variables of the process (e.g. the student's variant).
    context : sequence of str, optional
        Names whose objects are sent back pickled. Only for a trusted run (the teacher's
        solution): a pickle from a student's run is never read.

    Returns
    -------
    values : dict
        ``{key: plain value or None}``.
    errors : dict
        ``{key: why no value (one line) or None}``.
    setup_errors : list of str
        Errors raised while running the cells.
    objects : dict or None
        ``{name: object}`` of ``context`` (None when none was asked or the run did not get there).

    Raises
    ------
    CleanRunTimeout
        When the whole run takes too long (a cell that defeats the per-cell limit).
    """
    import pickle

    import ercot_nb

    with tempfile.TemporaryDirectory(prefix="ercot-grade-") as work:
        folder = Path(work)
        limits = ([float(cell_limit)] * len(cells) if isinstance(cell_limit, (int, float))
                  else [float(limit) for limit in cell_limit])
        if len(limits) != len(cells):
            raise ValueError(f"cell_limit has {len(limits)} limits for {len(cells)} cells; give one per cell")
        timeout = 60.0 + sum(limits)
        job = {"cells": python_sources(cells), "expressions": dict(expressions), "context": list(context),
               "cell_limits": limits,
               "package_path": str(Path(ercot_nb.__file__).resolve().parents[1])}
        (folder / "job.json").write_text(json.dumps(job), encoding="utf-8")
        (folder / "harness.py").write_text(_VALUES_HARNESS, encoding="utf-8")
        out = folder / "out.json"
        _run(folder, out, timeout, dict(env or {}))
        objects = None
        try:
            report: Any = json.loads(out.read_text(encoding="utf-8"))
            values = {key: report["values"].get(key) for key in expressions}
            errors = {key: (None if report["errors"].get(key) is None else str(report["errors"][key]))
                      for key in expressions}
            setup = [str(e) for e in report.get("setup_errors", [])]
            if context:
                with open(str(out) + ".pickle", "rb") as fh:
                    objects = pickle.load(fh)  # noqa: S301 (the teacher's run, see above)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, pickle.UnpicklingError) as exc:
            values = {key: None for key in expressions}
            errors = {key: f"the cells stopped the grading process ({type(exc).__name__})"
                      for key in expressions}
            setup = []
    return values, errors, setup, objects


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
        job = {"cells": python_sources(cells), "function": function, "n_cases": len(cases), "n_args": n_args,
               "inputs": str(folder / "inputs.npz")}
        (folder / "job.json").write_text(json.dumps(job), encoding="utf-8")
        (folder / "harness.py").write_text(_HARNESS, encoding="utf-8")
        out = folder / "out.json"
        _run(folder, out, timeout, {})
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
