"""The video data contract shared by the built-in scenes and :func:`load_video`.

Each frame is one time step (times ``1..T``); samples are pixels, all present
in every frame, with id ``row * W + col``; features are ``r, g, b`` in
[0, 1], then optionally ``row, col`` scaled to [0, 1] times
``position_weight``; ``metadata`` holds ``kind="video"`` and
``frame_shape=(H, W)``.  See :mod:`ercot_nb.datasets._video` for the rest.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...data import TemporalDataset
from ...params import check_argument

DEFAULT_NOISE = 0.04  # sensor noise sd of the built-in scenes
DEFAULT_POSITION_WEIGHT = 0.5
MIN_SIDE = 8  # smallest frame side a built-in scene is drawn at
RGB = ("r", "g", "b")
POSITION = ("row", "col")


def stream(entropy: int, key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(key,)))


def position_columns(height: int, width: int, weight: float) -> np.ndarray:
    """(H*W, 2) array of row and col scaled to [0, 1] times ``weight``, row-major."""
    rows = np.arange(height, dtype=np.float64) / max(height - 1, 1)
    cols = np.arange(width, dtype=np.float64) / max(width - 1, 1)
    grid = np.empty((height, width, 2))
    grid[..., 0] = rows[:, None]
    grid[..., 1] = cols[None, :]
    return grid.reshape(-1, 2) * weight


def pixel_features(frame: np.ndarray, position: np.ndarray | None) -> np.ndarray:
    """Pixel feature matrix of one (H, W, 3) frame: r, g, b [, row, col]."""
    rgb = frame.reshape(-1, 3)
    return rgb if position is None else np.hstack([rgb, position])


def video_dataset(
    frames: Sequence[np.ndarray],
    labels: Sequence[np.ndarray] | None,
    *,
    position: bool,
    position_weight: float,
    name: str,
    metadata: dict[str, Any],
) -> TemporalDataset:
    """Build the video TemporalDataset (see the module docstring) from RGB frames."""
    height, width = frames[0].shape[:2]
    coords = position_columns(height, width, position_weight) if position else None
    ids = np.arange(height * width, dtype=np.int64)
    metadata = {"kind": "video", "frame_shape": (int(height), int(width)), **metadata}
    return TemporalDataset.from_arrays(
        [pixel_features(frame, coords) for frame in frames],
        ids=[ids] * len(frames),
        labels=None if labels is None else [lab.reshape(-1) for lab in labels],
        times=list(range(1, len(frames) + 1)),
        feature_names=[*RGB, *POSITION] if position else list(RGB),
        name=name,
        metadata=metadata,
    )


def check_position(position: Any, position_weight: Any, owner: str = "load_video") -> None:
    check_argument(owner, "position", position, "bool", default=False)
    check_argument(owner, "position_weight", position_weight, "float", default=DEFAULT_POSITION_WEIGHT,
                   low=0.0, low_open=True)
