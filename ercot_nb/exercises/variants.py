"""Each student's own data: the variant a notebook's kernel loads, and how a course hands it out.

A course written with ``ercot-nb teacher nbgrader DIR --variants`` loads its
datasets with ``datasets.load(name, seed=data_seed())``. :func:`data_seed`
reads the student's variant from the environment variable ``ERCOT_NB_VARIANT``
(0, the practice data, when it is not set). The variant is a seed derived from
the student id by the course secret (:func:`student_variant`), so a student
cannot compute a neighbour's; the grader sets it for each student's kernel at
autograde time and never trusts the one a notebook ran with.

Two ways to set it while students work:

- JupyterHub: in ``jupyterhub_config.py``,
  ``c.Spawner.environment.update(hub_environment("/path/to/course"))``: every
  single-user server (and its kernels) gets the variant of its user name, the
  student id nbgrader uses.
- No hub: :func:`student_variants` lists each student's variant; a student
  runs ``%env ERCOT_NB_VARIANT=<variant>`` in the notebook's first cell.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from .secret import derived_seed, read_grading

VARIANT_ENV = "ERCOT_NB_VARIANT"
"""The environment variable holding a student's variant (a data seed)."""


def data_seed(required: bool = False) -> int:
    """The seed of this student's data: ``$ERCOT_NB_VARIANT``, or 0 (the practice data) when unset.

    Parameters
    ----------
    required : bool, default=False
        True in a course with variants (its notebooks call ``data_seed(required=True)``):
        an unset variable is an error, since the grader uses the student's own data.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        When the variable is set but is not a whole number, or is unset and ``required``.
    """
    raw = os.environ.get(VARIANT_ENV, "").strip()
    if not raw:
        if required:
            raise ValueError(f"this course gives each student data of their own, but {VARIANT_ENV} is not "
                             "set: ask your teacher for your variant and run "
                             f"%env {VARIANT_ENV}=<variant> in the first cell")
        return 0
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{VARIANT_ENV}={raw!r} is not a whole number; set it to the variant your "
                         "teacher gave you, or unset it for the practice data") from None
    if value < 0:
        raise ValueError(f"{VARIANT_ENV}={raw!r} is negative; variants are whole numbers >= 0")
    return value


def student_variant(grading: dict[str, Any], student: str) -> int | None:
    """The variant (data seed) of ``student`` in a course with variants; None without them.

    Parameters
    ----------
    grading : dict
        The course options (:func:`~ercot_nb.exercises.secret.read_grading`).
    student : str
        The student id, as nbgrader and JupyterHub name the student.
    """

    if not grading.get("variants"):
        return None
    return derived_seed(grading["secret"], "variant", student) % 2**31


def student_variants(course: str | os.PathLike[str], students: Iterable[str]) -> dict[str, int]:
    """Each student's variant in the course folder ``course`` (for classes without JupyterHub).

    Raises
    ------
    ValueError
        When the course has no variants (written without ``--variants``).
    """

    grading = read_grading(course)
    if not grading["variants"]:
        raise ValueError(f"{course}: this course has no variants; write it with "
                         "ercot-nb teacher nbgrader --variants")
    return {student: int(student_variant(grading, student)) for student in students}


def hub_environment(course: str | os.PathLike[str]) -> dict[str, Callable[[Any], str]]:
    """``{"ERCOT_NB_VARIANT": callable}`` for JupyterHub's ``Spawner.environment``.

    The callable receives the spawner and returns the variant of its user's name.
    The course secret stays on the hub; only the variant reaches the student's server.
    """

    grading = read_grading(course)
    if not grading["variants"]:
        raise ValueError(f"{course}: this course has no variants; write it with "
                         "ercot-nb teacher nbgrader --variants")
    return {VARIANT_ENV: lambda spawner: str(student_variant(grading, spawner.user.name))}
