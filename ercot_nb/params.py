"""Parameter specifications of every estimator and built-in dataset, declared once as data.

Each parameter is a :class:`Param`: its code name, kind, default, words for a
user interface, one line of help, its allowed values (choices or bounds) and
whether ``None`` is allowed.  Estimators validate their parameters against
these specs in ``fit`` (scikit-learn style, construction never fails), the
command line parses ``--param NAME=VALUE`` with :meth:`Param.parse`, and
forms draw their inputs from them.  Every choice set (knee rules, modes) is
a tuple of this module or imported by it, and imported wherever it is
needed.

>>> from ercot_nb.params import estimator_params
>>> [p.name for p in estimator_params("ERCOT")][:3]
['n_clusters', 'max_clusters', 'pop_size']
>>> estimator_params("ERCOT")[0].validate(3, "ERCOT")
3
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._knee import KNEE_RULES
from ._smoothness import AGGREGATES as ALPHA_AGGREGATES

__all__ = [
    "Param",
    "estimator_params",
    "dataset_params",
    "validate_params",
    "parse_assignments",
    "KNEE_RULES",
    "PENALTY_KNEE_RULES",
    "ALPHA_AGGREGATES",
    "MUTATION_MODES",
    "BUDGET_MODES",
    "SEPARATIONS",
    "EMPTY_CLUSTERS",
    "BACKENDS",
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
    "KINDS",
]

# -- choice sets (one place each) ------------------------------------------------------
PENALTY_KNEE_RULES = tuple(rule for rule in KNEE_RULES if rule != "mock")
MUTATION_MODES = ("per_solution", "per_gene")
BUDGET_MODES = ("generations", "include_init")
SEPARATIONS = ("active", "nonempty")
EMPTY_CLUSTERS = ("keep", "reseed")
BACKENDS = ("numba", "numpy")
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

KINDS = ("int", "float", "bool", "choice", "str", "seed", "subset")

# Upper bounds that keep a run finite on a laptop (memory is roughly
# pop_size x max_clusters x (1 + n_features) doubles per population).
MAX_CLUSTERS_LIMIT = 1000
POP_SIZE_LIMIT = 100_000
EVALUATIONS_LIMIT = 10**8

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")
_NONE = ("none", "null", "")


def _describe(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"


@dataclass(frozen=True)
class Param:
    """Specification of one parameter.

    Attributes
    ----------
    name : str
        Code name, e.g. ``"n_per_cluster"``.
    kind : {"int", "float", "bool", "choice", "str", "seed", "subset"}
        ``"seed"``: an int >= 0, a ``numpy.random.Generator`` or None;
        ``"subset"``: a non-empty sequence of distinct ``choices``.
    default : object
        The default value (equal to the signature's default).
    label : str
        Words for a user interface, e.g. ``"points per cluster"``.
    help : str
        One line of help, never empty.
    choices : tuple
        For ``"choice"`` and ``"subset"``: the actual allowed values.
    low, high : float or None
        Bounds of ``"int"`` and ``"float"`` values (inclusive unless
        ``low_open`` / ``high_open``).
    optional : bool
        ``None`` is allowed.
    unit : str
        Unit of the value, for display.
    low_open, high_open : bool
        Exclude the bound itself.
    multiple_of : int or None
        An ``"int"`` value must be a multiple of this (e.g. 2: even).
    also : tuple
        Extra literal values allowed besides the kind (AFFECT's
        ``alpha="estimate"``).
    array_ok : bool
        A numpy array is also accepted (k-meansCOT's ``init`` centroids);
        its shape is checked by the estimator.
    """

    name: str
    kind: str
    default: Any
    label: str
    help: str
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    optional: bool = False
    unit: str = ""
    low_open: bool = False
    high_open: bool = False
    multiple_of: int | None = None
    also: tuple = ()
    array_ok: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"Param {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")
        if not self.help.strip():
            raise ValueError(f"Param {self.name!r}: help must not be empty")
        if self.kind in ("choice", "subset") and not self.choices:
            raise ValueError(f"Param {self.name!r}: a {self.kind} needs choices")

    # -- description -------------------------------------------------------------------
    def allowed(self) -> str:
        """Words describing the allowed values, e.g. ``"an int in [2, 1000]"``."""
        if self.kind == "seed":
            text = "an int >= 0 or a numpy.random.Generator"
        elif self.kind == "bool":
            text = "True or False"
        elif self.kind == "choice":
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif self.kind == "subset":
            text = "a non-empty list of distinct values from " + ", ".join(repr(c) for c in self.choices)
        elif self.kind == "str":
            text = "a string"
        else:
            noun = "an int" if self.kind == "int" else "a finite number"
            text = noun + self._range_text()
            if self.multiple_of:
                text += f", a multiple of {self.multiple_of}"
        extras = [repr(v) for v in self.also]
        if self.array_ok:
            extras.append("an array")
        if self.optional:
            extras.append("None")
        if extras:
            text += " or " + " or ".join(extras)
        return text

    def _range_text(self) -> str:
        if self.low is None and self.high is None:
            return ""
        if self.high is None:
            return f" {'>' if self.low_open else '>='} {self.low:g}"
        if self.low is None:
            return f" {'<' if self.high_open else '<='} {self.high:g}"
        left = "(" if self.low_open else "["
        right = ")" if self.high_open else "]"
        return f" in {left}{self.low:g}, {self.high:g}{right}"

    # -- validation ----------------------------------------------------------------------
    def _refuse(self, owner: str, value: Any, error=ValueError, hint: str = ""):
        default = f"; the default is {self.default!r}" if hint == "" else f"; {hint}"
        return error(
            f"{owner}: {self.name} must be {self.allowed()}, got {_describe(value)}{default}"
        )

    def validate(self, value: Any, owner: str) -> Any:
        """Return ``value`` converted to this parameter's type, or raise.

        Conversions are only the lossless ones: numpy scalars to Python
        numbers, an int to a float.  Text is never parsed here (see
        :meth:`parse` for command-line text).

        Parameters
        ----------
        value : object
        owner : str
            Name of the estimator or dataset, used in the message.

        Raises
        ------
        TypeError
            For a value of the wrong type (e.g. the string ``"0.5"`` for a
            float parameter).
        ValueError
            For a value of the right type outside the allowed set.
        """
        if value is None:
            if self.optional:
                return None
            raise self._refuse(owner, value, TypeError)
        if any(_literal_equal(value, extra) for extra in self.also):
            return value
        if self.array_ok and isinstance(value, (np.ndarray, list, tuple)) and not isinstance(value, str):
            return value
        kind = self.kind
        if kind == "seed":
            if isinstance(value, np.random.Generator):
                return value
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
                raise self._refuse(owner, value, TypeError, "pass e.g. seed=0 (the same int gives the same result)")
            if int(value) < 0:
                raise self._refuse(owner, value, ValueError, "pass e.g. seed=0 (the same int gives the same result)")
            return int(value)
        if kind == "bool":
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
            raise self._refuse(owner, value, TypeError)
        if kind == "choice":
            for choice in self.choices:
                if _literal_equal(value, choice):
                    return choice
            error = TypeError if not isinstance(value, (str, numbers.Number)) else ValueError
            raise self._refuse(owner, value, error)
        if kind == "subset":
            if isinstance(value, str) or not hasattr(value, "__iter__"):
                raise self._refuse(owner, value, TypeError)
            items = list(value)
            unknown = [item for item in items if item not in self.choices]
            if not items or unknown or len(set(items)) != len(items):
                raise self._refuse(owner, value, ValueError)
            return tuple(items)
        if kind == "str":
            if isinstance(value, str):
                return value
            raise self._refuse(owner, value, TypeError)
        # int / float
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise self._refuse(owner, value, TypeError)
        if kind == "int":
            if not isinstance(value, numbers.Integral):
                raise self._refuse(owner, value, TypeError)
            converted: Any = int(value)
        else:
            converted = float(value)
            if not math.isfinite(converted):
                raise self._refuse(owner, value, ValueError)
        if not self._in_range(converted):
            raise self._refuse(owner, value, ValueError)
        if self.multiple_of and converted % self.multiple_of:
            raise self._refuse(owner, value, ValueError)
        return converted

    def _in_range(self, x: float) -> bool:
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            return False
        if self.high is not None and (x > self.high or (self.high_open and x == self.high)):
            return False
        return True

    def parse(self, text: str, owner: str) -> Any:
        """Convert command-line text to a valid value (then :meth:`validate` it).

        ``"none"`` gives None where allowed; booleans accept true/false,
        yes/no, on/off, 1/0; a subset is comma-separated.
        """
        raw = str(text).strip()
        if raw.lower() in _NONE and self.optional:
            return None
        for extra in self.also:
            if raw == str(extra):
                return extra
        value: Any = raw
        try:
            if self.kind in ("int", "seed"):
                value = int(raw)
            elif self.kind == "float":
                value = float(raw)
            elif self.kind == "bool":
                if raw.lower() in _TRUE:
                    value = True
                elif raw.lower() in _FALSE:
                    value = False
            elif self.kind == "choice":
                value = next((c for c in self.choices if str(c) == raw), raw)
            elif self.kind == "subset":
                value = [item.strip() for item in raw.split(",") if item.strip()]
        except ValueError:
            value = raw  # validate names the parameter and what is allowed
        return self.validate(value, owner)


def _literal_equal(value: Any, literal: Any) -> bool:
    """``value == literal`` for plain literals, without numpy's elementwise surprises."""
    if isinstance(value, np.ndarray):
        return False
    if isinstance(literal, str) or isinstance(value, str):
        return isinstance(value, str) and isinstance(literal, str) and value == literal
    if isinstance(value, (bool, np.bool_)) != isinstance(literal, bool):
        return False
    try:
        return bool(value == literal)
    except Exception:  # noqa: BLE001 - anything incomparable is simply not equal
        return False


def validate_params(owner: str, specs: tuple[Param, ...], values: Mapping[str, Any]) -> dict[str, Any]:
    """Validate ``values`` against ``specs``; return the converted values.

    Raises
    ------
    ValueError
        For an invalid value.
    TypeError
        For a value of the wrong type or an unknown parameter name (the
        message lists the known ones).
    """
    by_name = {spec.name: spec for spec in specs}
    unknown = [name for name in values if name not in by_name]
    if unknown:
        raise TypeError(f"{owner} has no parameter {', '.join(map(repr, unknown))}; "
                         f"its parameters: {', '.join(by_name)}")
    return {name: by_name[name].validate(value, owner) for name, value in values.items()}


def parse_assignments(owner: str, specs: tuple[Param, ...], assignments) -> dict[str, Any]:
    """Parse ``["name=value", ...]`` (command-line ``--param``) into valid values."""
    by_name = {spec.name: spec for spec in specs}
    result: dict[str, Any] = {}
    for item in assignments or ():
        name, sep, text = str(item).partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise ValueError(f"{owner}: expected NAME=VALUE, got {item!r}")
        if name not in by_name:
            raise TypeError(f"{owner} has no parameter {name!r}; its parameters: {', '.join(by_name)}")
        result[name] = by_name[name].parse(text, owner)
    return result


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
          "How mutation_rate is read: per solution or per gene.", choices=MUTATION_MODES),
    Param("mutation_eta", "float", 20.0, "mutation eta",
          "Distribution index of polynomial mutation.", low=0.0, low_open=True, high=1e6),
    Param("budget_mode", "choice", "generations", "budget mode",
          "Whether the initial population counts against n_evaluations.", choices=BUDGET_MODES),
    Param("refine", "bool", True, "refine offspring", "One Lloyd step on every offspring before evaluation."),
    Param("separation", "choice", "active", "separation over",
          "Centroids the separation objective is measured over.", choices=SEPARATIONS),
    Param("empty_clusters", "choice", "keep", "empty clusters",
          "Keep or reseed an active centroid without members.", choices=EMPTY_CLUSTERS),
)
_KNEE = Param("knee", "choice", "ideal", "knee rule",
              "Rule choosing the final solution on the first front.", choices=KNEE_RULES)
