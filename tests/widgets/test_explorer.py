"""The Explorer's observed failures of issue 10, one test each (each failed on the old code)."""
from __future__ import annotations

import html
from datetime import datetime, timezone

import numpy as np
import pandas as pd
import pytest

from ercot_nb import datasets
from ercot_nb.widgets import Explorer, TimeScrubber
from ercot_nb.widgets.apps.explorer import VIEWS

FAST = {"pop_size": 20, "n_evaluations": 40}
SMALL_VIDEO = {"scale": 0.1, "n_frames": 3}


def upload(picker, content: bytes, name: str) -> None:
    """What the browser does when a file is chosen in the FileUpload widget."""
    picker.upload.value = ({"name": name, "type": "text/csv", "size": len(content),
                            "content": memoryview(content),
                            "last_modified": datetime.now(timezone.utc)},)


def figures_in_page(widget, found=None):
    """Every plotly figure reachable from ``widget`` through children (what the page shows)."""
    found = [] if found is None else found
    if hasattr(widget, "_widget_data"):
        found.append(widget)
    for child in getattr(widget, "children", ()):
        figures_in_page(child, found)
    return found


def test_the_partition_follows_a_run_after_a_video_was_shown():
    """video_mo, then syn1, Run and scrub: the partition plot froze on the ground truth.

    Its figure had been taken out of the page for the video and put back, so
    the browser drew it from stale state and dropped every later update.
    A figure once in the page must stay there (hidden when not in use).
    """
    explorer = Explorer("syn3", params=FAST)
    seen = set(map(id, figures_in_page(explorer)))
    explorer.picker._form("video_mo").set_values(SMALL_VIDEO)
    explorer.picker.scenario.value = "video_mo"
    assert explorer.message.level == "success", explorer.message.text
    seen |= set(map(id, figures_in_page(explorer)))
    explorer.picker._form("syn1").set_values({"n_steps": 4})
    explorer.picker.scenario.value = "syn1"
    explorer.run(wait=True)
    explorer.scrubber.value = 2
    in_page = set(map(id, figures_in_page(explorer)))
    assert seen <= in_page, "a figure was taken out of the page"
    title = explorer.partition.figure.layout.title.text
    assert title.startswith("syn1: ERCOT partition at time 3") and explorer.partition.layout.display is None
    assert explorer.video.layout.display == "none"


def test_bird_flocks_opens_from_the_picker_and_the_constructor():
    explorer = Explorer("syn1", params=FAST, views=("partition",))
    explorer.picker.scenario.value = "bird_flocks"
    assert explorer.message.level == "success", explorer.message.text
    assert explorer.dataset.name.startswith("bird_flocks") or explorer.state.dataset_name == "bird_flocks"
    dims = explorer.picker._form("bird_flocks").fields["dims"].widget
    dims.value = 3
    explorer.picker.load_button.click()
    assert explorer.dataset.n_features >= 3 and explorer.message.level == "success"
    assert Explorer("bird_flocks", views=("partition",)).state.dataset_name == "bird_flocks"


def test_a_dataset_switch_replaces_the_finished_message():
    explorer = Explorer("syn1", params=FAST, views=("partition",))
    explorer.run(wait=True)
    assert "finished" in explorer.message.text
    explorer.picker.scenario.value = "syn3"
    shown = [area.text for area in (explorer.message, explorer.run_panel.message, explorer.picker.message)]
    assert shown == ["Loaded the built-in scenario syn3."] * 3
    assert "finished" not in explorer.message.value


def test_the_position_is_shown_once_as_the_time_label():
    explorer = Explorer("syn1", params=FAST, views=("partition",))
    explorer.run(wait=True)
    scrubber = explorer.scrubber
    assert not scrubber.slider.readout and scrubber.slider.description == ""
    assert scrubber.time_label.value == "time <b>10</b>"


