"""Automatic feedback for the classroom exercises in ``notebooks/exercises/``.

Each exercise notebook ends its tasks with a call such as::

    from ercot_nb.exercises import check
    check("01_implement_f_sep", f_sep)

which returns a :class:`Feedback`: green when the answer is right, amber
otherwise, with specific, encouraging hints and the numbers needed to debug
(never the full answer to a prediction on the first try). Answers are checked
against the package itself (the NumPy twins of the kernels, the knee rule in
``ercot_nb.knee``, the dataset labels and the fitted model the student
passes), not against stored numbers.

=======================================  ======================================
exercise                                 parts
=======================================  ======================================
``01_implement_f_sep``                   ``f_sep``, ``f_cp``
``02_predict_the_knee``                  ``predict``, ``knee_rule``
``03_explain_the_weight_syn3``           ``lowest_time``, ``drift_means``,
                                         ``control``, ``statements``
``04_find_the_vanishing_cluster``        ``true_counts``, ``vanished``,
                                         ``compare``, ``statements``
=======================================  ======================================

For grading, :func:`grade` checks like :func:`check` on a fresh session and
raises ``AssertionError`` with the feedback when the answer is wrong (the test
cells of the nbgrader export call it); ``check(..., hidden=True)`` runs the
held-out cases of the parts listed by :func:`hidden_parts`. The solutions are
not in this package: ``ercot-nb teacher solutions DIR`` and ``ercot-nb teacher
nbgrader DIR`` read them from a source tree (``ercot_nb.exercises.teacher``).

Every call is recorded (see :func:`history`); :func:`reset` clears the record
and the per-part attempt counters that decide how much a hint reveals.  These
three act on one default :class:`Session` of the kernel; a ``Session()`` of
your own keeps a separate record.

==========================  ==================================================
module                      holds
==========================  ==================================================
``registry``                the exercises by name and parts; :class:`Session`
``feedback``                :class:`Feedback`; how a checker reports a mistake
``answers``                 reading answers and the context passed with them
``ex01_objectives``         exercise 1 (f_sep, f_cp)
``ex02_knee``               exercise 2 (predict, knee_rule)
``ex03_weight``             exercise 3 (alpha on Syn3)
``ex04_vanishing``          exercise 4 (the vanishing cluster of Syn7)
``teacher``                 teacher copies: solved notebooks, nbgrader course
``autograde``               nbgrader steps: forged grades, flags, time limits
``isolated``                running answer cells in a clean Python process
``replay``                  the value parts graded outside the student's kernel
``variants``                each student's own data (``ERCOT_NB_VARIANT``)
==========================  ==================================================
"""
from __future__ import annotations

from .ex03_weight import EX3_STATEMENTS
from .ex04_vanishing import EX4_STATEMENTS
from .feedback import Feedback
from .registry import Session, case_inputs, grade, hidden_parts, list_exercises, list_parts
from .variants import data_seed

__all__ = [
    "EX3_STATEMENTS",
    "EX4_STATEMENTS",
    "Feedback",
    "Session",
    "case_inputs",
    "check",
    "data_seed",
    "grade",
    "hidden_parts",
    "history",
    "list_exercises",
    "list_parts",
    "reset",
]

_DEFAULT = Session()
check = _DEFAULT.check
history = _DEFAULT.history
reset = _DEFAULT.reset
