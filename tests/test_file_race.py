"""Rule 6 of ``ercot_nb._files``: two writers of one new file never both win.

Several processes check the same free path, wait for each other at a barrier
(so every check passes before anyone writes) and then write: exactly one
succeeds, every other gets a one-line ``OutputError``, and the file holds the
winner's content whole.
"""
from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ercot_nb import ClusteringResult, StaticEC, datasets
from ercot_nb._files import OutputError, atomic_write_text, check_outputs

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the writers are forked processes")
CONTEXT = multiprocessing.get_context("fork") if hasattr(os, "fork") else None


@pytest.fixture(scope="module")
def small():
    data = datasets.load("syn1", seed=0, n_steps=2)
    return StaticEC(seed=0, pop_size=20, n_evaluations=40, progress=False).fit(data).result_, data


def _behind_barrier(module, name, barrier):
    """Make ``module.name`` (a writer) wait at ``barrier`` first: every check is done before any write."""
    real = getattr(module, name)

    def waiting(*args, **kwargs):
        barrier.wait(timeout=60)
        return real(*args, **kwargs)

    setattr(module, name, waiting)


def _write_text(path: Path, index: int, barrier) -> None:
    checked = check_outputs({"path": path})["path"]
    barrier.wait(timeout=60)
    atomic_write_text(checked, f"writer {index}\n" * 1000)


def _save_result(path: Path, index: int, barrier, small) -> None:
    import ercot_nb.result._format as fmt

    result, _ = small
    result.algorithm = f"writer {index}"
    _behind_barrier(fmt, "atomic_write", barrier)
    result.save(path)


def _save_page(path: Path, index: int, barrier, small) -> None:
    import ercot_nb.page._page as page
    from ercot_nb.page import ExplorerPage

    result, data = small
    result.algorithm = f"writer {index}"
    _behind_barrier(page, "atomic_write_text", barrier)
    ExplorerPage(result, data).save(path)


def _child(kind, path, index, barrier, queue, small):
    try:
        if kind == "text":
            _write_text(path, index, barrier)
        elif kind == "result":
            _save_result(path, index, barrier, small)
        else:
            _save_page(path, index, barrier, small)
    except OutputError as exc:
        queue.put((index, "refused", str(exc)))
    except BaseException as exc:  # anything else is a failure of the test
        queue.put((index, "crashed", f"{type(exc).__name__}: {exc}"))
    else:
        queue.put((index, "won", ""))


def race(kind: str, path: Path, n: int, small) -> dict[int, tuple[str, str]]:
    barrier = CONTEXT.Barrier(n)
    queue = CONTEXT.Queue()
    children = [CONTEXT.Process(target=_child, args=(kind, path, i, barrier, queue, small)) for i in range(n)]
    for child in children:
        child.start()
    outcomes = {}
    for _ in children:
        index, what, message = queue.get(timeout=120)
        outcomes[index] = (what, message)
    for child in children:
        child.join(timeout=60)
    return outcomes


def content_of(kind: str, path: Path) -> str:
    if kind == "text":
        return path.read_text().splitlines()[0]
    if kind == "result":
        return ClusteringResult.load(path).algorithm
    text = path.read_text()
    return next(f"writer {i}" for i in range(10) if f"writer {i}" in text)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(["text", "result", "page"]), n=st.integers(2, 5))
def test_concurrent_writers_of_one_new_path_exactly_one_wins(small, tmp_path_factory, kind, n):
    folder = tmp_path_factory.mktemp("race")
    path = folder / {"text": "out.txt", "result": "r.npz", "page": "page.html"}[kind]
    outcomes = race(kind, path, n, small)
    assert not [o for o in outcomes.values() if o[0] == "crashed"], outcomes
    winners = [i for i, (what, _) in outcomes.items() if what == "won"]
    assert len(winners) == 1, outcomes
    for index, (what, message) in outcomes.items():
        if what == "refused":
            assert "\n" not in message and str(path) in message and "another writer" in message, message
    assert content_of(kind, path) == f"writer {winners[0]}"
    assert sorted(p.name for p in folder.iterdir()) == [path.name]  # no temporary file left


def test_an_existing_file_is_not_replaced_by_a_late_writer(tmp_path):
    path = tmp_path / "out.txt"
    checked = check_outputs({"path": path})["path"]
    path.write_text("someone else's\n")  # appears between the check and the write
    with pytest.raises(OutputError, match="another writer"):
        atomic_write_text(checked, "mine\n")
    assert path.read_text() == "someone else's\n" and sorted(tmp_path.iterdir()) == [path]
    # asked to replace: replaced
    atomic_write_text(check_outputs({"path": path}, overwrite=True)["path"], "mine\n")
    assert path.read_text() == "mine\n"


def test_without_hard_links_the_name_is_claimed_with_o_excl(tmp_path, monkeypatch):
    def no_links(source, target):
        raise OSError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "out.txt"
    checked = check_outputs({"path": path})["path"]
    atomic_write_text(checked, "first\n")
    assert path.read_text() == "first\n"
    path.unlink()
    checked = check_outputs({"path": path})["path"]
    path.write_text("someone else's\n")
    with pytest.raises(OutputError, match="another writer"):
        atomic_write_text(checked, "mine\n")
    assert path.read_text() == "someone else's\n" and sorted(tmp_path.iterdir()) == [path]


def test_copying_the_tutorials_never_replaces_a_file_that_appeared_meanwhile(tmp_path, monkeypatch):
    """`ercot-nb tutorials DIR`: a tutorial another writer created after the command looked is kept."""
    import shutil

    from ercot_nb.widgets.serve import launcher

    copy = shutil.copyfileobj

    def racing_copy(source, target):  # another writer takes the name while this one copies
        first = tmp_path / "class" / "01_quickstart.ipynb"
        if not first.exists():
            first.write_text("someone else's\n")
        copy(source, target)

    monkeypatch.setattr(shutil, "copyfileobj", racing_copy)
    with pytest.raises(OutputError, match="another writer"):
        launcher.copy_tutorials(tmp_path / "class")
    assert (tmp_path / "class" / "01_quickstart.ipynb").read_text() == "someone else's\n"


def test_the_teacher_commands_never_replace_a_file_that_appeared_meanwhile(tmp_path, monkeypatch):
    """`ercot-nb teacher ...`: a file created by another writer after the command looked is kept."""
    from ercot_nb.exercises import teacher

    target = tmp_path / "course"
    target.mkdir()
    late = target / "a.txt"
    write = teacher.atomic_write_text

    def racing_write(path, text, **options):
        if path == late:
            late.write_text("someone else's\n")
        return write(path, text, **options)

    monkeypatch.setattr(teacher, "atomic_write_text", racing_write)
    with pytest.raises(OutputError, match="another writer"):
        teacher._write_all(target, {Path("a.txt"): "mine\n"}, False, ())
    assert late.read_text() == "someone else's\n"
