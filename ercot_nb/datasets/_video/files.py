"""Reading your own clip (file, image folder or array) into a video TemporalDataset: :func:`load_video`.

Frames are downscaled by exact area averaging: each output pixel is the
mean of the source area it covers, weighted by overlap (a block mean when the
factors are whole numbers).  Pillow's ``Image.resize(..., BOX)`` is not used:
for non-integer factors it gives every covered source pixel weight 0 or 1
(by its centre), not its overlap, so it neither matches the area mean nor
conserves the frame's mean colour (see tests/datasets/test_video_files.py).
"""
from __future__ import annotations

import math
import os
from collections.abc import Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from ...data import TemporalDataset
from ...params import check_argument
from .frames import DEFAULT_POSITION_WEIGHT, check_position, video_dataset

__all__ = ["load_video"]

_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".gif", ".webp")


def _area_matrix(n_in: int, n_out: int):
    """Sparse (n_out, n_in) matrix averaging input cells over each output cell's span."""
    edges = np.arange(n_out + 1) * (n_in / n_out)  # output cell edges in input units
    rows, cols, weights = [], [], []
    for out in range(n_out):
        lo, hi = edges[out], edges[out + 1]
        cells = np.arange(int(math.floor(lo)), min(int(math.ceil(hi)), n_in))
        overlap = np.minimum(cells + 1, hi) - np.maximum(cells, lo)
        keep = overlap > 1e-12
        rows.append(np.full(int(keep.sum()), out))
        cols.append(cells[keep])
        weights.append(overlap[keep] / (hi - lo))
    return sparse.csr_matrix(
        (np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_out, n_in),
    )


class _Resizer:
    """Area-averaging downscale of (H, W, 3) frames to (height, width)."""

    def __init__(self, source_shape: tuple[int, int], target_shape: tuple[int, int]):
        (h_in, w_in), (h_out, w_out) = source_shape, target_shape
        self.target = target_shape
        self.identity = source_shape == target_shape
        self.block = None if h_in % h_out or w_in % w_out else (h_in // h_out, w_in // w_out)
        if not self.identity and self.block is None:
            self.rows = _area_matrix(h_in, h_out)
            self.cols = _area_matrix(w_in, w_out)

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        if self.identity:
            return frame
        h_out, w_out = self.target
        if self.block is not None:  # integer factors: plain block mean
            bh, bw = self.block
            return frame.reshape(h_out, bh, w_out, bw, 3).mean(axis=(1, 3))
        h_in, w_in = frame.shape[:2]
        tall = self.rows @ frame.reshape(h_in, w_in * 3)  # (h_out, w_in * 3)
        wide = tall.reshape(h_out, w_in, 3).transpose(1, 0, 2).reshape(w_in, h_out * 3)
        return (self.cols @ wide).reshape(w_out, h_out, 3).transpose(1, 0, 2)


def _target_shape(size: Any, height: int, width: int) -> tuple[int, int]:
    """(height, width) to resize to, from ``size`` = None, a scale or (W, H)."""
    if size is None:
        return height, width
    if isinstance(size, (int, float, np.integer, np.floating)) and not isinstance(size, bool):
        if not (math.isfinite(size) and 0 < size <= 1):
            raise ValueError(f"size as a scale must be a number in (0, 1], got {size!r}")
        target = (max(1, round(height * size)), max(1, round(width * size)))
    else:
        try:
            new_width, new_height = size
        except (TypeError, ValueError):
            raise ValueError(
                f"size must be None, a scale in (0, 1] or a (width, height) pair, got {size!r}"
            ) from None
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1
                   for v in (new_width, new_height)):
            raise ValueError(f"size must hold two positive ints (width, height), got {size!r}")
        target = (int(new_height), int(new_width))
    if target[0] > height or target[1] > width:
        raise ValueError(
            f"size {target[1]} x {target[0]} (W x H) is larger than the source frames "
            f"({width} x {height}); load_video only downscales"
        )
    if target[0] * target[1] < 2:
        raise ValueError(f"size {target[1]} x {target[0]} leaves fewer than 2 pixels per frame")
    return target


