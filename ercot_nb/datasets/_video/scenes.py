"""The procedural scenes video_bt, video_mo and video_rc: geometry, texture, light and noise."""
from __future__ import annotations

import math
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...data import TemporalDataset
from ...paper import dataset_numbers
from ...params import Param, with_params
from .._seed import DATA_SEED
from .frames import (
    DEFAULT_NOISE,
    DEFAULT_POSITION_WEIGHT,
    MIN_SIDE,
    check_position,
    pixel_features,
    position_columns,
    stream,
    video_dataset,
)

__all__ = ["video_bt", "video_mo", "video_rc"]

_TEXTURE_STREAM, _LIGHT_STREAM, _NOISE_STREAM = range(3)
_N_WAVES = 3  # sinusoids per segment texture
_LIGHT_JITTER = 0.05  # seeded shift of each scene's light centre (height units)
# Labels of one frame from pixel-centre coordinates (x, y) and the time t.
Geometry = Callable[[np.ndarray, np.ndarray, int], np.ndarray]


@dataclass(frozen=True)
class _Scene:
    """Everything that defines a built-in scene besides the seed."""

    name: str
    width: int  # paper frame size
    height: int
    n_frames: int
    segments: tuple[str, ...]
    colours: tuple[tuple[float, float, float], ...]  # base RGB per segment
    texture_amplitude: tuple[float, ...]  # total amplitude of each segment's texture
    texture_cycles: tuple[tuple[float, float], ...]  # spatial frequency range per segment
    geometry: Geometry
    # Texture displacement (dx, dy) of segment s at time t (moves with the object).
    texture_shift: Callable[[int, int], tuple[float, float]]
    ripple: tuple[float, ...]  # texture phase change per frame (radians) per segment
    light_start: tuple[float, float]  # light centre (x, y) at t = 1, before a seeded jitter
    vignette: float  # light falls by this fraction from the light centre to distance 1
    light_drift: float  # light centre moves this far (height units) per frame
    light_level: float  # relative amplitude of the slow global brightness change
    story: str  # the scenario in words, for metadata["description"]


def _rect(x, y, x0, x1, y0, y1):
    return (x >= x0) & (x < x1) & (y >= y0) & (y < y1)


