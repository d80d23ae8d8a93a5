"""Video frames and segmentations as images: pixels placed by id, labels in cluster colours."""
from __future__ import annotations

import base64
import io
from typing import Any

import numpy as np

from ..data import TemporalDataset, is_video
from ..result import ClusteringResult, StepResult
from .lines import labels_of
from .style import PALETTE, as_result, plain, step_index

__all__ = [
    "frame_shape", "pixel_positions", "frame_image", "segmentation_image", "labels_result",
    "check_same_ids", "label_rgb", "frame_rgb", "display_stride", "image_data", "ABSENT_RGB",
]

ABSENT_RGB = np.array([217, 217, 217], dtype=np.uint8)
"""Colour of pixels absent at a step (light grey)."""


def frame_shape(dataset: TemporalDataset) -> tuple[int, int]:
    """``(H, W)`` of a video dataset, checked (with the colour columns)."""
    if not isinstance(dataset, TemporalDataset):
        raise TypeError(f"dataset must be a TemporalDataset, got {type(dataset).__name__}")
    name = f"dataset {dataset.name!r}" if dataset.name else "the dataset"
    if not is_video(dataset):
        raise ValueError(
            f"{name} is not a video: it needs metadata['kind'] == 'video' and "
            "metadata['frame_shape'] = (H, W)"
        )
    shape = np.asarray(dataset.metadata["frame_shape"])
    if shape.shape != (2,) or shape.dtype.kind not in "iu" or (shape < 1).any():
        raise ValueError(
            "metadata['frame_shape'] must be a pair (H, W) of positive ints, got "
            f"{dataset.metadata['frame_shape']!r}"
        )
    if dataset.n_features < 3:
        raise ValueError(
            f"{name} has {dataset.n_features} feature(s); a video needs the colour columns "
            "r, g, b as its first three features"
        )
    return int(shape[0]), int(shape[1])


def pixel_positions(dataset: TemporalDataset, t: int, n_pixels: int) -> np.ndarray:
    """Flat pixel index (``row * W + col``) of every sample of step ``t``, checked."""
    snapshot = dataset[t]
    ids = snapshot.ids
    where = f"step {t} (time={plain(snapshot.time)!r})"
    if ids.dtype.kind not in "iu":
        raise ValueError(
            f"{where}: video sample ids must be integer pixel indices row * W + col, "
            f"got ids of dtype {ids.dtype}"
        )
    outside = (ids < 0) | (ids >= n_pixels)
    if outside.any():
        raise ValueError(
            f"{where}: pixel id {plain(ids[outside][0])!r} is outside the frame "
            f"(ids must be in 0..{n_pixels - 1} = H * W - 1 for metadata['frame_shape'])"
        )
    return ids.astype(np.intp, copy=False)


def frame_image(dataset: TemporalDataset, t: int) -> np.ndarray:
    """The colour frame of step ``t`` of a video dataset.

    Parameters
    ----------
    dataset : TemporalDataset
        A video (see :func:`is_video`).
    t : int
        0-based step index (negative counts from the end).

    Returns
    -------
    float ndarray of shape (H, W, 3)
        The features ``r, g, b`` of every pixel, placed by its id
        (``row = id // W``, ``col = id % W``), whatever the samples' order.
        Pixels absent at step ``t`` are NaN; the figures draw them light
        grey.

    Raises
    ------
    ValueError
        If the dataset is not a video or an id is not a pixel of the frame.
    """
    height, width = frame_shape(dataset)
    t = step_index(dataset, t, "dataset")
    image = np.full((height * width, 3), np.nan)
    image[pixel_positions(dataset, t, height * width)] = dataset[t].X[:, :3]
    return image.reshape(height, width, 3)


def labels_result(result_or_labels: Any, dataset: TemporalDataset) -> ClusteringResult:
    """A run as a ClusteringResult; per-step label arrays are aligned over time like a run."""
    if isinstance(result_or_labels, ClusteringResult) or isinstance(
        getattr(result_or_labels, "result_", None), ClusteringResult
    ):
        return as_result(result_or_labels)
    return ClusteringResult.from_labels(dataset, labels_of(result_or_labels))


