"""Grades a student cannot forge, and clear outcomes, from real nbgrader runs of exercise 1.

The course comes from ``teacher.write_nbgrader_course``; nbgrader itself runs
``generate_assignment``, ``autograde``, ``generate_feedback`` and ``export``.
Every forged submission below gets full marks from a grader that trusts the
notebook's kernel (the test cells before ``ercot_nb.exercises.autograde``);
here each must score 0 and carry the ``forged`` flag.
"""
from __future__ import annotations

import csv
import json
import time

import pytest

from ercot_nb.exercises import autograde, secret, teacher
from tests.exercises.test_nbgrader import EXERCISE, REPO, source_cells, submission, text
from tests.exercises.test_nbgrader import nbgrader as _nbgrader


def nbgrader(course, *args):
    return _nbgrader(course, *args, timeout=900)  # one kernel per submission: ~30 s each under load

EMPTY = "return None"

FORGERIES = {
    # the 4 lines of the issue: the grading function replaced by one that never fails
    "forged_grade": "import ercot_nb.exercises as ex\nex.grade = lambda *a, **k: 'ok'\n"
                    "def f_sep(X, centroids, active):\n    return None\n",
    # the grading module patched: every check passes
    "forged_module": "from ercot_nb.exercises import registry, feedback\n"
                     "registry.Session.check = lambda self, name, answer, part=None, hidden=False, **c: "
                     "feedback.Feedback(name, part or 'f_sep', True, True, 'ok')\n"
                     "def f_sep(X, centroids, active):\n    return None\n",
    # a builtin the checker's comparison uses: every difference is 0
    "forged_builtin": "import builtins\nbuiltins.abs = lambda x: 0.0\n"
                      "def f_sep(X, centroids, active):\n    return 1.0\n",
    # numbers whose comparisons always agree, let through the checker's float() by a module patch
    "forged_equal": "import ercot_nb.exercises.answers as answers\nclass Liar(float):\n"
                    "    def __eq__(self, other):\n        return True\n    __le__ = __ge__ = __eq__\n"
                    "    __hash__ = float.__hash__\n"
                    "    def __sub__(self, other):\n        return Liar(0.0)\n    __rsub__ = __sub__\n"
                    "    def __abs__(self):\n        return Liar(0.0)\n"
                    "answers.float = Liar\ndef f_sep(X, centroids, active):\n    return Liar(1.0)\n",
    # numpy patched where the checker computes its expected value: the reference sees zeros
    "forged_numpy": "import numpy\n_real = numpy.ascontiguousarray\n"
                    "numpy.ascontiguousarray = lambda a, dtype=None: _real(numpy.zeros_like(a), dtype=dtype)\n"
                    "def f_sep(X, centroids, active):\n    return numpy.inf\n",
    # the package's own reference called from the answer (it passes the kernel's hidden test too)
    "forged_reference": "from ercot_nb.exercises.ex01_objectives import ClusterCase, _package_objectives\n"
                        "def f_sep(X, centroids, active):\n"
                        "    return _package_objectives(ClusterCase('', X, centroids, active))[1]\n",
}
FORGED_F_CP = {  # f_cp forged the same way where the forgery needs an answer of its own
    "forged_builtin": "def f_cp(X, centroids, active):\n    return 1.0\n",
    "forged_equal": "def f_cp(X, centroids, active):\n    return Liar(1.0)\n",
    "forged_reference": "def f_cp(X, centroids, active):\n"
                        "    return _package_objectives(ClusterCase('', X, centroids, active))[0]\n",
}

LOOP = "import numpy as np\n\n\ndef f_sep(X, centroids, active):\n    while True:\n        pass\n"


def _scores(course, students):
    from nbgrader.api import Gradebook

    out = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in students:
            graded = gradebook.find_submission(EXERCISE, student)
            out[student] = (graded.score, graded.max_score)
    return out


def _feedback_line(course, student):
    nb = json.loads((course / "autograded" / student / EXERCISE / f"{EXERCISE}.ipynb").read_text())
    notes = [text(c) for c in nb["cells"] if c.get("id") == autograde.NOTES_CELL_ID]
    errors = [o["evalue"] for c in source_cells(nb) for o in c.get("outputs", [])
              if o["output_type"] == "error"]
    line = (notes[0].splitlines()[2] if notes else "") or (errors[0].splitlines()[0] if errors else "")
    return line, nb


