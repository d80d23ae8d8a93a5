"""Stacking weight of the historical model by EM (smoothness-weight tuning, step 4).

The weight a of phi_2 in the stack (1 - a) phi_1 + a phi_2 maximises the
log-likelihood of the samples; ``stacking_em`` finds it by EM from the two
log-likelihood columns, ``_stacking_alpha_exact`` by bisection (test oracle).
"""

from __future__ import annotations

import numpy as np

from ..kernels import get_backend

__all__ = ["stacking_em"]

def _finite_rows(loglik_curr: np.ndarray, loglik_prev: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drop rows where both log-likelihoods are -inf."""
    loglik_curr = np.asarray(loglik_curr, dtype=float).ravel()
    loglik_prev = np.asarray(loglik_prev, dtype=float).ravel()
    if loglik_curr.shape != loglik_prev.shape:
        raise ValueError("the two log-likelihood columns must have the same length")
    keep = ~(np.isneginf(loglik_curr) & np.isneginf(loglik_prev))
    return loglik_curr[keep], loglik_prev[keep]


def stacking_em(
    loglik_curr: np.ndarray,
    loglik_prev: np.ndarray,
    tol: float = 1e-10,
    max_iter: int = 100,
    backend: str = "numba",
) -> float:
    """Weight of the historical model in the stack (1-a) phi_1 + a phi_2, by EM.

    Works from log-likelihoods: the E-step only needs the ratio
    phi_1 / phi_2 = exp(log phi_1 - log phi_2), so no density is exponentiated
    (no underflow in D dimensions or for far samples). Starts at a = 0.5 and stops after `max_iter`
    iterations or when |a_new - a| < `tol`. Rows where both log-likelihoods
    are -inf are dropped.

    Parameters
    ----------
    loglik_curr : ndarray of shape (n,)
        log phi_1 (current model, out-of-sample) of each sample.
    loglik_prev : ndarray of shape (n,)
        log phi_2 (historical model) of each sample.
    tol : float, default=1e-10
    max_iter : int, default=100
    backend : {"numba", "numpy"}, default="numba"
        Kernel backend of the EM step.

    Returns
    -------
    float
        The weight a in [0, 1]; nan if no row is left.
    """
    ll_curr, ll_prev = _finite_rows(loglik_curr, loglik_prev)
    if ll_curr.size == 0:
        return float("nan")
    # Responsibility of phi_2: a phi_2 / ((1-a) phi_1 + a phi_2) = 1 / (1 + q rho)
    # with q = (1-a)/a and rho = phi_1/phi_2 = exp(log phi_1 - log phi_2). rho is
    # formed from the log-ratio only (no density is exponentiated); its overflow
    # to inf or underflow to 0 gives the correct responsibilities 0 and 1.
    with np.errstate(over="ignore"):
        density_ratio = np.exp(ll_curr - ll_prev)  # both-(-inf) rows were dropped
    # The EM loop runs in one kernel call (one call per iteration cost more than the loop).
    return float(get_backend(backend).stacking_em_loop(density_ratio, 0.5, float(tol), int(max_iter)))


def _stacking_alpha_exact(
    loglik_curr: np.ndarray, loglik_prev: np.ndarray, xtol: float = 1e-15
) -> float:
    """Exact maximiser of sum log((1-a) phi_1 + a phi_2) on [0, 1] (test oracle).

    Bisection on the decreasing derivative
    g(a) = sum (phi_2 - phi_1) / ((1-a) phi_1 + a phi_2); a = 0 if g(0) <= 0,
    a = 1 if g(1) >= 0. Each row is scaled by its larger density, which
    leaves every term of g unchanged and avoids underflow.
    """
    ll_curr, ll_prev = _finite_rows(loglik_curr, loglik_prev)
    if ll_curr.size == 0:
        return float("nan")
    row_max = np.maximum(ll_curr, ll_prev)
    phi_curr = np.exp(ll_curr - row_max)
    phi_prev = np.exp(ll_prev - row_max)

    def slope(alpha: float) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = (phi_prev - phi_curr) / ((1.0 - alpha) * phi_curr + alpha * phi_prev)
        # A zero mixture density only occurs at the boundary: the slope is +/-inf there.
        return float(np.sum(np.where(np.isnan(terms), 0.0, terms)))

    if slope(0.0) <= 0.0:
        return 0.0
    if slope(1.0) >= 0.0:
        return 1.0
    low, high = 0.0, 1.0
    while high - low > xtol:
        mid = 0.5 * (low + high)
        if slope(mid) > 0.0:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)
