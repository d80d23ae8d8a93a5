"""The first eight cluster colours stay apart for the common colour-vision deficiencies (issue 36).

Each colour is seen through the Machado, Oliveira & Fernandes (2009) simulation matrices at
severity 1.0 (protanopia, deuteranopia, tritanopia), applied in linear sRGB, and compared in
CIELAB (D65): the least distance (ΔE76) between two of the first eight must stay at least
``MIN_DELTA_E``.  D3's first eight (the palette before) had 4.6 under protanopia.
"""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb.figures import cluster_colors

MACHADO_2009 = {
    "protanopia": [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                   [-0.003882, -0.048116, 1.051998]],
    "deuteranopia": [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                     [-0.011820, 0.042940, 0.968881]],
    "tritanopia": [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
                   [0.004733, 0.691367, 0.303900]],
}
MIN_DELTA_E = 15.0  # clearly different at a glance (ΔE76 of about 2 is just noticeable)
D3_FIRST_EIGHT = ["#1F77B4", "#FF7F0E", "#2CA02C", "#D62728", "#9467BD", "#8C564B", "#E377C2", "#7F7F7F"]
_SRGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                         [0.0193339, 0.1191920, 0.9503041]])
_WHITE = np.array([0.95047, 1.0, 1.08883])


def _linear(colors: list[str]) -> np.ndarray:
    srgb = np.array([[int(c[i:i + 2], 16) for i in (1, 3, 5)] for c in colors]) / 255
    return np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)


def _lab(linear: np.ndarray) -> np.ndarray:
    xyz = linear @ _SRGB_TO_XYZ.T / _WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=-1)


def least_distances(colors: list[str]) -> dict[str, float]:
    """The least pairwise ΔE76 of ``colors`` for normal vision and each simulated deficiency."""
    linear = _linear(colors)
    seen = {"normal": linear, **{name: np.clip(linear @ np.array(matrix).T, 0, 1)
                                 for name, matrix in MACHADO_2009.items()}}
    out = {}
    for name, rgb in seen.items():
        lab = _lab(rgb)
        distances = np.linalg.norm(lab[:, None] - lab[None], axis=-1)
        out[name] = float(distances[~np.eye(len(colors), dtype=bool)].min())
    return out


def test_the_simulation_tells_red_from_green_apart_only_for_normal_vision():
    """The check can fail: pure red and green are far apart, and close under deuteranopia."""
    red_green = least_distances(["#D62728", "#2CA02C"])
    assert red_green["normal"] > 50 and red_green["deuteranopia"] < 10


def test_d3s_first_eight_fail_the_check():
    before = least_distances(D3_FIRST_EIGHT)
    assert before["protanopia"] < MIN_DELTA_E and before["deuteranopia"] < MIN_DELTA_E


@pytest.mark.parametrize("vision", ["normal", *MACHADO_2009])
def test_the_first_eight_cluster_colours_stay_apart(vision):
    assert least_distances(cluster_colors(8))[vision] >= MIN_DELTA_E


def test_clusters_have_a_shape_as_well_as_a_colour():
    """Colour is not the only cue: the partition's clusters differ by marker symbol too."""
    from ercot_nb import ERCOT, datasets
    from ercot_nb.figures import partition_figure

    data = datasets.load("syn3", seed=0, n_steps=2)
    result = ERCOT(pop_size=20, n_evaluations=40, seed=0, n_clusters=4).fit(data).result_
    figure = partition_figure(data, result, t=0)
    clusters = [trace for trace in figure.data if trace.name.startswith("cluster ")]
    assert len(clusters) == 4 and len({trace.marker.symbol for trace in clusters}) == 4
