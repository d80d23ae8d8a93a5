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
