"""The exercises by name, their parts, and :class:`Session`: checking an answer and keeping the record."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .ex01_objectives import (
    ClusterCase,
    check_f_cp,
    check_f_cp_held_out,
    check_f_sep,
    check_f_sep_held_out,
    objective_cases,
)
from .ex02_knee import check_knee_rule, check_knee_rule_held_out, check_predict, front_cases
from .ex03_weight import check_control, check_drift_means, check_ex3_statements, check_lowest_time
from .ex04_vanishing import check_compare, check_ex4_statements, check_true_counts, check_vanished
from .feedback import Feedback, Mistake, NotAttempted


KEEP_GOING = "\nKeep going: fix this and run the check again."
GRADED_EMPTY = ("Nothing was handed in for this part: the answer cell still holds its starter "
                "(None), so this test scores 0.")

_Checker = Callable[[Any, Mapping[str, Any], int], str]


@dataclass(frozen=True)
class Exercise:
    """One exercise: its parts' checkers, their points, and the held-out checks of a grader.

    ``points[part]`` is what a grader (nbgrader) gives for a passed part;
    ``hidden[part]`` checks the same answer on cases the student never sees,
    worth ``hidden_points[part]``. ``time_limit`` is the seconds an answer, test or
    edited cell of the graded notebook may run (nbgrader's autograde of the course
    stops it after that and flags ``timeout``; the course's own cells get
    ``autograde.SETUP_LIMIT``): sized from the reference run, see the teacher's guide.
    """

    title: str
    parts: dict[str, _Checker]
    points: dict[str, int]
    hidden: dict[str, _Checker] = field(default_factory=dict)
    hidden_points: dict[str, int] = field(default_factory=dict)
    time_limit: float = 120.0


EXERCISES: dict[str, Exercise] = {
    "01_implement_f_sep": Exercise(
        "Implement the separation objective f_sep (and f_cp)",
        {"f_sep": check_f_sep, "f_cp": check_f_cp},
        points={"f_sep": 2, "f_cp": 1},
        hidden={"f_sep": check_f_sep_held_out, "f_cp": check_f_cp_held_out},
        hidden_points={"f_sep": 1, "f_cp": 1},
        time_limit=10.0,
    ),
    "02_predict_the_knee": Exercise(
        "Predict the knee of a Pareto front, then implement the knee rule",
        {"predict": check_predict, "knee_rule": check_knee_rule},
        points={"predict": 1, "knee_rule": 2},
        hidden={"knee_rule": check_knee_rule_held_out},
        hidden_points={"knee_rule": 1},
        time_limit=30.0,
    ),
    "03_explain_the_weight_syn3": Exercise(
        "Tune nothing, explain the weight: alpha on Syn3",
        {"lowest_time": check_lowest_time, "drift_means": check_drift_means,
         "control": check_control, "statements": check_ex3_statements},
        points={"lowest_time": 1, "drift_means": 1, "control": 1, "statements": 2},
        time_limit=30.0,
    ),
    "04_find_the_vanishing_cluster": Exercise(
        "Find the vanishing cluster in Syn7",
        {"true_counts": check_true_counts, "vanished": check_vanished,
         "compare": check_compare, "statements": check_ex4_statements},
        points={"true_counts": 1, "vanished": 1, "compare": 1, "statements": 2},
        time_limit=30.0,
    ),
}


def list_exercises() -> list[str]:
    """Names of the exercises :func:`check` knows, in teaching order.

    Returns
    -------
    list of str
        e.g. ``["01_implement_f_sep", "02_predict_the_knee", ...]``; each is
        also the file name of its notebook in ``notebooks/exercises/``.
    """
    return list(EXERCISES)


def list_parts(name: str) -> list[str]:
    """Parts of exercise ``name`` that :func:`check` accepts as ``part=``.

    Parameters
    ----------
    name : str
        An exercise from :func:`list_exercises`.

    Returns
    -------
    list of str
        The first one is the default part.
    """
    return list(get_exercise(name).parts)


def hidden_parts(name: str) -> list[str]:
    """Parts of exercise ``name`` that also have a held-out check (``check(..., hidden=True)``).

    Parameters
    ----------
    name : str
        An exercise from :func:`list_exercises`.

    Returns
    -------
    list of str
    """
    return list(get_exercise(name).hidden)


def get_exercise(name: Any) -> Exercise:
    if name not in EXERCISES:
        raise ValueError(f"unknown exercise {name!r}; choose one of {list_exercises()}")
    return EXERCISES[name]


class Session:
    """One learner's record: the feedback returned so far and the attempts per part.

    The attempts decide how much a hint reveals (a fuller hint after
    repeated tries).  :func:`ercot_nb.exercises.check`, ``history`` and
    ``reset`` act on one default session of the notebook's kernel; make a
    ``Session()`` of your own to keep records apart (tests, several learners
    in one kernel).

    Examples
    --------
    >>> session = Session()
    >>> session.check("01_implement_f_sep", None).status
    'not attempted yet'
    >>> len(session.history())
    1
    """

    def __init__(self) -> None:
        self._log: list[Feedback] = []
        self._attempts: Counter[tuple[str, str]] = Counter()

    def history(self) -> list[Feedback]:
        """Every :class:`Feedback` returned by :meth:`check` since the last :meth:`reset`.

        Returns
        -------
        list of Feedback
            In call order (a copy).
        """
        return list(self._log)

    def reset(self) -> None:
        """Forget the recorded feedback and the attempt counters."""
        self._log.clear()
        self._attempts.clear()

    def check(self, name: str, answer: Any, *, part: str | None = None, hidden: bool = False,
              **context: Any) -> Feedback:
        """Check an answer to an exercise and return friendly, specific feedback.

        Parameters
        ----------
        name : str
            Exercise name, one of :func:`list_exercises`.
        answer : object
            The student's answer: a function for the implementation parts, a
            number, list, dict or set of letters for the others (see each
            notebook). ``None`` (the starter placeholder) gives a kind
            "not attempted yet".
        part : str, optional
            Part of the exercise (see :func:`list_parts`); defaults to the first.
        hidden : bool, default=False
            Check the answer on the held-out cases of a grader instead (only the
            parts listed by :func:`hidden_parts`).
        **context
            What the checker needs besides the answer, e.g. ``model=model,
            data=data`` (the fitted model and the dataset) or ``result=result,
            t=t``. Checks are computed from these objects, never from stored
            numbers.

        Returns
        -------
        Feedback
            ``passed`` and ``message``; shown as a green or amber box in Jupyter.

        Raises
        ------
        ValueError
            If ``name`` or ``part`` is unknown (a mistake in the notebook, not
            in the answer). Wrong answers, wrong types and errors raised by the
            student's function come back as feedback, never as exceptions.

        Examples
        --------
        >>> from ercot_nb.exercises import check
        >>> check("01_implement_f_sep", None).status
        'not attempted yet'
        """
        exercise = get_exercise(name)
        part = part if part is not None else next(iter(exercise.parts))
        if part not in exercise.parts:
            raise ValueError(f"exercise {name!r} has no part {part!r}; choose one of {list(exercise.parts)}")
        if hidden and part not in exercise.hidden:
            raise ValueError(f"exercise {name!r} has no held-out check of part {part!r}; "
                             f"those with one: {list(exercise.hidden)}")
        checker = exercise.hidden[part] if hidden else exercise.parts[part]
        key = (name, part)
        try:
            message = checker(answer, context, self._attempts[key] + 1)
            feedback = Feedback(name, part, passed=True, attempted=True, message=message)
        except NotAttempted:
            feedback = Feedback(
                name, part, passed=False, attempted=False,
                message="Nothing to check yet: write your answer where it says # YOUR CODE HERE, "
                        "run that cell, then run this check again. You can check as often as you like.",
            )
        except Mistake as mistake:
            if mistake.counts:
                self._attempts[key] += 1
            tail = KEEP_GOING if mistake.counts else ""
            feedback = Feedback(name, part, passed=False, attempted=True, message=f"{mistake}{tail}")
        except Exception as error:  # an answer of a shape no checker foresaw: still no traceback
            feedback = Feedback(
                name, part, passed=False, attempted=True,
                message=f"check could not read this answer ({type(error).__name__}: {error}). Compare "
                        "its type and shape with what the task asks for; if they look right, ask your "
                        "teacher.",
            )
        self._log.append(feedback)
        return feedback


def case_inputs(name: str, case: int, **context: Any) -> dict[str, Any]:
    """Inputs of one test case of an implementation part, to debug with.

    Parameters
    ----------
    name : {"01_implement_f_sep", "02_predict_the_knee"}
        Exercise whose function part the case belongs to.
    case : int
        1-based case number, as named in the feedback.
    **context
        For ``"02_predict_the_knee"``, ``result=result`` adds the fronts of
        your run (numbered first, as in the feedback).

    Returns
    -------
    dict
        ``{"name", "X", "centroids", "active"}`` for exercise 1,
        ``{"name", "F"}`` for exercise 2 (copies; safe to modify).
    """
    get_exercise(name)
    if name == "01_implement_f_sep":
        cases: list[Any] = objective_cases()
    elif name == "02_predict_the_knee":
        try:
            cases = front_cases(context)
        except Mistake as mistake:
            raise TypeError(str(mistake)) from None
    else:
        raise ValueError(f"exercise {name!r} has no function cases; use 01_implement_f_sep "
                         "or 02_predict_the_knee")
    if not (isinstance(case, (int, np.integer)) and 1 <= case <= len(cases)):
        raise ValueError(f"case must be a number from 1 to {len(cases)}, got {case!r}")
    chosen = cases[int(case) - 1]
    if isinstance(chosen, ClusterCase):
        return {"name": chosen.name, "X": chosen.X.copy(), "centroids": chosen.centroids.copy(),
                "active": chosen.active.copy()}
    return {"name": chosen.name, "F": chosen.F.copy()}


def grade(name: str, answer: Any, *, part: str | None = None, hidden: bool = False,
          **context: Any) -> Feedback:
    """Check an answer as a grader does: a fresh :class:`Session`, and an ``AssertionError`` if wrong.

    The test cells of the nbgrader export call this: a passed part shows its
    green feedback, a wrong or missing answer fails the cell with the same
    feedback text as :func:`check` (on a first try, so a prediction is not
    given away).

    Parameters
    ----------
    name, answer, part, hidden, **context
        As for :meth:`Session.check`.

    Returns
    -------
    Feedback
        The passed feedback.

    Raises
    ------
    AssertionError
        With the feedback message, when the answer is not right.
    """
    feedback = Session().check(name, answer, part=part, hidden=hidden, **context)
    if not feedback.passed:
        message = feedback.message.replace(KEEP_GOING, "")
        if not feedback.attempted:
            message = GRADED_EMPTY
        raise AssertionError(f"[{feedback.status}] {feedback.exercise} / {feedback.part}\n{message}")
    return feedback
