"""Parameter specifications of every estimator and built-in dataset, declared once as data.

Each parameter is a :class:`Param`: its code name, kind, default, words for a
user interface, one line of help, its allowed values (choices or bounds) and
whether ``None`` is allowed.  Estimators validate their parameters against
these specs in ``fit`` (scikit-learn style, construction never fails), the
command line parses ``--param NAME=VALUE`` with :meth:`Param.parse`, and
forms draw their inputs from them.  Every choice set (knee rules, modes) is
a tuple of this module or imported by it, and imported wherever it is
needed; its choices are declared with words for a user interface
(``Param.labels``, e.g. "per solution" for ``"per_solution"``).

>>> from ercot_nb.params import estimator_params
>>> [p.name for p in estimator_params("ERCOT")][:3]
['n_clusters', 'max_clusters', 'pop_size']
>>> estimator_params("ERCOT")[0].validate(3, "ERCOT")
3
"""
from __future__ import annotations

from ._knee import A_POSTERIORI_RULES, KNEE_RULES, SELECTION_RULES
from ._param import KINDS, Param, check_argument, parse_assignments, validate_params
from ._smoothness import AGGREGATES as ALPHA_AGGREGATES

__all__ = [
    "Param",
    "estimator_params",
    "dataset_params",
    "validate_params",
    "parse_assignments",
    "check_argument",
    "KNEE_RULES",
    "A_POSTERIORI_RULES",
    "SELECTION_RULES",
    "PENALTY_KNEE_RULES",
    "ALPHA_AGGREGATES",
    "MUTATION_MODES",
    "BUDGET_MODES",
    "SEPARATIONS",
    "EMPTY_CLUSTERS",
    "BACKENDS",
    "PRECISIONS",
    "FINAL_PARTITIONS",
    "AFFECT_INITIALIZE",
    "E2SC_METHODS",
    "KMEANS_INITS",
    "STEP_MODES",
    "NOISE_MODES",
    "STRAY_MODES",
    "FLOCK_DIMS",
    "GAPMINDER_FEATURES",
    "GAPMINDER_SCALINGS",
    "SCALINGS",
    "KNEE_WORDS",
    "SCALING_WORDS",
    "KINDS",
]

# -- choice sets (one place each) ------------------------------------------------------
PENALTY_KNEE_RULES = tuple(rule for rule in KNEE_RULES if rule != "mock")
MUTATION_MODES = ("per_solution", "per_gene")
BUDGET_MODES = ("generations", "include_init")
SEPARATIONS = ("active", "nonempty")
EMPTY_CLUSTERS = ("keep", "reseed")
BACKENDS = ("numba", "numpy")
PRECISIONS = ("float64", "float32")
FINAL_PARTITIONS = ("nearest", "mixture", "cv_mixture")
AFFECT_INITIALIZE = ("previous", "ordinary")
E2SC_METHODS = ("auto", "full", "low_rank")
KMEANS_INITS = ("k-means++",)
STEP_MODES = ("euclidean", "per_coordinate")
NOISE_MODES = ("redrawn", "fixed")
STRAY_MODES = ("each_flock", "one")
FLOCK_DIMS = (2, 3)
GAPMINDER_FEATURES = ("lifeExp", "gdpPercap", "pop")
GAPMINDER_SCALINGS = ("standardize", "minmax", "none")
SCALINGS = ("none", "standardize", "minmax")  # TemporalDataset.scaled(method=...)

# -- words for the choices, shown by user interfaces (the values stay what runs) -------------
KNEE_WORDS = {"ideal": "nearest the ideal point", "chord": "farthest from the chord",
              "mock": "MOCK control fronts"}
SCALING_WORDS = {"none": "none (raw units)", "standardize": "standardise (mean 0, sd 1)",
                 "minmax": "min-max to [0, 1]"}
_MUTATION_WORDS = {"per_solution": "per solution", "per_gene": "per gene"}
_BUDGET_WORDS = {"generations": "generations only", "include_init": "initial population counts"}
_SEPARATION_WORDS = {"active": "active centroids", "nonempty": "non-empty clusters"}
_EMPTY_WORDS = {"keep": "keep", "reseed": "reseed"}
_PRECISION_WORDS = {"float64": "double (float64)", "float32": "single (float32, faster)"}
_FINAL_PARTITION_WORDS = {"nearest": "nearest centroid (paper)",
                          "mixture": "Gaussian mixture from the knee",
                          "cv_mixture": "Gaussian mixture chosen on held-out pixels"}