_N_CONTROL_SETS = Param("n_control_sets", "int", 3, "control sets",
                        "Control fronts for knee='mock'.", low=1, high=100)
_KEEP_FRACTION = Param("keep_fraction", "float", 0.8, "kept fraction",
                       "Fraction of the previous final population carried over.", low=0.0, high=1.0)
_BACKEND = Param("backend", "choice", "numba", "backend",
                 "Compiled numba kernels or their plain NumPy twins.", choices=BACKENDS)

_ESTIMATORS: dict[str, tuple[Param, ...]] = {
    "ERCOT": _EVOLUTIONARY_HEAD + (
        _KNEE, _N_CONTROL_SETS, _KEEP_FRACTION,
        Param("n_folds", "int", 500, "CV folds",
              "Cross-validation folds of the smoothness-weight tuning.", low=2, high=10**6),
        Param("alpha_aggregate", "choice", "common", "alpha aggregate",
              "How per-cluster smoothness weights are aggregated.", choices=ALPHA_AGGREGATES),
        _BACKEND, _SEED, _PROGRESS,
    ),
    "staticEC": _EVOLUTIONARY_HEAD + (_KNEE, _N_CONTROL_SETS, _BACKEND, _SEED, _PROGRESS),
    "penaltyEC": _EVOLUTIONARY_HEAD + (
        Param("knee", "choice", "ideal", "knee rule",
              "Rule choosing the final solution on the first front ('mock' is not offered).",
              choices=PENALTY_KNEE_RULES),
        _KEEP_FRACTION, _BACKEND, _SEED, _PROGRESS,
    ),
    "k-meansCOT": (
        _n_clusters(1, "Number of clusters k (required by fit)."),
        Param("cp", "float", 0.5, "change parameter", "Weight of the history in [0, 1].", low=0.0, high=1.0),
        Param("normalise_update", "bool", True, "normalise update",
              "Divide the centroid update by the sum of its weights."),
        Param("init", "choice", "k-means++", "initial centroids",
              "First step's start: k-means++ or an array of shape (n_clusters, n_features).",
              choices=KMEANS_INITS, array_ok=True),
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
              "Start kernel k-means from the previous partition or afresh.", choices=AFFECT_INITIALIZE),
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
              choices=E2SC_METHODS),
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
    own = cls.__dict__.get("param_specs")
    if own is not None:
        return tuple(own)
    name = cls.__dict__.get("_algorithm_name")
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
          "Step length measured in Euclidean distance or per coordinate.", choices=STEP_MODES),
    Param("noise", "choice", "redrawn", "noise", "Sample noise redrawn at every step or fixed per sample.",
          choices=NOISE_MODES),
)

