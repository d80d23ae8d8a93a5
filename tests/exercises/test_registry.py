"""Sessions keep their own record (no state shared between two learners in one kernel); grading
checks on a fresh session, and the function parts have held-out (hidden) checks."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import exercises
from ercot_nb.exercises import Session


def wrong_f_sep(X, centroids, active):
    return 0.123


def test_two_sessions_keep_separate_records_and_attempts():
    first, second = Session(), Session()
    for _ in range(3):
        first.check("01_implement_f_sep", wrong_f_sep)
    assert len(first.history()) == 3 and second.history() == []
    assert first._attempts == {("01_implement_f_sep", "f_sep"): 3}
    # the second learner's first try is a first try: the same hint as the first learner's first
    assert second.check("01_implement_f_sep", wrong_f_sep).message == first.history()[0].message
    first.reset()
    assert first.history() == [] and len(second.history()) == 1


def test_module_functions_use_one_default_session():
    exercises.reset()
    exercises.check("01_implement_f_sep", None)
    other = Session()
    other.check("01_implement_f_sep", None)
    assert len(exercises.history()) == 1
    exercises.reset()
    assert exercises.history() == [] and len(other.history()) == 1


def test_grade_raises_the_feedback_of_a_first_try_and_returns_a_pass():
    def wrong(X, centroids, active):
        return 1.0

    before = len(exercises.history())
    for _ in range(2):  # each call is a first try: the hint does not grow
        with pytest.raises(AssertionError, match=r"(?s)\[not yet right\] 01_implement_f_sep / f_sep.*Case 1"):
            exercises.grade("01_implement_f_sep", wrong)
    with pytest.raises(AssertionError, match="not attempted yet"):
        exercises.grade("01_implement_f_sep", None, part="f_cp")
    assert len(exercises.history()) == before  # grading keeps no record in the student's session


def test_hidden_checks_exist_only_for_the_function_parts():
    assert {name: exercises.hidden_parts(name) for name in exercises.list_exercises()} == {
        "01_implement_f_sep": ["f_sep", "f_cp"], "02_predict_the_knee": ["knee_rule"],
        "03_explain_the_weight_syn3": [], "04_find_the_vanishing_cluster": []}
    with pytest.raises(ValueError, match="no held-out check of part 'predict'.*knee_rule"):
        exercises.check("02_predict_the_knee", 3, part="predict", hidden=True)


def test_held_out_cases_catch_a_function_tuned_to_the_visible_ones():
    from ercot_nb.exercises.ex01_objectives import _package_objectives, held_out_cases, objective_cases

    known = {case.X.tobytes() + case.centroids.tobytes() + case.active.tobytes(): _package_objectives(case)[0]
             for case in objective_cases()}

    def lookup(X, centroids, active):  # right on every named case, nothing else
        return known.get(X.tobytes() + centroids.tobytes() + active.tobytes(), 0.0)

    assert exercises.check("01_implement_f_sep", lookup, part="f_cp").passed
    feedback = exercises.check("01_implement_f_sep", lookup, part="f_cp", hidden=True)
    assert not feedback.passed and "held-out case 1" in feedback.message
    assert "case_inputs" not in feedback.message
    assert len(held_out_cases()) == 5


def _f_sep_counting_ghosts(X, centroids, active):
    """The typical slip: the closest pair over every active centroid, members or not."""
    C = centroids[np.flatnonzero(active)]
    if len(C) < 2:
        return np.inf
    pair = np.linalg.norm(C[:, None, :] - C[None, :, :], axis=2)
    return 1.0 / pair[np.triu_indices(len(C), k=1)].min()


@pytest.mark.parametrize("seed", [None, *range(60)])
def test_the_held_out_cases_of_every_course_catch_the_ghost_slip(seed):
    # Seeded from each course's secret: with 1 course in 5 the slip used to pass every held-out case.
    feedback = exercises.check("01_implement_f_sep", _f_sep_counting_ghosts, part="f_sep", hidden=True,
                               held_out_seed=seed)
    assert not feedback.passed
