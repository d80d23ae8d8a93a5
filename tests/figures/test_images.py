"""Video images: frames and segmentations placed by pixel id."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb import TemporalDataset, datasets, figures
from .plot_helpers import H, W, pixel_colour, boundary, tiny_video, result_of, split_labels


def test_is_video_needs_kind_and_frame_shape():
    assert figures.is_video(tiny_video())
    plain = datasets.load("syn1", seed=0, n_steps=2)
    assert not figures.is_video(plain)
    assert not figures.is_video("video_mo")
    no_shape = TemporalDataset.from_arrays([np.zeros((4, 3))], metadata={"kind": "video"})
    assert not figures.is_video(no_shape)


def test_frame_image_places_pixels_by_id_whatever_their_order():
    data = tiny_video(shuffle=True, missing=17)
    for t in range(3):
        image = figures.frame_image(data, t)
        assert image.shape == (H, W, 3)
        expected = pixel_colour(np.arange(H * W)).reshape(H, W, 3)
        if t == 1:
            assert np.isnan(image[17 // W, 17 % W]).all()
            expected[17 // W, 17 % W] = np.nan
        np.testing.assert_array_equal(image, expected)
    np.testing.assert_array_equal(figures.frame_image(data, -1), figures.frame_image(data, 2))


def test_segmentation_image_holds_the_aligned_labels_by_pixel():
    data = tiny_video(shuffle=True, missing=17)
    result = result_of(data, split_labels(data, swap_at=1))
    for t in range(3):
        image = figures.segmentation_image(result, data, t)
        assert image.shape == (H, W) and image.dtype == np.int64
        rows, cols = np.divmod(data[t].ids, W)
        np.testing.assert_array_equal(image[rows, cols], result[t].aligned_labels)
        # the left segment keeps aligned label 0 although its raw label is 1 at t = 1
        left = np.arange(W) < boundary(t)
        rows_present = [r for r in range(H) if not (t == 1 and r == 17 // W)]
        assert (image[rows_present][:, left] == 0).all() and (image[rows_present][:, ~left] == 1).all()
    assert figures.segmentation_image(result, data, 1)[17 // W, 17 % W] == -1
    # plain label arrays are aligned over time the same way
    from_arrays = figures.segmentation_image(split_labels(data, swap_at=1), data, 1)
    np.testing.assert_array_equal(from_arrays, figures.segmentation_image(result, data, 1))


def test_bad_video_input_raises_clear_errors():
    data = tiny_video()
    result = result_of(data, split_labels(data))
    plain = datasets.load("syn1", seed=0, n_steps=2)
    with pytest.raises(ValueError, match="not a video"):
        figures.frame_image(plain, 0)
    with pytest.raises(ValueError, match="frame_shape"):
        figures.frame_image(TemporalDataset.from_arrays(
            [np.zeros((4, 3))], metadata={"kind": "video", "frame_shape": (2, 2.5)}), 0)
    outside = TemporalDataset.from_arrays(
        [np.zeros((4, 3))], ids=[[0, 1, 2, 40]], metadata={"kind": "video", "frame_shape": (2, 2)})
    with pytest.raises(ValueError, match=r"step 0 .*pixel id 40"):
        figures.video_segmentation_figure(None, outside, 0)
    with pytest.raises(ValueError, match="r, g, b"):
        figures.frame_image(TemporalDataset.from_arrays(
            [np.zeros((4, 2))], metadata={"kind": "video", "frame_shape": (2, 2)}), 0)
    shuffled = tiny_video(shuffle=True)
    with pytest.raises(ValueError, match="fitted on this dataset"):
        figures.video_segmentation_figure(result, shuffled, 0)
    with pytest.raises(IndexError):
        figures.video_segmentation_figure(result, data, 3)
    with pytest.raises(ValueError, match="panel_width"):
        figures.video_segmentation_figure(result, data, 0, panel_width=10)
