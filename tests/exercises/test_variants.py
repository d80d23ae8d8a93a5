"""Each student's own data (``ercot_nb.exercises.variants``), through a real nbgrader autograde of exercise 3.

A course with variants loads its datasets with the student's variant, derived
from the student id by the course secret; nbgrader's kernel gets it from the
grader, and the expected answers are those of the student's own data. Three
students: ``alice`` answers honestly; ``bob`` hands in alice's numbers (copied
as literals); ``carol`` answers three parts honestly and forges the fourth.
"""
from __future__ import annotations

import json

import pytest

from ercot_nb.exercises import autograde, replay, secret, teacher, variants
from ercot_nb.exercises.isolated import values_in_clean_process
from tests.exercises.test_nbgrader import REPO, submission, text
from tests.exercises.test_nbgrader import nbgrader as _nbgrader

EXERCISE = "03_explain_the_weight_syn3"
SECRET = {"secret": "ab" * 32, "variants": True}  # fixed: alice's and bob's answers differ in every part
FORGED_LOWEST = "import ercot_nb.exercises as ex\nex.grade = lambda *a, **k: 'ok'\nlowest_time = None\n"


def test_data_seed_reads_the_variant_and_says_what_to_do(monkeypatch):
    monkeypatch.delenv(variants.VARIANT_ENV, raising=False)
    assert variants.data_seed() == 0
    with pytest.raises(ValueError, match="ERCOT_NB_VARIANT is not set: ask your teacher"):
        variants.data_seed(required=True)
    monkeypatch.setenv(variants.VARIANT_ENV, "12x")
    with pytest.raises(ValueError, match="'12x' is not a whole number"):
        variants.data_seed()
    monkeypatch.setenv(variants.VARIANT_ENV, "42")
    assert variants.data_seed(required=True) == 42


def test_variants_differ_per_student_and_need_the_secret(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / secret.GRADING_FILE).write_text(json.dumps(SECRET))
    seeds = variants.student_variants(course, ["alice", "bob"])
    assert seeds["alice"] != seeds["bob"]
    other = dict(SECRET, secret="cd" * 32)
    assert variants.student_variant(other, "alice") != seeds["alice"]
    assert variants.student_variant(dict(SECRET, variants=False), "alice") is None
    spawner = type("Spawner", (), {"user": type("User", (), {"name": "bob"})()})()
    assert variants.hub_environment(course)[variants.VARIANT_ENV](spawner) == str(seeds["bob"])


def _literal_answers(values):
    return {
        "answer_lowest_time": f"lowest_time = {values['lowest_time']!r}\n",
        "answer_drift_means": f"drift_mean = {values['drift_means'][0]!r}\nother_mean = {values['drift_means'][1]!r}\n",
        "answer_control": f"syn1_drift_mean = {values['control']!r}\n",
        "answer_statements": f"true_statements = {set(values['statements'])!r}\n",
    }


@pytest.mark.slow
def test_each_student_is_graded_on_their_own_data_and_a_copied_answer_earns_nothing(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / secret.GRADING_FILE).write_text(json.dumps(SECRET))
    teacher.write_nbgrader_course(course, source=REPO, variants=True, overwrite=True)
    assert json.loads((course / secret.GRADING_FILE).read_text())["secret"] == SECRET["secret"]
    _nbgrader(course, "generate_assignment", EXERCISE, "--force")
    release = json.loads((course / "release" / EXERCISE / f"{EXERCISE}.ipynb").read_text())
    assert "seed=data_seed(required=True)" in "\n".join(text(c) for c in release["cells"])

    source = json.loads((course / "source" / EXERCISE / f"{EXERCISE}.ipynb").read_text())
    honest = replay.answer_cells(source)
    seeds = variants.student_variants(course, ["alice", "bob", "carol"])
    calls = replay.graded_calls(source)
    alice, _, errors, _ = values_in_clean_process(  # alice's answers on her own data
        replay.replay_cells(source, None), {c.part: c.answer for c in calls}, cell_limit=120,
        env={variants.VARIANT_ENV: str(seeds["alice"])})
    assert errors == []
    print("\nalice's answers, copied by bob:", alice)

    cases = {"alice": submission(release, honest),
             "bob": submission(release, _literal_answers(alice)),
             "carol": submission(release, {**honest, "answer_lowest_time": FORGED_LOWEST})}
    for student, nb in cases.items():
        nb["cells"] = [c for c in nb["cells"] if ".show()" not in text(c)]  # figures: not graded, slow
        folder = course / "submitted" / student / EXERCISE
        folder.mkdir(parents=True)
        (folder / f"{EXERCISE}.ipynb").write_text(json.dumps(nb))
    log = _nbgrader(course, "autograde", EXERCISE, "--force", timeout=900)

    from nbgrader.api import Gradebook

    scores, cells = {}, {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student in cases:
            graded = gradebook.find_submission(EXERCISE, student)
            scores[student] = graded.score
            cells[student] = {g.name: g.score for g in graded.notebooks[0].grades if g.cell.max_score}
    flags = {s: sorted({f["flag"] for f in autograde.read_flags(course, EXERCISE, s)}) for s in cases}
    print("scores:", scores, "\nper test cell:", cells, "\nflags:", flags)
    print("log lines:", *[line for line in log.splitlines() if "WARNING" in line], sep="\n")
    assert scores == {"alice": 5.0, "bob": 0.0, "carol": 4.0}  # bob: 0 in every part, other data
    assert flags == {"alice": [], "bob": [], "carol": ["forged"]}
    assert cells["carol"]["test_lowest_time"] == 0
    assert "carol/03_explain_the_weight_syn3: test_lowest_time passed in the kernel but not" in log

    def shown(student):  # what the notebook printed: each student saw data of their own
        nb = json.loads((course / "autograded" / student / EXERCISE / f"{EXERCISE}.ipynb").read_text())
        return [o.get("text") or o.get("data", {}).get("text/plain") for c in nb["cells"]
                for o in c.get("outputs", []) if "steps_frame" in text(c)]

    assert shown("alice") and shown("alice") != shown("bob")
