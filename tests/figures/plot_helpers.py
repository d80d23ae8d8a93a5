"""Helpers shared by the figure tests: traces by name, point sets, a tiny labelled video."""
from __future__ import annotations

import base64
import io

import numpy as np
import plotly.graph_objects as go

from ercot_nb import TemporalDataset
from ercot_nb.result import ClusteringResult, StepResult

FAST = dict(pop_size=20, n_evaluations=60)
H, W = 8, 12  # tiny frames: 8 rows, 12 columns
GREY = np.array([217, 217, 217])


def cluster_traces(fig: go.Figure) -> dict[int, go.Scatter]:
    return {int(tr.name.split()[1]): tr for tr in fig.data if tr.name.startswith("cluster ")}


def trace(fig: go.Figure, name: str):
    (found,) = [tr for tr in fig.data if tr.name == name]
    return found


def points(tr) -> np.ndarray:
    return np.column_stack([np.asarray(tr.x, dtype=float), np.asarray(tr.y, dtype=float)])


def same_rows(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal as multisets of rows (order free)."""
    if a.shape != b.shape:
        return False
    return np.allclose(np.array(sorted(map(tuple, a))), np.array(sorted(map(tuple, b))))


def points3d(tr) -> np.ndarray:
    return np.column_stack([np.asarray(getattr(tr, axis), dtype=float) for axis in "xyz"])


def hex_rgb(color: str) -> np.ndarray:
    return np.array([int(color[i : i + 2], 16) for i in (1, 3, 5)])


def panel_rgb(trace: go.Image) -> np.ndarray:
    """The (rows, cols, 3) uint8 pixels an image trace shows (PNG data URI or z)."""
    if trace.source is not None:
        from PIL import Image

        header, data = trace.source.split(",", 1)
        assert header == "data:image/png;base64"
        return np.asarray(Image.open(io.BytesIO(base64.b64decode(data))).convert("RGB"))
    return np.asarray(trace.z, dtype=np.uint8)


def panel(fig: go.Figure, name: str) -> np.ndarray:
    (found,) = [tr for tr in fig.data if tr.name == name]
    return panel_rgb(found)


def pixel_colour(p: np.ndarray) -> np.ndarray:
    """Colour of pixel ids ``p``: red and green code the position, so misplacement shows."""
    return np.column_stack([(p // W) / (H - 1), (p % W) / (W - 1), np.full(len(p), 0.5)])


def boundary(t: int) -> int:
    """Columns left of it are segment A at step t (the boundary moves right)."""
    return 4 + t


def tiny_video(*, shuffle: bool = False, missing: int | None = None, labels: bool = True,
               n_steps: int = 3, truth_codes: tuple[int, int] = (5, 7)) -> TemporalDataset:
    """Pixels of a 8 x 12 video; step 1 can lack pixel ``missing``; ids shuffled on request."""
    rng = np.random.default_rng(1)
    X, ids, truth = [], [], []
    for t in range(n_steps):
        p = np.arange(H * W)
        if missing is not None and t == 1:
            p = p[p != missing]
        if shuffle:
            p = rng.permutation(p)
        ids.append(p)
        X.append(pixel_colour(p))
        truth.append(np.where(p % W < boundary(t), truth_codes[0], truth_codes[1]))
    return TemporalDataset.from_arrays(
        X, ids=ids, labels=truth if labels else None, feature_names=["r", "g", "b"], name="tiny",
        metadata={"kind": "video", "frame_shape": (H, W)},
    )


def result_of(dataset: TemporalDataset, label_steps) -> ClusteringResult:
    result = ClusteringResult(algorithm="test", params={})
    for t, labels in enumerate(label_steps):
        s = dataset[t]
        result.append(StepResult.from_partition(t, s.time, s.ids, labels, s.X, seconds=0.0))
    return result


def split_labels(dataset: TemporalDataset, swap_at: int | None = None) -> list[np.ndarray]:
    """Left/right split per step; at ``swap_at`` the raw label numbers are swapped."""
    steps = []
    for t, s in enumerate(dataset):
        left = s.ids % W < boundary(t)
        steps.append(np.where(left, 1, 0) if t == swap_at else np.where(left, 0, 1))
    return steps
