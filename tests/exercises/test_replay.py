"""Value parts graded outside the student's kernel (``ercot_nb.exercises.replay``).

Each forgery below is a few lines in an answer cell. A kernel runs the course's
cells, the answer cells and the test cells in one namespace: there each forged
test cell passes (shown here by running them so in a clean process, as
nbgrader's kernel would). Replayed by the grader, the same answer cells must
fail the forged part, and the honest answers of every exercise must pass.
Exercise 3 goes through a real nbgrader autograde in ``test_variants``.
"""
from __future__ import annotations

import json

import pytest

from ercot_nb.exercises import autograde, replay, teacher
from ercot_nb.exercises.isolated import values_in_clean_process
from ercot_nb.exercises.registry import get_exercise
from tests.exercises.test_nbgrader import REPO

VALUE_PARTS = {
    "02_predict_the_knee": ["predict"],
    "03_explain_the_weight_syn3": ["lowest_time", "drift_means", "control", "statements"],
    "04_find_the_vanishing_cluster": ["true_counts", "vanished", "compare", "statements"],
}

FORGERIES = {
    # the checker of the part replaced in the registry; nothing computed
    "02_predict_the_knee": ("predict", "answer_predict",
                            "from ercot_nb.exercises import registry\n"
                            "registry.EXERCISES['02_predict_the_knee'].parts['predict'] = lambda *a: 'ok'\n"
                            "predicted_k = 99\n"),
    # the checker's expected value patched, then that number written as the answer
    "04_find_the_vanishing_cluster": ("true_counts", "answer_true_counts",
                                      "import ercot_nb.exercises.ex04_vanishing as v\n"
                                      "v.true_counts = lambda dataset: [1] * len(dataset)\n"
                                      "true_counts = [1] * len(data)\n"),
}


def _course(tmp_path, variants=False):
    teacher.write_nbgrader_course(tmp_path / "course", source=REPO, variants=variants)
    return tmp_path / "course"


def _source(course, exercise):
    return json.loads((course / "source" / exercise / f"{exercise}.ipynb").read_text())


def _kernel_failures(source_nb, answers, env=None):
    """Run course cells, answer cells and visible test cells in one namespace, as a kernel does."""
    cells = []
    for cell in source_nb["cells"]:
        marks = cell["metadata"].get("nbgrader", {})
        if cell["cell_type"] != "code" or marks.get("grade_id", "").endswith("_hidden"):
            continue
        if marks.get("solution"):
            cells.append(answers[marks["grade_id"]])
        elif ".show()" not in cell["source"]:
            cells.append(cell["source"])
    _, _, errors, _ = values_in_clean_process(cells, {}, cell_limit=120, env=env)
    return errors


def test_value_parts_autograde_split():
    """Every part is graded outside the kernel: as a function (VERIFIED) or as a value (replay)."""
    for exercise, parts in VALUE_PARTS.items():
        assert [p for p in get_exercise(exercise).parts if (exercise, p) not in autograde.VERIFIED] == parts


@pytest.mark.slow
@pytest.mark.parametrize("exercise", ["02_predict_the_knee", "04_find_the_vanishing_cluster"])
def test_a_forged_value_part_passes_the_kernel_but_not_the_replay_and_honest_answers_pass(tmp_path, exercise):
    course = _course(tmp_path)
    source = _source(course, exercise)
    honest = replay.answer_cells(source)
    parts = VALUE_PARTS[exercise]
    verdicts = replay.verify_values(exercise, source, honest, parts, parts, variant=None, cell_limit=30, course_limit=300)
    print("\nhonest:", verdicts)
    assert all(passed for passed, _ in verdicts.values()) and set(verdicts) == set(parts)

    part, grade_id, forged_cell = FORGERIES[exercise]
    forged = {**honest, grade_id: forged_cell}
    assert _kernel_failures(source, forged) == []  # every test cell passes in the kernel
    verdicts = replay.verify_values(exercise, source, forged, parts, parts, variant=None, cell_limit=30, course_limit=300)
    print("forged:", verdicts)
    assert not verdicts[part][0], verdicts[part]
    assert "run the check again" not in verdicts[part][1] and str(tmp_path) not in verdicts[part][1]