def _as_rgb(frame: np.ndarray, where: str) -> np.ndarray:
    """One frame as float64 (H, W, 3) in [0, 1]: grey is repeated, alpha dropped."""
    frame = np.asarray(frame)
    if frame.ndim == 2:
        frame = frame[..., None]
    if frame.ndim != 3 or frame.shape[2] not in (1, 3, 4):
        raise ValueError(
            f"{where}: a frame must have shape (H, W), (H, W, 1), (H, W, 3) or (H, W, 4), "
            f"got {frame.shape}"
        )
    if frame.shape[2] == 1:
        frame = np.repeat(frame, 3, axis=2)
    frame = frame[..., :3]  # drop alpha
    if frame.dtype.kind == "u":
        if frame.dtype.itemsize > 2:
            raise ValueError(f"{where}: unsigned frames must be uint8 or uint16, got {frame.dtype}")
        return frame.astype(np.float64) / np.iinfo(frame.dtype).max
    if frame.dtype.kind == "f":
        frame = frame.astype(np.float64)
        if not np.isfinite(frame).all():
            raise ValueError(f"{where}: holds non-finite values (NaN or inf)")
        if frame.min() < 0 or frame.max() > 1:
            raise ValueError(
                f"{where}: float values must lie in [0, 1], got [{frame.min():g}, {frame.max():g}]"
            )
        return frame
    raise ValueError(
        f"{where}: frames must be uint8, uint16 or float in [0, 1], got dtype {frame.dtype}"
    )


def _select(frames: Any, stride: int, limit: Any) -> Any:
    """Iterator over (source index, frame) after the ``frames`` selection and ``stride``."""
    indexed = enumerate(frames)
    if isinstance(limit, slice):
        if any(v is not None and v < 0 for v in (limit.start, limit.stop, limit.step)):
            materialised = list(indexed)  # negative indices need the length
            indexed = iter(materialised[limit])
        else:
            indexed = islice(indexed, limit.start, limit.stop, limit.step)
    indexed = islice(indexed, None, None, stride)
    if isinstance(limit, (int, np.integer)):
        indexed = islice(indexed, int(limit))
    return indexed


def _check_load_args(stride: Any, frames: Any) -> None:
    check_argument("load_video", "stride", stride, "int", default=1, low=1)
    if frames is None or isinstance(frames, slice):
        if isinstance(frames, slice):
            for part in (frames.start, frames.stop, frames.step):
                if part is not None and (isinstance(part, bool)
                                         or not isinstance(part, (int, np.integer))):
                    raise ValueError(f"frames slice must hold ints or None, got {frames!r}")
            if frames.step is not None and frames.step < 1:
                raise ValueError(f"frames slice step must be >= 1, got {frames!r}")
        return
    if isinstance(frames, (bool, np.bool_)) or not isinstance(frames, (int, np.integer)):
        raise TypeError(f"load_video: frames must be None, an int >= 1 or a slice, got {frames!r}")
    check_argument("load_video", "frames", frames, "int", default=None, low=1)


