"""Classroom exercises: the feedback of ``ercot_nb.exercises.check`` and the notebooks.

The exercise notebooks themselves run as handed out under nbval (they are
under ``notebooks/``). Here each one is also executed with its solutions
swapped in, and every ``check`` in it must pass; the checks are unit-tested
directly with right answers, typical wrong answers and wrong types.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest

from ercot_nb import ERCOT, datasets, exercises
from ercot_nb.exercises import Feedback, check

EXERCISE_DIR = Path(__file__).resolve().parents[1] / "notebooks" / "exercises"
SOLUTION_DIR = EXERCISE_DIR / "solutions"
NAMES = exercises.list_exercises()


@pytest.fixture(autouse=True)
def fresh_log():
    exercises.reset()
    yield
    exercises.reset()


def solution_sections(name: str) -> dict[str, str]:
    """``# %% solution: <key>`` sections of a solution module."""
    text = (SOLUTION_DIR / f"{name}.py").read_text()
    pieces = re.split(r"^# %% solution: (\S+)[ \t]*$", text, flags=re.MULTILINE)
    return {key: body.strip() + "\n" for key, body in zip(pieces[1::2], pieces[2::2])}


def solved(name: str, namespace: dict | None = None, *keys: str) -> dict:
    """Run solution sections ``keys`` (all by default) in ``namespace``."""
    namespace = {} if namespace is None else namespace
    sections = solution_sections(name)
    for key in keys or sections:
        exec(compile(sections[key], f"{name}:{key}", "exec"), namespace)
    return namespace


# --------------------------------------------------------------------------- #
# Fitted runs shared by the data exercises (seeded: identical every time)
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def syn3():
    data = datasets.load("syn3", seed=0)
    return data, ERCOT(seed=0).fit(data)


@pytest.fixture(scope="module")
def syn1_model():
    return ERCOT(seed=0).fit(datasets.load("syn1", seed=0))


@pytest.fixture(scope="module")
def syn7():
    data = datasets.load("syn7", seed=0)
    return data, ERCOT(seed=0).fit(data)


# --------------------------------------------------------------------------- #
# The notebooks: student version as handed out, and with solutions applied
# --------------------------------------------------------------------------- #
def read_notebook(name: str) -> nbformat.NotebookNode:
    return nbformat.read(EXERCISE_DIR / f"{name}.ipynb", as_version=4)


def solution_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [c for c in nb.cells if "solution-cell" in c.metadata.get("tags", [])]


def test_every_exercise_has_a_notebook_a_solution_module_and_a_readme_entry():
    readme = (EXERCISE_DIR / "README.md").read_text()
    assert sorted(p.stem for p in EXERCISE_DIR.glob("*.ipynb")) == sorted(NAMES)
    assert sorted(p.stem for p in SOLUTION_DIR.glob("*.py")) == sorted(NAMES)
    for name in NAMES:
        assert name in readme


@pytest.mark.parametrize("name", NAMES)
def test_student_notebook_is_solution_free_and_matches_its_solution_module(name):
    nb = read_notebook(name)
    sections = solution_sections(name)
    cells = solution_cells(nb)
    assert [c.metadata["exercise"]["solution"] for c in cells] == list(sections)
    for cell in cells:
        assert "# YOUR CODE HERE" in cell.source
        assert "= None" in cell.source or "return None" in cell.source
    student_code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    for key, body in sections.items():
        # The substantive solution lines (not imports, defs, docstrings) must not leak.
        for line in body.splitlines():
            line = line.strip()
            if line and not line.startswith(("import", "from", "def ", '"""', "#")) and len(line) > 25:
                assert line not in student_code, f"{name}: solution line of {key!r} in the notebook"
    intro = nb.cells[0]
    assert intro.cell_type == "markdown" and intro.source.startswith("# Exercise")
    assert "`check(" in intro.source
    # Stored outputs of the handed-out version: every check says "not attempted yet".
    checks = [c for c in nb.cells if c.cell_type == "code" and "check(" in c.source and "import" not in c.source]
    assert len(checks) == len(exercises.list_parts(name))
    for cell in checks:
        (output,) = [o for o in cell.outputs if o.output_type == "execute_result"]
        assert "[not attempted yet]" in output.data["text/plain"]


