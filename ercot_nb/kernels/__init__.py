"""Kernels of ERCOT's evolutionary clustering, in two interchangeable backends.

``get_backend("numba")`` returns the compiled kernels (compiled lazily on
first call, cached on disk), ``get_backend("numpy")`` their plain NumPy
twins.  Both expose the same functions with the same signatures:

=======================  ==================================================
``evaluate_population``  f_cp, f_sep and cluster sizes of every solution
``recentre_population``  one assign/average step (refinement, decode-encode)
``assign_nearest``       labels and distances of one chromosome
``binary_tournament``    NSGA-II crowded-comparison mating selection
``single_point_crossover`` crossover of consecutive parent pairs
``polynomial_mutation``  bounded polynomial mutation
``repair_min_active``    switch on masks until enough centroids are active
``nondominated_rank``    fast non-dominated sort
``nondominated_rank_two`` the same for two objectives, by a sweep
``crowding_distance``    crowding distance within each front
``environmental_selection`` rank, crowding and the survivors (two objectives)
``stacking_em_step``     one EM update of the smoothness stacking weight
``stacking_em_loop``     EM steps until convergence, in one call
``smoothness_pair_alphas`` the stacking weight of every matched pair of a step
=======================  ==================================================

The population kernels also come as ``*_parallel`` variants (same
signature, same result, spread over numba's threads; the twins alias them),
and so does ``smoothness_pair_alphas`` (within each pair: its rows in blocks
of :data:`SMOOTHNESS_BLOCK`, its folds in chunks; :func:`pair_alphas_scratch`
makes its scratch arrays).
The clustering kernels also read the samples in the layouts that the caller
makes once per data array with ``feature_major`` and ``with_ones`` (plain
NumPy, in the numba backend only; the twins take these arguments, optional
there, and ignore them).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

KERNEL_NAMES = (
    "evaluate_population",
    "recentre_population",
    "assign_nearest",
    "binary_tournament",
    "single_point_crossover",
    "polynomial_mutation",
    "repair_min_active",
    "nondominated_rank",
    "nondominated_rank_two",
    "crowding_distance",
    "environmental_selection",
    "stacking_em_step",
    "stacking_em_loop",
    "smoothness_pair_alphas",
    "evaluate_population_parallel",
    "recentre_population_parallel",
    "assign_nearest_parallel",
    "smoothness_pair_alphas_parallel",
)
# Plain NumPy functions of the numba backend only: the sample layouts its clustering kernels read.
SAMPLE_LAYOUTS = ("feature_major", "with_ones")
BACKENDS = ("numba", "numpy")
"""The kernels' backends (an estimator's ``backend=``)."""
BACKEND_WORDS = {"numba": "numba (compiled)", "numpy": "NumPy (plain twin)"}
MASK_ON = 0.5
"""A centroid slot is active when its mask gene is at least this (every kernel, twin and result)."""
SMOOTHNESS_BLOCK = 4096
"""Rows per block of every sum in ``smoothness_pair_alphas``: the partial sums of the blocks are
added in block order, so the result is the same for every thread count (not the thread count's
choice, and not to be changed between runs that should agree bit for bit)."""
_cache: dict[str, SimpleNamespace] = {}


def pair_alphas_scratch(n_common: int, n_dims: int, n_bins: int, block: int = SMOOTHNESS_BLOCK) -> tuple:
    """The arguments ``block`` to ``slot_values`` of ``smoothness_pair_alphas`` (scratch arrays).

    Parameters
    ----------
    n_common, n_dims : int
        Rows and columns of the common samples.
    n_bins : int
        One more than the largest cluster code of either step.
    block : int, default=SMOOTHNESS_BLOCK
        Rows per block of a sum.
    """
    n_slots = 2 * max(1, -(-n_common // block))  # A_t's blocks and A_{t-1}'s, each side at most n_common rows
    return (block, np.empty((2, n_common), dtype=np.int64), np.empty((2, n_bins + 1), dtype=np.int64),
            np.empty((2 * n_common, n_dims)), np.empty(n_common), np.empty((7, n_dims)),
            np.empty((2, n_dims, n_dims)), np.empty((n_slots, 2 * n_dims + 3, n_dims)), np.empty((n_slots, 2)))


def get_backend(name: str = "numba") -> SimpleNamespace:
    """Return the kernels of backend ``name`` (``"numba"`` or ``"numpy"``).

    Raises
    ------
    ValueError
        For an unknown backend.
    ImportError
        If a kernel of :data:`KERNEL_NAMES` (or, for numba, a sample layout) is missing
        from the backend's modules (never a namespace with a gap that fails later, mid-run).
    """
    if name not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {name!r}")
    if name not in _cache:
        if name == "numba":
            from . import _numba_clustering, _numba_evolution, _numba_smoothness

            modules = (_numba_clustering, _numba_evolution, _numba_smoothness)
        else:
            from . import _numpy_twins

            modules = (_numpy_twins,)
        kernels = {}
        required = KERNEL_NAMES + (SAMPLE_LAYOUTS if name == "numba" else ())
        for kernel in required:
            for module in modules:
                if hasattr(module, kernel):
                    kernels[kernel] = getattr(module, kernel)
                    break
        missing = [kernel for kernel in required if kernel not in kernels]
        if missing:
            raise ImportError(
                f"backend {name!r} lacks the kernel(s) {', '.join(missing)} (looked in "
                f"{', '.join(module.__name__ for module in modules)}); the installed ercot_nb is "
                "incomplete or mixed: reinstall it"
            )
        _cache[name] = SimpleNamespace(name=name, **kernels)
    return _cache[name]


# The first fit of a fresh install: a preview while these kernels compile.
from ._firstrun import interruptible_backend, preview_first_step  # noqa: E402