def test_figure_titles_name_the_position_once_by_its_time():
    """Titles said "at time 10 (step 9, ...)": the slider's position three times over."""
    explorer = Explorer("syn1", params=FAST, views=("partition", "pareto"))
    explorer.run(wait=True)
    explorer.step = 4
    step = explorer.result[4]
    member = next(m for m in range(len(step.population)) if m != step.knee)
    titles = [explorer.partition.figure.layout.title.text, explorer.pareto.figure.layout.title.text]
    explorer.select_member(member)
    titles += [explorer.partition.figure.layout.title.text, explorer.pareto.figure.layout.title.text]
    for title in titles:
        assert "time 5" in title and "step" not in title, title
    assert titles[0] == f"syn1: ERCOT partition at time 5 ({step.n_clusters} clusters)"
    assert titles[1] == "syn1: ERCOT final population at time 5 (accumulated objectives)"  # names the dataset


def test_time_labels_from_data_are_escaped():
    evil = "<img src=x onerror=alert(1)>"
    scrubber = TimeScrubber([evil, "b"])
    assert evil not in scrubber.time_label.value
    assert html.escape(evil) in scrubber.time_label.value


def test_the_app_says_what_a_scenario_is():
    explorer = Explorer("syn5", views=("partition",))
    story = explorer.dataset.metadata["description"]
    assert story and html.escape(story) in explorer.picker.summary.value


def test_live_views_redraw_at_a_bounded_rate_not_at_every_step(monkeypatch):
    """Redrawing every view at every step made a long run slower with every step."""
    data = datasets.load("syn1", n_steps=400, n_per_cluster=5)
    explorer = Explorer(data, params={"pop_size": 10, "n_evaluations": 20, "max_clusters": 4})
    calls = []
    original = type(explorer.alpha).refresh
    monkeypatch.setattr(type(explorer.alpha), "refresh",
                        lambda self: (calls.append(1), original(self))[1])
    job = explorer.run(wait=True)
    assert job.state == "finished" and len(explorer.result) == 400
    assert len(calls) <= 400 / 4, f"{len(calls)} redraws of the alpha view for 400 steps"
    # and the end of the run shows everything: the last step, every step in the time line
    assert explorer.step == 399 and explorer.scrubber.max == 399
    assert len(explorer.alpha.figure.data[0].x) == 400


def test_an_invalid_csv_keeps_the_data_and_says_what_to_do():
    explorer = Explorer("syn3", params=FAST, views=("partition",))
    before = explorer.dataset
    frame = pd.DataFrame({"time": [1, 1, 2], "id": ["a", "a", "b"], "x": [0.0, 1, 2]})
    upload(explorer.picker, frame.to_csv(index=False).encode(), "dupes.csv")
    explorer.picker.id_column.value = "id"
    explorer.picker.load_csv_button.click()
    assert explorer.dataset is before and explorer.message.level == "error"
    assert "dupes.csv" in explorer.message.text and "syn3" in explorer.message.text
    assert "Traceback" not in explorer.message.value


@pytest.mark.parametrize("name", ["video_mo", "video_bt", "video_rc"])
def test_every_video_opens_at_a_small_scale(name):
    explorer = Explorer("syn1", params=FAST, views=("partition", "pareto"))
    explorer.picker._form(name).set_values(SMALL_VIDEO)
    explorer.picker.scenario.value = name
    assert explorer.message.level == "success", explorer.message.text
    assert explorer.partition_view is explorer.video
    job = explorer.run(wait=True)
    assert job.state == "finished" and np.all(explorer.video.result.times == explorer.result.times)


def test_every_view_fits_the_views_column_of_a_laptop():
    """At 1280 px the views' column is 820 px beside the side panel: no figure is wider
    (the cluster flow was 1,140 px and cut at the window's edge)."""
    explorer = Explorer("syn3")
    widths = {name: explorer.view(name).figure.layout.width for name in VIEWS
              if hasattr(explorer.view(name), "figure")}
    assert "flows" in widths and all(width is not None and width <= 820 for width in widths.values()), widths