_BACKEND_WORDS = {"numba": "numba (compiled)", "numpy": "NumPy (plain twin)"}
_AGGREGATE_WORDS = {"common": "one common weight", "matched": "per matched cluster"}
_INITIALIZE_WORDS = {"previous": "previous partition", "ordinary": "afresh"}
_E2SC_WORDS = {"auto": "by data size", "full": "full eigendecomposition", "low_rank": "low rank"}
_KMEANS_INIT_WORDS = {"k-means++": "k-means++"}
_STEP_WORDS = {"euclidean": "Euclidean distance", "per_coordinate": "per coordinate"}
_NOISE_WORDS = {"redrawn": "redrawn every step", "fixed": "fixed per sample"}
_STRAY_WORDS = {"each_flock": "one per flock", "one": "one per step"}
_DIMS_WORDS = {2: "2-D", 3: "3-D"}
_GAPMINDER_WORDS = {"lifeExp": "life expectancy", "gdpPercap": "GDP per capita", "pop": "population"}


# Upper bounds that keep a run finite on a laptop (memory is roughly
# pop_size x max_clusters x (1 + n_features) doubles per population).
MAX_CLUSTERS_LIMIT = 1000
POP_SIZE_LIMIT = 100_000
EVALUATIONS_LIMIT = 10**8

# -- estimator specs ---------------------------------------------------------------------
def _n_clusters(low: int, help_text: str) -> Param:
    return Param("n_clusters", "int", None, "number of clusters", help_text,
                 low=low, high=MAX_CLUSTERS_LIMIT, optional=True)


_SEED = Param("seed", "seed", None, "seed",
              "Seed of every random draw; the same int gives the identical result (None: fresh entropy).",
              optional=True)
_PROGRESS = Param("progress", "bool", False, "progress bar", "Show a progress bar over time steps.")

_EVOLUTIONARY_HEAD = (
    _n_clusters(2, "Known number of clusters (None: the search chooses 2..max_clusters)."),
    Param("max_clusters", "int", 8, "max clusters",
          "Largest number of clusters searched (centroid slots per solution).",
          low=2, high=MAX_CLUSTERS_LIMIT),
    Param("pop_size", "int", 100, "population size", "Solutions in the population (even).",
          low=4, high=POP_SIZE_LIMIT, multiple_of=2),
    Param("n_evaluations", "int", 1000, "evaluations per step",
          "Fitness evaluations per time step, at least 2 x pop_size.", low=8, high=EVALUATIONS_LIMIT),
    Param("crossover_rate", "float", 0.9, "crossover rate", "Probability of crossover per pair.",
          low=0.0, high=1.0),
    Param("mutation_rate", "float", 0.9, "mutation rate",
          "Expected mutated genes per offspring (per_solution) or per-gene probability (per_gene).",
          low=0.0, high=1e6),
    Param("mutation_mode", "choice", "per_solution", "mutation mode",
          "How mutation_rate is read: per solution or per gene.", choices=MUTATION_MODES,
          labels=_MUTATION_WORDS),
    Param("mutation_eta", "float", 20.0, "mutation eta",
          "Distribution index of polynomial mutation.", low=0.0, low_open=True, high=1e6),
    Param("budget_mode", "choice", "generations", "budget mode",
          "Whether the initial population counts against n_evaluations.", choices=BUDGET_MODES,
          labels=_BUDGET_WORDS),
    Param("refine", "bool", True, "refine offspring", "One Lloyd step on every offspring before evaluation."),
    Param("separation", "choice", "active", "separation over",
          "Centroids the separation objective is measured over.", choices=SEPARATIONS,
          labels=_SEPARATION_WORDS),
    Param("empty_clusters", "choice", "keep", "empty clusters",
          "Keep or reseed an active centroid without members.", choices=EMPTY_CLUSTERS,
          labels=_EMPTY_WORDS),
    Param("precision", "choice", "float64", "distance precision",
          "Floating-point type of the sample-centroid distances (float32: faster, sums stay float64).",
          choices=PRECISIONS, labels=_PRECISION_WORDS),
)
_KNEE = Param("knee", "choice", "ideal", "knee rule",
              "Rule choosing the final solution on the first front.", choices=KNEE_RULES,
              labels=KNEE_WORDS)
