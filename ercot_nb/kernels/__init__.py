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
signature, same result, spread over numba's threads; the twins alias them).
The clustering kernels also read the samples in the layouts that the caller
makes once per data array with ``feature_major`` and ``with_ones`` (plain
NumPy, in the numba backend only; the twins take these arguments, optional
there, and ignore them).
"""
from __future__ import annotations

from types import SimpleNamespace

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
)
# Plain NumPy functions of the numba backend only: the sample layouts its clustering kernels read.
SAMPLE_LAYOUTS = ("feature_major", "with_ones")
BACKENDS = ("numba", "numpy")
"""The kernels' backends (an estimator's ``backend=``)."""
BACKEND_WORDS = {"numba": "numba (compiled)", "numpy": "NumPy (plain twin)"}
MASK_ON = 0.5
"""A centroid slot is active when its mask gene is at least this (every kernel, twin and result)."""
_cache: dict[str, SimpleNamespace] = {}


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