def _ellipse(x, y, cx, cy, rx, ry):
    return ((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2 <= 1.0


def _rotated_rects(x, y, cx, cy, degrees, rects):
    """Union of axis-aligned rectangles given in a frame centred at (cx, cy), rotated."""
    angle = math.radians(degrees)
    dx, dy = x - cx, y - cy
    u = math.cos(angle) * dx + math.sin(angle) * dy  # inverse rotation to local axes
    v = -math.sin(angle) * dx + math.cos(angle) * dy
    mask = np.zeros(x.shape, dtype=bool)
    for u0, u1, v0, v1 in rects:
        mask |= _rect(u, v, u0, u1, v0, v1)
    return mask


_BT_HORIZON = 0.42
_BT_LAMP = (1.05, 0.14, 0.045)  # centre x, y and radius of the lighthouse lamp


def _bt_lamp_on(t: int) -> bool:
    """The lamp blinks in runs of three frames: off 1-3, on 4-6, off 7-9, on 10-12, ..."""
    return ((t - 1) // 3) % 2 == 1


def _bt_geometry(x: np.ndarray, y: np.ndarray, t: int) -> np.ndarray:
    labels = np.where(y < _BT_HORIZON, 0, 1)  # sky, water
    depth = y - 0.62
    hull = (depth >= 0) & (depth < 0.10) & (x >= 0.22 + 0.8 * depth) & (x < 0.66 - 0.8 * depth)
    labels[hull | _rect(x, y, 0.33, 0.48, 0.55, 0.62)] = 2  # boat: hull and cabin
    cx, cy, radius = _BT_LAMP
    lamp = _ellipse(x, y, cx, cy, radius, radius)
    labels[_rect(x, y, 1.00, 1.10, 0.18, 0.70) | lamp] = 3  # lighthouse (lamp housing when off)
    if _bt_lamp_on(t):
        labels[lamp] = 4
    return labels


def _bt_shift(segment: int, t: int) -> tuple[float, float]:
    return (0.02 * t, 0.0) if segment == 0 else (0.0, 0.0)  # clouds drift, the rest stays


_BT = _Scene(
    name="video_bt",
    width=320,
    height=240,
    n_frames=12,
    segments=("sky", "water", "boat", "lighthouse", "lamp"),
    colours=(
        (0.52, 0.66, 0.84),
        (0.32, 0.48, 0.64),
        (0.62, 0.20, 0.16),
        (0.86, 0.84, 0.80),
        (1.00, 0.88, 0.40),
    ),
    texture_amplitude=(0.07, 0.12, 0.05, 0.05, 0.04),
    texture_cycles=((0.6, 1.6), (3.0, 9.0), (1.0, 3.0), (1.0, 3.0), (1.0, 2.0)),
    geometry=_bt_geometry,
    texture_shift=_bt_shift,
    ripple=(0.0, 1.1, 0.0, 0.0, 0.0),
    light_start=(0.60, 0.30),
    vignette=0.35,
    light_drift=0.03,
    light_level=0.06,
    story=(
        "a seascape with a dynamic background and static objects, after the paper's "
        "video_seg_BT: sky (segment 0, clouds drifting) above rippling water (1, its texture "
        "moves every frame), a static boat (2) and a static lighthouse (3) whose lamp (4) "
        "blinks: off at times 1-3, on at 4-6, off at 7-9, on at 10-12 (and so on), so the true "
        "number of segments alternates 4 <-> 5; an unlit lamp belongs to the lighthouse."
    ),
)
# Chair pose (centre x, centre y, rotation in degrees) from each change time on.
_MO_CHAIR_POSES = ((1, (0.36, 0.78, 0.0)), (4, (0.47, 0.80, 0.0)), (6, (0.47, 0.80, 28.0)),
                   (8, (0.30, 0.76, -18.0)))
_MO_CHAIR_PARTS = (  # seat, back, two legs, in the chair's own axes (u right, v down)
    (-0.08, 0.08, -0.025, 0.02),
    (0.05, 0.08, -0.17, -0.025),
    (-0.08, -0.06, 0.02, 0.12),
    (0.06, 0.08, 0.02, 0.12),
)


def _mo_chair_pose(t: int) -> tuple[float, float, float]:
    pose = _MO_CHAIR_POSES[0][1]
    for start, candidate in _MO_CHAIR_POSES:
        if t >= start:
            pose = candidate
    return pose


def _mo_geometry(x: np.ndarray, y: np.ndarray, t: int) -> np.ndarray:
    labels = np.where(y < 0.60, 0, 1)  # wall, floor
    labels[_rect(x, y, 0.15, 0.45, 0.10, 0.40)] = 2  # window
    labels[_rect(x, y, 0.85, 1.10, 0.15, 0.33)] = 3  # picture
    table = (
        _rect(x, y, 0.70, 1.15, 0.52, 0.58)
        | _rect(x, y, 0.73, 0.76, 0.58, 0.80)
        | _rect(x, y, 1.09, 1.12, 0.58, 0.80)
    )
    labels[table] = 4
    labels[_ellipse(x, y, 0.92, 0.42, 0.06, 0.045) | _rect(x, y, 0.91, 0.93, 0.46, 0.52)] = 5
    cx, cy, degrees = _mo_chair_pose(t)
    labels[_rotated_rects(x, y, cx, cy, degrees, _MO_CHAIR_PARTS)] = 6
    return labels


def _mo_shift(segment: int, t: int) -> tuple[float, float]:
    if segment == 6:
        cx, cy, _ = _mo_chair_pose(t)
        return cx, cy  # the chair's texture moves with it
    return 0.0, 0.0


_MO = _Scene(
    name="video_mo",
    width=160,
    height=120,
    n_frames=9,
    segments=("wall", "floor", "window", "picture", "table", "lamp", "chair"),
    colours=(
        (0.80, 0.74, 0.62),
        (0.55, 0.40, 0.27),
        (0.74, 0.84, 0.95),
        (0.30, 0.48, 0.34),
        (0.38, 0.25, 0.15),
        (0.96, 0.82, 0.48),
        (0.26, 0.32, 0.62),
    ),
    texture_amplitude=(0.05, 0.08, 0.04, 0.06, 0.05, 0.03, 0.05),
    texture_cycles=((0.5, 2.0), (2.0, 6.0), (0.5, 1.5), (3.0, 8.0), (2.0, 6.0), (1.0, 2.0),
                    (2.0, 5.0)),
    geometry=_mo_geometry,
    texture_shift=_mo_shift,
    ripple=(0.0,) * 7,
    light_start=(0.60, 0.35),
    vignette=0.45,
    light_drift=0.02,
    light_level=0.05,
    story=(
        "a room with a static object that changes position, after the paper's video_seg_MO: "
        "wall (0), floor (1), window (2), picture (3), table (4), lamp on the table (5) and a "
        "chair (6) that is moved at time 4, rotated at time 6 and moved and rotated back at "
        "time 8 (unchanged between those times and after time 8); 7 segments in every frame."
    ),
)
_RC_ASPECT = 640 / 360
_RC_PAN = 0.06  # background scroll per frame (height units)


def _rc_car_x(t: int) -> float:
    return 0.40 + 0.09 * (t - 1)


def _rc_ball(t: int) -> tuple[float, float]:
    return 1.30 - 0.07 * (t - 1), 0.22 - 0.01 * (t - 1)


def _rc_walker_x(t: int) -> float:
    """Centre x of the walker, who enters from the right edge at t = 5."""
    return _RC_ASPECT + 0.14 - 0.06 * (t - 4)


def _rc_geometry(x: np.ndarray, y: np.ndarray, t: int) -> np.ndarray:
    labels = np.zeros(x.shape, dtype=np.int64)  # background
    car = _rc_car_x(t)
    labels[_rect(x, y, car - 0.36, car + 0.36, 0.55, 0.85)
           | _rect(x, y, car - 0.20, car + 0.20, 0.40, 0.55)] = 1
    bx, by = _rc_ball(t)
    labels[_ellipse(x, y, bx, by, 0.15, 0.15)] = 2
    walker = _rc_walker_x(t)
    labels[_rect(x, y, walker - 0.13, walker + 0.13, 0.30, 0.95)
           | _ellipse(x, y, walker, 0.21, 0.09, 0.09)] = 3
    return labels


def _rc_shift(segment: int, t: int) -> tuple[float, float]:
    if segment == 0:
        return -_RC_PAN * t, 0.0
    if segment == 1:
        return _rc_car_x(t), 0.0
    if segment == 2:
        return _rc_ball(t)
    return _rc_walker_x(t), 0.0


_RC = _Scene(
    name="video_rc",
    width=640,
    height=360,
    n_frames=8,
    segments=("background", "car", "ball", "walker"),
    colours=(
        (0.48, 0.54, 0.42),
        (0.58, 0.30, 0.22),
        (0.82, 0.78, 0.45),
        (0.30, 0.36, 0.44),
    ),
    texture_amplitude=(0.12, 0.05, 0.05, 0.05),
    texture_cycles=((1.0, 5.0), (1.0, 3.0), (2.0, 4.0), (1.0, 3.0)),
    geometry=_rc_geometry,
    texture_shift=_rc_shift,
    ripple=(0.0,) * 4,
    light_start=(0.90, 0.40),
    vignette=0.30,
    light_drift=0.04,
    light_level=0.06,
    story=(
        "a panning camera with moving objects, after the paper's video_seg_RC: a textured "
        "background (0) scrolling left by 0.06 frame heights per frame, a car (1) driving "
        "right, a ball (2) flying left and a walker (3) who enters from the right edge "
        "at time 5 (absent at times 1-4), so the true number of segments goes 3 -> 4."
    ),
)
_SCENES = {scene.name: scene for scene in (_BT, _MO, _RC)}


def _check_scene_params(
    scene: _Scene, scale: Any, noise: Any, position: Any, position_weight: Any, n_frames: Any
) -> tuple[int, int]:
    """Validate the parameters; return the (height, width) to draw at."""
    if isinstance(n_frames, bool) or not isinstance(n_frames, (int, np.integer)) or n_frames < 1:
        raise ValueError(f"n_frames must be an int >= 1, got {n_frames!r}")
    if not (isinstance(noise, (int, float, np.integer, np.floating)) and not isinstance(noise, bool)
            and math.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")
    if not (isinstance(scale, (int, float, np.integer, np.floating)) and not isinstance(scale, bool)
            and math.isfinite(scale) and 0 < scale <= 1):
        raise ValueError(f"scale must be a number in (0, 1], got {scale!r}")
    check_position(position, position_weight)
    height, width = round(scene.height * scale), round(scene.width * scale)
    if min(height, width) < MIN_SIDE:
        raise ValueError(
            f"scale={scale!r} gives {width} x {height} pixels for {scene.name} "
            f"({scene.width} x {scene.height} at scale 1); each side needs at least {MIN_SIDE}"
        )
    return height, width


def _texture_waves(scene: _Scene, rng: np.random.Generator) -> list[np.ndarray]:
    """Per segment, rows (kx, ky, phase, amplitude) of its sinusoids (2 pi k = rad/unit)."""
    waves = []
    for amplitude, (low, high) in zip(scene.texture_amplitude, scene.texture_cycles):
        cycles = rng.uniform(low, high, _N_WAVES)
        direction = rng.uniform(0.0, np.pi, _N_WAVES)
        share = np.full(_N_WAVES, amplitude / _N_WAVES)
        phase = rng.uniform(0.0, 2 * np.pi, _N_WAVES)
        waves.append(np.column_stack([
            2 * np.pi * cycles * np.cos(direction), 2 * np.pi * cycles * np.sin(direction),
            phase, share,
        ]))
    return waves


def _render_scene(
    scene: _Scene,
    seed: int | None,
    scale: float,
    noise: float,
    position: bool,
    position_weight: float,
    n_frames: int,
) -> TemporalDataset:
    height, width = _check_scene_params(scene, scale, noise, position, position_weight, n_frames)
    entropy = np.random.SeedSequence(seed).entropy
    waves = _texture_waves(scene, stream(entropy, _TEXTURE_STREAM))
    light_rng = stream(entropy, _LIGHT_STREAM)
    noise_rng = stream(entropy, _NOISE_STREAM)

    aspect = scene.width / scene.height
    y = ((np.arange(height) + 0.5) / height)[:, None] * np.ones((1, width))
    x = ((np.arange(width) + 0.5) / width * aspect)[None, :] * np.ones((height, 1))
    jitter = light_rng.uniform(-_LIGHT_JITTER, _LIGHT_JITTER, 2)
    light_start = np.asarray(scene.light_start) + jitter
    light_heading = light_rng.uniform(0.0, 2 * np.pi)
    level_phase = light_rng.uniform(0.0, 2 * np.pi)
    colours = np.asarray(scene.colours)
    coords = position_columns(height, width, position_weight) if position else None

    frames, label_maps, true_means, true_mean_labels = [], [], [], []
    for t in range(1, n_frames + 1):
        labels = scene.geometry(x, y, t)
        centre = light_start + scene.light_drift * (t - 1) * np.array(
            [math.cos(light_heading), math.sin(light_heading)]
        )
        level = 1.0 + scene.light_level * math.sin(level_phase + 0.7 * t)
        light = level * (1.0 - scene.vignette * ((x - centre[0]) ** 2 + (y - centre[1]) ** 2))
        flat = labels.reshape(-1)
        counts = np.bincount(flat)
        present = np.flatnonzero(counts)
        texture = np.empty((height, width))
        for segment in present:
            mask = labels == segment
            dx, dy = scene.texture_shift(int(segment), t)
            kx, ky, phase, amplitude = waves[segment].T
            angles = np.outer(x[mask] - dx, kx) + np.outer(y[mask] - dy, ky)
            angles += phase + scene.ripple[segment] * t
            texture[mask] = np.sin(angles) @ amplitude
        clean = colours[labels]
        clean *= light[..., None]
        clean += texture[..., None]
        np.clip(clean, 0.0, 1.0, out=clean)
        if noise > 0:
            sensor = noise_rng.standard_normal(clean.shape, dtype=np.float32)
            sensor *= noise
            observed = np.clip(clean + sensor, 0.0, 1.0)
        else:
            observed = clean.copy()
        frames.append(observed)
        label_maps.append(labels)
        features = pixel_features(clean, coords)
        sums = np.column_stack(
            [np.bincount(flat, weights=column)[present] for column in features.T]
        )
        true_means.append(sums / counts[present, None])
        true_mean_labels.append(present.astype(np.int64))

    params = {
        "seed": entropy,
        "scale": scale,
        "noise": noise,
        "position": bool(position),
        "position_weight": position_weight,
        "n_frames": n_frames,
        "width": width,
        "height": height,
    }
    description = (
        f"{scene.name}: {width} x {height} pixels (W x H; {scene.width} x {scene.height} at "
        f"scale 1), {n_frames} frames; {scene.story} Pixel colour = base colour of its segment "
        f"x a smooth illumination field (vignette {scene.vignette:g} whose centre drifts "
        f"{scene.light_drift:g} frame heights per frame, brightness varying by "
        f"±{scene.light_level:g}) + a low-frequency seeded texture moving with its segment "
        f"+ Gaussian sensor noise (sd {noise:g}), clipped to [0, 1]. Samples are pixels "
        "(id = row * W + col), features r, g, b"
        + (f" and row, col scaled to [0, {position_weight:g}]" if position else "")
        + "; labels are the exact segment of each pixel from the scene geometry; the number "
        "of segments is treated as unknown (k=None)."
    )
    metadata = {
        "scenario": scene.name,
        "description": description,
        "params": params,
        "source": "procedural",
        "k": None,
        "segment_names": list(scene.segments),
        "true_means": true_means,
        "true_mean_labels": true_mean_labels,
        "paper": dataset_numbers(scene.name),
    }
    return video_dataset(frames, label_maps, position=position, position_weight=position_weight,
                    name=scene.name, metadata=metadata)


_SCENE_RAISES = """

    Raises
    ------
    ValueError
        For an invalid parameter value (the message names it).
    TypeError
        If ``position`` is not a bool.
"""


def _scene_doc(scene: _Scene, summary: str, example: str) -> str:
    def fill(text: str) -> str:
        return textwrap.fill(text, width=76, initial_indent="    ", subsequent_indent="    ")

    segments = ", ".join(f"{i} {name}" for i, name in enumerate(scene.segments))
    paper = ", ".join(f"{key} {value}" for key, value in dataset_numbers(scene.name).items())
    returns = (
        f"One step per frame, one sample per pixel (id = row * W + col), labels = exact "
        f"segment ({segments}); ``metadata`` holds ``kind``, ``frame_shape``, "
        "``description``, ``params``, ``source``, ``k`` (None), ``segment_names``, "
        "``true_means`` / ``true_mean_labels`` (per frame, the mean noise-free features of "
        f"each present segment) and ``paper`` ({paper})."
    )
    return (
        f"{summary}\n\n"
        + fill(f"A {scene.width} x {scene.height} (W x H) scene of {scene.n_frames} frames: "
               f"{scene.story}  See the module docstring for the colour model.")
        + "\n"
        + "\n    Returns\n    -------\n    TemporalDataset\n"
        + textwrap.indent(textwrap.fill(returns, width=72), "        ")
        + _SCENE_RAISES
        + f"\n    Examples\n    --------\n    >>> from ercot_nb import datasets\n"
        f"    >>> datasets.load({scene.name!r}, scale=0.25)\n    {example}\n"
    )


def _scene_loader(scene: _Scene, summary: str, example: str) -> Callable[..., TemporalDataset]:
    """The public function that draws ``scene`` (its name, defaults and docstring)."""

    def load(
        seed: int | None,
        *,
        scale: float,
        noise: float,
        position: bool,
        position_weight: float,
        n_frames: int,
    ) -> TemporalDataset:
        return _render_scene(scene, seed, scale, noise, position, position_weight, n_frames)

    load.__name__ = load.__qualname__ = scene.name
    load.__doc__ = _scene_doc(scene, summary, example)
    return with_params(_scene_params(scene))(load)


def _scene_params(scene: _Scene) -> tuple[Param, ...]:
    """The parameters of a scene's generator (its own default number of frames)."""
    return (
        replace(DATA_SEED, doc="Textures, illumination and sensor noise use independent random streams "
                               "(so changing noise keeps the noise-free frames); the geometry is fixed. "
                               "None draws fresh entropy, recorded in metadata['params']['seed']."),
        Param("scale", "float", 1.0, "frame scale", "Frame size relative to the paper's (each side >= 8 px).",
              low=0.0, low_open=True, high=1.0,
              doc="The geometry is drawn directly at round(W * scale) x round(H * scale) pixels."),
        Param("noise", "float", DEFAULT_NOISE, "sensor noise",
              "Standard deviation of the Gaussian sensor noise.", low=0.0, high=1e6, doc="In colour units."),
        Param("position", "bool", False, "position features", "Add row and col features after r, g, b.",
              doc="Scaled to [0, 1]."),
        Param("position_weight", "float", DEFAULT_POSITION_WEIGHT, "position weight",
              "Factor applied to the position features.", low=0.0, low_open=True, high=1e6),
        Param("n_frames", "int", scene.n_frames, "frames", "Number of frames (time steps).", low=1, high=10_000,
              doc="Time steps are 1..n_frames; the motion continues beyond the paper's length with the "
                  "same rules."),
    )


video_bt = _scene_loader(
    _BT, "Seascape video: rippling water and drifting clouds, static boat and lighthouse.",
    "TemporalDataset(name='video_bt', steps=12, features=3, samples=4800..4800, labels=yes)",
)
video_mo = _scene_loader(
    _MO, "Room video: a chair is moved and rotated between frames; 7 segments.",
    "TemporalDataset(name='video_mo', steps=9, features=3, samples=1200..1200, labels=yes)",
)
video_rc = _scene_loader(
    _RC, "Panning video: scrolling background, moving car and ball, a walker who enters.",
    "TemporalDataset(name='video_rc', steps=8, features=3, samples=14400..14400, labels=yes)",
)
