"""ERCOT and staticEC estimators: parameters, validation, seeding, history.

The per-step workflow follows Algorithm 1 of the paper (Zhao, Yan, Shi,
"Evolutionary Robust Clustering Over Time for Temporal Data", IEEE TCYB
2021) with the resolutions of ``docs/algorithm.md``, *ERCOT at one time step*:

* t = 1 (or every t for staticEC): random population, evaluated on A^t;
* t > 1: 80% of the previous final population carried over by
  decode-encode over the common ids, 20% new random solutions;
* G_max reproduction rounds (tournament, single-point crossover,
  polynomial mutation, repair, one Lloyd refinement step, evaluation) each
  followed by NSGA-II environmental selection;
* at the last round of t > 1: smoothness weight alpha^{t-1} by stacked
  density estimation, fitness accumulation
  (1 - alpha) f^t + alpha f^{t-1} on parents and offspring, selection on it;
* output: the knee of the first front of the final population.
"""
from __future__ import annotations

import time as _time

import numpy as np

from .. import knee as _knee
from . import _smoothness
from ._adopt import adopt
from ._engine import (EAConfig, EMPTY_CLUSTERS, EMPTY_WORDS, Engine, PRECISION_WORDS, PRECISIONS,
                      SEPARATION_WORDS, SEPARATIONS)
from ..base import (EVALUATIONS_LIMIT, POP_SIZE_LIMIT, PROGRESS, SEED, TemporalEstimator,
                    max_clusters_param, n_clusters_param, run_params, run_seed,
                    seeded_generator)
from ._history import History
from ._memory import check_fit_memory
from ._final import FINAL_PARTITION_WORDS, FINAL_PARTITIONS, member_partition
from ._mixture import Mixture
from ._nsga import evolve
from ..data import ARITHMETIC_LIMIT, Snapshot, check_float32_range, common_ids
from ..kernels import BACKEND_WORDS, BACKENDS
from ..params import Param, check_argument
from ..result import ClusteringResult, StepResult

# Choice sets of the estimators' own settings, with words for a user interface.
MUTATION_MODES = ("per_solution", "per_gene")
"""How ``mutation_rate`` is read (``mutation_mode=``)."""
MUTATION_WORDS = {"per_solution": "per solution", "per_gene": "per gene"}
BUDGET_MODES = ("generations", "include_init")
"""Whether the initial population counts against ``n_evaluations`` (``budget_mode=``)."""
BUDGET_WORDS = {"generations": "generations only", "include_init": "initial population counts"}



