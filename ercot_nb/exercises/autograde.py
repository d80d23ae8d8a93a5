"""The course's side of nbgrader's ``autograde``: grades a student cannot forge, and clear outcomes.

``ercot-nb teacher nbgrader DIR`` writes a ``nbgrader_config.py`` that calls
:func:`configure`, which adds three steps to nbgrader's autograde and one
export plugin:

``Inspect`` (before nbgrader restores the locked cells)
    Flags a notebook that is not the course's copy (``wrong-copy``: no grading
    marks, e.g. one from ``ercot-nb tutorials``; its answer cells are mapped by
    their tags so it is still graded), restores deleted test cells
    (``test-cell-missing``) and tells an edited test cell (``test-cell-edited``)
    from a hidden test cell that only lacks its hidden part (nbgrader#1961: not
    flagged, no checksum warning).
``TimedExecute``
    nbgrader's ``Execute`` in a kernel with the student's variant
    (``ERCOT_NB_VARIANT``, see :mod:`~ercot_nb.exercises.variants`) and the exercise's time limit
    (``Exercise.time_limit``) for each answer, test or edited cell (the course's own cells,
    unchanged, get ``SETUP_LIMIT``: :func:`cell_limit`); a cell past its limit is stopped and
    flagged ``timeout``.
``Verify`` (after the run, before nbgrader scores it)
    Grades every part again outside the student's kernel: the function parts
    (:func:`~ercot_nb.exercises.isolated.call_in_clean_process`: the student's
    answer cells in a clean process, expected values from the teacher's solution
    in the course's ``source/`` folder, held-out cases seeded by the course
    secret, per student with variants) and the value parts
    (:mod:`~ercot_nb.exercises.replay`: the notebook replayed in clean processes
    with the student's variant, each answer checked against the objects of the
    teacher's run). A test cell that passed in the kernel but fails here is
    failed and flagged ``forged``. Tracebacks lose machine
    paths; a "Grading notes" cell at the top of the notebook gives the reasons.
``FlaggedCsvExportPlugin``
    ``nbgrader export`` with a ``flags`` column.

Flags are also written to ``flags/<assignment>/<student>.json`` in the course
folder and logged, one line each.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._files import atomic_write_text
from .answers import same
from .ex01_objectives import held_out_cases, objective_cases
from .ex02_knee import _knee_distances, _synthetic_fronts, held_out_fronts
from .isolated import CleanRunTimeout, call_in_clean_process
from .registry import get_exercise
from .replay import answer_cells, verify_values
from .secret import held_out_seed, read_grading
from .variants import VARIANT_ENV, student_variant

FLAGS_FOLDER = "flags"
SETUP_LIMIT = 300
"""Seconds for each of the course's own cells, unchanged (imports, fits, figures): a fit that compiles
numba's kernels first took 30.6 CPU-s, 104 s wall on a 2-core machine under load 8.3; with numba's
cache warm the slowest such cell took 7.2 s wall (a plotly figure, load 4.9). Every other cell gets
the exercise's ``time_limit``."""
NOTES_CELL_ID = "ercot-grading-notes"

FLAGS: dict[str, str] = {
    "forged": "a test passed in the notebook, but the same answer fails when graded in a clean "
              "process: that test scores 0",
    "wrong-copy": "this notebook is not the course's copy (its cells carry no grading marks; it may "
                  "come from `ercot-nb tutorials`): its answers were found by their cell tags and "
                  "graded, please check by hand",
    "test-cell-missing": "a test cell was deleted: it was put back and run",
    "test-cell-edited": "a test cell was edited: the original was put back and run",
    "timeout": "a cell ran longer than this exercise's time limit and was stopped",
}
"""Every flag the grader sets, with the reason shown to the student (declared once)."""


# -- what Verify re-grades in a clean process --------------------------------------------------

@dataclass(frozen=True)
class Verified:
    """A function part graded in a clean process: its function, cases and comparison."""

    function: str
    cases: Callable[[int | None], list[tuple[np.ndarray, ...]]]
    agrees: Callable[[tuple[np.ndarray, ...], float | None, float | None], bool]


def _objective_cases(seed: int | None) -> list[tuple[np.ndarray, ...]]:
    cases = objective_cases() if seed is None else held_out_cases(seed)
    return [(c.X, c.centroids, c.active) for c in cases]


