"""A new front end's full state of a figure that a live run is updating from another thread.

plotly changes the figure first and sends the change after: a full state taken in between
holds the change and is followed by its message, which the new front end applies twice
(a trace swap then fails in the page: "indices must be valid indices for gd.data", seen
when the Explorer's page loaded while its first fit replaced the preview).
"""
from __future__ import annotations

import threading

import plotly.graph_objects as go

from ercot_nb.widgets._state import AppState
from ercot_nb.widgets.views._figure_widget import replace_content
from ercot_nb.widgets.views.alpha import AlphaView


def test_a_full_state_is_never_taken_between_a_change_and_its_message():
    state = AppState()
    view = AlphaView().follow(state)
    figure = view.figure
    replace_content(figure, [go.Scatter(x=[1, 2], y=[1, 2], name="line")], {})  # a trace to swap
    in_between, go_on = threading.Event(), threading.Event()
    real_send = figure._send_deleteTraces_msg

    def send_after_a_pause(delete_inds):  # the figure is changed; its message is not sent yet
        in_between.set()
        go_on.wait(10)
        real_send(delete_inds)

    figure._send_deleteTraces_msg = send_after_a_pause
    bars = [go.Bar(x=[1, 2], y=[3, 4], name="bars")]

    def live_run_update():  # as the runner's thread draws: under the state's lock
        with state.lock:
            replace_content(figure, bars, {})

    updater = threading.Thread(target=live_run_update)
    updater.start()
    assert in_between.wait(10)
    taken: list[dict] = []
    asker = threading.Thread(target=lambda: taken.append(figure.get_state()))  # a new front end
    asker.start()
    asker.join(0.5)
    waited = asker.is_alive()  # the state waits for the update to be sent
    go_on.set()
    updater.join(10)
    asker.join(10)
    assert waited, "the full state was taken between the figure's change and its message"
    assert [trace["type"] for trace in taken[0]["_widget_data"]] == ["bar"]


# -- issue 32: the shared module's request for the current figure -------------------------------


def test_a_figure_answers_the_shared_modules_resync_with_its_current_figure(monkeypatch):
    """Plain Voila and JupyterLab: each figure's module initialises at once and evaluates plotly's
    bundle once per page; the kernel's changes meanwhile reach no listener, so the module asks for
    the figure as it is now.  The answer: the current traces and layout, then "resynced", with
    no change of a live run in between (both under the state's lock)."""
    from ercot_nb.widgets import _bundle
    from ercot_nb.widgets.views._figure_widget import SyncedFigureWidget

    monkeypatch.delenv(_bundle.SHARED_BUNDLE_ENV, raising=False)
    figure = SyncedFigureWidget()
    state = figure.get_state()
    assert state["_esm"] == _bundle.SHARED_MODULE  # a small module, the bundle in a trait
    assert len(state["_esm"]) < 5_000 and _bundle.BUNDLE_TRAIT in _bundle.SHARED_MODULE
    assert state[_bundle.BUNDLE_TRAIT] == _bundle.bundle_text()
    lock = threading.RLock()
    figure.use_lock(lock)
    replace_content(figure, [go.Bar(x=[1, 2], y=[3, 4], name="bars")], {"title": {"text": "now"}})
    sent: list[tuple] = []
    monkeypatch.setattr(figure, "send_state", lambda key=None: sent.append(
        ("state", lock._is_owned(), key, [t["type"] for t in figure._trait_values["_widget_data"]],
         figure._trait_values["_widget_layout"]["title"]["text"])))
    monkeypatch.setattr(figure, "send", lambda content, buffers=None: sent.append(
        ("message", lock._is_owned(), content)))
    figure._answer_resync(figure, {"something": "else"}, [])
    assert sent == []
    figure._answer_resync(figure, _bundle.RESYNC, [])
    assert sent == [("state", True, ["_widget_data", "_widget_layout"], ["bar"], "now"),
                    ("message", True, _bundle.RESYNCED)]


def test_a_figure_of_the_local_app_carries_no_bundle_text(monkeypatch):
    from ercot_nb.widgets import _bundle
    from ercot_nb.widgets.views._figure_widget import SyncedFigureWidget

    monkeypatch.setenv(_bundle.SHARED_BUNDLE_ENV, "1")
    state = SyncedFigureWidget().get_state()
    assert state["_esm"].startswith("http://127.0.0.1:") and state[_bundle.BUNDLE_TRAIT] == ""