@pytest.mark.parametrize(
    ("name", "statements"),
    [("03_explain_the_weight_syn3", exercises.EX3_STATEMENTS),
     ("04_find_the_vanishing_cluster", exercises.EX4_STATEMENTS)],
)
def test_statements_in_the_notebook_are_the_ones_check_judges(name, statements):
    text = "\n".join(c.source for c in read_notebook(name).cells if c.cell_type == "markdown")
    for letter, statement in statements.items():
        assert f"- **{letter}.** {statement}" in text


_RESET_CELL = """%reset -f
from ercot_nb import exercises
exercises.reset()"""
_LOG_CELL = """import json
from ercot_nb import exercises
print("EXERCISE-LOG" + json.dumps([[f.exercise, f.part, f.passed, f.message] for f in exercises.history()]))"""


@pytest.fixture(scope="module")
def solved_runs() -> dict[str, tuple[list, list]]:
    """Every notebook with its solutions swapped in, run top to bottom.

    One kernel runs the four notebooks one after the other, its namespace and
    the check log cleared in between (saves a kernel start and the imports per
    notebook). Returns, per exercise, the error outputs of its cells and the
    log of its check calls.
    """
    from nbclient import NotebookClient

    combined = nbformat.v4.new_notebook()
    combined.metadata = read_notebook(NAMES[0]).metadata
    spans = {}
    for name in NAMES:
        nb = read_notebook(name)
        sections = solution_sections(name)
        for cell in solution_cells(nb):
            cell.source = sections[cell.metadata["exercise"]["solution"]]
        start = len(combined.cells)
        combined.cells += [nbformat.v4.new_code_cell(_RESET_CELL), *nb.cells,
                           nbformat.v4.new_code_cell(_LOG_CELL)]
        spans[name] = (start, len(combined.cells))
    NotebookClient(combined, timeout=120, kernel_name="python3", allow_errors=True,
                   store_widget_state=False, resources={"metadata": {"path": str(EXERCISE_DIR)}}).execute()
    runs = {}
    for name, (start, stop) in spans.items():
        cells = combined.cells[start:stop]
        errors = [f"{o.ename}: {o.evalue}" for c in cells if c.cell_type == "code"
                  for o in c.outputs if o.output_type == "error"]
        lines = [line for o in cells[-1].outputs if o.output_type == "stream"
                 for line in o.text.splitlines() if line.startswith("EXERCISE-LOG")]
        runs[name] = (errors, json.loads(lines[0][len("EXERCISE-LOG"):]) if lines else [])
    return runs


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_with_solutions_passes_every_check(name, solved_runs):
    errors, log = solved_runs[name]
    assert not errors, errors
    assert {(exercise, part) for exercise, part, _, _ in log} == {
        (name, part) for part in exercises.list_parts(name)
    }
    failed = [(part, message) for _, part, passed, message in log if not passed]
    assert not failed, failed


# --------------------------------------------------------------------------- #
# check(): names, parts, placeholders, feedback object
# --------------------------------------------------------------------------- #
def test_unknown_exercise_and_part_raise_value_error_naming_the_choices():
    with pytest.raises(ValueError, match="01_implement_f_sep.*02_predict_the_knee"):
        check("05_nope", None)
    with pytest.raises(ValueError, match=r"no part 'f_xx'.*'f_sep', 'f_cp'"):
        check("01_implement_f_sep", None, part="f_xx")
    with pytest.raises(ValueError, match="unknown exercise"):
        exercises.list_parts("nope")


def test_placeholder_answers_are_not_attempted_and_logged(syn3, syn1_model, syn7):
    data3, model3 = syn3
    data7, model7 = syn7
    contexts = {
        "01_implement_f_sep": {},
        "02_predict_the_knee": {"result": model3.result_, "t": 7},
        "03_explain_the_weight_syn3": {"model": model3, "data": data3, "syn1_model": syn1_model},
        "04_find_the_vanishing_cluster": {"model": model7, "data": data7},
    }
    for name in NAMES:
        for part in exercises.list_parts(name):
            feedback = check(name, None, part=part, **contexts[name])
            assert (feedback.passed, feedback.attempted) == (False, False), (name, part)
            assert feedback.status == "not attempted yet"
            assert "# YOUR CODE HERE" in feedback.message
    # Starter functions that return None are "not attempted" too.
    assert check("01_implement_f_sep", lambda X, c, a: None).status == "not attempted yet"
    assert len(exercises.history()) == sum(len(exercises.list_parts(n)) for n in NAMES) + 1


