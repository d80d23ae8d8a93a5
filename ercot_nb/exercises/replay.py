"""Grading the value parts outside the student's kernel: the notebook replayed in clean processes.

The answers of ``predict`` (exercise 2) and of exercises 3 and 4 are values
about a fitted model (a time label, means of alpha, a set of letters). A
student's kernel can forge their check (replace ``grade``, patch the checker,
rebind ``model``), so the course's grader replays the notebook twice, each in a
new ``python -I`` process (:func:`~ercot_nb.exercises.isolated.values_in_clean_process`):

1. the teacher's run: the course's own cells (from ``source/``) and the
   teacher's solution, with the student's variant; it hands back the objects the
   checks read (``model``, ``data``, ``result``...), once per exercise and variant;
2. the student's run: the same course cells with the student's answer cells;
   it hands back each answer as plain JSON, nothing else.

Each answer is then checked by the package's checker, in the grader's process,
against the teacher's run's objects. Figure cells (those calling ``.show()``)
are not replayed: no answer depends on them.
"""
from __future__ import annotations

import ast
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .isolated import CleanRunTimeout, values_in_clean_process
from .registry import KEEP_GOING, Session
from .variants import VARIANT_ENV

_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def _text(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _marks(cell: Mapping[str, Any]) -> Mapping[str, Any]:
    return cell.get("metadata", {}).get("nbgrader", {})


def _answer_source(cell: Mapping[str, Any]) -> str:
    return "\n".join(line for line in _text(cell).split("\n") if line.strip() not in _MARKERS)


@dataclass(frozen=True)
class GradedCall:
    """One visible test cell: ``grade(exercise, <answer>, part=..., **context)``."""

    part: str
    answer: str
    context: dict[str, str]


def graded_calls(source_nb: Mapping[str, Any]) -> list[GradedCall]:
    """The visible test cells of a course's source notebook, as their ``grade(...)`` calls."""
    calls = []
    for cell in source_nb["cells"]:
        marks = _marks(cell)
        if not marks.get("grade") or marks.get("solution") or str(marks.get("grade_id", "")).endswith("_hidden"):
            continue
        for node in ast.walk(ast.parse(_text(cell))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "grade":
                keywords = {k.arg: k.value for k in node.keywords if k.arg}
                part = keywords.pop("part").value if "part" in keywords else None
                calls.append(GradedCall(str(part), ast.unparse(node.args[1]),
                                        {key: ast.unparse(value) for key, value in keywords.items()}))
    return calls


def replay_plan(source_nb: Mapping[str, Any], answers: Mapping[str, str] | None) -> list[tuple[str, bool]]:
    """``(source, is_answer)`` of the cells to replay, in order; answer cells from ``answers``.

    ``answers`` maps grade ids to sources (None: the teacher's solution). Test cells and
    figure cells are left out; a missing answer cell is left out too.
    """
    plan = []
    for cell in source_nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        marks = _marks(cell)
        if marks.get("solution"):
            source = _answer_source(cell) if answers is None else answers.get(marks.get("grade_id"))
            if source is not None:
                plan.append((source, True))
        elif not marks.get("grade") and ".show()" not in _text(cell):
            plan.append((_text(cell), False))
    return plan


def replay_cells(source_nb: Mapping[str, Any], answers: Mapping[str, str] | None) -> list[str]:
    """The sources of :func:`replay_plan`."""
    return [source for source, _ in replay_plan(source_nb, answers)]


def _replay(source_nb: Mapping[str, Any], answers: Mapping[str, str] | None, expressions: dict[str, str],
            limits: tuple[float, float], variant: int | None, context: Sequence[str] = ()) -> Any:
    plan = replay_plan(source_nb, answers)
    answer_limit, course_limit = limits
    return values_in_clean_process([source for source, _ in plan], expressions, env=_env(variant),
                                   cell_limit=[answer_limit if is_answer else course_limit
                                               for _, is_answer in plan], context=context)


def answer_cells(nb: Mapping[str, Any]) -> dict[str, str]:
    """``{grade_id: source}`` of a submission's answer cells."""
    return {str(_marks(c)["grade_id"]): _answer_source(c) for c in nb["cells"]
            if c.get("cell_type") == "code" and _marks(c).get("solution") and _marks(c).get("grade_id")}


_REFERENCE: dict[tuple[Any, ...], dict[str, Any]] = {}  # the teacher's objects, once per exercise and variant


def _env(variant: int | None) -> dict[str, str]:
    return {} if variant is None else {VARIANT_ENV: str(variant)}


def reference_objects(exercise: str, source_nb: Mapping[str, Any], value_parts: list[str], *,
                      variant: int | None, cell_limit: float, course_limit: float) -> dict[str, Any]:
    """The objects the checks read, from the teacher's run (cached per exercise, notebook and variant).

    The teacher's answers to ``value_parts`` must pass their checks against these objects.

    Raises
    ------
    RuntimeError
        When the teacher's solution does not run or does not pass its own checks (a broken course).
    """
    key = (exercise, tuple(value_parts), variant, hashlib.sha256(json.dumps(source_nb, sort_keys=True).encode()).hexdigest())
    if key in _REFERENCE:
        return _REFERENCE[key]
    calls = [call for call in graded_calls(source_nb) if call.part in value_parts]
    names = sorted({name for call in calls for name in call.context.values()})
    expressions = {call.part: call.answer for call in calls}
    values, errors, setup, objects = _replay(source_nb, None, expressions, (cell_limit, course_limit),
                                             variant, context=names)
    if objects is None or setup:
        raise RuntimeError(f"{exercise}: the teacher's solution did not run in a clean process "
                           f"(variant {variant}): {(setup or list(errors.values()))[0]}")
    for call in calls:
        feedback = Session().check(exercise, values[call.part], part=call.part,
                                   **{k: objects[v] for k, v in call.context.items()})
        if not feedback.passed:
            raise RuntimeError(f"{exercise}: the teacher's solution fails its own check of {call.part} "
                               f"(variant {variant}): {feedback.message.splitlines()[0]}")
    _REFERENCE[key] = objects
    return objects


def verify_values(exercise: str, source_nb: Mapping[str, Any], answers: Mapping[str, str],
                  parts: list[str], value_parts: list[str], *, variant: int | None,
                  cell_limit: float, course_limit: float) -> dict[str, tuple[bool, str]]:
    """Grade value ``parts`` of a submission (its ``answers`` by grade id) outside its kernel.

    Parameters
    ----------
    exercise : str
        The exercise (assignment) name.
    source_nb : mapping
        The course's source notebook (with the teacher's solution).
    answers : mapping
        ``{grade_id: source}`` of the student's answer cells (:func:`answer_cells`).
    parts : list of str
        The value parts to grade (those that passed in the kernel).
    value_parts : list of str
        Every value part of the exercise (the teacher's run checks them all, once).
    variant : int or None
        The student's variant (data seed), set in both runs; None without variants.
    cell_limit : float
        Seconds for each answer cell of a clean run (the exercise's time limit).
    course_limit : float
        Seconds for each of the course's own cells (a fit may compile numba's kernels first).

    Returns
    -------
    dict
        ``{part: (passed, one-line reason)}``.
    """
    calls = [call for call in graded_calls(source_nb) if call.part in parts]
    if not calls:
        return {}
    objects = reference_objects(exercise, source_nb, value_parts, variant=variant, cell_limit=cell_limit,
                                course_limit=course_limit)
    try:
        values, errors, _, _ = _replay(source_nb, answers, {call.part: call.answer for call in calls},
                                       (cell_limit, course_limit), variant)
    except CleanRunTimeout as exc:
        return {call.part: (False, f"timeout: {exc}") for call in calls}
    verdicts = {}
    for call in calls:
        if errors[call.part] is not None:
            verdicts[call.part] = (False, f"the answer {call.answer} gave no value ({errors[call.part]})")
            continue
        feedback = Session().check(exercise, values[call.part], part=call.part,
                                   **{k: objects[v] for k, v in call.context.items()})
        if feedback.passed:
            verdicts[call.part] = (True, "agrees with the teacher's run")
        elif not feedback.attempted:
            verdicts[call.part] = (False, f"there {call.answer} is None (no answer)")
        else:
            why = " ".join(feedback.message.replace(KEEP_GOING, "").split())
            shown = json.dumps(values[call.part])
            verdicts[call.part] = (False, f"there {call.answer} is {shown[:80]}: {why[:200]}")
    return verdicts