def _course(tmp_path, variants=False):
    course = tmp_path / "course"
    teacher.write_nbgrader_course(course, source=REPO, variants=variants)
    nbgrader(course, "generate_assignment", EXERCISE, "--force")
    release = json.loads((course / "release" / EXERCISE / f"{EXERCISE}.ipynb").read_text())
    sections = teacher.solution_sections(EXERCISE, REPO / "notebooks" / "exercises")
    honest = {f"answer_{k}": v for k, v in sections.items()}
    return course, release, sections, honest


def _hand_in(course, student, nb):
    folder = course / "submitted" / student / EXERCISE
    folder.mkdir(parents=True)
    (folder / f"{EXERCISE}.ipynb").write_text(json.dumps(nb))


def _without_figure(nb):
    """The notebook without its plotly figure cell: not graded, and 14 s of a kernel under load."""
    nb["cells"] = [c for c in nb["cells"] if "go.Figure(" not in text(c)]
    return nb


@pytest.mark.slow
def test_forged_wrong_copy_deleted_looping_and_variant_submissions_score_what_they_are_worth(tmp_path):
    """One course with variants, one autograde run, every case of the issue (about 10 s a submission).

Also a test cell edited to pass: flagged ``test-cell-edited``, its original put back and run.
"""
    course, release, sections, honest = _course(tmp_path, variants=True)
    cases = {"honest": submission(release, honest)}
    for student, cell in FORGERIES.items():
        cases[student] = submission(release, {"answer_f_sep": cell,
                                              "answer_f_cp": FORGED_F_CP.get(student, EMPTY)})
    cases["wrong_copy"] = teacher.solved_notebook(EXERCISE, REPO / "notebooks" / "exercises")  # no marks
    deleted = submission(release, honest)  # also the second honest student of the variants
    deleted["cells"] = [c for c in deleted["cells"]
                        if c["metadata"].get("nbgrader", {}).get("grade_id") != "test_f_sep"]
    cases["deleted_test"] = deleted
    edited = submission(release, {"answer_f_sep": sections["f_sep"], "answer_f_cp": EMPTY})
    for cell in edited["cells"]:  # the test of the empty part made to pass: the original must run
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "test_f_cp":
            cell["source"] = "print('f_cp: all cases pass')"
    cases["edited_test"] = edited
    cases["loop"] = submission(release, {"answer_f_sep": LOOP, "answer_f_cp": sections["f_cp"]})
    for student, nb in cases.items():
        _hand_in(course, student, _without_figure(nb))

    start = time.perf_counter()
    log = nbgrader(course, "autograde", EXERCISE, "--force")
    seconds = time.perf_counter() - start
    scores = _scores(course, cases)
    flags = {s: sorted({f["flag"] for f in autograde.read_flags(course, EXERCISE, s)}) for s in cases}
    print(f"\nautograde of {len(cases)} submissions: {seconds:.0f} s")
    print("| case | score | flags | feedback line |\n|---|---|---|---|")
    lines = {}
    for student in cases:
        lines[student], _ = _feedback_line(course, student)
        print(f"| {student} | {scores[student][0]:g} of {scores[student][1]:g} | "
              f"{', '.join(flags[student]) or '-'} | {lines[student][:160]} |")
    print("log lines:", *[line for line in log.splitlines() if "WARNING" in line], sep="\n")

    assert scores["honest"] == (5.0, 5.0) and flags["honest"] == []
    for student in FORGERIES:
        assert scores[student][0] == 0.0, (student, scores[student])
        assert "forged" in flags[student], student
        assert f"{student}/{EXERCISE}: test_f_" in log and "passed in the kernel but not in a clean" in log
    assert flags["wrong_copy"] == ["wrong-copy"] and "wrong copy" in log
    assert scores["wrong_copy"] == (5.0, 5.0)  # its answers, found by their tags, are still graded
    assert flags["deleted_test"] == ["test-cell-missing"] and scores["deleted_test"] == (5.0, 5.0)
    assert "test cell test_f_sep was missing" in log
    assert flags["loop"] == ["timeout"] and scores["loop"] == (2.0, 5.0)
    assert f"loop/{EXERCISE}: test_f_sep ran past the time limit (10 s)" in log
    assert flags["edited_test"] == ["test-cell-edited"] and scores["edited_test"] == (3.0, 5.0)
    assert f"edited_test/{EXERCISE}: test cell test_f_cp was edited; the original is put back" in log
    restored = [c for c in source_cells(_feedback_line(course, "edited_test")[1])
                if c["metadata"]["nbgrader"]["grade_id"] == "test_f_cp"]
    assert "grade('01_implement_f_sep', f_cp" in text(restored[0]) and restored[0]["outputs"][-1]["ename"]
    checksum = [line for line in log.splitlines() if "checksum" in line.lower()]
    assert checksum and all("test_f_cp " in line for line in checksum), checksum  # the edited cell only:
    # nbgrader#1961's false warning per hidden test cell is gone

    for student in cases:  # no machine path, no "run the check again" in what students read
        _, nb = _feedback_line(course, student)
        shown = json.dumps([c.get("outputs", []) for c in nb["cells"]])
        assert str(tmp_path) not in shown and "site-packages" not in shown, student
        assert "run the check again" not in shown, student

    # variants: the two honest students were graded on different held-out cases, each right
    grading = secret.read_grading(course)
    mine = {s: autograde._objective_cases(secret.held_out_seed(grading, EXERCISE, "f_sep", s))
            for s in ("honest", "deleted_test")}
    shapes = {s: [c[0].shape for c in v] for s, v in mine.items()}
    print("held-out data of the two honest students (X shapes):", shapes)
    assert shapes["honest"] != shapes["deleted_test"]

    nbgrader(course, "generate_feedback", EXERCISE, "--student=forged_grade", "--force")
    page = (course / "feedback" / "forged_grade" / EXERCISE / f"{EXERCISE}.html").read_text()
    assert "Grading notes" in page and "clean process" in page and str(tmp_path) not in page

    nbgrader(course, "export", f"--to={course / 'grades.csv'}")
    with open(course / "grades.csv", newline="") as fh:
        rows = {row["student_id"]: row for row in csv.DictReader(fh)}
    assert rows["forged_grade"]["flags"] == "forged" and rows["honest"]["flags"] == ""
    assert rows["wrong_copy"]["flags"] == "wrong-copy" and rows["loop"]["flags"] == "timeout"


