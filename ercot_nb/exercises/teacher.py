"""Teacher copies of the exercises: solved notebooks and an nbgrader course.

The solutions are not part of the installed package (the wheel students get):
they live in ``notebooks/exercises/solutions/`` of the source tree (a clone of
the repository or the unpacked sdist). ``ercot-nb teacher solutions DIR`` and
``ercot-nb teacher nbgrader DIR`` read them from there and write

- ``solutions``: every exercise notebook with its answers filled in, the
  solution modules and the teacher notes (``README.md``: the answers of this
  run, points for the discussion);
- ``nbgrader``: an nbgrader course folder, ``nbgrader_config.py`` and
  ``source/<exercise>/<exercise>.ipynb``, one assignment per exercise with
  ``### BEGIN SOLUTION`` regions, autograded test cells built from the
  exercise's checks (points from :mod:`.registry`) and hidden tests on
  held-out cases where the check has them.

Notebooks are read and written as plain JSON (nbformat 4), so this module
needs no Jupyter package.
"""
from __future__ import annotations

import ast
import json
import os
import re
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .._files import atomic_write_text
from .secret import GRADING_FILE, held_out_seed, read_grading
from .registry import get_exercise, list_exercises

EXERCISES_IN_SOURCE = Path("notebooks") / "exercises"
"""Where the exercise notebooks are in a source tree (a clone or an unpacked sdist)."""

_SECTION = re.compile(r"^# %% solution: (\S+)[ \t]*$", flags=re.MULTILINE)

NBGRADER_CONFIG = '''"""nbgrader configuration of the ERCOT exercises (from `ercot-nb teacher nbgrader`)."""
from ercot_nb.exercises.autograde import configure

c = get_config()  # noqa: F821 (nbgrader defines it)

c.CourseDirectory.course_id = "ercot-nb-exercises"
# A student's cell keeps its starter line (``x = None  # YOUR CODE HERE``); the solution
# region below it becomes this comment, so an empty submission runs and scores zero.
c.ClearSolutions.code_stub = {"python": "# (write your answer in place of the None above)"}
# The course's grading steps (ercot_nb.exercises.autograde): per-exercise time limits, the
# function parts graded again in a clean process (held-out cases from ercot_grading.json,
# the course secret: keep it out of the students' reach), flags for forged grades, wrong
# copies, deleted or edited test cells and timeouts, and a flags column in `nbgrader export`.
configure(c)
'''


def exercises_folder(source: str | os.PathLike[str] | None = None) -> Path:
    """The ``notebooks/exercises`` folder of a source tree, with its ``solutions/``.

    Parameters
    ----------
    source : path, optional
        A clone of the repository or an unpacked sdist (its root, or its
        ``notebooks/exercises`` folder). Default: the tree this package was
        imported from, when that is a clone (an editable install).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        When the solutions are not there (the installed wheel has none).
    """
    if source is None:
        candidates = [Path(__file__).resolve().parents[2] / EXERCISES_IN_SOURCE]
    else:
        root = Path(source).expanduser()
        candidates = [root / EXERCISES_IN_SOURCE, root]
    for folder in candidates:
        if all((folder / "solutions" / f"{name}.py").is_file() for name in list_exercises()):
            return folder
    where = "this installed package (the student package ships none)" if source is None else str(source)
    raise ValueError(
        f"the exercise solutions were not found in {where}; pass --source with the root of a "
        "clone of ercot-nb or of its unpacked sdist (it holds notebooks/exercises/solutions/)"
    )


def solution_sections(name: str, folder: Path) -> dict[str, str]:
    """The ``# %% solution: <key>`` sections of exercise ``name``'s solution module."""
    text = (folder / "solutions" / f"{name}.py").read_text(encoding="utf-8")
    pieces = _SECTION.split(text)
    return {key: body.strip() + "\n" for key, body in zip(pieces[1::2], pieces[2::2])}


