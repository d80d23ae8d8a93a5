"""The nbgrader export: nbgrader itself generates the assignment and autogrades submissions.

``ercot-nb teacher nbgrader DIR`` writes a course folder; here nbgrader runs
``generate_assignment`` on it, then ``autograde`` on three submissions of
exercise 1 (the fastest: no ERCOT fit): the solutions (full points), a typical
mistake (partial points, the exercise's feedback in the failed cell and in the
feedback page nbgrader generates) and the release as handed out (zero, no crash).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ercot_nb import exercises
from ercot_nb.cli import main
from ercot_nb.exercises import teacher

REPO = Path(__file__).resolve().parents[2]
EXERCISE = "01_implement_f_sep"

# A typical mistake: f_sep counts the ghost centroids (f_cp stays right).
WRONG_F_SEP = '''import numpy as np


def f_sep(X, centroids, active):
    C = centroids[np.flatnonzero(active)]
    if len(C) < 2:
        return np.inf
    pair = np.linalg.norm(C[:, None, :] - C[None, :, :], axis=2)
    return 1.0 / pair[np.triu_indices(len(C), k=1)].min()
'''


def nbgrader(course: Path, *args: str, timeout: float = 240) -> str:
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path)  # the kernels nbgrader starts import this tree
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"nbgrader {args} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def source_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if "nbgrader" in c["metadata"]]


def text(cell: dict) -> str:
    source = cell["source"]
    return "".join(source) if isinstance(source, list) else source


@pytest.mark.parametrize("name", exercises.list_exercises())
def test_every_part_becomes_a_solution_region_and_a_test_cell_with_its_points(tmp_path, name):
    teacher.write_nbgrader_course(tmp_path, source=REPO)
    nb = json.loads((tmp_path / "source" / name / f"{name}.ipynb").read_text())
    exercise = exercises.registry.get_exercise(name)
    sections = teacher.solution_sections(name, REPO / "notebooks" / "exercises")
    solutions = [c for c in source_cells(nb) if c["metadata"]["nbgrader"]["solution"]]
    assert [c["metadata"]["nbgrader"]["grade_id"] for c in solutions] == [f"answer_{k}" for k in sections]
    for cell, body in zip(solutions, sections.values()):
        assert "### BEGIN SOLUTION\n" + body.rstrip() + "\n### END SOLUTION" in text(cell)
        assert "# YOUR CODE HERE" in text(cell).split("### BEGIN SOLUTION")[0]  # the starter stays
    tests = {c["metadata"]["nbgrader"]["grade_id"]: c for c in source_cells(nb)
             if c["metadata"]["nbgrader"]["grade"]}
    expected = {f"test_{p}": exercise.points[p] for p in exercise.parts}
    expected |= {f"test_{p}_hidden": exercise.hidden_points[p] for p in exercise.hidden}
    assert {k: c["metadata"]["nbgrader"]["points"] for k, c in tests.items()} == expected
    for part in exercise.parts:
        assert f"grade({name!r}" in text(tests[f"test_{part}"])
        assert "hidden" not in text(tests[f"test_{part}"])
    for part in exercise.hidden:
        hidden = text(tests[f"test_{part}_hidden"])
        assert re.search(r"### BEGIN HIDDEN TESTS\n.*hidden=True.*\n### END HIDDEN TESTS", hidden, re.S)
    assert (tmp_path / "nbgrader_config.py").is_file()


def test_the_command_needs_the_solutions_and_refuses_to_overwrite(tmp_path, capsys):
    assert main(["teacher", "nbgrader", str(tmp_path / "course"), "--source", str(REPO)]) == 0
    assert main(["teacher", "nbgrader", str(tmp_path / "course"), "--source", str(REPO)]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert main(["teacher", "solutions", str(tmp_path / "key"), "--source", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "solutions were not found" in err and "--source" in err and len(err.strip().splitlines()) == 1


def submission(release: dict, answers: dict[str, str]) -> dict:
    """The released notebook with the given solution cells replaced by ``answers[grade_id]``."""
    nb = json.loads(json.dumps(release))
    for cell in source_cells(nb):
        grade_id = cell["metadata"]["nbgrader"]["grade_id"]
        if grade_id in answers:
            cell["source"] = answers[grade_id]
    return nb


@pytest.mark.slow
def test_nbgrader_generates_the_assignment_and_autogrades_right_wrong_and_empty_submissions(tmp_path):
    course = tmp_path / "course"
    teacher.write_nbgrader_course(course, source=REPO)
    nbgrader(course, "generate_assignment", EXERCISE, "--force")
    release = json.loads((course / "release" / EXERCISE / f"{EXERCISE}.ipynb").read_text())
    released = "\n".join(text(c) for c in release["cells"])
    assert "BEGIN SOLUTION" not in released and "HIDDEN TESTS" not in released
    assert "hidden=True" not in released and "np.triu_indices" not in released

    sections = teacher.solution_sections(EXERCISE, REPO / "notebooks" / "exercises")
    submissions = {
        "correct": {f"answer_{k}": v for k, v in sections.items()},
        "wrong": {"answer_f_sep": WRONG_F_SEP, "answer_f_cp": sections["f_cp"]},
        "empty": {},
    }
    for student, answers in submissions.items():
        folder = course / "submitted" / student / EXERCISE
        folder.mkdir(parents=True)
        (folder / f"{EXERCISE}.ipynb").write_text(json.dumps(submission(release, answers)))
    nbgrader(course, "autograde", EXERCISE, "--force")

    from nbgrader.api import Gradebook

    scores, cells = {}, {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in submissions:
            graded = gradebook.find_submission(EXERCISE, student)
            scores[student] = (graded.score, graded.max_score)
            cells[student] = {g.name: g.score for g in graded.notebooks[0].grades if g.cell.max_score}
    print("\nnbgrader autograde scores:", scores, "\nper test cell:", cells)
    assert scores == {"correct": (5.0, 5.0), "wrong": (2.0, 5.0), "empty": (0.0, 5.0)}
    assert cells["wrong"] == {"test_f_sep": 0, "test_f_sep_hidden": 0, "test_f_cp": 1, "test_f_cp_hidden": 1}

    def failures(student: str) -> dict[str, str]:
        nb = json.loads((course / "autograded" / student / EXERCISE / f"{EXERCISE}.ipynb").read_text())
        return {c["metadata"]["nbgrader"]["grade_id"]: o["evalue"] for c in source_cells(nb)
                for o in c.get("outputs", []) if o["output_type"] == "error"}

    assert failures("correct") == {}
    wrong = failures("wrong")
    print("feedback of the wrong submission:", json.dumps(wrong, indent=1))
    assert set(wrong) == {"test_f_sep", "test_f_sep_hidden"}
    assert "2 of 7 cases pass" in wrong["test_f_sep"] and "'ghost' centroids" in wrong["test_f_sep"]
    assert "held-out case" in wrong["test_f_sep_hidden"]
    assert "case_inputs" not in wrong["test_f_sep_hidden"]  # held-out inputs are not handed out
    empty = failures("empty")
    print("feedback of the empty submission:", json.dumps(empty, indent=1))
    assert set(empty) == {"test_f_sep", "test_f_sep_hidden", "test_f_cp", "test_f_cp_hidden"}
    assert all("Nothing was handed in for this part" in message for message in empty.values())
    assert not any("run the check again" in message for message in {**wrong, **empty}.values())

    nbgrader(course, "generate_feedback", EXERCISE, "--student=wrong", "--force")
    page = (course / "feedback" / "wrong" / EXERCISE / f"{EXERCISE}.html").read_text()
    assert "2 of 7 cases pass" in page and "ghost" in page  # what the student reads back
