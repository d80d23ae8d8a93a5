"""Video data: procedural scenes with exact per-pixel ground truth, and :func:`load_video`.

Every video dataset follows one contract, shared by figures and widgets:

* each frame is one time step, times ``1..T``;
* samples are pixels, all present in every frame; the id of the pixel at
  ``(row, col)`` of an ``H x W`` frame is ``row * W + col`` (int64, row-major);
* features are ``r, g, b`` in [0, 1] (always the first three columns); with
  ``position=True`` two more columns ``row, col``, scaled to [0, 1] (0 at the
  top/left edge pixel, 1 at the bottom/right one) and multiplied by
  ``position_weight`` (default 0.5, so colour stays the main cue: the largest
  position difference, ``0.5 * sqrt(2)``, is about 40 % of the largest colour
  difference, ``sqrt(3)``);
* ``metadata`` holds ``kind="video"``, ``frame_shape=(H, W)``,
  ``description``, ``params`` and ``source``; built-in scenes add the exact
  ground-truth segment of every pixel as labels (ints ``0..K-1``, the same
  segment keeps its label in every frame), ``segment_names``, ``true_means``
  and ``true_mean_labels`` (for :func:`ercot_nb.datasets.oracle_partition`)
  and ``paper`` (the published numbers of the matching video of the paper).

The three scenes mirror the paper's video background segmentation cases
(``video_seg_BT``, ``video_seg_MO``, ``video_seg_RC``) in size, number of
frames and number of segments, but are drawn from simple geometry, so the
ground truth is exact.  A pixel's colour is

``clip(clip(base[s] * light(x, y, t) + texture_s(x, y, t)) + noise, 0, 1)``

with ``s`` its segment, ``base`` the segment's RGB colour, ``light`` a smooth
illumination field (a vignette whose centre drifts and whose level changes
slowly over the frames), ``texture_s`` a low-frequency grey pattern (a sum of
seeded sinusoids, moving with the segment, rippling or scrolling over time)
and ``noise`` i.i.d. Gaussian sensor noise per pixel, channel and frame.
Geometry is defined in units of the frame height (``y`` in [0, 1] from the
top, ``x`` in [0, W/H]) and evaluated at the pixel centres of the (possibly
downscaled) frame, so a downscaled scene has the same shapes, drawn at the
lower resolution (labels are not resampled).

The scenes are made hard enough that colour alone does not give the truth:
the nearest-true-mean-colour partition (:func:`ercot_nb.datasets.oracle_partition`)
scores mRI 0.926 (video_bt), 0.929 (video_mo) and 0.917 (video_rc) with
seed 0 at full size, and 0.87-0.94 over seeds 0-4, while putting every pixel
in one cluster scores 0.44, 0.37 and 0.63.
"""
from __future__ import annotations

from .files import load_video
from .scenes import video_bt, video_mo, video_rc

__all__ = ["video_bt", "video_mo", "video_rc", "load_video"]