def _section(sections: Mapping[str, str], key: str, name: str, folder: Path) -> str:
    if key not in sections:
        raise ValueError(f"{folder / 'solutions' / (name + '.py')} has no '# %% solution: {key}' section "
                         f"(the notebook's answer cell {key!r} needs one); add it")
    return sections[key]


def _read_notebook(path: Path) -> dict[str, Any]:
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"could not read the exercise notebook {path}: {exc}") from None
    for cell in nb["cells"]:
        if isinstance(cell.get("source"), list):
            cell["source"] = "".join(cell["source"])
    return nb


def _clear(cell: dict[str, Any]) -> None:
    if cell["cell_type"] == "code":
        cell["outputs"] = []
        cell["execution_count"] = None
        cell["source"] = re.sub(r"^# NBVAL_\w+\n", "", cell["source"])


def _solution_key(cell: Mapping[str, Any]) -> str | None:
    if "solution-cell" in cell.get("metadata", {}).get("tags", []):
        return cell["metadata"]["exercise"]["solution"]
    return None


def _check_call(cell: Mapping[str, Any]) -> ast.Call | None:
    """The ``check(...)`` call of a feedback cell, else None."""
    if cell["cell_type"] != "code" or "check(" not in cell["source"]:
        return None
    try:
        body = ast.parse(cell["source"]).body
    except SyntaxError:
        return None
    if len(body) == 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Call):
        call = body[0].value
        if isinstance(call.func, ast.Name) and call.func.id == "check":
            return call
    return None


def _part_of(name: str, call: ast.Call) -> str:
    for keyword in call.keywords:
        if keyword.arg == "part" and isinstance(keyword.value, ast.Constant):
            return str(keyword.value.value)
    return next(iter(get_exercise(name).parts))


_OUTSIDE_LINK = re.compile(r"\[([^\]]+)\]\(\.\./([^)\s]+)\)")


def solved_notebook(name: str, folder: Path) -> dict[str, Any]:
    """Exercise ``name``'s notebook with its solution sections in the starter cells, outputs cleared.

    Links to the tutorials beside the exercises (``../01_quickstart.ipynb``) become plain
    text naming the file: the teacher copy is a folder of its own.
    """
    nb = _read_notebook(folder / f"{name}.ipynb")
    sections = solution_sections(name, folder)
    for cell in nb["cells"]:
        key = _solution_key(cell)
        if key is not None:
            cell["source"] = _section(sections, key, name, folder)
        elif cell["cell_type"] == "markdown":
            cell["source"] = _OUTSIDE_LINK.sub(r"\1 (tutorial `\2`)", cell["source"])
        _clear(cell)
    return nb


_LOAD = re.compile(r"datasets\.load\((\"[^\"]+\"|'[^']+'), seed=0\)")


def _with_variant(source: str) -> str:
    """A course cell that loads each student's own data: ``seed=0`` becomes the student's variant."""
    changed = _LOAD.sub(r"datasets.load(\1, seed=data_seed(required=True))", source)
    if changed == source:
        return source
    return f"from ercot_nb.exercises import data_seed  # your own data: see the course's notes\n\n{changed}"


