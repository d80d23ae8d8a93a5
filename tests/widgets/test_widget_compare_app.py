"""Compare app, the `ercot-nb app` launcher, the shared plotly bundle and parameter forms."""
from __future__ import annotations

import os
import re
import signal
import socket
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import ipywidgets as W
import pytest

from ercot_nb import ERCOT, algorithms
from ercot_nb.cli import main
from ercot_nb.widgets import Compare
from ercot_nb.widgets import _bundle
from ercot_nb.widgets.serve import launcher as app
from ercot_nb.widgets.views._figure_widget import SyncedFigureWidget
from ercot_nb.algorithms import estimator_params
from ercot_nb.datasets import dataset_params
from ercot_nb.knee import KNEE_RULES
from ercot_nb.widgets.apps._params_form import ParamsForm

REPO = Path(__file__).resolve().parents[2]
FAST = {"pop_size": 20, "n_evaluations": 40}


# -- Compare ------------------------------------------------------------------------------------


def test_compare_runs_every_selected_algorithm_on_the_same_data():
    compare = Compare("syn3", params={"ERCOT": FAST, "staticEC": FAST})
    assert compare.selected == ["ERCOT", "staticEC"]
    compare.run(wait=True)
    assert set(compare.runs) == {"ERCOT", "staticEC"}
    assert all(len(run) == 10 for run in compare.runs.values())
    assert compare.progress.value == 20 and "Done" in compare.message.text
    table = compare.table.value
    assert "mRI" in table and "ERCOT" in table and "staticEC" in table
    titles = {name: view.figure.layout.title.text for name, view in compare.partitions.items()}
    assert titles["ERCOT"].startswith("syn3: ERCOT partition at time 1")
    assert titles["staticEC"].startswith("syn3: staticEC partition at time 1")
    compare.scrubber.value = 6
    for name, view in compare.partitions.items():
        assert view.figure.layout.title.text.startswith(f"syn3: {name} partition at time 7")
    assert compare.scores.figure.layout.shapes[0].x0 == 7
    assert len(compare.static()) == 3


def test_compare_shows_videos_as_frames_and_switches_view_kind_with_the_data():
    from ercot_nb import datasets
    from ercot_nb.widgets import PartitionView, VideoView

    video = datasets.load("video_mo", seed=0, scale=0.1, n_frames=3)  # 16 x 12 pixels
    compare = Compare(video, params={"ERCOT": FAST, "staticEC": FAST})
    assert all(isinstance(view, VideoView) for view in compare.partitions.values())
    compare.run(wait=True)
    assert set(compare.runs) == {"ERCOT", "staticEC"} and compare.progress.value == 6
    compare.scrubber.value = 2
    for name, view in compare.partitions.items():
        assert view.step == 2 and view.result is compare.runs[name]
    assert len(compare.static()) == 3
    compare.picker.dataset = datasets.load("syn1", seed=0)  # back to points: scatter views
    assert all(isinstance(view, PartitionView) for view in compare.partitions.values())
    assert set(compare.partitions) == {"ERCOT", "staticEC"} and not compare.runs
    assert _shown(compare) == [compare._titled(n) for n in compare.selected]


def _shown(compare):
    return [box for box in compare.views_box.children if box.layout.display != "none"]


def test_compare_never_removes_a_figure_from_the_page_when_the_selection_changes():
    """A figure's view, once drawn, stays: deselected algorithms are hidden, not removed.

    plotly's front end keeps a removed view listening to its figure; the next trace swap
    then fails in the page and the figure's new view stops following the kernel.
    """
    compare = Compare("syn1", algorithms=("ERCOT", "staticEC"), params={"ERCOT": FAST})
    seen = list(compare.views_box.children)
    for selection in [("staticEC",), ("ERCOT", "staticEC"), ("ERCOT",), ("staticEC", "ERCOT")]:
        compare.choice.value = selection
        children = list(compare.views_box.children)
        assert children[:len(seen)] == seen, f"a figure was taken off the page at {selection}"
        assert {id(box) for box in _shown(compare)} == {id(compare._titled(n)) for n in selection}
        seen = children