def _short_error(exc: BaseException) -> str:
    """First and last non-empty lines of an exception (ffmpeg appends its whole log)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    if len(lines) == 1:
        return lines[0]
    return f"{lines[0]} ... {lines[-1]}"


def _import_imageio():
    try:
        import imageio.v3 as iio
    except ImportError as exc:
        raise ImportError(
            'load_video needs imageio (and imageio-ffmpeg for mp4/avi/...) to read files: '
            'pip install "ercot-nb[video]"'
        ) from exc
    return iio


def _file_frames(path: Path, iio: Any):
    """Frames of one video / animated image file; a reader error becomes a ValueError."""
    try:
        yield from iio.imiter(path)
    except Exception as exc:  # noqa: BLE001 - re-raised naming the file, chained
        raise ValueError(f"cannot read video file {str(path)!r}: {_short_error(exc)}") from exc


def _file_fps(path: Path, iio: Any) -> float | None:
    try:
        meta = iio.immeta(path)
    except Exception:  # noqa: BLE001 - fps is optional; the frames are read separately
        return None
    fps = meta.get("fps")
    if fps is None and meta.get("duration"):
        duration = meta["duration"]  # GIF: milliseconds per frame
        fps = 1000.0 / duration if duration > 0 else None
    return float(fps) if fps and math.isfinite(fps) else None


def _image_paths(source: Any) -> list[Path] | None:
    """The image files of a directory or list of paths, or None for a single file."""
    if isinstance(source, (list, tuple)):
        paths = [Path(p) for p in source]
        if not paths:
            raise ValueError("source is an empty list of image files")
        return paths
    path = Path(source)
    if path.is_dir():
        paths = sorted(p for p in path.iterdir() if p.suffix.lower() in _IMAGE_SUFFIXES)
        if not paths:
            raise ValueError(
                f"source directory {str(path)!r} holds no image files "
                f"({', '.join(_IMAGE_SUFFIXES)})"
            )
        return paths
    return None


def _read_images(paths: list[Path], iio: Any):
    """One frame per image file; a reader error becomes a ValueError naming the file."""
    for path in paths:
        try:
            yield iio.imread(path)
        except Exception as exc:  # noqa: BLE001 - re-raised naming the file, chained
            raise ValueError(f"cannot read image file {str(path)!r}: {_short_error(exc)}") from exc


def _open_source(source: Any) -> tuple[Any, str | list[str], str, str, float | None]:
    """Frames iterable, source text, default name, reader description and fps of a source."""
    if isinstance(source, np.ndarray):
        if source.ndim not in (3, 4):
            raise ValueError(
                "source array must have shape (T, H, W, 3), (T, H, W, 4) or (T, H, W) (grey), "
                f"got {source.shape}"
            )
        return iter(source), "array", "video", "source array", None
    if isinstance(source, (list, tuple)):
        bad = [p for p in source if not isinstance(p, (str, os.PathLike))]
        if bad:
            raise TypeError(
                "source as a list must hold image file paths (str or PathLike), got "
                f"{type(bad[0]).__name__}; pass frames as one NumPy array instead"
            )
    elif not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            "source must be a path, a list of image paths or a NumPy array, "
            f"got {type(source).__name__}"
        )
    paths = _image_paths(source)
    for path in paths if paths is not None else [Path(source)]:
        if not path.exists():
            raise FileNotFoundError(f"video source not found: {str(path)!r}")
    iio = _import_imageio()
    if paths is None:  # one video / animated image file
        path = Path(source)
        return _file_frames(path, iio), str(path), path.stem or "video", str(path), _file_fps(
            path, iio)
    if isinstance(source, (list, tuple)):
        return _read_images(paths, iio), [str(p) for p in paths], "video", "image list", None
    folder = Path(source)
    return _read_images(paths, iio), str(folder), folder.name or "video", str(folder), None


def load_video(
    source: str | os.PathLike | np.ndarray | Sequence[str | os.PathLike],
    size: tuple[int, int] | float | None = None,
    frames: int | slice | None = None,
    stride: int = 1,
    position: bool = False,
    name: str | None = None,
    *,
    position_weight: float = DEFAULT_POSITION_WEIGHT,
) -> TemporalDataset:
    """Load a video (file, image folder or array) as a pixel-clustering dataset.

    Each kept frame becomes a time step (times 1..T) whose samples are its
    pixels (id = ``row * W + col``) with features r, g, b in [0, 1] (and
    optionally row, col); see :mod:`ercot_nb.datasets._video` for the
    contract.  Frames are downscaled by area averaging (a plain block mean
    when the factors are integers), so a 640 x 360 clip can be clustered in
    seconds.  Frames are read one at a time and only the kept ones are
    converted, so long videos can be sampled with ``frames`` and ``stride``.

    Parameters
    ----------
    source : path, list of paths or ndarray
        A video or animated image file that ``imageio.v3`` reads (mp4, avi,
        mov, ... via imageio-ffmpeg; gif, png, ... via Pillow); a directory
        of image files (taken in name order) or a list of image file paths,
        one frame each; or an array of shape (T, H, W, 3), (T, H, W, 4)
        (alpha dropped) or (T, H, W) (grey, repeated to r = g = b), of dtype
        uint8 / uint16 (divided by the dtype maximum) or float in [0, 1].
        Arrays need no imageio.
    size : (int, int), float or None, default=None
        Target ``(width, height)`` in pixels, or a scale factor in (0, 1]
        (sides rounded), or None to keep the source size.  Only downscaling.
    frames : int, slice or None, default=None
        An int keeps at most that many frames (after ``stride``); a slice
        selects source frames by index before ``stride`` is applied
        (``frames=slice(10, 50), stride=5`` keeps frames 10, 15, ..., 45).
    stride : int, default=1
        Keep every ``stride``-th frame.
    position : bool, default=False
        Add the features ``row`` and ``col`` (scaled to [0, 1]).
    name : str or None, default=None
        Dataset name; default the file (or directory) stem, ``"video"`` for
        an array.
    position_weight : float, default=0.5
        Factor applied to the position features.

    Returns
    -------
    TemporalDataset
        No labels.  ``metadata`` holds ``kind`` ("video"), ``frame_shape``
        (H, W) after resizing, ``source_frame_shape`` (H, W) before it,
        ``source`` (the path(s) as str, or "array"), ``fps`` (float, or None
        when unknown), ``frame_indices`` (source index of each kept frame),
        ``description`` and ``params``.

    Raises
    ------
    FileNotFoundError
        If a source path does not exist (the message names it).
    ImportError
        If a file is given and imageio is not installed
        (``pip install "ercot-nb[video]"``).
    ValueError
        If a file cannot be decoded (the message names the file and the
        reader's error, which is chained), no frame is selected, frames
        have the wrong shape, dtype, range or non-finite values, frame sizes
        differ, or ``size``, ``frames``, ``stride`` or ``position_weight`` is
        out of range (the message names the parameter).
    TypeError
        If ``frames``, ``stride``, ``position`` or ``position_weight`` has the
        wrong type (a bool for an int, e.g.).

    Examples
    --------
    >>> import numpy as np
    >>> from ercot_nb.datasets import load_video
    >>> clip = np.zeros((4, 36, 64, 3), dtype=np.uint8)
    >>> load_video(clip, size=0.5, stride=2)
    TemporalDataset(name='video', steps=2, features=3, samples=576..576, labels=no)
    """
    _check_load_args(stride, frames)
    check_position(position, position_weight)
    frame_source, source_text, default_name, reading, fps = _open_source(source)

    kept, indices = [], []
    resizer: _Resizer | None = None
    source_shape: tuple[int, int] | None = None
    for index, raw in _select(frame_source, int(stride), frames):
        where = f"frame {index} of {reading}"
        rgb = _as_rgb(raw, where)
        if resizer is None:
            source_shape = rgb.shape[:2]
            resizer = _Resizer(source_shape, _target_shape(size, *source_shape))
        elif rgb.shape[:2] != source_shape:
            raise ValueError(
                f"{where}: has size {rgb.shape[1]} x {rgb.shape[0]} but the first kept "
                f"frame has {source_shape[1]} x {source_shape[0]}; frames must share one size"
            )
        kept.append(resizer(rgb))
        indices.append(int(index))

    if not kept:
        raise ValueError(
            f"no frame selected from {reading} (frames={frames!r}, stride={stride!r}); "
            "the source has no frames or the selection is empty"
        )
    assert source_shape is not None and resizer is not None
    height, width = resizer.target
    params = {"size": size, "frames": frames, "stride": int(stride), "position": bool(position),
              "position_weight": position_weight}
    description = (
        f"video from {reading}: "
        f"{len(kept)} frame(s) (source indices {indices[0]}..{indices[-1]}, stride {stride}) at "
        f"{width} x {height} pixels (W x H; source {source_shape[1]} x {source_shape[0]}); "
        "samples are pixels (id = row * W + col), features r, g, b in [0, 1]"
        + (f" and row, col scaled to [0, {position_weight:g}]" if position else "")
        + "; no ground-truth labels."
    )
    metadata = {
        "description": description,
        "params": params,
        "source": source_text,
        "source_frame_shape": (int(source_shape[0]), int(source_shape[1])),
        "fps": fps,
        "frame_indices": indices,
        "k": None,
    }
    return video_dataset(kept, None, position=position, position_weight=position_weight,
                    name=default_name if name is None else str(name), metadata=metadata)