_N_CONTROL_SETS = Param("n_control_sets", "int", 3, "control sets",
                        "Control fronts for knee='mock'.", low=1, high=100)
_KEEP_FRACTION = Param("keep_fraction", "float", 0.8, "kept fraction",
                       "Fraction of the previous final population carried over.", low=0.0, high=1.0)
_BACKEND = Param("backend", "choice", "numba", "backend",
                 "Compiled numba kernels or their plain NumPy twins.", choices=BACKENDS,
                 labels=_BACKEND_WORDS)

_ESTIMATORS: dict[str, tuple[Param, ...]] = {
    "ERCOT": _EVOLUTIONARY_HEAD + (
        _KNEE, _N_CONTROL_SETS, _KEEP_FRACTION,
        Param("n_folds", "int", 500, "CV folds",
              "Cross-validation folds of the smoothness-weight tuning.", low=2, high=10**6),
        Param("alpha_aggregate", "choice", "common", "alpha aggregate",
              "How per-cluster smoothness weights are aggregated.", choices=ALPHA_AGGREGATES,
              labels=_AGGREGATE_WORDS),
        Param("final_partition", "choice", "nearest", "final partition",
              "How the chosen member labels the samples: nearest centroid (the paper), or EM of a Gaussian "
              "mixture started from its clusters (segments of unequal size and spread), or such a mixture "
              "whose number of clusters is chosen among the front by its likelihood on held-out samples.",
              choices=FINAL_PARTITIONS, labels=_FINAL_PARTITION_WORDS),
        _BACKEND, _SEED, _PROGRESS,
    ),
    "staticEC": _EVOLUTIONARY_HEAD + (_KNEE, _N_CONTROL_SETS, _BACKEND, _SEED, _PROGRESS),
    "penaltyEC": _EVOLUTIONARY_HEAD + (
        Param("knee", "choice", "ideal", "knee rule",
              "Rule choosing the final solution on the first front ('mock' is not offered).",
              choices=PENALTY_KNEE_RULES,
              labels={rule: KNEE_WORDS[rule] for rule in PENALTY_KNEE_RULES}),
        _KEEP_FRACTION, _BACKEND, _SEED, _PROGRESS,
    ),
    "k-meansCOT": (
        _n_clusters(1, "Number of clusters k (required by fit)."),
        Param("cp", "float", 0.5, "change parameter", "Weight of the history in [0, 1].", low=0.0, high=1.0),
        Param("normalise_update", "bool", True, "normalise update",
              "Divide the centroid update by the sum of its weights."),
        Param("init", "choice", "k-means++", "initial centroids",
              "First step's start: k-means++ or an array of shape (n_clusters, n_features).",
              choices=KMEANS_INITS, array_ok=True,
              labels=_KMEANS_INIT_WORDS),
        Param("max_iter", "int", 100, "max iterations", "Lloyd iterations per step at most.",
              low=1, high=10**6),
        _SEED, _PROGRESS,
    ),
    "AFFECT": (
        _n_clusters(1, "Known number of clusters (None: chosen by silhouette over 2..max_clusters)."),
        Param("max_clusters", "int", 10, "max clusters", "Largest number of clusters tried.",
              low=2, high=MAX_CLUSTERS_LIMIT),
        Param("alpha", "float", "estimate", "forgetting factor",
              "Weight of the history in [0, 1], or 'estimate' to estimate it at each step.",
              low=0.0, high=1.0, also=("estimate",)),
        Param("n_alpha_iterations", "int", 3, "alpha iterations",
              "Alternations of clustering and alpha estimation.", low=1, high=1000),
        Param("initialize", "choice", "previous", "initialise from",
              "Start kernel k-means from the previous partition or afresh.", choices=AFFECT_INITIALIZE,
              labels=_INITIALIZE_WORDS),
        Param("faithful", "bool", True, "faithful", "Follow the reference toolbox exactly."),
        Param("max_iter", "int", 100, "max iterations", "Kernel k-means iterations at most.",
              low=1, high=10**6),
        Param("max_memory_bytes", "int", 2 * 1024**3, "memory limit",
              "Refuse steps whose S x S matrices need more memory than this.", low=1, unit="bytes"),
        _SEED, _PROGRESS,
    ),
    "E2SC": (
        _n_clusters(2, "Known number of clusters (None: chosen by eigengap up to max_clusters)."),
        Param("max_clusters", "int", 8, "max clusters", "Largest number of clusters the eigengap considers.",
              low=2, high=MAX_CLUSTERS_LIMIT),
        Param("smoothing", "float", 0.1, "smoothing", "Weight of the previous step's operator, in [0, 1).",
              low=0.0, high=1.0, high_open=True),
        Param("method", "choice", "auto", "method", "Full eigendecomposition, low rank, or chosen by size.",
              choices=E2SC_METHODS,
              labels=_E2SC_WORDS),
        Param("low_rank_threshold", "int", 1000, "low-rank threshold",
              "Samples above which method='auto' goes low rank.", low=1),
        Param("max_rank", "int", 200, "max rank", "Largest rank of the incomplete Cholesky factor.",
              low=1, high=10**6),
        Param("pivot_batch", "int", 8, "pivot batch", "Pivots added between stability checks.", low=1),
        Param("stop_when_stable", "bool", True, "stop when stable",
              "Stop adding pivots once the eigenvectors are stable."),
        Param("icd_tol", "float", 1e-8, "Cholesky tolerance", "Residual at which the factorisation stops.",
              low=0.0),
        Param("bandwidth_sample", "int", 2000, "bandwidth sample",
              "Samples used to estimate the kernel bandwidth.", low=1),
        Param("n_init", "int", 10, "k-means restarts", "k-means runs on the spectral embedding.",
              low=1, high=10**4),
        Param("kmeans_seed", "int", 0, "k-means seed", "Seed of the k-means on the embedding.",
              low=0),
        Param("max_iter", "int", 100, "max iterations", "k-means iterations at most.", low=1, high=10**6),
        _SEED, _PROGRESS,
    ),
}