def check_same_ids(step: StepResult, dataset: TemporalDataset) -> None:
    if not np.array_equal(step.ids, dataset[step.t].ids):
        raise ValueError(
            f"step {step.t}: the result's sample ids differ from the dataset's; "
            "was the result fitted on this dataset?"
        )


def segmentation_image(result_or_labels: Any, dataset: TemporalDataset, t: int) -> np.ndarray:
    """The time-aligned cluster labels of step ``t`` of a video, as an image.

    Parameters
    ----------
    result_or_labels : ClusteringResult, fitted estimator or list of arrays
        A run (its aligned labels are used: a cluster keeps its label, and
        so its colour, across steps), or one label array per step in the
        dataset's sample order (aligned over time the same way, see
        :meth:`ClusteringResult.append <ercot_nb.result.ClusteringResult.append>`).
    dataset : TemporalDataset
        The video the labels belong to (see :func:`is_video`).
    t : int
        0-based step index (negative counts from the end).

    Returns
    -------
    int64 ndarray of shape (H, W)
        The aligned label of every pixel, placed by id; -1 where the pixel
        is absent at step ``t``.  ``label_color(k)`` is label ``k``'s colour.

    Raises
    ------
    ValueError
        If the dataset is not a video, or the labels do not fit its steps.
    """
    height, width = frame_shape(dataset)
    result = labels_result(result_or_labels, dataset)
    if len(result) > len(dataset):
        raise ValueError(f"the result has {len(result)} steps but the dataset only {len(dataset)}")
    step = result[step_index(result, t)]
    check_same_ids(step, dataset)
    image = np.full(height * width, -1, dtype=np.int64)
    image[pixel_positions(dataset, step.t, height * width)] = step.aligned_labels
    return image.reshape(height, width)


def _palette_rgb() -> np.ndarray:
    """The label palette as an ``(n, 3)`` uint8 array (row k is ``label_color(k)``)."""
    return np.array([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in PALETTE], dtype=np.uint8)


_PALETTE_RGB = _palette_rgb()


def label_rgb(labels: np.ndarray) -> np.ndarray:
    """Colour image of a label image: ``label_color`` per label, grey where -1."""
    rgb = _PALETTE_RGB[np.where(labels >= 0, labels, 0) % len(_PALETTE_RGB)]
    rgb[labels < 0] = ABSENT_RGB
    return rgb


def frame_rgb(frame: np.ndarray) -> np.ndarray:
    """uint8 colour image of a [0, 1] frame (clipped); NaN pixels grey."""
    absent = np.isnan(frame).any(axis=-1)
    rgb = np.rint(np.clip(np.nan_to_num(frame), 0.0, 1.0) * 255).astype(np.uint8)
    rgb[absent] = ABSENT_RGB
    return rgb



def display_stride(height: int, width: int, max_pixels: int | None) -> int:
    """Smallest stride s with ceil(H / s) * ceil(W / s) <= max_pixels (1 without a limit)."""
    if max_pixels is None:
        return 1
    if isinstance(max_pixels, bool) or not isinstance(max_pixels, (int, np.integer)) or max_pixels < 1:
        raise ValueError(f"max_pixels must be a positive int or None, got {max_pixels!r}")
    stride = 1
    while -(-height // stride) * -(-width // stride) > max_pixels:
        stride += 1
    return stride


def image_data(rgb: np.ndarray) -> dict[str, Any]:
    """``go.Image`` content of a uint8 colour image: a PNG data URI, or ``z`` without Pillow.

    A PNG (lossless) keeps HTML pages and widget messages small: flat
    segmentation images compress about a hundredfold, and widgets would
    otherwise send a 3-D array as nested lists.
    """
    try:
        from PIL import Image  # Pillow comes with imageio (the ``video`` extra)
    except ImportError:
        return {"z": rgb}
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb)).save(buffer, format="PNG", compress_level=6)
    return {"source": "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")}

