"""Downscaling in load_video is the exact area mean; why Pillow's BOX filter is not used for it."""
from __future__ import annotations

import numpy as np
import pytest

from ercot_nb.datasets import load_video


def area_mean_oracle(frame: np.ndarray, height: int, width: int) -> np.ndarray:
    """Brute force: each output pixel averages the source area it covers, weighted by overlap."""
    h_in, w_in = frame.shape[:2]

    def weights(n_in: int, n_out: int) -> np.ndarray:
        w = np.zeros((n_out, n_in))
        for out in range(n_out):
            lo, hi = out * n_in / n_out, (out + 1) * n_in / n_out
            for cell in range(n_in):
                w[out, cell] = max(0.0, min(cell + 1, hi) - max(cell, lo))
        return w / w.sum(axis=1, keepdims=True)

    rows, cols = weights(h_in, height), weights(w_in, width)
    return np.einsum("ij,jkc,lk->ilc", rows, frame, cols)


@pytest.mark.parametrize("source, target", [((12, 18), (6, 9)), ((37, 53), (7, 11)), ((20, 30), (13, 17))])
def test_downscaling_is_the_exact_area_mean(source, target):
    clip = np.random.default_rng(0).random((1, *source, 3))
    data = load_video(clip, size=target[::-1])
    expected = area_mean_oracle(clip[0], *target)
    np.testing.assert_allclose(data[0].X, expected.reshape(-1, 3), atol=1e-12)
    assert data[0].X.mean(axis=0) == pytest.approx(clip[0].reshape(-1, 3).mean(axis=0))  # area conserved


def test_pillow_box_agrees_only_for_whole_factors():
    Image = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(0)

    def pillow(frame, height, width):
        return np.stack([np.asarray(Image.fromarray(frame[..., c].astype(np.float32), mode="F")
                                    .resize((width, height), Image.Resampling.BOX), dtype=float)
                         for c in range(3)], axis=-1)

    whole = rng.random((12, 18, 3))
    assert np.abs(pillow(whole, 6, 9) - area_mean_oracle(whole, 6, 9)).max() < 1e-6
    ramp = np.repeat(np.arange(18.0)[None, :, None] / 17, 3, axis=2)  # one row, 18 -> 12 columns
    exact = area_mean_oracle(ramp, 1, 12)
    box = pillow(ramp, 1, 12)
    assert exact[0, 0, 0] == pytest.approx((0 + 0.5 / 17) / 1.5)  # 1 cell + half of the next
    assert abs(box[0, 0, 0] - exact[0, 0, 0]) > 0.005  # BOX weighs whole cells by their centres
    assert abs(box.mean() - ramp.mean()) > 0.005 and exact.mean() == pytest.approx(ramp.mean())