def test_a_partition_slot_keeps_its_first_view_on_the_page_when_the_other_kind_arrives():
    """Video first, then points: the video view keeps its place (a moved view is redrawn anew)."""
    from ercot_nb import datasets

    compare = Compare(datasets.load("video_mo", seed=0, scale=0.1, n_frames=3),
                      algorithms=("ERCOT",), params={"ERCOT": FAST})
    slot = compare._slots["ERCOT"]
    first = list(slot.children)
    compare.picker.dataset = datasets.load("syn1", seed=0)
    assert list(slot.children)[:len(first)] == first


def test_compare_keeps_entries_per_algorithm_and_limits_the_selection():
    compare = Compare("syn1", algorithms=("staticEC",), params={"staticEC": {"pop_size": 12}})
    assert compare.param_tabs.titles == ("staticEC",)
    compare.choice.value = ("ERCOT", "staticEC")
    assert list(compare.param_tabs.titles) == ["ERCOT", "staticEC"]
    assert compare._form("staticEC").fields["pop_size"].widget.value == 12  # entry kept
    with pytest.raises(ValueError, match="unknown algorithm"):
        Compare("syn1", algorithms=("nope",))


def test_compare_uses_whatever_the_registry_holds(monkeypatch):
    monkeypatch.setitem(algorithms._REGISTRY, "ERCOT-chord", "ercot_nb.evolution._ercot:ERCOT")
    compare = Compare("syn1", algorithms=("ERCOT", "ERCOT-chord"),
                      params={"ERCOT": FAST, "ERCOT-chord": {**FAST, "knee": "chord"}})
    assert "ERCOT-chord" in compare.choice.options
    compare.run(wait=True)
    assert set(compare.runs) == {"ERCOT", "ERCOT-chord"}


# -- ercot-nb app -------------------------------------------------------------------------------


def test_the_app_notebooks_are_found_in_the_checkout(monkeypatch, tmp_path):
    assert app.find_app_notebook() == REPO / "widgets" / "explorer.ipynb"
    assert app.find_app_notebook("compare") == REPO / "widgets" / "compare.ipynb"
    (tmp_path / "explorer.ipynb").write_text("{}")
    monkeypatch.setenv(app.APPS_ENV, str(tmp_path))
    assert app.find_app_notebook() == tmp_path / "explorer.ipynb"
    with pytest.raises(FileNotFoundError, match="missing.ipynb was not found"):
        app.find_app_notebook("missing")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_app_command_serves_the_explorer_with_voila(monkeypatch, capsys):
    started = {}

    class FakeVoila:
        def __init__(self, command, env, cwd):
            started.update(command=command, env=env, cwd=cwd)

        def poll(self):
            return None

        def wait(self):
            return 0

    monkeypatch.setattr(app.subprocess, "Popen", FakeVoila)
    monkeypatch.setattr(app, "_listening", lambda host, port: True)
    opened = []
    monkeypatch.setattr(app.webbrowser, "open", opened.append)
    port = _free_port()
    # --fit-workers 0: no fit pool (its workers are processes too; tests/widgets/test_fit_pool.py)
    assert main(["app", "--port", str(port), "--dataset", "SYN5", "--no-browser", "--fit-workers", "0"]) == 0
    command = started["command"]
    assert command[1:4] == ["-m", "ercot_nb.widgets.serve.app_server",
                            str(REPO / "widgets" / "explorer.ipynb")]
    assert f"--port={port}" in command and "--Voila.ip=127.0.0.1" in command and "--no-browser" in command
    assert started["env"][app.DATASET_ENV] == "syn5"
    assert started["env"][_bundle.SHARED_BUNDLE_ENV] == "1"
    assert not opened and f"http://127.0.0.1:{port}/" in capsys.readouterr().out
    assert main(["app", "--port", str(port), "--fit-workers", "0"]) == 0
    assert opened == [f"http://127.0.0.1:{port}/"], "the browser was not opened"


