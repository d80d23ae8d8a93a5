"""Sessions keep their own record: no state is shared between two learners in one kernel."""
from __future__ import annotations

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
