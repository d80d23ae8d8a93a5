"""What students get holds no solution and no answer; a teacher gets them with one command.

The wheel is built from the working tree (``pip wheel --no-deps``), the student
copy is made by ``ercot-nb tutorials DIR`` run from that wheel's files (no
checkout on the path), and both are searched *by content* for the solutions:
every substantive line of the teacher's solution modules, the teacher notes'
discussion of the answers, the solution-section markers. The copied folder's
links must resolve inside it, and its exercises text must not send students to
a clone, pytest or this repository's paths.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ercot_nb import exercises
from ercot_nb.cli import main
from ercot_nb.exercises import teacher

REPO = Path(__file__).resolve().parents[2]
EXERCISES = REPO / "notebooks" / "exercises"
NAMES = exercises.list_exercises()


def run(*command, **kwargs) -> str:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def answer_strings() -> dict[str, str]:
    """Distinctive text of the teacher's solutions and notes -> where it comes from."""
    found = {}
    for name in NAMES:
        for key, body in teacher.solution_sections(name, EXERCISES).items():
            for line in body.splitlines():
                line = line.strip()
                if len(line) > 20 and not line.startswith(("import", "from", "def ", '"""', "#")):
                    found[line] = f"solution {name}:{key}"
        found[f"solutions/{name}.py"] = "the solution module's path"
    notes = (EXERCISES / "solutions" / "README.md").read_text()
    discussion = notes.split("## For the discussion", 1)[1]
    for line in discussion.splitlines():
        line = line.strip("- ").strip()
        if len(line) > 30:
            found[line] = "the teacher notes' discussion of the answers"
    assert len(found) > 40, "too few answer strings to search for"
    return found


# Solution lines that the package's own modules contain for another reason: the library's
# implementation of what exercise 2 asks students to re-derive (the public knee rule), a common
# input conversion, and the checker of exercise 3 recomputing its facts from the data (checks
# recompute, they store no answers). Any other solution line in the wheel is a leak.
ALLOWED_IN_PACKAGE = {
    ("ercot_nb/knee.py", "F = np.asarray(F, dtype=float)"),
    ("ercot_nb/knee.py", "span = F.max(axis=0) - low"),
    ("ercot_nb/knee.py", "scaled = np.divide(F - low, span, out=np.zeros_like(F), where=span > 0)"),
    ("ercot_nb/hypervolume.py", "F = np.asarray(F, dtype=float)"),
    ("ercot_nb/exercises/ex03_weight.py", "ia, ib = common_ids(previous, current)"),
    ("ercot_nb/exercises/answers.py", "ia, ib = common_ids(previous, current)"),
    ("ercot_nb/exercises/answers.py", "if np.any(previous.labels[ia] != current.labels[ib]):"),
}


def leaks(files: dict[str, str], allowed: set[tuple[str, str]] = frozenset()) -> list[str]:
    strings = answer_strings()
    return [f"{where} in {name}: {text!r}" for name, content in files.items()
            for text, where in strings.items() if text in content and (name, text) not in allowed]


def test_the_leak_search_finds_a_pasted_solution():
    body = teacher.solution_sections("03_explain_the_weight_syn3", EXERCISES)["lowest_time"]
    assert leaks({"x.py": "# notes\n" + body}) != []
    assert leaks({"README.md": "Exercise 3: alpha is lowest at time 7 (0.055), where ERCOT's own partition "
                               "goes from 5 to 3"}) != []


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(the wheel, the student copy made by `ercot-nb tutorials` from the wheel's files)."""
    tmp = tmp_path_factory.mktemp("student")
    listed = run("git", "-C", REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    source = tmp / "source"
    for name in filter(None, listed.split("\0")):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / name, source / name)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
        "-w", tmp / "dist", source, env=env)
    wheel = next((tmp / "dist").glob("ercot_nb-*.whl"))
    unpacked = tmp / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(unpacked)
    copy = tmp / "copy"
    student_env = dict(env, PYTHONPATH=str(unpacked))
    out = run(sys.executable, "-m", "ercot_nb.cli", "tutorials", copy, cwd=tmp, env=student_env)
    assert "copied" in out
    # The student package cannot write the solutions: it has none, and says where they are.
    refused = subprocess.run([sys.executable, "-m", "ercot_nb.cli", "teacher", "solutions", tmp / "key"],
                             cwd=tmp, env=student_env, capture_output=True, text=True)
    assert refused.returncode == 2 and not (tmp / "key").exists()
    assert "the student package ships none" in refused.stderr and "--source" in refused.stderr
    return wheel, copy


@pytest.mark.slow
def test_the_sdist_carries_the_solutions_for_the_teacher_command(tmp_path):
    listed = run("git", "-C", REPO, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    source = tmp_path / "source"
    for name in filter(None, listed.split("\0")):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / name, source / name)
    run(sys.executable, "setup.py", "-q", "sdist", "-d", tmp_path / "dist", cwd=source)
    archive = next((tmp_path / "dist").glob("ercot*.tar.gz"))
    shutil.unpack_archive(archive, tmp_path / "unpacked")
    (root,) = (tmp_path / "unpacked").iterdir()
    assert main(["teacher", "solutions", str(tmp_path / "key"), "--source", str(root)]) == 0
    assert sorted(p.name for p in (tmp_path / "key" / "solutions").iterdir()) == [f"{n}.py" for n in NAMES]