def test_feedback_renders_green_or_amber_and_escapes_html():
    good = Feedback("01_implement_f_sep", "f_sep", passed=True, attempted=True, message="ok <b>")
    bad = Feedback("01_implement_f_sep", "f_sep", passed=False, attempted=True, message="a\nb")
    assert "#2e7d32" in good._repr_html_() and "&lt;b&gt;" in good._repr_html_()
    assert "#b26a00" in bad._repr_html_() and "a<br>b" in bad._repr_html_()
    assert repr(bad).startswith("[not yet right] 01_implement_f_sep / f_sep\na")


# --------------------------------------------------------------------------- #
# Exercise 1: f_sep and f_cp
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def objective_solutions():
    return solved("01_implement_f_sep")


def test_f_sep_and_f_cp_solutions_pass(objective_solutions):
    assert check("01_implement_f_sep", objective_solutions["f_sep"]).passed
    assert check("01_implement_f_sep", objective_solutions["f_cp"], part="f_cp").passed


def _nearest(X, centroids, slots):
    d = np.linalg.norm(X[:, None, :] - centroids[slots][None, :, :], axis=2)
    return slots[d.argmin(axis=1)], d.min(axis=1)


def _min_pair(C):
    d = np.linalg.norm(C[:, None, :] - C[None, :, :], axis=2)
    return d[np.triu_indices(len(C), 1)].min() if len(C) > 1 else np.inf


def sep_with_ghosts(X, centroids, active):
    return 1.0 / _min_pair(centroids[np.flatnonzero(active)])


def sep_with_inactive(X, centroids, active):
    return 1.0 / _min_pair(centroids)


def sep_distance_only(X, centroids, active):
    labels, _ = _nearest(X, centroids, np.flatnonzero(active))
    return _min_pair(centroids[np.unique(labels)])


def sep_squared(X, centroids, active):
    labels, _ = _nearest(X, centroids, np.flatnonzero(active))
    return 1.0 / _min_pair(centroids[np.unique(labels)]) ** 2


def sep_self_pairs(X, centroids, active):
    labels, _ = _nearest(X, centroids, np.flatnonzero(active))
    C = centroids[np.unique(labels)]
    return 1.0 / max(np.linalg.norm(C[:, None] - C[None], axis=2).min(), 1e-12)


def sep_zero_for_one_cluster(X, centroids, active):
    labels, _ = _nearest(X, centroids, np.flatnonzero(active))
    C = centroids[np.unique(labels)]
    return 0.0 if len(C) < 2 else 1.0 / _min_pair(C)


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (sep_with_ghosts, "ghost"),
        (sep_with_inactive, "only the active centroids"),
        (sep_distance_only, "one over the smallest distance"),
        (sep_squared, "square root"),
        (sep_self_pairs, "distinct pairs"),
        (sep_zero_for_one_cluster, "np.inf"),
    ],
)
def test_typical_f_sep_mistakes_get_their_specific_hint(wrong, hint):
    feedback = check("01_implement_f_sep", wrong)
    assert not feedback.passed and feedback.attempted
    assert hint in feedback.message
    # It names the failing case, gives both numbers and how to get the inputs.
    assert re.search(r"Case \d, '", feedback.message)
    assert re.search(r"your f_sep is \S+ but should be \S+ \(within 1e-06\)", feedback.message)
    assert "case_inputs('01_implement_f_sep'" in feedback.message


def test_f_sep_feedback_numbers_are_the_package_values():
    # The ghost case (case 3): the package's NumPy twin with separation over non-empty clusters.
    from ercot_nb.kernels import _numpy_twins

    case = exercises.case_inputs("01_implement_f_sep", 3)
    n_max = len(case["centroids"])
    chromosome = np.concatenate([case["active"].astype(float), case["centroids"].ravel()])[None]
    f_cp, f_sep, counts = np.empty(1), np.empty(1), np.zeros((1, n_max), np.int64)
    _numpy_twins.evaluate_population(case["X"], chromosome, n_max, True, f_cp, f_sep, counts)
    assert counts[0].tolist().count(0) == 1  # the case really has one ghost
    message = check("01_implement_f_sep", sep_with_ghosts).message
    assert f"should be {f_sep[0]:.6g}" in message


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (lambda X, C, a: (_nearest(X, C, np.flatnonzero(a))[1] ** 2).sum(), "squared"),
        (lambda X, C, a: _nearest(X, C, np.flatnonzero(a))[1].mean(), "mean"),
        (lambda X, C, a: _nearest(X, C, np.arange(len(C)))[1].sum(), "*active*"),
    ],
)
def test_typical_f_cp_mistakes_get_their_specific_hint(wrong, hint):
    feedback = check("01_implement_f_sep", wrong, part="f_cp")
    assert not feedback.passed and hint in feedback.message


