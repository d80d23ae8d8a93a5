"""The Explorer app's first run starts only once a page has drawn it.

Voila runs the app notebook, then serves the page, which takes every widget's
state in one reply and only then opens the widgets' channels: an update the
kernel sends between the two never reaches the page (a status line stuck on
"preview", a figure that misses a trace swap and fails at the next one, "indices
must be valid indices for gd.data", seen in CI).  The app notebook therefore
asks for its first run ``when_shown``: it starts when the page's invisible
:class:`~ercot_nb.widgets.PageShown` reports that it was drawn, so that no
update is sent while a page loads.
"""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from ipywidgets import Widget

from ercot_nb.widgets import Explorer, PageShown

REPO = Path(__file__).resolve().parents[2]


def app_code(name: str = "explorer") -> str:
    notebook = json.loads((REPO / "widgets" / f"{name}.ipynb").read_text())
    return "\n".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code")


@pytest.fixture
def sent_from_threads(monkeypatch):
    """The widget updates sent, with the thread that sent each."""
    sent: list[tuple[str, str]] = []
    real_send = Widget.send_state

    def send_state(self, key=None):
        if self.comm is not None:
            sent.append((threading.current_thread().name, type(self).__name__))
        return real_send(self, key)

    monkeypatch.setattr(Widget, "send_state", send_state)
    return sent


def wait_for(condition, timeout: float = 120.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


def page_draws(app: Explorer) -> None:
    """What the page's invisible widget does when a view of it is rendered."""
    shown = [child for child in app.children if isinstance(child, PageShown)]
    assert len(shown) == 1, "the Explorer has no page-shown signal"
    shown[0]._handle_custom_msg({"shown": True}, [])


def test_the_app_notebook_sends_no_update_before_the_page_is_drawn(monkeypatch, sent_from_threads):
    monkeypatch.setenv("ERCOT_NB_DATASET", "syn1")
    namespace: dict = {}
    exec(compile(app_code(), "explorer.ipynb", "exec"), namespace)
    app: Explorer = namespace["explorer"]
    time.sleep(0.5)  # a run started at once would have sent updates from its thread by now
    from_threads = [entry for entry in sent_from_threads if entry[0] != threading.main_thread().name]
    assert not app.state.running and not app.state.runs, "the first run started before a page drew it"
    assert from_threads == []
    assert "page" in app.state.status.text  # the status line says what it waits for
    page_draws(app)
    wait_for(lambda: app.state.runs and not app.state.running)
    assert "finished" in app.state.status.text, app.state.status
    page_draws(app)  # another page (a reload) does not start a second run
    assert list(app.state.runs) == ["ERCOT #1"]


def test_run_when_shown_starts_at_once_when_a_page_already_drew_the_explorer():
    app = Explorer("syn1", params={"pop_size": 10, "n_evaluations": 20})
    page_draws(app)
    assert app.run(when_shown=True) is not None
    app.wait(120)
    assert list(app.state.runs) == ["ERCOT #1"]


def test_run_when_shown_cannot_also_wait():
    app = Explorer("syn1")
    with pytest.raises(ValueError, match="when_shown"):
        app.run(when_shown=True, wait=True)


def test_the_signal_is_invisible_and_reports_each_page_once():
    signal = PageShown()
    calls: list[int] = []
    signal.when_shown(lambda: calls.append(1))
    assert signal.layout.display == "none" and not signal.shown
    signal._handle_custom_msg({"shown": True}, [])
    signal._handle_custom_msg({"shown": True}, [])
    signal._handle_custom_msg({"something": "else"}, [])
    assert calls == [1] and signal.shown
    signal.when_shown(lambda: calls.append(2))  # already shown: at once
    assert calls == [1, 2]


def test_asking_twice_before_the_page_is_drawn_starts_one_run():
    app = Explorer("syn1", params={"pop_size": 10, "n_evaluations": 20})
    app.run(when_shown=True)
    app.run(when_shown=True)
    said: list[str] = []
    app.state.observe(lambda change: said.append(change["new"].text), names="status")
    page_draws(app)
    app.wait(120)
    assert list(app.state.runs) == ["ERCOT #1"]
    assert not [text for text in said if "already" in text], said  # no "a run is already going on"
    assert "finished" in app.state.status.text, app.state.status
