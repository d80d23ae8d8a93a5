"""Video view: frame, segmentation and truth panels, subsampling, animation."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from ercot_nb import ERCOT, figures
from ercot_nb.figures.images import display_stride
from ercot_nb.metrics import rand_index
from .plot_helpers import H, W, GREY, hex_rgb, panel_rgb, panel, pixel_colour, tiny_video, result_of, split_labels


def test_panels_show_the_frame_and_the_label_colours_at_the_right_pixels():
    data = tiny_video(shuffle=True, missing=17)
    result = result_of(data, split_labels(data, swap_at=1))
    fig = figures.video_segmentation_figure(result, data, 1)
    assert [tr.type for tr in fig.data] == ["image"] * 3
    assert [tr.name for tr in fig.data] == ["frame", "test segmentation",
                                            "ground truth (colours matched)"]
    frame = panel(fig, "frame")
    expected = np.rint(pixel_colour(np.arange(H * W)) * 255).astype(np.uint8).reshape(H, W, 3)
    expected[17 // W, 17 % W] = GREY
    np.testing.assert_array_equal(frame, expected)
    seg = panel(fig, "test segmentation")
    labels = figures.segmentation_image(result, data, 1)
    for r in range(H):
        for c in range(W):
            want = GREY if labels[r, c] < 0 else hex_rgb(figures.label_color(labels[r, c]))
            np.testing.assert_array_equal(seg[r, c], want, err_msg=f"pixel ({r}, {c})")
    # every panel on its own axes, rows downwards, square pixels
    layout = fig.layout
    assert [tr.xaxis for tr in fig.data] == ["x", "x2", "x3"]
    assert tuple(layout.yaxis2.range) == (H - 0.5, -0.5)
    plot_width = layout.width - layout.margin.l - layout.margin.r
    plot_height = layout.height - layout.margin.t - layout.margin.b
    for suffix in ("", "2", "3"):
        x_domain, y_domain = layout[f"xaxis{suffix}"].domain, layout[f"yaxis{suffix}"].domain
        pixel_width = (x_domain[1] - x_domain[0]) * plot_width / W
        pixel_height = (y_domain[1] - y_domain[0]) * plot_height / H
        assert pixel_width == pytest.approx(pixel_height, rel=0.02)  # square pixels
    assert tuple(layout.xaxis3.range) == (-0.5, W - 0.5)


def test_a_persisting_cluster_keeps_its_colour_across_steps():
    data = tiny_video()
    result = result_of(data, split_labels(data, swap_at=1))  # raw labels swap at t = 1
    colours = []
    for t in range(3):
        seg = panel(figures.video_segmentation_figure(result, data, t), "test segmentation")
        colours.append((tuple(seg[0, 0]), tuple(seg[0, W - 1])))  # left and right segment
    assert colours[0] == colours[1] == colours[2]
    assert colours[0][0] != colours[0][1]


def test_truth_panel_takes_the_colours_of_the_matching_clusters_and_the_title_the_ri():
    data = tiny_video(truth_codes=(7, 5))  # true codes unlike the result's labels
    steps = split_labels(data)
    steps[2] = steps[2].copy()
    steps[2][:W] = 1  # the first row all in the right cluster: an imperfect step
    result = result_of(data, steps)
    fig = figures.video_segmentation_figure(result, data, 2)
    truth = panel(fig, "ground truth (colours matched)")
    seg = panel(fig, "test segmentation")
    np.testing.assert_array_equal(truth[1:], seg[1:])  # rows where they agree look the same
    assert not np.array_equal(truth[0], seg[0])
    ri = rand_index(data[2].labels, result[2].labels)
    assert ri < 1
    assert f"RI {ri:.3f}" in fig.layout.title.text
    assert "2 clusters" in fig.layout.title.text and "time 2" in fig.layout.title.text
    no_truth = figures.video_segmentation_figure(result, data, 2, truth=False)
    assert [tr.name for tr in no_truth.data] == ["frame", "test segmentation"]


def test_a_preview_shows_the_frame_and_the_truth_or_the_frame_alone():
    fig = figures.video_segmentation_figure(None, tiny_video(), 0)
    assert [tr.name for tr in fig.data] == ["frame", "ground truth"]
    assert "ground truth at time 0" in fig.layout.title.text
    bare = figures.video_segmentation_figure(None, tiny_video(labels=False), 0)
    assert [tr.name for tr in bare.data] == ["frame"]


def test_a_front_member_can_replace_the_knee():
    data = tiny_video()
    result = ERCOT(seed=0, pop_size=20, n_evaluations=40).fit(data).result_
    step = result[1]
    member = next(m for m in range(len(step.population))
                  if m != step.knee and step.population_n_clusters[m] != step.n_clusters)
    fig = figures.video_segmentation_figure(result, data, 1, member=member)
    partition = figures.member_partition(data, result, 1, member)
    seg = panel(fig, "ERCOT segmentation")
    rows, cols = np.divmod(data[1].ids, W)
    expected = np.array([hex_rgb(figures.label_color(k)) for k in partition.aligned_labels])
    np.testing.assert_array_equal(seg[rows, cols], expected)
    assert f"ERCOT member {member}" in fig.layout.title.text


def test_max_pixels_subsamples_every_panel_with_a_stride():
    data = tiny_video()
    result = result_of(data, split_labels(data))
    full = figures.video_segmentation_figure(result, data, 1, max_pixels=None)
    small = figures.video_segmentation_figure(result, data, 1, max_pixels=30)  # 96 px -> stride 2
    for big, little in zip(full.data, small.data):
        np.testing.assert_array_equal(panel_rgb(little), panel_rgb(big)[::2, ::2])
        assert (little.dx, little.dy, big.dx) == (2, 2, 1)
    assert panel_rgb(small.data[0]).shape == (4, 6, 3)
    assert "1/2 resolution" in small.layout.title.text
    assert display_stride(360, 640, 200_000) == 2
    assert display_stride(120, 160, 200_000) == 1
    with pytest.raises(ValueError, match="max_pixels"):
        figures.video_segmentation_figure(result, data, 1, max_pixels=0)


def test_animation_has_one_frame_per_step_with_a_slider():
    data = tiny_video(shuffle=True, missing=17)
    result = result_of(data, split_labels(data, swap_at=1))
    animation = figures.video_segmentation_animation(result, data, start=1)
    assert [f.name for f in animation.frames] == ["0", "1", "2"]
    slider = animation.layout.sliders[0]
    assert len(slider.steps) == 3 and slider.active == 1
    assert [list(s.args[0]) for s in slider.steps] == [["0"], ["1"], ["2"]]
    assert slider.steps[0].args[1]["frame"]["redraw"] is True  # images need a redraw
    for t, frame in enumerate(animation.frames):
        static = figures.video_segmentation_figure(result, data, t)
        assert frame.layout.title.text == static.layout.title.text
        for shown, expected in zip(frame.data, static.data):
            np.testing.assert_array_equal(panel_rgb(shown), panel_rgb(expected))
    np.testing.assert_array_equal(panel_rgb(animation.data[1]), panel_rgb(animation.frames[1].data[1]))


def test_without_pillow_the_panels_are_z_arrays_with_the_same_pixels(monkeypatch):
    pytest.importorskip("PIL")
    data = tiny_video(missing=17)
    result = result_of(data, split_labels(data))
    png = figures.video_segmentation_figure(result, data, 1)
    assert all(tr.source.startswith("data:image/png;base64,") and tr.z is None for tr in png.data)
    png_pixels = [panel_rgb(tr) for tr in png.data]
    monkeypatch.setitem(sys.modules, "PIL", None)  # as if Pillow were not installed
    plain = figures.video_segmentation_figure(result, data, 1)
    assert all(tr.source is None and tr.z is not None for tr in plain.data)
    for pixels, tr in zip(png_pixels, plain.data, strict=True):
        np.testing.assert_array_equal(pixels, panel_rgb(tr))


def test_three_panels_fit_a_notebook_output_area():
    """Three 320-pixel panels (1,012 pixels) were cut off on the right in JupyterLab."""
    data = tiny_video()
    result = result_of(data, split_labels(data))
    fig = figures.video_segmentation_figure(result, data, 1)
    assert len(fig.data) == 3
    assert fig.layout.width <= 880
    animation = figures.video_segmentation_animation(result, data)
    assert animation.layout.width <= 880
    wide = figures.video_segmentation_figure(result, data, 1, max_width=None)
    assert wide.layout.width > 880  # the old size on request
    # panels stay side by side with square pixels: width / height of a panel's domain
    domain = fig.layout.xaxis.domain
    plot_width = fig.layout.width - fig.layout.margin.l - fig.layout.margin.r
    plot_height = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
    panel_width = (domain[1] - domain[0]) * plot_width
    assert abs(panel_width / plot_height - W / H) < 0.05 * W / H


def test_titles_name_the_position_once_by_its_time():
    """Titles said "time 2 (step 2)": the slider's position twice over (issue 10)."""
    data = tiny_video()
    result = result_of(data, split_labels(data, swap_at=1))
    time = data[2].time
    titles = {
        "run": figures.video_segmentation_figure(result, data, 2).layout.title.text,
        "preview": figures.video_segmentation_figure(None, data, 2).layout.title.text,
        "frame": figures.video_segmentation_figure(None, tiny_video(labels=False), 2).layout.title.text,
    }
    for kind, title in titles.items():
        assert "step" not in title and title.count(f"time {time}") == 1, (kind, title)
    assert titles["run"].startswith(f"tiny: test at time {time} · 2 clusters · RI ")
    assert titles["preview"] == f"tiny: ground truth at time {time} · 2 segments"
    assert titles["frame"] == f"tiny: frame at time {time}"
    animation = figures.video_segmentation_animation(result, data)
    frame_titles = [frame.layout.title.text for frame in animation.frames]
    assert all("step" not in title for title in frame_titles), frame_titles
