"""Video view: frame and segmentation side by side, scrubbed in place; the Explorer picks it."""
from __future__ import annotations

import base64
import io
import inspect

import numpy as np
import pytest

from ercot_nb import TemporalDataset, datasets, figures
from ercot_nb.result import ClusteringResult, StepResult
from ercot_nb.widgets import DatasetPicker, Explorer, PartitionView, VideoView

H, W = 8, 12
FAST = {"pop_size": 20, "n_evaluations": 40}


def tiny_video(n_steps: int = 3, **metadata) -> TemporalDataset:
    """A boundary moving right through an 8 x 12 frame; ids in shuffled order."""
    rng = np.random.default_rng(0)
    X, ids, labels = [], [], []
    for t in range(n_steps):
        p = rng.permutation(H * W)
        left = p % W < 4 + t
        ids.append(p)
        X.append(np.where(left[:, None], [0.9, 0.2, 0.1], [0.1, 0.3, 0.9]) + rng.normal(0, .02, (len(p), 3)))
        labels.append(left.astype(int))
    return TemporalDataset.from_arrays(
        X, ids=ids, labels=labels, feature_names=["r", "g", "b"], name="tiny",
        metadata={"kind": "video", "frame_shape": (H, W), **metadata},
    )


def result_of(dataset: TemporalDataset, n_steps: int | None = None) -> ClusteringResult:
    result = ClusteringResult(algorithm="test", params={})
    for t in range(len(dataset) if n_steps is None else n_steps):
        add_step(result, dataset, t)
    return result


def add_step(result: ClusteringResult, dataset: TemporalDataset, t: int) -> None:
    s = dataset[t]
    result.append(StepResult.from_partition(t, s.time, s.ids, s.labels, s.X, seconds=0.0))


def rgb(source: str) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(base64.b64decode(source.split(",", 1)[1]))).convert("RGB"))


def visible(view: VideoView) -> list:
    return [tr for tr in view.figure.data if tr.visible is not False]


def shown_images(view: VideoView) -> list[np.ndarray]:
    return [rgb(tr.source) if tr.source is not None else np.asarray(tr.z) for tr in visible(view)]


def expected_images(result, data, t, member=None) -> list[np.ndarray]:
    fig = figures.video_segmentation_figure(result, data, t, member=member)
    return [rgb(tr.source) if tr.source is not None else np.asarray(tr.z) for tr in fig.data]


def assert_shows(view: VideoView, result, data, t, member=None) -> None:
    for shown, expected in zip(shown_images(view), expected_images(result, data, t, member),
                               strict=True):
        np.testing.assert_array_equal(shown, expected)
    static = figures.video_segmentation_figure(result, data, t, member=member)
    assert view.figure.layout.title.text.startswith(static.layout.title.text)


def test_changing_the_step_updates_the_images_in_place():
    data = tiny_video()
    result = result_of(data)
    view = VideoView(data, result)
    figure = view.figure
    assert [tr.name for tr in figure.data] == ["frame", "test segmentation",
                                               "ground truth (colours matched)"]
    assert_shows(view, result, data, 0)
    before = shown_images(view)
    view.show_step(2)
    assert view.figure is figure and view.step == 2
    assert_shows(view, result, data, 2)
    assert not np.array_equal(before[1], shown_images(view)[1])
    static = view.static()  # the kernel-free fallback: the animation, at the step shown
    assert len(static.frames) == 3 and static.layout.sliders[0].active == 2


def test_live_steps_arrive_through_refresh():
    data = tiny_video()
    result = result_of(data, n_steps=1)
    view = VideoView(data, result, step=2)
    assert view.step == 0 and "step 2 not computed yet" in view.figure.layout.title.text
    add_step(result, data, 1)
    add_step(result, data, 2)
    view.refresh()
    assert view.step == 2 and "not computed" not in view.figure.layout.title.text
    assert_shows(view, result, data, 2)