def _rows(X: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``X[index]`` as a C-contiguous array; ``X`` itself where ``index`` takes every row in order.

    Samples present at both steps are most often all of them: the step's own
    (read-only) array then serves, whose copies and sample layouts the engine
    keeps for the step, where a fancy-indexed copy would be laid out afresh
    at every call.
    """
    if len(index) == len(X) and X.flags.c_contiguous and (len(X) == 0 or (
            index[0] == 0 and index[-1] == len(X) - 1 and np.array_equal(index, np.arange(len(X))))):
        return X
    return np.ascontiguousarray(X[index])


class EvolutionaryClustering(TemporalEstimator):
    """Shared machinery of ERCOT, staticEC, penaltyEC and their variants.

    A variant declares its ``param_specs`` from the shared ones here
    (:attr:`search_params`, :attr:`knee_param`, :attr:`keep_fraction_param`,
    :attr:`run_params`), sets ``_uses_history`` (re-initialise from the
    previous step) and ``_accumulates`` (fitness accumulation at the last
    generation), and may override ``_objectives`` (penaltyEC does).
    Its ``__init__`` and the Parameters section of its docstring are
    generated from its specs (:class:`ercot_nb.params.ParamsMixin`).
    """

    _algorithm_name = "evolutionary"
    _uses_history = False
    _accumulates = False

    @classmethod
    def _unit_test_params(cls) -> dict:
        """A population of 10 and 40 evaluations per step (4 generations)."""
        return {"pop_size": 10, "n_evaluations": 40}

    search_params: tuple[Param, ...] = (
        n_clusters_param(2, "Known number of clusters (None: the search chooses 2..max_clusters).",
                         "Every one of the n_clusters centroid slots is pinned active."),
        max_clusters_param(8, "Largest number of clusters searched (centroid slots per solution).",
                           "C_max, used when n_clusters is None."),
        Param("pop_size", "int", 100, "population size", "Solutions in the population (even).",
              low=4, high=POP_SIZE_LIMIT, multiple_of=2, doc="N in the paper."),
        Param("n_evaluations", "int", 1000, "evaluations per step",
              "Fitness evaluations per time step, at least 2 x pop_size.", low=8, high=EVALUATIONS_LIMIT,
              doc="G_max = n_evaluations // pop_size reproduction rounds (initialisation not counted, "
                  "see budget_mode)."),
        Param("crossover_rate", "float", 0.9, "crossover rate", "Probability of crossover per pair.",
              low=0.0, high=1.0),
        Param("mutation_rate", "float", 0.9, "mutation rate",
              "Expected mutated genes per offspring (per_solution) or per-gene probability (per_gene).",
              low=0.0, high=1e6,
              doc="With mutation_mode='per_solution' the per-gene probability is mutation_rate / L, "
                  "the PlatEMO convention."),
        Param("mutation_mode", "choice", "per_solution", "mutation mode",
              "How mutation_rate is read: per solution or per gene.", choices=MUTATION_MODES,
              labels=MUTATION_WORDS),
        Param("mutation_eta", "float", 20.0, "mutation eta",
              "Distribution index of polynomial mutation.", low=0.0, low_open=True, high=1e6),
        Param("budget_mode", "choice", "generations", "budget mode",
              "Whether the initial population counts against n_evaluations.", choices=BUDGET_MODES,
              labels=BUDGET_WORDS,
              doc="'include_init' spends one generation's worth of evaluations on the initial "
                  "population (G_max = n_evaluations // pop_size - 1)."),
        Param("refine", "bool", True, "refine offspring",
              "One Lloyd step on every offspring before evaluation.", doc="Remark 2 of the paper."),
        Param("separation", "choice", "active", "separation over",
              "Centroids the separation objective is measured over.", choices=SEPARATIONS,
              labels=SEPARATION_WORDS,
              doc="Every active centroid (the paper's text) or only centroids with members, so that "
                  "'ghost' centroids placed far from the data cannot improve f_sep."),
        Param("empty_clusters", "choice", "keep", "empty clusters",
              "Keep or reseed an active centroid without members.", choices=EMPTY_CLUSTERS,
              labels=EMPTY_WORDS,
              doc="The refinement leaves it (the paper) or moves it onto the sample farthest from "
                  "its centroid."),
        Param("precision", "choice", "float64", "distance precision",
              "Floating-point type of the sample-centroid distances (float32: faster, sums stay float64).",
              choices=PRECISIONS, labels=PRECISION_WORDS,
              doc="'float32' rounds the samples to single precision and compares distances in float32 "
                  "(about 1.5x faster per sample-centroid pair with numba); f_cp and the centroid sums "
                  "are still accumulated in float64, and the population stays float64. The NumPy "
                  "backend computes float64 distances on the rounded samples. Data that float32 cannot "
                  "hold is refused before any step runs (see :func:`ercot_nb.data.check_float32_range`): "
                  "values beyond 1e17, spreads below 1e-17, or a feature with fewer than 1000 float32 "
                  "values across its range (e.g. Unix times in seconds)."),
    )
    """The parameters of the search every variant shares, in signature order."""
    knee_param = Param("knee", "choice", "ideal", "knee rule",
                       "Rule choosing the final solution on the first front.", choices=_knee.KNEE_RULES,
                       labels=_knee.KNEE_WORDS,
                       doc="See :mod:`ercot_nb.knee`; 'mock' runs n_control_sets extra static searches "
                           "on structureless data per step.")
    """``knee``: the rule choosing the final solution."""
    n_control_sets_param = Param("n_control_sets", "int", 3, "control sets",
                                 "Control fronts for knee='mock'.", low=1, high=100)
    """``n_control_sets``: control fronts of the MOCK knee."""
    keep_fraction_param = Param("keep_fraction", "float", 0.8, "kept fraction",
                                "Fraction of the previous final population carried over.", low=0.0, high=1.0,
                                doc="p in the paper.")
    """``keep_fraction``: the share of the previous population re-initialised from."""
    run_params: tuple[Param, ...] = (
        Param("backend", "choice", "numba", "backend",
              "Compiled numba kernels or their plain NumPy twins.", choices=BACKENDS,
              labels=BACKEND_WORDS),
        SEED,
        PROGRESS,
    )
    """``backend``, ``seed`` and ``progress``, last in every signature."""

    # -- public API (fit, fit_predict, partial_fit, labels_ ... in TemporalEstimator) --
    def predict(self, X, t: int = -1) -> np.ndarray:
        """Label new samples by the nearest centroid of step ``t``'s partition.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite numbers (a row with NaN or inf is refused, naming it).
        t : int, default=-1
            Step whose partition labels the samples (negative: from the end).

        Raises
        ------
        TypeError
            For a ``t`` that is not an int (a bool is refused).
        ValueError
            For a step ``t`` out of range, a wrong shape, non-finite values or
            values beyond ``ercot_nb.data.ARITHMETIC_LIMIT`` (as ``fit``).
        """
        self._check_fitted()
        n_steps = len(self.result_)
        t = check_argument(f"{self._algorithm_name}.predict (a result of {n_steps} steps)", "t", t, "int",
                           default=-1, low=-n_steps, high=n_steps - 1)
        step = self.result_[t]
        try:
            X = np.ascontiguousarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{self._algorithm_name}.predict: X must be numbers: {exc}") from None
        if X.ndim != 2 or X.shape[1] != step.centroids.shape[1]:
            raise ValueError(f"X must have shape (n, {step.centroids.shape[1]}), got {X.shape}")
        bad = np.flatnonzero(~np.isfinite(X).all(axis=1))
        if bad.size:
            raise ValueError(
                f"{self._algorithm_name}.predict: {bad.size} row(s) of X hold NaN or inf "
                f"(rows {bad[:5].tolist()}); a sample without finite features has no nearest "
                "centroid. Drop or fill those rows"
            )
        # fit's range check (ercot_nb.data.check_arithmetic_range): squared distances of values
        # beyond ARITHMETIC_LIMIT overflow, and every sample would get label 0
        huge = np.flatnonzero((np.abs(X) > ARITHMETIC_LIMIT).any(axis=1))
        if huge.size:
            raise ValueError(
                f"{self._algorithm_name}.predict: {huge.size} row(s) of X hold values beyond "
                f"{ARITHMETIC_LIMIT:.0e} in absolute value (rows {huge[:5].tolist()}, e.g. "
                f"{X[huge[0]][np.argmax(np.abs(X[huge[0]]))]:.3g}); their squared distances overflow, as fit "
                "refuses too. Rescale them as the fitted data was"
            )
        mixtures = getattr(self, "_mixtures", [])
        fitted = mixtures[int(t)] if len(mixtures) == n_steps else None
        if fitted is not None:  # final_partition="mixture": the component of largest posterior
            mixture, used = fitted
            log_resp, _ = mixture.log_resp(X)
            return np.argmax(log_resp[:, used], axis=1)
        d2 = ((X[:, None, :] - step.centroids[None, :, :]) ** 2).sum(axis=2)
        return np.argmin(d2, axis=1)

    def __getstate__(self) -> dict:
        # The engine (compiled kernels, scratch buffers) and the MOCK control-front cache
        # are rebuilt on the next step from the parameters: pickles stay small and portable.
        state = super().__getstate__()
        state["_engine"] = None
        state["_controls_for"] = None
        return state

    # -- internals ---------------------------------------------------------------------
    def _reset(self) -> None:
        self._check_params()
        self._seed = run_seed(self.seed)  # seed None: a fresh int, recorded in result_.params["seed"]
        self._rng = seeded_generator(self._seed)
        self._history: History | None = None
        self._controls_for = None  # (X, control fronts) of the MOCK knee at the current step
        self._engine: Engine | None = None
        self._step_states: list[tuple[Snapshot, dict]] = []  # (data, rng state after the step), for adopt
        self._mixtures: list[tuple[Mixture, np.ndarray] | None] = []  # per step: (mixture, used components)
        # seed of the held-out splits of final_partition="cv_mixture" where seed is None or a Generator
        # (an int seed is used itself, with the step index)
        cv = getattr(self, "final_partition", "nearest") == "cv_mixture"
        self._split_seed = int(self._rng.integers(2**32)) if cv and not isinstance(self._seed, (int, np.integer)) else 0
        self.n_features_in_: int | None = None
        self.result_ = ClusteringResult(algorithm=self._algorithm_name, params=run_params(self, self._seed))

    def _validate_params(self) -> None:
        # Each parameter alone is checked against its spec (ercot_nb.params); here the rules
        # that tie parameters together.
        if self.n_evaluations < 2 * self.pop_size:
            raise ValueError(
                f"{self._algorithm_name}: n_evaluations must be at least 2 * pop_size "
                f"({2 * self.pop_size}) so that one generation runs, got {self.n_evaluations!r}; "
                "raise n_evaluations or lower pop_size"
            )

    def _check_step(self, snapshot: Snapshot, index: int, feature_names) -> None:
        super()._check_step(snapshot, index, feature_names)
        if self.precision == "float32":  # before any work: every step of a fit is checked first
            check_float32_range(snapshot, index, feature_names)

    def _check_dataset(self, dataset) -> None:
        # before any allocation: parameters each within their limits can still multiply beyond memory
        self._check_memory(max(dataset.n_samples_per_step), dataset.n_features, len(dataset))

    def _check_streamed(self, snapshot: Snapshot) -> None:
        self._check_memory(snapshot.n_samples, snapshot.X.shape[1], len(self.result_) + 1)

    def _check_memory(self, n_samples: int, n_features: int, n_steps: int) -> None:
        fixed = self.n_clusters is not None
        check_fit_memory(
            self._algorithm_name, pop_size=int(self.pop_size),
            n_max=int(self.n_clusters if fixed else self.max_clusters), n_samples=int(n_samples),
            n_features=int(n_features), n_steps=int(n_steps), precision=self.precision, backend=self.backend,
            max_clusters_name="n_clusters" if fixed else "max_clusters",
        )

    def _config(self, n_features: int) -> EAConfig:
        return EAConfig.from_params(self.get_params(), n_features)

    def _objectives(self, engine: Engine, X: np.ndarray, pop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Objectives to minimise (f_cp, f_sep) and members per centroid slot."""
        return engine.evaluate(X, pop)

    @staticmethod
    def _static_objectives(engine: Engine, X: np.ndarray, pop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return engine.evaluate(X, pop)

    # -- one time step -------------------------------------------------------------------
    def _fit_snapshot(self, snapshot: Snapshot) -> StepResult:
        started = _time.perf_counter()
        X = snapshot.X
        self._check_n_features(snapshot)
        if self._engine is None:
            self._engine = Engine(self._config(X.shape[1]), backend=self.backend)
        engine = self._engine
        cfg = engine.config
        rng = self._rng
        lower, upper = engine.bounds(X)
        history = self._history if self._uses_history else None

        # Step 1: (re)initialisation.
        common_prev = common_curr = None
        if history is None:
            pop = engine.random_population(rng, cfg.pop_size, lower, upper)
        else:
            common_prev, common_curr = common_ids(history.snapshot, snapshot)
            n_keep = int(round(self.keep_fraction * cfg.pop_size))
            kept = history.population[rng.choice(cfg.pop_size, size=n_keep, replace=False)].copy()
            if len(common_curr):
                engine.recentre(_rows(history.snapshot.X, common_prev), _rows(X, common_curr), kept)
            fresh = engine.random_population(rng, cfg.pop_size - n_keep, lower, upper)
            pop = np.vstack([kept, fresh])
        weight = None

        def accumulate(union, F_union, counts_union):
            nonlocal weight
            weight = self._smoothness_weight(engine, snapshot, history, union, F_union, counts_union,
                                             common_prev, common_curr)
            if weight.alpha == 0.0:
                return F_union
            F_previous = self._previous_fitness(engine, snapshot, history, union, common_prev, common_curr)
            return (1.0 - weight.alpha) * F_union + weight.alpha * F_previous

        # Steps 2-4: generations.
        pop, F, counts, F_selected = evolve(
            engine, X, rng, pop, self._objectives,
            accumulate if (self._accumulates and history is not None) else None,
        )

        # Output: knee of the first front of the final population.
        front_rank, _ = engine.rank_and_crowding(F_selected)
        first_front = front_rank == 0
        n_nonempty = (counts > 0).sum(axis=1)
        knee = self._choose_knee(engine, X, F_selected, n_nonempty, first_front)
        labels, centroids, mixture = self._member_partition(
            engine, X, np.ascontiguousarray(pop[knee]), t=len(self.result_),
            front=(pop, F, n_nonempty, first_front, knee))

        step = StepResult(
            t=len(self.result_),
            time=snapshot.time,
            ids=snapshot.ids,
            labels=labels,
            aligned_labels=labels,
            centroids=centroids,
            population=pop,
            objectives=F,
            objectives_accumulated=F_selected,
            population_n_clusters=n_nonempty.astype(np.int64),
            population_n_active=(pop[:, : cfg.n_max] >= 0.5).sum(axis=1).astype(np.int64),
            first_front=first_front,
            knee=int(knee),
            alpha=float(weight.alpha) if weight is not None else np.nan,
            alpha_pairs=weight.alpha_pairs if weight is not None else np.empty(0),
            matched_pairs=(weight.pairs.astype(np.int64) if weight is not None else np.empty((0, 2), np.int64)),
            seconds=0.0,
            n_max=cfg.n_max,
        )
        self._history = History(snapshot=snapshot, population=pop, labels=labels)
        step.seconds = _time.perf_counter() - started
        self.result_.append(step)
        self._step_states.append((snapshot, rng.bit_generator.state))
        self._mixtures.append(mixture)
        return step

    def _member_partition(self, engine: Engine, X: np.ndarray, chromosome: np.ndarray, *, t: int = 0,
                          front=None):
        """Labels, centroids and (mixture, used components) or None of one member's partition.

        See :func:`ercot_nb.evolution._final.member_partition` (``final_partition``).
        """
        seed = getattr(self, "_seed", self.seed)  # what the fit drew from (an estimator pickled before _seed: its own)
        seed = seed if isinstance(seed, (int, np.integer)) else getattr(self, "_split_seed", 0)
        return member_partition(engine, X, chromosome, getattr(self, "final_partition", "nearest"),
                                seed=int(seed), t=t, front=front)

    def adopt(self, t: int, member: int, *, callback=None):
        """Use population member ``member`` as step ``t``'s partition and continue from there.

        Steps before ``t`` stay as they are; step ``t`` keeps its search
        (population, fronts, alpha) but takes ``member``'s partition, which
        becomes the history of step t+1; the later steps are fitted again
        with the random stream exactly where the run had it after step
        ``t``.  Adopting ``result_[t].knee`` gives back the same run.  See
        :func:`ercot_nb.evolution._adopt.adopt`.

        Parameters
        ----------
        t : int
            Step index (negative counts from the end).
        member : int
            Index into ``result_[t].population``, e.g. from
            :meth:`ClusteringResult.choose <ercot_nb.result.ClusteringResult.choose>`.
        callback : callable, optional
            ``callback(step)`` after each step fitted again; returning
            ``False`` stops there (as in ``fit``).

        Returns
        -------
        self
        """
        adopt(self, t, member, callback=callback)
        return self

    def _choose_knee(self, engine, X, F, n_clusters, mask) -> int:
        members = np.flatnonzero(mask)
        controls = self._control_fronts(engine, X) if self.knee == "mock" else None
        chosen = _knee.select_knee(F[members], n_clusters[members], rule=self.knee, control_fronts=controls)
        return int(members[chosen])

    def _control_fronts(self, engine: Engine, X: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """First fronts of a static run on structureless control data (MOCK)."""
        if self._controls_for is not None and self._controls_for[0] is X:
            return self._controls_for[1]
        fronts = []
        for X_control in _knee.mock_control_data(X, self._rng, n_sets=self.n_control_sets):
            X_control = np.ascontiguousarray(X_control, dtype=np.float64)
            lower, upper = engine.bounds(X_control)
            start = engine.random_population(self._rng, engine.config.pop_size, lower, upper)
            _, F, counts, _ = evolve(engine, X_control, self._rng, start, self._static_objectives)
            rank, _ = engine.rank_and_crowding(F)
            first = rank == 0
            fronts.append((F[first], (counts[first] > 0).sum(axis=1)))
        self._controls_for = (X, fronts)
        return fronts

    def _smoothness_weight(self, engine, snapshot, history, union, F_union, counts_union,
                           common_prev, common_curr) -> _smoothness.SmoothnessWeight:
        if common_curr is None or len(common_curr) == 0:
            return _smoothness.SmoothnessWeight(alpha=0.0)
        X = snapshot.X
        rank, _ = engine.rank_and_crowding(F_union)
        first = rank == 0
        pseudo = self._choose_knee(engine, X, F_union, (counts_union > 0).sum(axis=1), first)
        X_common = _rows(X, common_curr)
        pseudo_labels, _ = engine.assign(X_common, union[pseudo])
        return _smoothness.smoothness_weight(
            _rows(history.snapshot.X, common_prev),
            history.labels[common_prev],
            X_common,
            pseudo_labels,
            X_prev_all=history.snapshot.X,
            X_curr_all=X,
            n_folds_max=self.n_folds,
            rng=self._rng,
            aggregate=self.alpha_aggregate,
            backend=self.backend,
        )

    def _previous_fitness(self, engine, snapshot, history, union, common_prev, common_curr) -> np.ndarray:
        """f^{t-1} of every solution after the reverse decode-encode (t -> t-1)."""
        moved = union.copy()
        engine.recentre(_rows(snapshot.X, common_curr), _rows(history.snapshot.X, common_prev), moved)
        F_previous, _ = self._objectives(engine, history.snapshot.X, moved)
        return F_previous


class ERCOT(EvolutionaryClustering):
    """Evolutionary robust clustering over time.

    NSGA-II on a hybrid mask + centroid encoding minimising compactness
    ``f_cp`` and separation ``f_sep = 1 / min centroid distance``; history
    enters a posteriori through re-initialisation from the previous step and
    fitness accumulation at the last generation with an auto-tuned weight.

    Attributes
    ----------
    result_ : ClusteringResult
        Everything per step: labels, fronts, knee, weights, timings.
    labels_ : list of ndarray
        One label array per step, aligned with the step's ids.
    n_clusters_ : ndarray
        Number of clusters chosen at each step.
    alpha_ : ndarray
        Smoothness weight used at each step (nan at the first step).
    n_features_in_ : int

    Examples
    --------
    >>> from ercot_nb import ERCOT, datasets
    >>> data = datasets.load("syn1", seed=0)
    >>> model = ERCOT(seed=0).fit(data)
    >>> len(model.labels_)
    10
    """

    _algorithm_name = "ERCOT"
    _uses_history = True
    _accumulates = True

    param_specs = EvolutionaryClustering.search_params + (
        EvolutionaryClustering.knee_param,
        EvolutionaryClustering.n_control_sets_param,
        EvolutionaryClustering.keep_fraction_param,
        Param("n_folds", "int", 500, "CV folds",
              "Cross-validation folds of the smoothness-weight tuning.", low=2, high=10**6,
              doc="v in the paper (leave-one-out for smaller clusters)."),
        Param("alpha_aggregate", "choice", "common", "alpha aggregate",
              "How per-cluster smoothness weights are aggregated.", choices=_smoothness.AGGREGATES,
              labels=_smoothness.AGGREGATE_WORDS, doc="See ``ercot_nb.evolution._smoothness``."),
        Param("final_partition", "choice", "nearest", "final partition",
              "How the chosen member labels the samples: nearest centroid (the paper), or EM of a Gaussian "
              "mixture started from its clusters (segments of unequal size and spread), or such a mixture "
              "whose number of clusters is chosen among the front by its likelihood on held-out samples.",
              choices=FINAL_PARTITIONS, labels=FINAL_PARTITION_WORDS,
              doc="With 'nearest' the clusters are cells of similar spread. With 'mixture' the knee's "
                  "clusters start a few EM iterations of a Gaussian mixture (full covariances), whose "
                  "components may differ in size and spread (video segments: a large textured "
                  "background beside small objects); where its BIC beats that of equal spherical "
                  "clusters (the model of the nearest-centroid rule), its labels are the step's "
                  "partition and history, and predict labels by largest posterior; elsewhere the "
                  "paper's labels stay. With 'cv_mixture', where the same BIC check passes, the number "
                  "of clusters is chosen too: the knee and, for every other number of clusters on the "
                  "first front, its most compact member each start a mixture fitted on a seeded half of "
                  "at most 600 samples and scored on the other half; the fewest clusters within one "
                  "standard error of the best held-out log-likelihood win, and components are merged "
                  "while that raises the held-out log-likelihood (see "
                  "``ercot_nb.evolution._mixture.choose_by_held_out``). Suits segments of unequal size "
                  "and spread whose number the knee misses (video scenes)."),
    ) + EvolutionaryClustering.run_params


class StaticEC(EvolutionaryClustering):
    """staticEC: ERCOT's evolutionary clustering without history.

    Every step starts from a random population and is selected on its own
    objectives only (no re-initialisation from t-1, no accumulation).
    """

    _algorithm_name = "staticEC"
    _uses_history = False
    _accumulates = False

    param_specs = EvolutionaryClustering.search_params + (
        EvolutionaryClustering.knee_param,
        EvolutionaryClustering.n_control_sets_param,
    ) + EvolutionaryClustering.run_params
