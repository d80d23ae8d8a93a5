"""Memory a fit of ERCOT / staticEC needs, estimated before anything is allocated.

Every parameter may be within its own limit (``ercot_nb.params``) while their
product is not: ``max_clusters=1000, pop_size=100000`` on 50 features makes
one population of 100,000 x 51,000 doubles (38 GiB).  :func:`check_fit_memory`
refuses such a fit with one message naming the parameters and the estimate,
instead of a raw ``MemoryError`` (or the machine swapping) midway.

The estimate counts the real dominant buffers of ``ercot_nb.evolution._engine`` and
``ercot_nb.evolution._nsga.evolve``; with P = pop_size x n_genes x 8 bytes
(n_genes = max_clusters x (1 + n_features)), one population:

* two union buffers of 2 x pop_size rows each (4 P), the initial population
  (1 P), the mutation draws of one generation (2 P), the centroid sums of
  the refinement (about 1 P) and, from the second step on, the carried-over
  population and the copy of the union that fitness accumulation evaluates
  on the previous step (about 3 P): 11 P while a step runs with the numba
  backend, 19 P with the NumPy twins (their mutation and initialisation
  make whole-population temporaries);
* the final population every finished step keeps in its result (1 P per step);
* per solution and centroid slot: the counts of the unions (int64) and the
  objectives; per sample: the data copies in the kernel precision and the
  NumPy backend's sample x centroid x feature differences.

A fit is refused when the estimate exceeds ``MEMORY_FRACTION`` (80%) of the
memory available now (``psutil.virtual_memory().available``, else
``os.sysconf``); when neither can tell, nothing is refused.
"""
from __future__ import annotations

import os

__all__ = ["MEMORY_FRACTION", "available_memory", "estimate_fit_bytes", "check_fit_memory"]

MEMORY_FRACTION = 0.8  # share of the available memory a fit may plan to use
# Populations alive at once during a step (see the module docstring).  Measured with tracemalloc on
# ERCOT fits of 1, 2 and 4 steps (pop_size=400, max_clusters=100, 30 features): peaks of 8.2, 13.1 and
# 15.1 populations with numba, 16.3, 19.1 and 23.2 with numpy; this estimate: 12, 13, 15 and 20, 21, 23.
_WORKING_POPULATIONS = {"numba": 11, "numpy": 19}


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation now, or None when unknown."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - psutil missing or unsupported here: try the OS
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def estimate_fit_bytes(*, pop_size: int, n_max: int, n_samples: int, n_features: int, n_steps: int = 1,
                       precision: str = "float64", backend: str = "numba") -> int:
    """Bytes a fit of ``n_steps`` steps needs at its peak (see the module docstring).

    Parameters
    ----------
    pop_size : int
    n_max : int
        Centroid slots per solution (``n_clusters``, else ``max_clusters``).
    n_samples : int
        Samples of the largest step.
    n_features : int
    n_steps : int, default=1
        Steps whose final populations the result keeps.
    precision : {"float64", "float32"}, default="float64"
        Precision of the sample copies the kernels read.
    backend : {"numba", "numpy"}, default="numba"

    Returns
    -------
    int
    """
    n_genes = n_max * (1 + n_features)
    population = pop_size * n_genes * 8
    per_slot = 4 * pop_size * n_max * 8 + 8 * pop_size * 8  # union counts; objectives, ranks, crowding
    sample_bytes = 4 if precision == "float32" else 8
    per_sample = n_samples * (4 * n_features * sample_bytes + n_max * (n_features + 2) * 8 + 32)
    working = _WORKING_POPULATIONS.get(backend, max(_WORKING_POPULATIONS.values()))
    return int((working + n_steps) * population + per_slot + per_sample)


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2**30:.3g} GiB" if n_bytes >= 2**30 else f"{n_bytes / 2**20:.3g} MiB"


def check_fit_memory(owner: str, *, pop_size: int, n_max: int, n_samples: int, n_features: int,
                     n_steps: int = 1, precision: str = "float64", backend: str = "numba",
                     max_clusters_name: str = "max_clusters") -> None:
    """Refuse a fit whose estimated memory exceeds ``MEMORY_FRACTION`` of the available memory.

    Raises
    ------
    ValueError
        Naming ``pop_size``, the centroid slots (``max_clusters`` or
        ``n_clusters``), the data's shape, the estimate, the available
        memory and what to lower.
    """
    needed = estimate_fit_bytes(pop_size=pop_size, n_max=n_max, n_samples=n_samples, n_features=n_features,
                                n_steps=n_steps, precision=precision, backend=backend)
    available = available_memory()
    if available is None or needed <= MEMORY_FRACTION * available:
        return
    population = pop_size * n_max * (1 + n_features) * 8
    raise ValueError(
        f"{owner}: this fit needs about {_gib(needed)} of memory but {_gib(available)} is available "
        f"(a fit may plan for {MEMORY_FRACTION:.0%} of it): pop_size={pop_size} solutions x "
        f"{max_clusters_name}={n_max} centroid slots x (1 + {n_features} features) make one population "
        f"of {_gib(population)}, and a step holds about {_WORKING_POPULATIONS.get(backend, 19)} of them plus one per "
        f"finished step ({n_steps} step(s)) on {n_samples} samples. Lower pop_size or {max_clusters_name} "
        "(or reduce the features), or fit on a machine with more memory"
    )