def test_bad_types_and_crashes_become_feedback_not_tracebacks(objective_solutions):
    def crashes(X, centroids, active):
        return 1 / 0

    feedback = check("01_implement_f_sep", crashes)
    assert not feedback.passed and "ZeroDivisionError" in feedback.message
    feedback = check("01_implement_f_sep", lambda X, c, a: "0.5")
    assert not feedback.passed and "single number" in feedback.message
    feedback = check("01_implement_f_sep", lambda X, c, a: np.array([0.1, 0.2]))
    assert not feedback.passed and "shape (2,)" in feedback.message
    value = objective_solutions["f_sep"](**{k: v for k, v in exercises.case_inputs(
        "01_implement_f_sep", 1).items() if k != "name"})
    feedback = check("01_implement_f_sep", value)  # called the function instead of passing it
    assert not feedback.passed and "pass the function itself" in feedback.message
    # A student mutating the inputs cannot change later cases.
    def mutating(X, centroids, active):
        active[:] = False
        return objective_solutions["f_sep"](X, centroids, np.ones_like(active))
    assert not check("01_implement_f_sep", mutating).passed
    assert check("01_implement_f_sep", objective_solutions["f_sep"]).passed


def test_case_inputs_are_copies_and_checked():
    first = exercises.case_inputs("01_implement_f_sep", 1)
    first["X"][:] = 0.0
    assert np.any(exercises.case_inputs("01_implement_f_sep", 1)["X"] != 0.0)
    with pytest.raises(ValueError, match="from 1 to 7"):
        exercises.case_inputs("01_implement_f_sep", 8)
    with pytest.raises(ValueError, match="no function cases"):
        exercises.case_inputs("04_find_the_vanishing_cluster", 1)


# --------------------------------------------------------------------------- #
# Exercise 2: the knee
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def knee_solution():
    return solved("02_predict_the_knee", None, "knee_index")["knee_index"]


def test_knee_rule_solution_passes_with_and_without_the_run(knee_solution, syn3):
    _, model = syn3
    feedback = check("02_predict_the_knee", knee_solution, part="knee_rule", result=model.result_)
    assert feedback.passed and "on 10 fronts of your run" in feedback.message
    assert check("02_predict_the_knee", knee_solution, part="knee_rule").passed


def _g(F, use_sqrt=True):
    F = np.asarray(F, float)
    span = F.max(0) - F.min(0)
    g = np.divide(F - F.min(0), span, out=np.zeros_like(F), where=span > 0)
    return np.sqrt(g) if use_sqrt else g


def knee_sorted_position(F):
    order = np.argsort(F[:, 0], kind="stable")
    return int(np.argmin(np.hypot(*_g(F[order]).T)))


def knee_divides_by_zero(F):
    with np.errstate(all="ignore"):
        g = np.sqrt((F - F.min(0)) / (F.max(0) - F.min(0)))
    return int(np.argmin(np.hypot(*g.T)))


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (lambda F: int(np.argmin(np.hypot(*F.T))), "did you normalise"),
        (lambda F: int(np.argmin(np.hypot(*_g(F, use_sqrt=False).T))), "square root"),
        (lambda F: int(np.argmax(np.hypot(*_g(F).T))), "argmin, not argmax"),
        (knee_sorted_position, "not sorted"),
        (knee_divides_by_zero, "max == min"),
        (lambda F: len(F), "valid indices"),
    ],
)
def test_typical_knee_mistakes_get_their_specific_hint(wrong, hint, syn3):
    feedback = check("02_predict_the_knee", wrong, part="knee_rule", result=syn3[1].result_)
    assert not feedback.passed and hint in feedback.message, feedback.message


def test_knee_prediction_reveals_the_answer_only_after_a_wrong_try(syn3):
    result = syn3[1].result_
    t = 7
    step = result[t]
    knee_k = int(step.population_n_clusters[step.knee])
    front_ks = sorted(set(step.population_n_clusters[step.first_front].tolist()))
    wrong = next(k for k in front_ks if k != knee_k)
    first = check("02_predict_the_knee", wrong, part="predict", result=result, t=t)
    assert not first.passed and "ideal corner" in first.message
    assert f"has {knee_k} clusters" not in first.message
    second = check("02_predict_the_knee", wrong, part="predict", result=result, t=t)
    assert f"The knee has {knee_k} clusters" in second.message
    # A number of clusters absent from the front is a form problem: no extra reveal.
    exercises.reset()
    absent = check("02_predict_the_knee", max(front_ks) + 1, part="predict", result=result, t=t)
    assert "No member of the first front" in absent.message
    again = check("02_predict_the_knee", wrong, part="predict", result=result, t=t)
    assert f"has {knee_k} clusters" not in again.message
    assert check("02_predict_the_knee", knee_k, part="predict", result=result, t=t).passed