def _nbgrader_meta(grade_id: str, *, solution: bool, grade: bool, points: int | None = None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": not solution, "schema_version": 3,
            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def _code_cell(source: str, metadata: dict[str, Any]) -> dict[str, Any]:
    return {"cell_type": "code", "execution_count": None, "metadata": metadata, "outputs": [],
            "source": source}


def nbgrader_notebook(name: str, folder: Path, grading: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Exercise ``name`` in nbgrader's source format.

    Starter cells become solution cells (starter line, then the solution between
    ``### BEGIN SOLUTION`` and ``### END SOLUTION``); every ``check(...)`` cell
    becomes an autograded test cell calling :func:`~ercot_nb.exercises.grade` with
    the same arguments, worth the part's points; a part with a held-out check gets a
    second test cell whose call is between ``### BEGIN HIDDEN TESTS`` and
    ``### END HIDDEN TESTS``.

    Parameters
    ----------
    name : str
        An exercise from :func:`~ercot_nb.exercises.list_exercises`.
    folder : pathlib.Path
        The exercises folder of a source tree (:func:`exercises_folder`).
    grading : mapping, optional
        The course's grading file (:func:`~ercot_nb.exercises.secret.read_grading`): the
        hidden test cells pass a ``held_out_seed`` derived from its secret, so their cases
        are not the package's. Default: the package's fixed held-out cases. With
        ``"variants"``, the course's cells load their datasets with
        ``seed=data_seed(required=True)``: each student's own data
        (:mod:`~ercot_nb.exercises.variants`).

    Returns
    -------
    dict
        The notebook (nbformat 4 JSON).

    Raises
    ------
    ValueError
        When the notebook's check cells do not cover the exercise's parts once each.
    """
    exercise = get_exercise(name)
    nb = _read_notebook(folder / f"{name}.ipynb")
    sections = solution_sections(name, folder)
    variants = bool(grading is not None and grading.get("variants"))
    cells, graded = [], []
    for cell in nb["cells"]:
        _clear(cell)
        key = _solution_key(cell)
        call = _check_call(cell)
        if key is not None:
            body = _section(sections, key, name, folder)
            source = (f"{cell['source'].rstrip()}\n### BEGIN SOLUTION\n{body.rstrip()}\n"
                      "### END SOLUTION")
            meta = dict(cell["metadata"])
            meta["nbgrader"] = _nbgrader_meta(f"answer_{key}", solution=True, grade=False)
            cells.append(_code_cell(source, meta))
        elif call is not None:
            part = _part_of(name, call)
            graded.append(part)
            call.func = ast.Name("grade", ast.Load())
            cells.append(_code_cell(
                "from IPython.display import display\n\nfrom ercot_nb.exercises import grade\n\n"
                f"display({ast.unparse(call)})",
                {"nbgrader": _nbgrader_meta(f"test_{part}", solution=False, grade=True,
                                            points=exercise.points[part])}))
            if part in exercise.hidden:
                call.keywords.append(ast.keyword("hidden", ast.Constant(True)))
                if grading is not None:
                    seed = held_out_seed(dict(grading), name, part)
                    call.keywords.append(ast.keyword("held_out_seed", ast.Constant(seed)))
                cells.append(_code_cell(
                    "# Hidden test: the same check on held-out cases (graded, not shown to students).\n"
                    "### BEGIN HIDDEN TESTS\nfrom IPython.display import display\n\n"
                    f"from ercot_nb.exercises import grade\n\ndisplay({ast.unparse(call)})\n"
                    "### END HIDDEN TESTS",
                    {"nbgrader": _nbgrader_meta(f"test_{part}_hidden", solution=False, grade=True,
                                                points=exercise.hidden_points[part])}))
        else:
            if variants and cell["cell_type"] == "code":
                cell["source"] = _with_variant(cell["source"])
            cells.append(cell)
    if sorted(graded) != sorted(exercise.parts):
        raise ValueError(f"{name}.ipynb checks the parts {graded}; the exercise has {list(exercise.parts)} "
                         "(one check(...) cell per part)")
    for index, cell in enumerate(cells):
        cell["id"] = f"cell-{index:02d}"
    nb["cells"] = cells
    return nb


def _write_all(destination: str | os.PathLike[str], files: Mapping[Path, str], overwrite: bool,
               inputs: Iterable[Path] = (), source_folder: Path | None = None) -> list[Path]:
    target = Path(destination).expanduser()
    if source_folder is not None:
        inside = source_folder.resolve()
        if target.resolve() == inside or inside in target.resolve().parents:
            raise ValueError(f"{target} is inside {source_folder}, the folder this command reads; "
                             "write into another folder")
    if target.exists() and not target.is_dir():
        raise ValueError(f"{target} is a file; give a folder")
    if not target.exists() and not target.parent.is_dir():
        raise ValueError(f"the folder {target.parent} does not exist; create it first or give a folder "
                         "inside an existing one")
    read = {path.resolve() for path in inputs}
    clash = [target / relative for relative in files if (target / relative).resolve() in read]
    if clash:
        raise ValueError(f"{clash[0]} is one of the files this command reads ({len(clash)} in all); "
                         "write into another folder")
    existing = [target / relative for relative in files if (target / relative).exists()]
    if existing and not overwrite:
        raise ValueError(f"{existing[0]} exists ({len(existing)} file(s) would be replaced); "
                         "choose an empty folder or pass --overwrite")
    written = []
    for relative, text in files.items():
        out = target / relative
        out.parent.mkdir(parents=True, exist_ok=True)  # a new file stays new: one writer wins
        written.append(atomic_write_text(out, text, overwrite=out in existing))
    return written


def _dump(nb: Mapping[str, Any]) -> str:
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def write_solutions(destination: str | os.PathLike[str], *, source: str | os.PathLike[str] | None = None,
                    overwrite: bool = False) -> list[Path]:
    """Write the teacher copy: solved notebooks, solution modules and teacher notes.

    Parameters
    ----------
    destination : path
        Folder to write into (created when missing).
    source : path, optional
        Source tree holding the solutions (see :func:`exercises_folder`).
    overwrite : bool, default=False
        Replace files that exist; by default an existing file is an error.

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    folder = exercises_folder(source)
    files: dict[Path, str] = {}
    for name in list_exercises():
        files[Path(f"{name}.ipynb")] = _dump(solved_notebook(name, folder))
        module = folder / "solutions" / f"{name}.py"
        files[Path("solutions") / module.name] = module.read_text(encoding="utf-8")
    notes = folder / "solutions" / "README.md"
    if notes.is_file():
        files[Path("README.md")] = notes.read_text(encoding="utf-8")
    return _write_all(destination, files, overwrite, inputs=_inputs(folder), source_folder=folder)


def _inputs(folder: Path) -> list[Path]:
    """Every file of the exercises folder (and its solutions/): the commands' inputs, never replaced."""
    return [path for path in [*folder.glob("*"), *(folder / "solutions").glob("*")] if path.is_file()]


def write_nbgrader_course(destination: str | os.PathLike[str], *,
                          source: str | os.PathLike[str] | None = None,
                          overwrite: bool = False, variants: bool = False) -> list[Path]:
    """Write an nbgrader course folder: ``nbgrader_config.py`` and ``source/<exercise>/``.

    Then, in that folder: ``nbgrader generate_assignment <exercise>`` makes the
    student version (``release/``), and ``nbgrader autograde <exercise>`` scores
    the submissions collected under ``submitted/<student>/<exercise>/``.

    Parameters
    ----------
    destination : path
        Course folder to write into (created when missing).
    source : path, optional
        Source tree holding the solutions (see :func:`exercises_folder`).
    overwrite : bool, default=False
        Replace files that exist; by default an existing file is an error. The
        course secret (``ercot_grading.json``) of an existing course is kept.
    variants : bool, default=False
        Give each student data and held-out cases of their own, seeded from their
        student id by the course secret (:mod:`~ercot_nb.exercises.variants`).

    Returns
    -------
    list of pathlib.Path
        The files written.
    """
    folder = exercises_folder(source)
    names = list_exercises()
    target = Path(destination).expanduser()
    grading = {"secret": secrets.token_hex(32), "variants": bool(variants)}
    if (target / GRADING_FILE).is_file():
        grading["secret"] = read_grading(target)["secret"]  # a course keeps its secret
    files = {Path("nbgrader_config.py"): NBGRADER_CONFIG,
             Path(GRADING_FILE): json.dumps(grading, indent=1) + "\n"}
    for name in names:
        files[Path("source") / name / f"{name}.ipynb"] = _dump(nbgrader_notebook(name, folder, grading))
    return _write_all(destination, files, overwrite, inputs=_inputs(folder), source_folder=folder)