@pytest.mark.slow
def test_the_wheel_holds_no_solution_or_answer(built):
    wheel, _ = built
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        files = {n: archive.read(n).decode("utf-8", "replace") for n in names}
    assert any(n.startswith("ercot_nb/tutorials/exercises/") and n.endswith(".ipynb") for n in names)
    assert not [n for n in names if "solutions" in n]
    assert leaks(files, ALLOWED_IN_PACKAGE) == []
    assert not [n for n in names if not n.endswith(".py") and "# %% solution:" in files[n]]


@pytest.mark.slow
def test_the_student_copy_holds_no_solution_or_answer(built):
    _, copy = built
    files = {str(p.relative_to(copy)): p.read_text(errors="replace") for p in copy.rglob("*") if p.is_file()}
    assert "exercises/README.md" in files and "exercises/01_implement_f_sep.ipynb" in files
    assert not (copy / "exercises" / "solutions").exists()
    assert leaks(files) == []
    assert not [name for name, content in files.items() if "# %% solution:" in content]
    for name in NAMES:  # the stored outputs of the checks show no answer either
        nb = json.loads(files[f"exercises/{name}.ipynb"])
        shown = [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]
        assert not any("[correct]" in "".join(o.get("data", {}).get("text/plain", "")) for o in shown)


LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|(?:href|src)=[\"']([^\"']+)[\"']")


def relative_links(text: str) -> list[str]:
    links = [a or b for a, b in LINK.findall(text)]
    return [link for link in links if not re.match(r"^([a-z][a-z0-9+.-]*:|#|//)", link, re.I)]


def markdown_texts(folder: Path) -> dict[Path, str]:
    texts = {path: path.read_text() for path in folder.rglob("*.md")}
    for path in folder.rglob("*.ipynb"):
        cells = json.loads(path.read_text())["cells"]
        texts[path] = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return texts


@pytest.mark.slow
def test_every_relative_link_in_the_student_copy_resolves_inside_it(built):
    _, copy = built
    broken, checked = [], 0
    for path, text in markdown_texts(copy).items():
        for link in relative_links(text):
            target = (path.parent / link.split("#")[0]).resolve()
            checked += 1
            if not target.exists() or copy.resolve() not in (target, *target.parents):
                broken.append(f"{path.relative_to(copy)} -> {link}")
    assert checked > 20
    assert broken == []


def test_the_link_finder_sees_broken_links(tmp_path):
    (tmp_path / "a.md").write_text("[x](b.md) [y](https://example.org) [z](#top) <a href='../out.html'>o</a>")
    assert relative_links((tmp_path / "a.md").read_text()) == ["b.md", "../out.html"]


@pytest.mark.slow
def test_the_copied_text_sends_students_to_no_clone_pytest_or_repository_path(built):
    _, copy = built
    texts = markdown_texts(copy / "exercises")
    assert copy / "exercises" / "README.md" in texts
    pattern = re.compile(r"clone|pytest|nbval|tests/|notebooks/|_build|ercot_nb/|remove .solutions", re.I)
    found = [f"{path.relative_to(copy)}: {m.group(0)!r}" for path, text in texts.items()
             for m in pattern.finditer(text)]
    assert found == []
    # The tutorials beside them may name the package's own modules (ercot_nb/...), nothing else;
    # a paper-results report records the command that made it (its "Command:" line, as it ran).
    everywhere = re.compile(r"clone|pytest|nbval|tests/|notebooks/|_build|repository root", re.I)
    found = [f"{path.relative_to(copy)}: {line!r}" for path, text in markdown_texts(copy).items()
             for line in text.splitlines() if everywhere.search(line)
             and not (path.parent.name in ("paper_results", "applications", "k_only_for_kmeanscot")
                      and line.startswith("Command: `ercot-nb experiments "))]
    assert found == []
    readme = texts[copy / "exercises" / "README.md"]
    assert "For the discussion" not in readme
    assert "ercot-nb teacher solutions" in readme  # where a teacher gets them


def test_one_teacher_command_writes_the_solved_notebooks_and_notes(tmp_path, capsys):
    assert main(["teacher", "solutions", str(tmp_path / "key"), "--source", str(REPO)]) == 0
    assert "wrote" in capsys.readouterr().out
    key = tmp_path / "key"
    assert sorted(p.name for p in key.glob("*.ipynb")) == [f"{n}.ipynb" for n in NAMES]
    assert "For the discussion" in (key / "README.md").read_text()
    texts = markdown_texts(key)
    assert [link for text in texts.values() for link in relative_links(text)
            if not (key / link.split("#")[0]).exists()] == []
    assert not [m.group(0) for text in texts.values()
                for m in re.finditer(r"clone|pytest|tests/|notebooks/|_build", text)]
    for name in NAMES:
        sections = teacher.solution_sections(name, EXERCISES)
        cells = json.loads((key / f"{name}.ipynb").read_text())["cells"]
        sources = ["".join(c["source"]) for c in cells]
        assert all(body in sources for body in sections.values())
        module = f"solutions/{name}.py"
        assert (key / module).read_text() == (EXERCISES / module).read_text()