def test_clean_process_grades_only_what_the_function_returns():
    """The fast core of the slow test: forgeries in the answer cells cannot change the verdict."""
    sections = teacher.solution_sections(EXERCISE, REPO / "notebooks" / "exercises")
    reference = [sections["f_sep"]]
    seed = secret.derived_seed("ab" * 32, "test")
    assert autograde.verify_part(EXERCISE, "f_sep", [sections["f_sep"]], reference, seed=seed, timeout=30)[0]
    for name in ("forged_grade", "forged_equal", "forged_reference"):
        passed, why = autograde.verify_part(EXERCISE, "f_sep", [FORGERIES[name]], reference, seed=seed, timeout=30)
        assert not passed and why.startswith("case 1 of 5"), (name, why)
    passed, why = autograde.verify_part(EXERCISE, "f_sep", [LOOP], reference, seed=None, timeout=3)
    assert not passed and why.startswith("timeout")


def test_feedback_loses_machine_paths():
    line = 'File "/home/teacher/course/.venv/lib/python3.11/site-packages/ercot_nb/exercises/registry.py", line 9'
    assert autograde.without_paths(line) == 'File "registry.py", line 9'
    assert autograde.without_paths(r"C:\Users\t\course\x.py failed") == "x.py failed"
    assert autograde.without_paths("1/2 of the cases, f_cp/f_sep") == "1/2 of the cases, f_cp/f_sep"


def test_course_cells_get_the_setup_limit_and_every_other_cell_the_exercises(tmp_path):
    """A fit that compiles numba's kernels may take minutes; a student's loop costs the exercise's seconds."""
    from ercot_nb.exercises.registry import get_exercise

    name = "04_find_the_vanishing_cluster"
    teacher.write_nbgrader_course(tmp_path, source=REPO)
    source = json.loads((tmp_path / "source" / name / f"{name}.ipynb").read_text())
    course = autograde.course_sources(source)
    limit = get_exercise(name).time_limit
    kinds = {}
    for cell in source["cells"]:
        if cell["cell_type"] == "code":
            marks = cell["metadata"].get("nbgrader", {})
            kind = "answer" if marks.get("solution") else "test" if marks.get("grade") else "course"
            kinds.setdefault(kind, set()).add(autograde.cell_limit(cell, course, limit))
    assert kinds == {"course": {autograde.SETUP_LIMIT}, "answer": {limit}, "test": {limit}}
    fit = next(c for c in source["cells"] if "ERCOT(seed=0).fit(data)" in text(c))
    edited = dict(fit, source=text(fit) + "\nwhile True:\n    pass\n")
    assert autograde.cell_limit(edited, course, limit) == limit < autograde.SETUP_LIMIT
