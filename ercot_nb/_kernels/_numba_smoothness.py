"""Numba kernel of the smoothness-weight tuning: one EM step of the stacking weight."""
from __future__ import annotations

from numba import njit


@njit(cache=True, inline="always")  # inlined into stacking_em_loop: one compilation
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


@njit(cache=True)
def stacking_em_loop(density_ratio, alpha, tol, max_iter):  # pragma: no cover
    """EM of the stacking weight from ``alpha`` until it moves less than ``tol``.

    Repeats :func:`stacking_em_step` (clipped to [0, 1]) at most ``max_iter``
    times; 0 and 1 are fixed points and stop the loop.

    Returns
    -------
    float
        The last alpha.
    """
    for _ in range(max_iter):
        alpha_new = min(max(stacking_em_step(density_ratio, alpha), 0.0), 1.0)
        converged = abs(alpha_new - alpha) < tol
        alpha = alpha_new
        if converged or alpha == 0.0 or alpha == 1.0:
            break
    return alpha
