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
memory available now to this process: the least of the machine's available
memory (``psutil.virtual_memory().available``, else ``os.sysconf``), the
headroom under this process's address-space and data limits
(``RLIMIT_AS``/``RLIMIT_DATA``: ``ulimit -v``, ``prlimit --as``) and under its
cgroup's memory limit (v2 ``memory.max``, v1 ``memory.limit_in_bytes``, the
cgroup and its parents: a container's or a systemd slice's cap).  The message
names the limit that applies.  When nothing can tell, nothing is refused.
"""
from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MEMORY_FRACTION", "available_memory", "memory_limit", "estimate_fit_bytes", "check_fit_memory"]

_PROC_CGROUP = Path("/proc/self/cgroup")
_CGROUP_ROOT = Path("/sys/fs/cgroup")
_UNLIMITED = 2**60  # cgroup v1 writes "no limit" as a page-rounded 2**63 - 1

MEMORY_FRACTION = 0.8  # share of the available memory a fit may plan to use
# Populations alive at once during a step (see the module docstring).  Measured with tracemalloc on
# ERCOT fits of 1, 2 and 4 steps (pop_size=400, max_clusters=100, 30 features): peaks of 8.2, 13.1 and
# 15.1 populations with numba, 16.3, 19.1 and 23.2 with numpy; this estimate: 12, 13, 15 and 20, 21, 23.
_WORKING_POPULATIONS = {"numba": 11, "numpy": 19}


def _machine_available() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - psutil missing or unsupported here: try the OS
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def _proc_status_bytes(field: str) -> int | None:
    """A ``kB`` field of ``/proc/self/status`` (``VmSize``, ``VmData``) in bytes."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _rlimit_headroom() -> list[tuple[int, str]]:
    """Bytes left under the address-space and data-segment limits of this process."""
    try:
        import resource
    except ImportError:  # not on this OS
        return []
    out = []
    for name, field, what in (("RLIMIT_AS", "VmSize", "the address-space limit (RLIMIT_AS: ulimit -v, "
                                                      "prlimit --as)"),
                              ("RLIMIT_DATA", "VmData", "the data-segment limit (RLIMIT_DATA: ulimit -d, "
                                                        "prlimit --data)")):
        kind = getattr(resource, name, None)
        if kind is None:
            continue
        try:
            soft, _ = resource.getrlimit(kind)
        except (OSError, ValueError):
            continue
        if soft == resource.RLIM_INFINITY or soft < 0:
            continue
        used = _proc_status_bytes(field) or 0
        out.append((max(int(soft) - used, 0), f"{what} of {_gib(soft)}, {_gib(used)} in use"))
    return out


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    if text == "max":
        return None
    try:
        value = int(text)
    except ValueError:
        return None
    return None if value >= _UNLIMITED else value


def _cgroup_headroom() -> list[tuple[int, str]]:
    """Bytes left under the memory limits of this process's cgroup and its parents (v2 and v1)."""
    try:
        lines = _PROC_CGROUP.read_text().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, relative = parts
        if controllers == "":  # v2: one unified hierarchy
            base, limit_file, usage_file = _CGROUP_ROOT, "memory.max", "memory.current"
        elif "memory" in controllers.split(","):
            base, limit_file, usage_file = _CGROUP_ROOT / "memory", "memory.limit_in_bytes", "memory.usage_in_bytes"
        else:
            continue
        folder = base / relative.lstrip("/")
        seen = set()
        # the cgroup and its parents (the tightest applies); the root too (a container's own view)
        for candidate in (folder, *folder.parents):
            if not str(candidate).startswith(str(base)) or candidate in seen:
                continue
            seen.add(candidate)
            limit = _read_int(candidate / limit_file)
            if limit is None:
                continue
            used = _read_int(candidate / usage_file) or 0
            out.append((max(limit - used, 0), f"the cgroup memory limit ({candidate / limit_file}) of "
                                              f"{_gib(limit)}, {_gib(used)} in use"))
    return out


def memory_limit() -> tuple[int, str] | None:
    """The memory a new allocation of this process can get now, and what sets it.

    Returns
    -------
    (int, str) or None
        Bytes, and the limit that gives them: ``"the machine's available
        memory"``, the address-space or data limit of this process, or its
        cgroup's memory limit (the least of them); None when none is known.
    """
    candidates = _rlimit_headroom() + _cgroup_headroom()
    machine = _machine_available()
    if machine is not None:
        candidates.append((machine, "the machine's available memory"))
    return min(candidates, key=lambda item: item[0]) if candidates else None


def available_memory() -> int | None:
    """Bytes of memory available to a new allocation of this process now, or None when unknown.

    The least of the machine's available memory and the headroom under this
    process's limits (see :func:`memory_limit`).
    """
    limit = memory_limit()
    return None if limit is None else limit[0]


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
    limit = memory_limit()
    if limit is None or needed <= MEMORY_FRACTION * limit[0]:
        return
    available, source = limit
    population = pop_size * n_max * (1 + n_features) * 8
    raise ValueError(
        f"{owner}: this fit needs about {_gib(needed)} of memory but {_gib(available)} is available "
        f"under {source} (a fit may plan for {MEMORY_FRACTION:.0%} of it): pop_size={pop_size} solutions x "
        f"{max_clusters_name}={n_max} centroid slots x (1 + {n_features} features) make one population "
        f"of {_gib(population)}, and a step holds about {_WORKING_POPULATIONS.get(backend, 19)} of them plus one per "
        f"finished step ({n_steps} step(s)) on {n_samples} samples. Lower pop_size or {max_clusters_name} "
        "(or reduce the features), or fit on a machine with more memory"
    )
