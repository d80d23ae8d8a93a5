"""Numba kernel of the smoothness-weight tuning: one EM step of the stacking weight."""
from __future__ import annotations

from numba import njit


@njit(cache=True)
def stacking_em_step(density_ratio, alpha):  # pragma: no cover
    """One EM update of the weight of phi_2 in (1 - alpha) phi_1 + alpha phi_2.

    Parameters
    ----------
    density_ratio : ndarray of shape (n,)    IN, phi_1 / phi_2 per sample (may be 0 or inf)
    alpha : float                            IN, current weight, in (0, 1)

    Returns
    -------
    float
        Mean posterior responsibility of phi_2, the next alpha.
    """
    odds = (1.0 - alpha) / alpha
    total = 0.0
    for value in density_ratio:
        total += 1.0 / (1.0 + value * odds)
    return total / density_ratio.shape[0]