def estimator_params(name_or_class) -> tuple[Param, ...]:
    """Specs of an estimator's parameters, in signature order.

    Parameters
    ----------
    name_or_class : str, class or estimator instance
        A name of :func:`ercot_nb.algorithms.available` (case-insensitive)
        or a registered class. A class of your own may declare its specs
        as a class attribute ``param_specs``.

    Returns
    -------
    tuple of Param
    """
    if isinstance(name_or_class, str):
        matches = [key for key in _ESTIMATORS if key.lower() == name_or_class.lower()]
        if matches:
            return _ESTIMATORS[matches[0]]
        from . import algorithms  # the registry imports estimators lazily

        return estimator_params(algorithms.get(name_or_class))
    cls = name_or_class if isinstance(name_or_class, type) else type(name_or_class)
    # A subclass that keeps its parent's ``__init__`` keeps its parameters.
    for klass in cls.__mro__:
        if klass.__init__ is not cls.__init__:
            break
        own = klass.__dict__.get("param_specs")
        if own is not None:
            return tuple(own)
        name = klass.__dict__.get("_algorithm_name")
        if name in _ESTIMATORS:
            return _ESTIMATORS[name]
    raise ValueError(
        f"no parameter specs for {cls.__name__}; declare them as a class attribute "
        "param_specs (a tuple of ercot_nb.params.Param)"
    )


# -- dataset specs -----------------------------------------------------------------------
_DATA_SEED = Param("seed", "seed", 0, "data seed",
                   "Data seed, separate from the algorithm seed; the same seed gives identical arrays.",
                   optional=True)