def _front_cases(seed: int | None) -> list[tuple[np.ndarray, ...]]:
    cases = _synthetic_fronts() if seed is None else held_out_fronts(seed)
    return [(c.F,) for c in cases]


def _same_number(case: tuple[np.ndarray, ...], got: float | None, expected: float | None) -> bool:
    return got is not None and expected is not None and same(got, expected)


def _same_knee(case: tuple[np.ndarray, ...], got: float | None, expected: float | None) -> bool:
    F = case[0]
    if got is None or expected is None or got != int(got) or not 0 <= got < len(F):
        return False
    distance = _knee_distances(F)
    i, j = int(got), int(expected)
    return bool(np.array_equal(F[i], F[j]) or abs(distance[i] - distance[j]) <= 1e-12 * max(1.0, distance[j]))


VERIFIED: dict[tuple[str, str], Verified] = {
    ("01_implement_f_sep", "f_sep"): Verified("f_sep", _objective_cases, _same_number),
    ("01_implement_f_sep", "f_cp"): Verified("f_cp", _objective_cases, _same_number),
    ("02_predict_the_knee", "knee_rule"): Verified("knee_index", _front_cases, _same_knee),
}
"""Parts graded again outside the kernel, by (exercise, part)."""


def solution_cells(nb: Any) -> list[str]:
    """Sources of the answer (nbgrader solution) cells, without nbgrader's region markers."""
    cells = []
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "code" and meta.get("solution"):
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cells.append("\n".join(line for line in source.split("\n")
                                   if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")))
    return cells


_EXPECTED: dict[tuple[Any, ...], list[float | None]] = {}  # the teacher's values, once per grading run


def verify_part(exercise: str, part: str, student_cells: Sequence[str], reference_cells: Sequence[str],
                *, seed: int | None, timeout: float) -> tuple[bool, str]:
    """Grade one function part in clean processes: (passed, one-line reason)."""
    spec = VERIFIED[(exercise, part)]
    cases = spec.cases(seed)
    key = (exercise, part, seed, tuple(reference_cells))
    if key not in _EXPECTED:
        _EXPECTED[key] = call_in_clean_process(reference_cells, spec.function, cases,
                                               timeout=max(60.0, timeout))[0]
    expected = _EXPECTED[key]
    try:
        got, errors, _ = call_in_clean_process(student_cells, spec.function, cases, timeout=timeout)
    except CleanRunTimeout as exc:
        return False, f"timeout: {exc}"
    for index, case in enumerate(cases):
        if not spec.agrees(case, got[index], expected[index]):
            why = errors[index] or f"returned {got[index]!r}"
            return False, f"case {index + 1} of {len(cases)}: {why}"
    return True, f"all {len(cases)} cases agree"


def course_sources(source_nb: Any) -> set[str]:
    """Sources of the course's own code cells (neither answer nor test) of a source notebook."""
    return {_source_text(c) for c in source_nb["cells"] if c.get("cell_type") == "code"
            and not _marks(c).get("solution") and not _marks(c).get("grade")}


def cell_limit(cell: Any, course: set[str], limit: float) -> float:
    """Seconds ``cell`` may run: ``SETUP_LIMIT`` for a course cell left unchanged (its source in
    ``course``: imports, fits, figures, the course's code), ``limit`` (the exercise's) for every
    answer, test or edited cell."""
    marks = _marks(cell)
    if not marks.get("solution") and not marks.get("grade") and _source_text(cell) in course:
        return float(SETUP_LIMIT)
    return float(limit)


def _marks(cell: Any) -> Any:
    return cell.get("metadata", {}).get("nbgrader", {})


def _source_text(cell: Any) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


# -- feedback hygiene ---------------------------------------------------------------------------

_PATH = re.compile(r"""(?:[A-Za-z]:)?(?:[\\/][^\\/\s"'<>:,()]+)+[\\/]([^\\/\s"'<>:,()]+)""")


def without_paths(text: str) -> str:
    """``text`` with every absolute file path cut to its file name."""
    return _PATH.sub(r"\1", text)


def _clean_outputs(cell: Any, grade_cell: bool) -> None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            output["evalue"] = without_paths(str(output.get("evalue", "")))
            if grade_cell:  # the student needs the message, not the grader's call stack
                output["traceback"] = [f"{output.get('ename', 'Error')}: {output['evalue']}"]
            else:
                output["traceback"] = [without_paths(line) for line in output.get("traceback", [])]
        elif output.get("output_type") == "stream":
            text = output.get("text", "")
            output["text"] = without_paths("".join(text) if isinstance(text, list) else text)


# -- flags ---------------------------------------------------------------------------------------

def _meta(nb: Any) -> dict[str, Any]:
    return nb.setdefault("metadata", {}).setdefault("ercot_nb_grading", {"flags": []})


def _flag(nb: Any, kind: str, detail: str) -> None:
    entry = {"flag": kind, "detail": detail}
    if entry not in _meta(nb)["flags"]:
        _meta(nb)["flags"].append(entry)


def course_root(resources: dict[str, Any]) -> Path:
    url = resources["nbgrader"].get("db_url", "")
    if url.startswith("sqlite:///"):
        return Path(url[len("sqlite:///"):]).parent
    return Path.cwd()


def read_flags(root: str | os.PathLike[str], assignment: str, student: str) -> list[dict[str, str]]:
    """The flags the last autograde of ``student``'s ``assignment`` set (empty when none)."""
    path = Path(root) / FLAGS_FOLDER / assignment / f"{student}.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []


def _notes_cell(flags: list[dict[str, str]]) -> dict[str, Any]:
    lines = ["**Grading notes** (from the course's grader):", ""]
    lines += [f"- **{f['flag']}** ({f['detail']}): {FLAGS[f['flag']]}." for f in flags]
    return {"cell_type": "markdown", "id": NOTES_CELL_ID, "metadata": {}, "source": "\n".join(lines)}


# -- nbgrader preprocessors ------------------------------------------------------------------------

def _nbgrader_classes() -> dict[str, type]:
    """The nbgrader-based classes, built on first use (nbgrader is a teacher's tool, not a dependency)."""
    from nbconvert.exporters.exporter import ResourcesDict  # noqa: F401
    from nbformat.notebooknode import from_dict
    from nbgrader import utils
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.plugins.export import CsvExportPlugin
    from nbgrader.preprocessors import Execute, NbGraderPreprocessor

    def released(source: str) -> str:
        lines, hidden = [], False
        for line in source.split("\n"):
            if "### BEGIN HIDDEN TESTS" in line:
                hidden = True
            elif "### END HIDDEN TESTS" in line:
                hidden = False
            elif not hidden:
                lines.append(line)
        return "\n".join(lines)

    class Inspect(NbGraderPreprocessor):
        """Wrong copies, deleted and edited test cells (runs before nbgrader's OverwriteCells)."""

        def preprocess(self, nb, resources):
            info = resources["nbgrader"]
            nb.metadata["ercot_nb_grading"] = {"flags": []}  # never the student's
            who = f"{info['student']}/{info['assignment']}"
            wrong_copy = not any("nbgrader" in cell.get("metadata", {}) for cell in nb.cells)
            if wrong_copy:
                mapped = 0
                for cell in nb.cells:
                    key = cell.get("metadata", {}).get("exercise", {}).get("solution")
                    if cell.cell_type == "code" and key:
                        cell.metadata["nbgrader"] = {"grade": False, "grade_id": f"answer_{key}",
                                                     "locked": False, "schema_version": 3,
                                                     "solution": True, "task": False}
                        mapped += 1
                _flag(nb, "wrong-copy", f"{mapped} answer cell(s) found by their tags")
                self.log.warning("%s: wrong copy: no nbgrader cells; %d answer cell(s) mapped by tag",
                                 who, mapped)
            with Gradebook(info["db_url"]) as gradebook:
                source = gradebook.find_notebook(info["notebook"], info["assignment"])
                order = [cell.name for cell in source.source_cells]
                by_name = {cell.name: cell for cell in source.source_cells}
                grade_cells = {cell.name: cell for cell in source.grade_cells}
                present = {cell.metadata["nbgrader"].get("grade_id"): cell for cell in nb.cells
                           if "nbgrader" in cell.get("metadata", {})}
                for name, grade_cell in grade_cells.items():
                    if name in present and name in by_name and by_name[name].locked:
                        cell, original = present[name], by_name[name]
                        if cell.source == original.source:
                            continue
                        if cell.source.strip() == released(original.source).strip():
                            cell.source = original.source  # only its hidden part is missing (nbgrader#1961)
                            continue
                        _flag(nb, "test-cell-edited", name)
                        self.log.warning("%s: test cell %s was edited; the original is put back", who, name)
                    elif name not in present and name in by_name:
                        original = by_name[name]
                        restored = from_dict({
                            "cell_type": "code", "execution_count": None, "outputs": [],
                            "id": f"restored-{name}"[:64], "source": original.source,
                            "metadata": {"deletable": False, "editable": False, "nbgrader": {
                                "grade": True, "grade_id": name, "locked": True, "points": grade_cell.max_score,
                                "schema_version": 3, "solution": False, "task": False,
                                "checksum": original.checksum}}})
                        before = order[:order.index(name)]
                        at = max((i for i, c in enumerate(nb.cells)
                                  if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") in before),
                                 default=len(nb.cells) - 1)
                        nb.cells.insert(at + 1, restored)
                        present[name] = restored
                        if not wrong_copy:  # a wrong copy has none: its flag says so
                            _flag(nb, "test-cell-missing", name)
                            self.log.warning("%s: test cell %s was missing; put back and run", who, name)
            return nb, resources

    class TimedExecute(Execute):
        """nbgrader's Execute with the exercise's time limit per cell."""

        def preprocess(self, nb, resources, km=None):
            assignment = resources["nbgrader"]["assignment"]
            try:
                limit = get_exercise(assignment).time_limit
            except ValueError:
                limit = self.timeout
            info = resources["nbgrader"]
            source_path = course_root(resources) / "source" / info["assignment"] / f"{info['notebook']}.ipynb"
            try:
                source_nb = json.loads(source_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                source_nb = {"cells": []}
            course = course_sources(source_nb)
            self.timeout_func = lambda cell: cell_limit(cell, course, limit)
            self.raise_on_iopub_timeout = False  # a stopped cell is a failed cell, not a failed notebook
            try:  # the kernel loads this student's data (never the variant the notebook ran with)
                variant = student_variant(read_grading(course_root(resources)), resources["nbgrader"]["student"])
            except ValueError:
                variant = None
            before = os.environ.pop(VARIANT_ENV, None)
            if variant is not None:
                os.environ[VARIANT_ENV] = str(variant)
            try:
                return super().preprocess(nb, resources, km=km)
            finally:
                os.environ.pop(VARIANT_ENV, None)
                if before is not None:
                    os.environ[VARIANT_ENV] = before

    class Verify(NbGraderPreprocessor):
        """Re-grade the function parts outside the kernel; flags, notes and clean feedback."""

        def preprocess(self, nb, resources):
            info = resources["nbgrader"]
            student, assignment = info["student"], info["assignment"]
            who = f"{student}/{assignment}"
            root = course_root(resources)
            meta = nb.metadata.setdefault("ercot_nb_grading", {"flags": []})
            try:
                exercise = get_exercise(assignment)
            except ValueError:
                exercise = None
            for cell in nb.cells:  # nbgrader's Execute records a stopped cell as a CellTimeoutError
                if any(o.get("ename") == "CellTimeoutError" for o in cell.get("outputs", [])):
                    name = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or f"cell {cell.get('id')}"
                    limit = f"{exercise.time_limit:g} s" if exercise else "the time limit"
                    _flag(nb, "timeout", f"{name}, {limit}")
                    self.log.warning("%s: %s ran past the time limit (%s) and was stopped", who, name, limit)
            if exercise is not None:
                grading = read_grading(root)
                source_path = root / "source" / assignment / f"{info['notebook']}.ipynb"
                source_nb = json.loads(source_path.read_text(encoding="utf-8"))
                reference = solution_cells(source_nb)
                student_cells = solution_cells(nb)
                passed_in_kernel = {}
                for cell in nb.cells:
                    marks = cell.get("metadata", {}).get("nbgrader", {})
                    score, most = utils.determine_grade(cell) if marks.get("grade") else (None, None)
                    if cell.cell_type == "code" and score is not None and score >= most:
                        passed_in_kernel[marks.get("grade_id", "")] = cell  # else 0 points, nothing to forge
                values = [p for p in exercise.parts if (assignment, p) not in VERIFIED]
                verdicts = verify_values(assignment, source_nb, answer_cells(nb),
                                         [p for p in values if f"test_{p}" in passed_in_kernel], values,
                                         variant=student_variant(grading, student),
                                         cell_limit=exercise.time_limit, course_limit=SETUP_LIMIT)
                for grade_id, cell in passed_in_kernel.items():
                    part = grade_id.removeprefix("test_").removesuffix("_hidden")
                    if part in verdicts:
                        passed, why = verdicts[part]
                    elif (assignment, part) in VERIFIED:
                        hidden = grade_id.endswith("_hidden")
                        seed = held_out_seed(grading, assignment, part, student) if hidden else None
                        passed, why = verify_part(assignment, part, student_cells, reference, seed=seed,
                                                  timeout=exercise.time_limit)
                    else:
                        continue
                    if passed:
                        continue
                    kind = "timeout" if why.startswith("timeout") else "forged"
                    _flag(nb, kind, f"{grade_id}: {why}")
                    self.log.warning("%s: %s passed in the kernel but not in a clean process (%s): "
                                     "scored 0, flagged %s", who, grade_id, why, kind)
                    cell.outputs.append(from_dict({
                        "output_type": "error", "ename": "AssertionError",
                        "evalue": f"[not passed] {part}: graded again in a clean process, {why}.",
                        "traceback": []}))
            for cell in nb.cells:
                _clean_outputs(cell, bool(cell.get("metadata", {}).get("nbgrader", {}).get("grade")))
            flags = meta["flags"]
            nb.cells = [c for c in nb.cells if c.get("id") != NOTES_CELL_ID]
            if flags:
                nb.cells.insert(0, from_dict(_notes_cell(flags)))
            target = root / FLAGS_FOLDER / assignment / f"{student}.json"
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(target, json.dumps(flags, indent=1) + "\n")
            if not flags:
                self.log.info("%s: no flags", who)
            return nb, resources

    class FlaggedCsvExportPlugin(CsvExportPlugin):
        """nbgrader's CSV export with a ``flags`` column (``;``-separated, empty when none)."""

        def export(self, gradebook):
            super().export(gradebook)
            dest = Path(self.to or "grades.csv")
            coursedir = getattr(self.parent, "coursedir", None)
            root = Path(coursedir.root) if coursedir is not None else Path.cwd()
            import csv
            import io

            rows = list(csv.DictReader(io.StringIO(dest.read_text(encoding="utf-8"))))
            out = io.StringIO()
            writer = csv.DictWriter(out, [*(rows[0].keys() if rows else ["assignment", "student_id"]), "flags"],
                                    lineterminator="\n")
            writer.writeheader()
            for row in rows:
                flags = read_flags(root, row["assignment"], row["student_id"])
                writer.writerow({**row, "flags": ";".join(sorted({f["flag"] for f in flags}))})
            atomic_write_text(dest, out.getvalue())

    del MissingEntry
    return {"Inspect": Inspect, "TimedExecute": TimedExecute, "Verify": Verify,
            "FlaggedCsvExportPlugin": FlaggedCsvExportPlugin}


def configure(c: Any) -> None:
    """Add the course's grading steps to an nbgrader config ``c`` (called by ``nbgrader_config.py``)."""
    from nbconvert.preprocessors import ClearMetadataPreprocessor
    from nbgrader.preprocessors import (
        AssignLatePenalties, CheckCellMetadata, ClearOutput, DeduplicateIds, IgnorePattern, LimitOutput,
        OverwriteCells, OverwriteKernelspec, SaveAutoGrades,
    )

    classes = _nbgrader_classes()
    c.Autograde.sanitize_preprocessors = [ClearOutput, DeduplicateIds, OverwriteKernelspec, classes["Inspect"],
                                          OverwriteCells, CheckCellMetadata]
    c.Autograde.autograde_preprocessors = [classes["TimedExecute"], classes["Verify"], IgnorePattern,
                                           ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades,
                                           AssignLatePenalties, CheckCellMetadata]
    c.ExportApp.plugin_class = classes["FlaggedCsvExportPlugin"]


def __getattr__(name: str) -> Any:
    if name in ("Inspect", "TimedExecute", "Verify", "FlaggedCsvExportPlugin"):
        return _nbgrader_classes()[name]
    raise AttributeError(name)