def test_knee_checks_ask_for_missing_context_kindly(syn3):
    feedback = check("02_predict_the_knee", 4, part="predict")
    assert not feedback.passed and "result=result" in feedback.message
    feedback = check("02_predict_the_knee", 4, part="predict", result=syn3[1].result_)
    assert "t=t" in feedback.message
    feedback = check("02_predict_the_knee", "four", part="predict", result=syn3[1], t=7)
    assert "single number" in feedback.message


# --------------------------------------------------------------------------- #
# Exercise 3: explain the weight
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def weight_answers(syn3, syn1_model):
    data, model = syn3
    namespace = {"data": data, "model": model, "syn1": datasets.load("syn1", seed=0),
                 "syn1_model": syn1_model}
    return solved("03_explain_the_weight_syn3", namespace)


def test_weight_answers_pass_and_are_recomputed_from_the_model(weight_answers, syn3, syn1_model):
    data, model = syn3
    context = {"model": model, "data": data, "syn1_model": syn1_model}
    name = "03_explain_the_weight_syn3"
    assert check(name, weight_answers["lowest_time"], part="lowest_time", **context).passed
    pair = (weight_answers["drift_mean"], weight_answers["other_mean"])
    assert check(name, pair, part="drift_means", **context).passed
    assert check(name, weight_answers["syn1_drift_mean"], part="control", **context).passed
    assert check(name, weight_answers["true_statements"], part="statements", **context).passed
    assert check(name, " , ".join(sorted(weight_answers["true_statements"])), part="statements",
                 **context).passed
    # Another seed gives another run; the same answers are judged on that run.
    other = ERCOT(seed=1).fit(data)
    times = np.array(data.times)
    expected_lowest = times[np.nanargmin(other.alpha_)]
    assert check(name, expected_lowest, part="lowest_time", model=other, data=data).passed
    in_drift = np.isin(times, [4, 5, 6])
    pair = (np.nanmean(other.alpha_[in_drift]), np.nanmean(other.alpha_[~in_drift]))
    assert check(name, pair, part="drift_means", model=other, data=data).passed


def test_typical_weight_mistakes_get_their_specific_hint(syn3, syn1_model):
    data, model = syn3
    context = {"model": model, "data": data, "syn1_model": syn1_model}
    name = "03_explain_the_weight_syn3"
    alpha, times = model.alpha_, np.array(data.times)
    lowest_t = int(np.nanargmin(alpha))
    assert "0-based step index" in check(name, lowest_t, part="lowest_time", **context).message
    assert "alpha value" in check(name, float(alpha[lowest_t]), part="lowest_time", **context).message
    assert "not a time label" in check(name, 42, part="lowest_time", **context).message
    assert "no alpha (nan" in check(name, 1, part="lowest_time", **context).message

    drift = np.isin(times, [4, 5, 6])
    right = (np.nanmean(alpha[drift]), np.nanmean(alpha[~drift]))
    shifted = np.isin(np.arange(len(times)), [4, 5, 6])
    wrong_answers = {
        "0-based index": (np.nanmean(alpha[shifted]), np.nanmean(alpha[~shifted])),
        "nan slipped in": (np.mean(alpha[drift]), np.mean(alpha[~drift])),
        "swapped": right[::-1],
        "leave out the drift": (right[0], np.nanmean(alpha)),
    }
    for hint, answer in wrong_answers.items():
        feedback = check(name, answer, part="drift_means", **context)
        assert not feedback.passed and hint in feedback.message, (hint, feedback.message)
    assert "two numbers" in check(name, 0.3, part="drift_means", **context).message
    syn3_mean = float(np.nanmean(alpha[drift]))
    assert "that is the Syn3 value" in check(name, syn3_mean, part="control", **context).message