def test_load_switches_between_a_preview_and_a_run():
    data = tiny_video()
    view = VideoView(data)  # no run yet: the frame and the ground truth
    assert [tr.name for tr in visible(view)] == ["frame", "ground truth"]
    layout = view.figure.layout
    assert len(view.figure.data) == 3 and layout.xaxis3.visible is False
    # the hidden subplot's (white) background must not cover the two panels
    assert layout.xaxis3.domain[0] > layout.xaxis2.domain[1] or layout.yaxis3.domain[0] > 0.99
    traces = list(view.figure.data)
    result = result_of(data)
    view.load(data, result, step=1)
    # the same traces updated in place: plotly.js misplaces image panels added later
    assert all(a is b for a, b in zip(view.figure.data, traces, strict=True))
    assert len(visible(view)) == 3 and view.figure.layout.xaxis3.visible is not False
    assert view.figure.layout.width == view.width
    assert_shows(view, result, data, 1)
    with pytest.raises(ValueError, match="not a video"):
        VideoView(datasets.load("syn1", seed=0, n_steps=2))


def shown_in_slot(app):
    return [child for child in app._slot.children if child.layout.display != "none"]


def test_explorer_shows_the_video_view_for_a_video_and_the_scatter_otherwise():
    data = tiny_video()
    app = Explorer(data, result=result_of(data))
    assert isinstance(app.video, VideoView) and app.partition is None
    assert app.views[0] is app.video and shown_in_slot(app) == [app.video]
    app.step = 2
    assert app.video.step == 2
    assert_shows(app.video, app.result, data, 2)

    app.picker.dataset = datasets.load("syn1", seed=0, n_steps=3)  # not a video
    assert isinstance(app.partition, PartitionView) and app.views[0] is app.partition
    assert shown_in_slot(app) == [app.partition]
    app.picker.dataset = data
    assert app.views[0] is app.video and shown_in_slot(app) == [app.video]
    # both figures stay in the page, the first in its place: a figure taken out and put back
    # (or moved) is drawn anew, and plotly's old view keeps listening
    assert list(app._slot.children) == [app.video, app.partition]
    assert app.message.level == ""

    plain = Explorer(datasets.load("syn1", seed=0, n_steps=3))
    assert isinstance(plain.partition, PartitionView) and plain.video is None


def test_a_live_run_and_a_front_member_show_in_the_video_view():
    app = Explorer(tiny_video(), params=FAST)
    job = app.run(wait=True)
    assert job.state == "finished" and len(app.result) == 3
    app.step = 1
    assert_shows(app.video, app.result, app.dataset, 1)
    step = app.result[1]
    member = next(m for m in range(len(step.population)) if m != step.knee)
    app.select_member(member)
    assert f"member {member}" in app.video.figure.layout.title.text
    assert_shows(app.video, app.result, app.dataset, 1, member)
    assert app.message.level != "error"


def test_errors_of_a_bad_video_show_in_the_ui():
    app = Explorer(datasets.load("syn1", seed=0, n_steps=3))
    bad = TemporalDataset.from_arrays(
        [np.zeros((4, 3)), np.ones((4, 3))], ids=[[0, 1, 2, 3], [0, 1, 2, 99]], name="bad",
        metadata={"kind": "video", "frame_shape": (2, 2)},
    )
    before = app.dataset
    app.picker.dataset = bad  # must not raise
    assert app.message.level == "error"
    assert "pixel id 99" in app.message.text and "Traceback" not in app.message.value
    assert app.dataset is before and shown_in_slot(app) == [app.partition]  # previous data kept
    assert app.partition.figure.layout.title.text.startswith("syn1")
    app.picker.dataset = tiny_video()  # a good video recovers
    assert app.views[0] is app.video and shown_in_slot(app) == [app.video]


def test_picker_offers_video_rc_downscaled(monkeypatch):
    calls = []

    def video_rc(seed=0, scale: float = 1.0, **others):
        """Fake scene (the form comes from ercot_nb.datasets.dataset_params("video_rc"))."""
        calls.append(scale)
        return tiny_video()

    assert inspect.signature(video_rc).parameters["scale"].default == 1.0
    monkeypatch.setitem(datasets._LOADERS, "video_rc", video_rc)
    picker = DatasetPicker("video_rc")
    assert picker._forms["video_rc"].fields["scale"].widget.value == 0.25
    assert calls == [0.25] and figures.is_video(picker.dataset)
    assert "video of 12 × 8 pixel frames" in picker.summary.value
    picker._forms["video_rc"].fields["scale"].widget.value = 0.5
    picker.load_button.click()
    assert calls == [0.25, 0.5]
