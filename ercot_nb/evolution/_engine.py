"""NSGA-II orchestration over the kernels: buffers, random draws, operators.

The engine owns no data and no history.  It turns an
``numpy.random.Generator`` into the explicit random arrays the kernels
consume, allocates the kernels' buffers once per shape, and composes the
kernels into the operators of one generation: random initialisation,
evaluation, offspring (tournament, crossover, mutation, repair, refinement)
and environmental selection.  Loops over generations and time steps belong
to the estimators.
"""
from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

import numpy as np

from .._cpu import OtherLoad, cpu_set
from ..kernels import interruptible_backend
from ..kernels import get_backend

# Choice sets of the search's settings, with words for a user interface (the values stay what runs).
SEPARATIONS = ("active", "nonempty")
"""Centroids ``f_sep`` is measured over (``separation=``)."""
SEPARATION_WORDS = {"active": "active centroids", "nonempty": "non-empty clusters"}
EMPTY_CLUSTERS = ("keep", "reseed")
"""What the refinement does with an active centroid without members (``empty_clusters=``)."""
EMPTY_WORDS = {"keep": "keep", "reseed": "reseed"}
PRECISIONS = ("float64", "float32")
"""Floating-point types of the sample-centroid distances (``precision=``)."""
PRECISION_WORDS = {"float64": "double (float64)", "float32": "single (float32, faster)"}

_NULL_CONTEXT = contextlib.nullcontext()  # reusable: one per process, not one per call


@dataclass(frozen=True)
class EAConfig:
    """Settings of the evolutionary search at one time step.

    Derived from an estimator's parameters by :meth:`from_params` (their specs,
    on :class:`~ercot_nb.evolution.EvolutionaryClustering`, say what each means);
    the fields hold what the kernels need, with no default of their own.

    Attributes
    ----------
    n_max : int
        C_max, the number of centroid slots per chromosome.
    n_features : int
        D.
    pop_size : int
        N (even).
    n_generations : int
        Reproduction rounds per step (G_max).
    crossover_rate : float
        Probability that a parent pair is crossed.
    mutation_rate_per_gene : float
        Probability that one gene is mutated.
    mutation_eta : float
        Distribution index of polynomial mutation.
    fixed_clusters : bool
        Every mask is pinned active (known number of clusters).
    refine : bool
        The estimator's ``refine``.
    separation : str
        The estimator's ``separation`` (one of :data:`~ercot_nb.evolution.SEPARATIONS`).
    reseed_empty : bool
        ``empty_clusters == "reseed"``.
    precision : str
        The estimator's ``precision`` (one of :data:`~ercot_nb.evolution.PRECISIONS`).
    """

    n_max: int
    n_features: int
    pop_size: int
    n_generations: int
    crossover_rate: float
    mutation_rate_per_gene: float
    mutation_eta: float
    fixed_clusters: bool
    refine: bool
    separation: str
    reseed_empty: bool
    precision: str

    @classmethod
    def from_params(cls, params, n_features: int) -> "EAConfig":
        """The settings of one step, derived from an estimator's parameters (``get_params()``).

        ``n_max`` is ``n_clusters`` when given, else ``max_clusters``;
        ``n_generations`` is ``n_evaluations // pop_size`` (one less with
        ``budget_mode="include_init"``); the per-gene mutation probability
        is ``mutation_rate / n_genes`` with ``mutation_mode="per_solution"``.
        """
        fixed = params["n_clusters"] is not None
        n_max = int(params["n_clusters"] if fixed else params["max_clusters"])
        n_genes = n_max * (1 + n_features)
        rate = params["mutation_rate"]
        if params["mutation_mode"] == "per_solution":
            rate = rate / n_genes
        generations = params["n_evaluations"] // params["pop_size"]
        if params["budget_mode"] == "include_init":
            generations -= 1
        return cls(
            n_max=n_max,
            n_features=n_features,
            pop_size=int(params["pop_size"]),
            n_generations=int(generations),
            crossover_rate=float(params["crossover_rate"]),
            mutation_rate_per_gene=float(min(rate, 1.0)),
            mutation_eta=float(params["mutation_eta"]),
            fixed_clusters=fixed,
            refine=bool(params["refine"]),
            separation=params["separation"],
            reseed_empty=params["empty_clusters"] == "reseed",
            precision=params["precision"],
        )

    @property
    def n_genes(self) -> int:
        return self.n_max * (1 + self.n_features)

    @property
    def min_active(self) -> int:
        return self.n_max if self.fixed_clusters else 2