_BIRD_FLOCKS = (
    _DATA_SEED,
    Param("n_flocks", "int", 4, "flocks", "Number of flocks (lanes).", low=2, high=1000),
    Param("n_birds", "int", 25, "birds per flock", "Birds in each flock at the start.", low=3, high=100_000),
    Param("n_steps", "int", 30, "time steps", "Number of time steps.", low=1, high=10_000),
    Param("strays", "choice", "each_flock", "strays",
          "One stray per flock per step, or one stray per step.", choices=STRAY_MODES),
    Param("noise", "float", 0.0, "noise", "Standard deviation of observation noise.", low=0.0, high=1e6),
    Param("dims", "choice", 2, "dimensions", "Flight in 2-D or 3-D.", choices=FLOCK_DIMS),
    Param("synchronous", "bool", True, "synchronous update", "Update all birds from the same old state."),
    Param("lane_pull", "float", 0.3, "lane pull", "Strength of the pull towards the flock's lane.",
          low=0.0, high=1e6),
    Param("speed_limit", "float", 20.0, "speed limit", "Largest speed of a bird.",
          low=0.0, low_open=True, high=1e6),
)

_GAPMINDER = (
    _DATA_SEED,
    Param("features", "subset", GAPMINDER_FEATURES, "features", "Indicators used as features.",
          choices=GAPMINDER_FEATURES),
    Param("log_gdp", "bool", True, "log GDP", "Replace gdpPercap by its base-10 logarithm."),
    Param("log_pop", "bool", True, "log population", "Replace pop by its base-10 logarithm."),
    Param("scaling", "choice", "standardize", "scaling", "Feature scaling after the logarithms.",
          choices=GAPMINDER_SCALINGS),
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