def test_weight_statements_hint_then_name_the_wrong_ones(weight_answers, syn3, syn1_model):
    data, model = syn3
    context = {"model": model, "data": data, "syn1_model": syn1_model}
    name = "03_explain_the_weight_syn3"
    right = set(weight_answers["true_statements"])
    wrong = right ^ {"A"}  # flip the judgement of statement A
    first = check(name, wrong, part="statements", **context)
    assert not first.passed and "1 of the 5 statements is judged the wrong way" in first.message
    assert "A:" not in first.message
    second = check(name, wrong, part="statements", **context)
    assert "statement A" in second.message and "changed their true label" in second.message
    assert "no statement Z" in check(name, {"A", "Z"}, part="statements", **context).message
    assert "letters" in check(name, 3, part="statements", **context).message


def test_weight_checks_need_the_right_objects(syn3, syn7, syn1_model):
    data, model = syn3
    name = "03_explain_the_weight_syn3"
    assert "model=model" in check(name, 7, part="lowest_time", data=data).message
    assert "fitted ERCOT model" in check(name, 7, part="lowest_time", data=data, model="x").message
    assert "is about 'syn3'" in check(name, 7, part="lowest_time", data=syn7[0], model=model).message
    short = ERCOT(seed=0).fit(data[:3])
    assert "does not seem to be fitted" in check(name, 7, part="lowest_time", data=data,
                                                 model=short).message
    assert "syn1_model=syn1_model" in check(name, 0.3, part="control", data=data, model=model).message


# --------------------------------------------------------------------------- #
# Exercise 4: the vanishing cluster
# --------------------------------------------------------------------------- #
@pytest.fixture(scope="module")
def vanishing_answers(syn7):
    data, model = syn7
    return solved("04_find_the_vanishing_cluster", {"data": data, "model": model})


def test_vanishing_answers_pass_and_follow_the_labels(vanishing_answers, syn7):
    data, model = syn7
    name = "04_find_the_vanishing_cluster"
    a = vanishing_answers
    assert check(name, a["true_counts"], part="true_counts", data=data).passed
    assert check(name, {"times": a["vanished_times"], "label": a["vanished_label"]},
                 part="vanished", data=data).passed
    assert check(name, {"ercot_counts": a["ercot_counts"], "missed_times": a["missed_times"]},
                 part="compare", data=data, model=model).passed
    assert check(name, a["true_statements"], part="statements", data=data, model=model).passed
    # The checks read the labels: the counts drop exactly where a first-step label is missing.
    first = set(np.unique(data[0].labels))
    for time, count, step in zip(data.times, a["true_counts"], data):
        assert (count < len(first)) == (time in a["vanished_times"])
        assert (a["vanished_label"] in step.labels) == (time not in a["vanished_times"])


def test_typical_vanishing_mistakes_get_their_specific_hint(vanishing_answers, syn7):
    data, model = syn7
    name = "04_find_the_vanishing_cluster"
    a = vanishing_answers
    max_plus_one = [int(step.labels.max()) + 1 for step in data]
    assert max_plus_one != a["true_counts"]  # the trap is real on Syn7
    assert "labels.max() + 1" in check(name, max_plus_one, part="true_counts", data=data).message
    sizes = [step.n_samples for step in data]
    assert "number of samples" in check(name, sizes, part="true_counts", data=data).message
    assert "one per time step" in check(name, a["true_counts"][:-1], part="true_counts", data=data).message
    assert "list of whole numbers" in check(name, "4,4,4", part="true_counts", data=data).message

    indices = [data.times.index(t) for t in a["vanished_times"]]
    feedback = check(name, {"times": indices, "label": a["vanished_label"]}, part="vanished", data=data)
    assert "0-based step indices" in feedback.message
    feedback = check(name, {"times": a["vanished_times"][:1], "label": 0}, part="vanished", data=data)
    assert "List every time label" in feedback.message and "present at every step" in feedback.message
    assert "dict with two keys" in check(name, [5, 6], part="vanished", data=data).message

    missed_idx = [data.times.index(t) for t in a["missed_times"]]
    feedback = check(name, {"ercot_counts": a["true_counts"], "missed_times": missed_idx},
                     part="compare", data=data, model=model)
    assert "model.n_clusters_" in feedback.message
    if a["missed_times"]:
        assert "0-based indices" in feedback.message


def test_an_unforeseen_error_in_a_checker_is_feedback_too(monkeypatch):
    def broken(answer, context, attempt):
        raise KeyError("surprise")

    monkeypatch.setitem(exercises.registry.EXERCISES["01_implement_f_sep"].parts, "f_sep", broken)
    feedback = check("01_implement_f_sep", lambda X, c, a: 0.1)
    assert not feedback.passed and "KeyError" in feedback.message and "teacher" in feedback.message