class Engine:
    """Operators of ERCOT's NSGA-II over a kernel backend.

    Parameters
    ----------
    config : EAConfig
    backend : {"numba", "numpy"}
    """

    def __init__(self, config: EAConfig, backend: str = "numba") -> None:
        self.config = config
        self.kernels = get_backend(backend)
        if backend == "numpy":  # a first-step preview stops once the numba kernels are ready
            self.kernels = interruptible_backend(self.kernels)
        self._buffers: dict[tuple, np.ndarray] = {}
        self._copies: list[tuple[np.ndarray, np.ndarray]] = []
        self._layouts: list[tuple[np.ndarray, str, np.ndarray]] = []  # (original, kind, layout)
        self._bounds_of: tuple | None = None  # (X, lower, upper) of the last bounds() call
        self._numba = None
        if backend == "numba":
            import numba

            self._numba = numba

    # Thread policy.  A call whose work (samples x solutions x centroid slots)
    # is below PARALLEL_WORK runs the serial kernel: there threads cost more
    # than they save, and on a busy machine (a shared Binder node, another
    # process on one core) waiting for a descheduled thread costs milliseconds.
    # Larger calls run the parallel variant with dynamic scheduling (one
    # solution or sample block at a time), so a slow thread holds back little.
    # A busy machine also keeps calls serial: the parallel variant runs only
    # while other programs leave at least 1.5 cores of the process's CPU set
    # idle (free_cores: from the CPU counters since the last look, a fifth of
    # a second ago or more; where there are none, the 1-minute load average
    # less this process's own threads), so one core taken by another program
    # never makes the default slower than one thread.  PARALLEL_WORK = 0
    # forces the parallel variants whatever the load (warm-up, tests).
    # Serial and parallel kernels give identical results.
    PARALLEL_WORK = 4_000_000
    FREE_CORES = 1.5

    @classmethod
    def kernel_for(cls, kernels, name: str, work: int, numba_module=None):
        """The kernel the engine runs for ``work`` units, with the context to run it in.

        Parameters
        ----------
        kernels : namespace
            A backend (``ercot_nb.kernels.get_backend``).
        name : str
            A kernel name, e.g. ``"evaluate_population"``.
        work : int
            Samples x solutions x centroid slots of the call.
        numba_module : module or None
            ``numba`` for the numba backend (its thread count decides), None otherwise.

        Returns
        -------
        kernel, context
            The serial kernel and a null context, or for work of at least
            ``PARALLEL_WORK`` on several threads the parallel variant and
            numba's chunk-size context.
        """
        if (numba_module is not None and work >= cls.PARALLEL_WORK and numba_module.get_num_threads() > 1
                and (cls.PARALLEL_WORK == 0 or cls.free_cores() >= cls.FREE_CORES)):
            cls._own_load = float(numba_module.get_num_threads())
            return getattr(kernels, name + "_parallel"), numba_module.parallel_chunksize(1)
        if numba_module is not None:
            cls._own_load = 1.0
        return getattr(kernels, name), _NULL_CONTEXT

    # Threads this process kept busy at its last kernel call: its own share of the load average.
    _own_load = 1.0
    # Other programs' use of the CPU set, from the CPU counters (one reader per process).
    _other_load = OtherLoad()

    @classmethod
    def free_cores(cls) -> float:
        """Cores of this process's CPU set that other programs leave idle.

        From the CPU counters (``ercot_nb/_cpu.py``): the set's busy time
        since the previous look less this process's own CPU time, which
        notices a program started a moment ago.  Before a second look, or
        where the counters are unavailable, from the 1-minute load average,
        which counts this process too (``_own_load``: one thread when it last
        ran a serial kernel, numba's threads after a parallel one) and lags
        about a minute.  Where neither is available, every core of the set
        counts as free.
        """
        cores = len(cpu_set())
        others = cls._other_load.cores()
        if others is not None:
            return cores - others
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            return float(cores)
        return cores - max(0.0, load - cls._own_load)

    def _kernel(self, name: str, work: int):
        """The serial kernel ``name`` or, for large work on several threads, its parallel variant."""
        return self.kernel_for(self.kernels, name, work, self._numba)

    def _data(self, X: np.ndarray, dtype=np.float64) -> np.ndarray:
        """``X`` as a C-contiguous, writeable array of ``dtype`` (float64 by default).

        Every kernel then sees one array type, so numba compiles it once
        (a read-only dataset array and a fancy-indexed copy would otherwise
        compile twice).  Copies of read-only arrays are kept for the last few
        inputs, so the same dataset is copied once per step, not per call; a
        writeable array is copied afresh (it may change between calls).
        """
        if X.dtype == dtype and X.flags.c_contiguous and X.flags.writeable:
            return X
        for original, copy in self._copies:
            if original is X and copy.dtype == dtype:
                return copy
        copy = np.array(X, dtype=dtype, order="C")
        if not X.flags.writeable:
            self._copies = [(X, copy)] + self._copies[:3]
        return copy

    def _samples(self, X: np.ndarray) -> np.ndarray:
        """The samples ``X`` in the configured precision (``EAConfig.precision``), as ``_data``."""
        return self._data(X, np.float32 if self.config.precision == "float32" else np.float64)

    def _layout(self, X: np.ndarray, kind: str) -> np.ndarray | None:
        """The sample layout ``kind`` of ``X`` that the numba clustering kernels read.

        ``"xt"``: the feature-major copy, ``"xu"``: the copy with a column of
        ones (see ``feature_major`` and ``with_ones`` in
        ``ercot_nb/kernels/_numba_clustering.py``); ``None`` for the NumPy
        backend, which ignores them.  Made here, not in the kernels (a copy
        inside a kernel costs compile time in each kernel and a copy per
        call); kept for the last few read-only inputs, so a step's data is
        laid out once per step.
        """
        if self._numba is None:
            return None
        for original, k, layout in self._layouts:
            if original is X and k == kind:
                return layout
        make = self.kernels.feature_major if kind == "xt" else self.kernels.with_ones
        layout = make(self._samples(X))
        if not X.flags.writeable:  # a writeable array may change before the next call
            self._layouts = [(X, kind, layout)] + self._layouts[:5]
        return layout

    # -- buffers -----------------------------------------------------------
    def _buffer(self, name: str, shape: tuple, dtype=np.float64) -> np.ndarray:
        key = (name, shape, np.dtype(dtype).str)
        buf = self._buffers.get(key)
        if buf is None:
            buf = self._buffers[key] = np.empty(shape, dtype=dtype)
        return buf

    # -- chromosome helpers ------------------------------------------------
    def bounds(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Gene bounds at one step: masks in [0, 1], centroids in the data's box.

        The last result is reused when called again with the same read-only
        array (a step's data: the step and its generations ask twice); callers
        must not modify the returned arrays.
        """
        if self._bounds_of is not None and self._bounds_of[0] is X and not X.flags.writeable:
            return self._bounds_of[1], self._bounds_of[2]
        cfg = self.config
        lower = np.concatenate([np.zeros(cfg.n_max), np.tile(X.min(axis=0), cfg.n_max)])
        upper = np.concatenate([np.ones(cfg.n_max), np.tile(X.max(axis=0), cfg.n_max)])
        self._bounds_of = (X, lower, upper)
        return lower, upper

    def _pin_or_repair(self, pop: np.ndarray, rng: np.random.Generator) -> None:
        cfg = self.config
        if cfg.fixed_clusters:
            pop[:, : cfg.n_max] = 1.0
            return
        # one draw for both arrays: the same numbers as two draws in turn, at one call's cost
        pick, value = rng.random((2, len(pop), cfg.min_active))
        self.kernels.repair_min_active(pop, cfg.n_max, cfg.min_active, pick, value)

    def random_population(
        self, rng: np.random.Generator, n: int, lower: np.ndarray, upper: np.ndarray
    ) -> np.ndarray:
        """``n`` random chromosomes: masks ~ U(0,1), centroids ~ U(box), repaired."""
        pop = lower + rng.random((n, self.config.n_genes)) * (upper - lower)
        self._pin_or_repair(pop, rng)
        return pop

    # -- evaluation ----------------------------------------------------------
    def evaluate(self, X: np.ndarray, pop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Objectives ``(f_cp, f_sep)`` of shape (n, 2) and members per centroid."""
        cfg = self.config
        n = len(pop)
        F = np.empty((2, n))
        counts = np.empty((n, cfg.n_max), dtype=np.int64)
        kernel, threads = self._kernel("evaluate_population", n * len(X) * cfg.n_max)
        with threads:
            kernel(self._samples(X), self._data(pop), cfg.n_max, cfg.separation == "nonempty",
                   F[0], F[1], counts, self._layout(X, "xt"))
        return F.T.copy(), counts

    def recentre(self, X_assign: np.ndarray, X_update: np.ndarray, pop: np.ndarray,
                 reseed_empty: bool = False) -> None:
        """Assign with ``X_assign``, move active centroids to means of ``X_update`` (in place)."""
        cfg = self.config
        if not (pop.flags.c_contiguous and pop.flags.writeable and pop.dtype == np.float64):
            raise ValueError("recentre works in place: pop must be a writeable C-contiguous float64 array")
        sums = self._buffer("sums", (len(pop), cfg.n_max, cfg.n_features))
        counts = self._buffer("counts", (len(pop), cfg.n_max), np.int64)
        kernel, threads = self._kernel("recentre_population", len(pop) * len(X_assign) * cfg.n_max)
        with threads:
            kernel(self._samples(X_assign), self._samples(X_update), pop, cfg.n_max, bool(reseed_empty),
                   sums, counts, self._layout(X_assign, "xt"), self._layout(X_update, "xu"))

    def assign(self, X: np.ndarray, chromosome: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Nearest active centroid index and distance of every sample."""
        labels = np.empty(len(X), dtype=np.int64)
        distances = np.empty(len(X))
        kernel, threads = self._kernel("assign_nearest", len(X) * self.config.n_max)
        with threads:
            kernel(self._samples(X), self._data(chromosome), self.config.n_max, labels, distances,
                   self._layout(X, "xt"))
        return labels, distances

    # -- selection -----------------------------------------------------------
    def rank_and_crowding(self, F: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Front index and crowding distance of every row of ``F``."""
        n = len(F)
        rank = np.empty(n, dtype=np.int64)
        crowding = np.empty(n)
        F = self._data(F)
        if F.shape[1] == 2:  # every fit: the selection kernel with no survivors to pick
            none = np.empty(0, dtype=np.int64)
            self.kernels.environmental_selection(
                F, self._buffer("dom", (n,), np.int64), rank, self._buffer("order", (n,), np.int64), crowding,
                none, none, np.empty(0))
            return rank, crowding
        self.kernels.nondominated_rank(F, self._buffer("dom", (n,), np.int64), rank)
        self.kernels.crowding_distance(F, rank, self._buffer("order", (n,), np.int64), crowding)
        return rank, crowding

    def select(self, F: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """NSGA-II environmental selection of ``n`` rows of ``F``.

        Whole fronts are taken in rank order; the overflowing front is cut by
        crowding distance (descending), ties by index.  Returns the selected
        indices and their rank and crowding distance.
        """
        F = self._data(F)
        if F.shape[1] != 2:
            rank, crowding = self.rank_and_crowding(F)
            order = np.lexsort((np.arange(len(F)), -crowding, rank))[:n]
            return order, rank[order], crowding[order]
        size = len(F)  # two objectives (every fit): one kernel call ranks, crowds and selects
        chosen = np.empty(n, dtype=np.int64)
        chosen_rank = np.empty(n, dtype=np.int64)
        chosen_crowding = np.empty(n)
        self.kernels.environmental_selection(
            F, self._buffer("dom", (size,), np.int64), self._buffer("rank", (size,), np.int64),
            self._buffer("order", (size,), np.int64), self._buffer("crowding", (size,)),
            chosen, chosen_rank, chosen_crowding)
        return chosen, chosen_rank, chosen_crowding

    # -- variation -------------------------------------------------------------
    def offspring(
        self,
        rng: np.random.Generator,
        pop: np.ndarray,
        rank: np.ndarray,
        crowding: np.ndarray,
        lower: np.ndarray,
        upper: np.ndarray,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """Tournament, single-point crossover, polynomial mutation and repair.

        The children are written into ``out`` (a C-contiguous float64 array
        shaped like ``pop``, not overlapping it) when given, else into a new array.
        """
        cfg = self.config
        n, n_genes = pop.shape
        k = self.kernels
        candidates = rng.integers(0, n, size=(n, 2))
        coin = rng.random(n)
        parents = np.empty(n, dtype=np.int64)
        k.binary_tournament(rank, crowding, candidates, coin, parents)
        draw = rng.random(n // 2)
        cut = rng.integers(1, n_genes, size=n // 2) if n_genes > 1 else np.ones(n // 2, np.int64)
        children = np.empty_like(pop) if out is None else out
        k.single_point_crossover(pop, parents, cfg.crossover_rate, draw, cut, children)
        mutate_draw, mutate_r = rng.random((2, n, n_genes))  # = two draws of (n, n_genes) in turn
        k.polynomial_mutation(
            children, lower, upper, cfg.mutation_rate_per_gene, cfg.mutation_eta, mutate_draw, mutate_r
        )
        self._pin_or_repair(children, rng)
        return children