_SYNTHETIC = (
    _DATA_SEED,
    Param("n_steps", "int", 10, "time steps", "Number of time steps.", low=1, high=10_000),
    Param("step_size", "float", 0.6, "step size", "Distance the moving cluster travels per step.",
          low=0.0, high=1e6),
    Param("cov_scale", "float", 0.8, "cluster variance", "Covariance of each cluster is cov_scale x I.",
          low=0.0, low_open=True, high=1e6),
    Param("n_per_cluster", "int", 50, "points per cluster", "Samples drawn per cluster.",
          low=1, high=100_000),
    Param("step_mode", "choice", "euclidean", "step mode",
          "Step length measured in Euclidean distance or per coordinate.", choices=STEP_MODES,
          labels=_STEP_WORDS),
    Param("noise", "choice", "redrawn", "noise", "Sample noise redrawn at every step or fixed per sample.",
          choices=NOISE_MODES,
          labels=_NOISE_WORDS),
)

_BIRD_FLOCKS = (
    _DATA_SEED,
    Param("n_flocks", "int", 4, "flocks", "Number of flocks (lanes).", low=2, high=1000),
    Param("n_birds", "int", 25, "birds per flock", "Birds in each flock at the start.", low=3, high=100_000),
    Param("n_steps", "int", 30, "time steps", "Number of time steps.", low=1, high=10_000),
    Param("strays", "choice", "each_flock", "strays",
          "One stray per flock per step, or one stray per step.", choices=STRAY_MODES,
          labels=_STRAY_WORDS),
    Param("noise", "float", 0.0, "noise", "Standard deviation of observation noise.", low=0.0, high=1e6),
    Param("dims", "choice", 2, "dimensions", "Flight in 2-D or 3-D.", choices=FLOCK_DIMS,
          labels=_DIMS_WORDS),
    Param("synchronous", "bool", True, "synchronous update", "Update all birds from the same old state."),
    Param("lane_pull", "float", 0.3, "lane pull", "Strength of the pull towards the flock's lane.",
          low=0.0, high=1e6),
    Param("speed_limit", "float", 20.0, "speed limit", "Largest speed of a bird.",
          low=0.0, low_open=True, high=1e6),
)

_GAPMINDER = (
    _DATA_SEED,
    Param("features", "subset", GAPMINDER_FEATURES, "features", "Indicators used as features.",
          choices=GAPMINDER_FEATURES,
          labels=_GAPMINDER_WORDS),
    Param("log_gdp", "bool", True, "log GDP", "Replace gdpPercap by its base-10 logarithm."),
    Param("log_pop", "bool", True, "log population", "Replace pop by its base-10 logarithm."),
    Param("scaling", "choice", "standardize", "scaling", "Feature scaling after the logarithms.",
          choices=GAPMINDER_SCALINGS,
          labels=SCALING_WORDS),
    Param("per_step", "bool", False, "scale per year", "Fit the scaling on each year separately."),
)


def _video(n_frames: int) -> tuple[Param, ...]:
    return (
        _DATA_SEED,
        Param("scale", "float", 1.0, "frame scale", "Frame size relative to the paper's (each side >= 8 px).",
              low=0.0, low_open=True, high=1.0),
        Param("noise", "float", 0.04, "sensor noise", "Standard deviation of the Gaussian sensor noise.",
              low=0.0, high=1e6),
        Param("position", "bool", False, "position features", "Add row and col features after r, g, b."),
        Param("position_weight", "float", 0.5, "position weight", "Factor applied to the position features.",
              low=0.0, low_open=True, high=1e6),
        Param("n_frames", "int", n_frames, "frames", "Number of frames (time steps).", low=1, high=10_000),
    )


_DATASETS: dict[str, tuple[Param, ...]] = {
    **{f"syn{i}": _SYNTHETIC for i in range(1, 9)},
    "bird_flocks": _BIRD_FLOCKS,
    "gapminder": _GAPMINDER,
    "video_bt": _video(12),
    "video_mo": _video(9),
    "video_rc": _video(8),
}


def dataset_params(name: str) -> tuple[Param, ...]:
    """Specs of a built-in dataset's parameters (``seed`` first), in signature order.

    Parameters
    ----------
    name : str
        One of :func:`ercot_nb.datasets.available` (case-insensitive).

    Returns
    -------
    tuple of Param
    """
    key = str(name).lower()
    if key not in _DATASETS:
        raise ValueError(f"unknown dataset {name!r}; available: {', '.join(_DATASETS)}")
    return _DATASETS[key]
