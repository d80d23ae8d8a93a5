"""The smoothness weight's pair kernel as ``smoothness_weight`` calls it: scratch and thread policy.

``smoothness_pair_alphas`` (``ercot_nb.kernels``) computes every matched
pair's stacking weight; for large work on several threads with free cores,
the engine's thread policy (``Engine.kernel_for``) picks its parallel
variant, which gives the same bits.
"""
from __future__ import annotations

import numpy as np

from ..kernels import get_backend, pair_alphas_scratch
from ._engine import Engine

PAIR_WORK_PER_ENTRY = 16
"""Work units (``Engine.PARALLEL_WORK``'s) per row of a matched pair and entry of its D x D scatter."""


def _pair_work(sizes_curr: np.ndarray, sizes_prev: np.ndarray, n_dims: int) -> int:
    """The work of ``smoothness_pair_alphas`` in the units of ``Engine.PARALLEL_WORK``.

    Rows of the matched pairs x D^2 x :data:`PAIR_WORK_PER_ENTRY`: at D = 3
    the parallel variant from about 28,000 pair rows (14,000 common samples).
    Measured on the 2-core development machine (two pairs, D = 3, 2 threads
    against 1, 2026-11-27): 2,000-10,000 common samples 1.04-1.10x, 15,000
    1.16x, 40,000 1.57x, 80,000 1.69x; 20-50 pairs of 1,000-6,000 rows
    (40,000-50,000 samples) 1.1-1.3x.
    """
    return int(sizes_curr.sum() + sizes_prev.sum()) * n_dims * n_dims * PAIR_WORK_PER_ENTRY


def _threads_of(backend: str):
    """``numba`` for the numba backend (its thread count is the policy's), None for the twins."""
    if backend != "numba":
        return None
    import numba

    return numba


def _readonly(X: np.ndarray) -> np.ndarray:
    """``X`` as a read-only, C-contiguous float64 view (copied only if it is not such an array).

    The kernel then sees one array type whatever the caller passes (a dataset's
    read-only array or a fresh one), so numba compiles it once."""
    view = np.ascontiguousarray(X, dtype=np.float64).view()
    view.flags.writeable = False
    return view


def pair_alphas(backend: str, X_curr, codes_curr, X_prev, codes_prev, X_curr_all, X_prev_all, code_pairs, order,
                 n_folds_max, sizes_curr, sizes_prev) -> tuple[np.ndarray, np.ndarray]:
    """alpha_i of every matched pair and the two steps' centres (means of ``X_curr_all`` and ``X_prev_all``).

    By the kernel ``smoothness_pair_alphas`` or, picked by the engine's thread
    policy (:meth:`Engine.kernel_for`: large work, several threads, free
    cores), its parallel variant, which gives the same bits.
    """
    kernels = get_backend(backend)
    n_common, n_dims = X_curr.shape
    n_bins = int(max(codes_curr.max(), codes_prev.max())) + 1 if n_common else 1
    kernel, threads = Engine.kernel_for(kernels, "smoothness_pair_alphas",
                                        _pair_work(sizes_curr, sizes_prev, n_dims), _threads_of(backend))
    scratch = pair_alphas_scratch(n_common, n_dims, n_bins)
    vecs = scratch[5]
    with threads:
        alpha_pairs = kernel(_readonly(X_curr), codes_curr, _readonly(X_prev), codes_prev,
                             _readonly(X_curr_all), _readonly(X_prev_all), code_pairs, order, n_folds_max, 1e-10,
                             100, *scratch, np.empty(code_pairs.shape[0]))
    return alpha_pairs, vecs[5:7].copy()