def test_stopping_the_launcher_stops_voila(monkeypatch):
    events = []

    class FakeVoila:
        def __init__(self, command, env, cwd):
            pass

        def poll(self):
            return None

        def wait(self, timeout=None):
            if not events:
                events.append("waiting")
                os.kill(os.getpid(), signal.SIGTERM)  # `kill <launcher pid>`
            return 0

        def terminate(self):
            events.append("terminated")

    monkeypatch.setattr(app.subprocess, "Popen", FakeVoila)
    monkeypatch.setattr(app, "_listening", lambda host, port: True)
    before = signal.getsignal(signal.SIGTERM)
    assert app.serve(port=_free_port(), open_browser=False, fit_workers=0) == 0
    assert events == ["waiting", "terminated"]
    assert signal.getsignal(signal.SIGTERM) == before  # handler restored


def test_the_launcher_waits_until_voila_listens_or_exits():
    class Running:
        def poll(self):
            return None

    class Exited:
        def poll(self):
            return 1

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        assert app._wait_until_listening(Running(), "127.0.0.1", port)
    assert not app._wait_until_listening(Exited(), "127.0.0.1", port)  # nothing listens: exited


def test_app_command_errors_are_one_line(tmp_path, capsys):
    assert main(["app", "--notebook", str(tmp_path / "nowhere.ipynb")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ercot-nb: error: notebook not found") and err.count("\n") == 1
    assert main(["app", "--dataset", "syn99"]) == 2


# -- shared plotly bundle -----------------------------------------------------------------------


def test_figures_embed_the_bundle_unless_the_local_app_shares_it(monkeypatch):
    monkeypatch.delenv(_bundle.SHARED_BUNDLE_ENV, raising=False)
    assert _bundle.shared_bundle_url() is None
    assert not SyncedFigureWidget()._esm.startswith("http")
    monkeypatch.setenv(_bundle.SHARED_BUNDLE_ENV, "1")
    url = _bundle.shared_bundle_url()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/widgetbundle.js")
    assert SyncedFigureWidget()._esm == url
    with urllib.request.urlopen(url, timeout=10) as response:
        assert response.headers["Access-Control-Allow-Origin"] == "*"
        assert response.headers["Content-Type"].startswith("text/javascript")
        assert len(response.read()) > 1_000_000
    with pytest.raises(urllib.error.HTTPError) as refused:  # serves that one file only
        urllib.request.urlopen(url.replace("widgetbundle.js", "basewidget.py"), timeout=10)
    assert refused.value.code == 404
    refused.value.close()  # its response's socket (a ResourceWarning in the next test otherwise)


@pytest.mark.parametrize("page, expected", [
    ("http://127.0.0.1:8866/base/voila/render/explorer.ipynb?x=1", "http://127.0.0.1:8866/base/ercot-nb/widgetbundle.js"),
    ("http://localhost:9000/base/", "http://localhost:9000/base/ercot-nb/widgetbundle.js"),
])
def test_a_page_of_the_app_server_imports_the_bundle_it_serves_from_the_page_origin(monkeypatch, page, expected):
    """The page's head imports that URL while the notebook runs: the figures must import the very
    same URL (a module is evaluated once per URL), and no server of the kernel's own starts."""
    monkeypatch.setattr(_bundle, "_url", None)
    monkeypatch.setenv(_bundle.SHARED_BUNDLE_ENV, "1")
    monkeypatch.setenv(_bundle.BUNDLE_PATH_ENV, "/base/ercot-nb/widgetbundle.js")
    monkeypatch.setenv("VOILA_REQUEST_URL", page)
    assert _bundle.shared_bundle_url() == expected
    assert SyncedFigureWidget()._esm == expected
    assert _bundle._url is None
    own = "http://127.0.0.1:1/widgetbundle.js"  # (a kernel's own server, already started)
    monkeypatch.setattr(_bundle, "_url", own)
    monkeypatch.setenv("VOILA_REQUEST_URL", "not a url")  # not a page of that server: its own
    assert _bundle.shared_bundle_url() == own


def test_a_figure_made_after_the_page_loaded_opens_with_the_shared_bundle(monkeypatch):
    """The front end gets the bundle's URL in the model's first state and never an ``_esm`` change.

    An ``_esm`` change makes anywidget reload the module and draw the figure's views again;
    plotly's old views keep their listeners, and the next trace swap fails in the page
    ("indices must be valid indices for gd.data"), seen in the Explorer after a video was chosen.
    """
    import comm
    from ipywidgets import Widget

    monkeypatch.setenv(_bundle.SHARED_BUNDLE_ENV, "1")
    url = _bundle.shared_bundle_url()
    opened: list[dict] = []
    sent: list[str] = []
    real_create = comm.create_comm
    monkeypatch.setattr(comm, "create_comm", lambda **args: (opened.append(args["data"]["state"]),
                                                             real_create(**args))[1])
    real_send = Widget.send_state
    def send_state(self, key=None):  # what reaches an open model (before open nothing is sent)
        if self.comm is not None:
            sent.extend([key] if isinstance(key, str) else list(key or ["<all>"]))
        return real_send(self, key)

    monkeypatch.setattr(Widget, "send_state", send_state)
    figure = SyncedFigureWidget()
    assert figure._esm == url
    assert [state.get("_esm") for state in opened if "_esm" in state] == [url]
    assert "_esm" not in sent and "<all>" not in sent


# -- parameter forms ----------------------------------------------------------------------------


def test_forms_follow_the_parameter_specs_of_the_estimator():
    form = ParamsForm(estimator_params("ERCOT"), "ERCOT", primary=("pop_size", "knee"),
                      skip=("progress",), defaults={"seed": 0})
    *main, more = form.children  # main fields (wide choices in rows of their own), then "more parameters"
    assert [type(box) for box in main] == [W.GridBox, W.GridBox] and isinstance(more, W.Accordion)
    assert "progress" not in form.fields
    knee = form.fields["knee"].widget
    spec = {p.name: p for p in estimator_params("ERCOT")}["knee"]
    assert list(knee.options) == [(spec.choice_label(rule), rule) for rule in KNEE_RULES]
    # labels are words; the code name and the help are in the tooltip, never "null"
    pop = form.fields["pop_size"].widget
    assert pop.description == "population size" and "(code name: pop_size)" in pop.tooltip
    for field in form.fields.values():
        assert field.widget.tooltip and "null" not in field.widget.tooltip
        assert "_" not in field.widget.description, field.widget.description
    form.fields["n_clusters"].widget.value = "4"
    knee.value = "chord"
    values = form.values()
    assert values["n_clusters"] == 4 and values["knee"] == "chord" and values["seed"] == 0
    assert ERCOT(**values).get_params()["knee"] == "chord"
    form.fields["n_clusters"].widget.value = ""
    assert form.values()["n_clusters"] is None  # empty = automatic
    form.fields["n_clusters"].widget.value = "four"
    with pytest.raises((ValueError, TypeError), match="ERCOT: n_clusters must be an int"):
        form.values()
    form.fields["n_clusters"].widget.value = "4"
    form.fields["pop_size"].widget.value = 21
    with pytest.raises(ValueError, match="pop_size must be an even int"):
        form.values()


def test_dataset_forms_keep_the_value_types_of_choices():
    """bird_flocks' dims are the ints 2 and 3 (the old form offered '2'/'3' and broke)."""
    form = ParamsForm(dataset_params("bird_flocks"), "bird_flocks", skip=("seed",))
    dims = form.fields["dims"].widget
    assert dims.value == 2 and [value for _, value in dims.options] == [2, 3]
    dims.value = 3
    assert form.values()["dims"] == 3
    syn1 = ParamsForm(dataset_params("syn1"), "syn1", skip=("seed",))
    assert syn1.fields["n_per_cluster"].widget.description == "points per cluster"
    gapminder = ParamsForm(dataset_params("gapminder"), "gapminder", skip=("seed",))
    assert gapminder.values()["features"] == ("lifeExp", "gdpPercap", "pop")


# room for a dropdown's text as measured in Chromium (13 px font, 150 px label): 57 px in one
# column of the form, 342 px in a row of its own; its text takes at most ~8 px per character
# (in the apps' side panel a wide row has less room: tests/browser/test_laptop_layout.py measures
# the text of the dropdowns shown there)
_CHAR_PX, _ROOM_PX = 8, {"repeat(auto-fit, minmax(240px, 249px))": 57, "minmax(0, 506px)": 342}


def _grid_of(form, widget):
    boxes = [form]
    while boxes:
        box = boxes.pop()
        if isinstance(box, W.GridBox) and widget in box.children:
            return box
        boxes.extend(child for child in getattr(box, "children", ()) if isinstance(child, W.Box))
    raise AssertionError(f"{widget.description} is in no grid of the form")


@pytest.mark.parametrize("owner, specs", [
    *[(name, estimator_params(name)) for name in ("ERCOT", "penaltyEC", "AFFECT", "E2SC", "k-meansCOT")],
    *[(name, dataset_params(name)) for name in ("syn1", "bird_flocks", "gapminder")],
])
def test_choices_are_shown_in_words_in_a_dropdown_wide_enough_for_them(owner, specs):
    """Dropdowns showed code names ("per_solution") cut off in a narrow column."""
    form = ParamsForm(specs, owner)
    for name, field in form.fields.items():
        spec = field.param
        if spec.kind not in ("choice", "subset"):
            continue
        widget = field.widget
        assert [label for label, _ in widget.options] == [spec.choice_label(c) for c in spec.choices]
        assert [value for _, value in widget.options] == list(spec.choices)  # code values
        assert all("_" not in label for label, _ in widget.options), widget.options
        for choice in spec.choices:
            assert f"{spec.choice_label(choice)} ({choice!r})" in widget.tooltip, widget.tooltip
        room = _ROOM_PX[_grid_of(form, widget).layout.grid_template_columns]
        longest = max(len(label) for label, _ in widget.options)
        assert longest * _CHAR_PX <= room, (owner, name, longest, room)
    mode = ParamsForm(estimator_params("ERCOT"), "ERCOT").fields["mutation_mode"].widget
    assert mode.value == "per_solution" and mode.label == "per solution"


def test_a_number_or_a_word_parameter_gets_a_text_entry():
    """AFFECT's alpha is a number or "estimate": choosing AFFECT in the app failed to build its form."""
    form = ParamsForm(estimator_params("AFFECT"), "AFFECT")
    alpha = form.fields["alpha"].widget
    assert alpha.value == "estimate" and form.values()["alpha"] == "estimate"
    alpha.value = "0.3"
    assert form.values()["alpha"] == 0.3
    alpha.value = "often"
    with pytest.raises((ValueError, TypeError), match="AFFECT: alpha must be"):
        form.values()


@pytest.mark.parametrize("name", ["explorer", "compare"])
def test_what_the_app_shows_of_its_notebook_holds_no_code_to_run(name):
    """The Explorer's first line read `explorer.to_html("run.html")`: Voila shows markdown but
    has no cell to run it in (code cells' sources are hidden there; a code hint may live in them)."""
    import nbformat

    notebook = nbformat.read(REPO / "widgets" / f"{name}.ipynb", as_version=4)
    shown = " ".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert "(" not in "".join(re.findall(r"`[^`]*`", shown)), shown  # no `call(...)` to type
    assert "to_html" not in shown and "explorer." not in shown and "compare." not in shown, shown
