"""The teacher commands follow the file rules: never their own input, no chain of new folders, one-line errors."""
from __future__ import annotations

import json
import shutil

from ercot_nb.cli import main
from ercot_nb.exercises import secret, teacher
from tests.exercises.test_nbgrader import REPO


def _source_copy(tmp_path):
    root = tmp_path / "src"
    shutil.copytree(REPO / "notebooks" / "exercises", root / "notebooks" / "exercises")
    return root


def _snapshot(folder):
    return {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _one_line_error(capsys):
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_solutions_never_replace_the_notebooks_they_read_even_with_overwrite(tmp_path, capsys):
    root = _source_copy(tmp_path)
    exercises = root / "notebooks" / "exercises"
    before = _snapshot(exercises)
    for target in (exercises, root / "notebooks" / "exercises" / "."):
        code = main(["teacher", "solutions", str(target), "--source", str(root), "--overwrite"])
        assert code == 2
        assert "the folder this command reads" in _one_line_error(capsys)
    assert _snapshot(exercises) == before
    assert main(["teacher", "nbgrader", str(exercises / "solutions"), "--source", str(root), "--overwrite"]) == 2
    _one_line_error(capsys)
    assert _snapshot(exercises) == before


def test_no_chain_of_new_folders(tmp_path, capsys):
    deep = tmp_path / "a" / "b" / "c" / "d"
    assert main(["teacher", "solutions", str(deep), "--source", str(REPO)]) == 2
    assert "does not exist" in _one_line_error(capsys)
    assert not (tmp_path / "a").exists()
    assert main(["teacher", "solutions", str(tmp_path / "new"), "--source", str(REPO)]) == 0  # one new folder


def test_a_solution_module_without_a_section_is_a_one_line_error(tmp_path, capsys):
    root = _source_copy(tmp_path)
    module = root / "notebooks" / "exercises" / "solutions" / "01_implement_f_sep.py"
    module.write_text(module.read_text().replace("# %% solution: f_sep", "# %% solutoin: f_sep"))
    for what in ("solutions", "nbgrader"):
        assert main(["teacher", what, str(tmp_path / what), "--source", str(root)]) == 2
        err = _one_line_error(capsys)
        assert "01_implement_f_sep.py has no '# %% solution: f_sep' section" in err
        assert not (tmp_path / what).exists()


def test_a_course_keeps_its_secret_when_written_again_and_variants_are_an_option(tmp_path, capsys):
    course = tmp_path / "course"
    assert main(["teacher", "nbgrader", str(course), "--source", str(REPO)]) == 0
    first = secret.read_grading(course)
    assert first["variants"] is False and len(first["secret"]) == 64
    assert main(["teacher", "nbgrader", str(course), "--source", str(REPO), "--overwrite", "--variants"]) == 0
    again = secret.read_grading(course)
    assert again == {"secret": first["secret"], "variants": True}
    assert main(["teacher", "solutions", str(tmp_path / "key"), "--source", str(REPO), "--variants"]) == 2
    _one_line_error(capsys)
    other = tmp_path / "other"
    teacher.write_nbgrader_course(other, source=REPO)
    assert secret.read_grading(other)["secret"] != first["secret"]  # each course its own secret


def test_hidden_cells_use_cases_the_package_alone_cannot_reproduce(tmp_path):
    from ercot_nb.exercises.ex01_objectives import held_out_cases

    teacher.write_nbgrader_course(tmp_path, source=REPO)
    grading = secret.read_grading(tmp_path)
    nb = json.loads((tmp_path / "source" / "01_implement_f_sep" / "01_implement_f_sep.ipynb").read_text())
    hidden = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "test_f_sep_hidden"]
    seed = secret.held_out_seed(grading, "01_implement_f_sep", "f_sep")
    assert f"held_out_seed={seed}" in "".join(hidden[0]["source"])
    package, course = held_out_cases(), held_out_cases(seed)
    assert not any(a.X.shape == b.X.shape and (a.X == b.X).all() for a, b in zip(package, course))
