"""The paper's synthetic scenarios Syn1-Syn8: moving Gaussian clusters over time.

All eight share one model.  Four Gaussian clusters (labels 0-3, in the order
the paper lists the means) with covariance ``cov_scale * I`` are observed over
``n_steps`` steps, time labels 1..n_steps.  Cluster 2 (the bottom-left one)
moves towards cluster 0 (the top-right one) by ``step_size`` per step: at time
t it has moved ``t - 1`` steps.  The scenarios add, on top of that drift:

* membership switches (concept drift) at t = 4, 5, 6 (Syn3, Syn4, Syn6-Syn8),
* removed and inserted samples at t = 4, 6, 8 (Syn5, Syn6),
* the moving cluster's disappearance at t = 5, 6 (Syn7, Syn8).

Randomness comes from independent streams of one ``numpy.random.SeedSequence``
(membership events; sample noise per step), so a scenario's samples that no
event touches have the same positions as in the scenario it derives from
(e.g. Syn3 and Syn1 differ only in the switched samples).  The data seed is
separate from any algorithm seed.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace, dataclass
import numpy as np
import pandas as pd

from ..data import TemporalDataset
from ..paper import paper_value
from ..params import Param, with_params
from ._seed import DATA_SEED

STEP_MODES = ("euclidean", "per_coordinate")
"""How the moving cluster's step is measured (``step_mode=``)."""
STEP_WORDS = {"euclidean": "Euclidean distance", "per_coordinate": "per coordinate"}
NOISE_MODES = ("redrawn", "fixed")
"""Whether the sample noise is redrawn at every step (``noise=``)."""
NOISE_WORDS = {"redrawn": "redrawn every step", "fixed": "fixed per sample"}

PARAMS = (
    replace(DATA_SEED, doc="None draws fresh entropy, recorded in metadata['params']['seed']."),
    Param("n_steps", "int", 10, "time steps", "Number of time steps.", low=1, high=10_000,
          doc="Time labels are 1..n_steps."),
    Param("step_size", "float", 0.6, "step size", "Distance the moving cluster travels per step.",
          low=0.0, high=1e6),
    Param("cov_scale", "float", 0.8, "cluster variance", "Covariance of each cluster is cov_scale x I.",
          low=0.0, low_open=True, high=1e6),
    Param("n_per_cluster", "int", 50, "points per cluster", "Samples drawn per cluster.",
          low=1, high=100_000),
    Param("step_mode", "choice", "euclidean", "step mode",
          "Step length measured in Euclidean distance or per coordinate.", choices=STEP_MODES,
          labels=STEP_WORDS,
          doc="'euclidean' (the paper's literal reading) moves the mean step_size along the unit "
              "vector towards the target mean; 'per_coordinate' moves it step_size on every "
              "coordinate. Neither stops at the target (per-coordinate overshoots it after t=8)."),
    Param("noise", "choice", "redrawn", "noise", "Sample noise redrawn at every step or fixed per sample.",
          choices=NOISE_MODES, labels=NOISE_WORDS,
          doc="'redrawn': every sample is drawn afresh from its cluster's Gaussian at every step. "
              "'fixed': each sample keeps one offset from its current cluster's mean for the whole "
              "horizon."),
)
"""Parameters of Syn1-Syn8 (the same for every recipe), in signature order."""

__all__ = ["syn1", "syn2", "syn3", "syn4", "syn5", "syn6", "syn7", "syn8", "oracle_partition"]

_BASE_MEANS = {
    2: np.array([[2.0, 2.0], [-2.0, 2.0], [-2.0, -2.0], [2.0, -2.0]]),
    4: np.array(
        [
            [2.0, 2.0, 2.0, 2.0],
            [-2.0, -2.0, 2.0, 2.0],
            [-2.0, -2.0, -2.0, -2.0],
            [2.0, 2.0, -2.0, -2.0],
        ]
    ),
}
MOVING_CLUSTER = 2  # bottom-left (2-D) / third (4-D) cluster
TARGET_CLUSTER = 0  # top-right (2-D) / first (4-D) cluster
_N_CLUSTERS = 4

# Event schedule (time labels, 1-based as in the paper).
_SWITCH_OUT_TIMES = (4, 5)  # each time, _N_SWITCHED moving samples leave ...
_SWITCH_BACK_TIME = 6  # ... and the ones that left at t = 5 come back
_N_SWITCHED = 15
_REMOVE_TIMES = (4, 8)
_INSERT_TIMES = (6,)
_N_REMOVED_OR_INSERTED = 10  # per cluster
_ABSENT_TIMES = (5, 6)  # Syn7/Syn8: the moving cluster does not exist

# Independent random streams (spawn keys of the SeedSequence).
_NOISE_STREAM, _SWITCH_STREAM, _REMOVE_STREAM, _ABSENT_STREAM = range(4)

_STEP_MODES = STEP_MODES
_NOISE_MODES = NOISE_MODES

@dataclass(frozen=True)
class _Recipe:
    """Which events a scenario adds to the moving-cluster base."""

    name: str
    dim: int
    drift: bool = False  # membership switches at t = 4, 5, 6
    insert_remove: bool = False  # removals at t = 4, 8 and insertions at t = 6
    disappear: bool = False  # moving cluster absent at t = 5, 6
    description: str = ""


_MOVE_2D = (
    "Four 2-D Gaussian clusters (means (2,2), (-2,2), (-2,-2), (2,-2), labels 0-3, "
    "covariance 0.8 I, 50 samples each) observed over 10 steps; the bottom-left "
    "cluster (label 2) moves towards the top-right one (label 0) by 0.6 per step: at "
    "times 4-5 it is between the other three, and it overlaps the top-right one from "
    "about time 6. With the default Euclidean step the moving mean "
    "ends about 0.26 from the top-right mean at time 10, so no method separates those two "
    "clusters at times 9-10 (a property of the data, not a bug)."
)
_MOVE_4D = (
    "Four 4-D Gaussian clusters (means (2,2,2,2), (-2,-2,2,2), (-2,-2,-2,-2), "
    "(2,2,-2,-2), labels 0-3, covariance 0.8 I, 50 samples each) observed over 10 "
    "steps; the third cluster (label 2) moves towards the first (label 0) by 0.6 per "
    "step. With the default Euclidean step the moving mean ends 2.6 from the first "
    "mean at time 10."
)
_DRIFT = (
    " Concept drift: at time 4, 15 random samples of the moving cluster switch to the "
    "other three clusters (5 to each) and stay there; at time 5 another 15 switch (5 to "
    "each); at time 6 those 15 return to the moving cluster. A switched sample is drawn "
    "around its new cluster's mean and labelled with it."
)
_INSERT_REMOVE = (
    " Samples come and go: at time 4, 10 random samples of each cluster (by membership at "
    "that time) are removed for good; at time 6, 10 new samples with new ids are drawn for "
    "each cluster; at time 8, 10 random samples of each cluster are removed. Step sizes: "
    "200, 200, 200, 160, 160, 200, 200, 160, 160, 160."
)
_DISAPPEAR = (
    " The moving cluster disappears at times 5 and 6: each of its members is drawn "
    "around one of the other three clusters' means and labelled with it (one fixed "
    "destination per sample, spread evenly; samples that switched out at time 5 keep their "
    "time 5 destination). From time 7 memberships are as in the drift scenario, so the moving "
    "cluster reappears. The number of clusters (4, 4, 4, 4, 3, 3, 4, ...) is treated as "
    "unknown (k=None)."
)

_RECIPES = {
    "syn1": _Recipe("syn1", 2, description="Syn1: evolving clusters. " + _MOVE_2D),
    "syn2": _Recipe("syn2", 4, description="Syn2: evolving clusters in 4-D. " + _MOVE_4D),
    "syn3": _Recipe(
        "syn3", 2, drift=True,
        description="Syn3: Syn1 with concept drift. " + _MOVE_2D + _DRIFT,
    ),
    "syn4": _Recipe(
        "syn4", 4, drift=True,
        description="Syn4: Syn2 with concept drift. " + _MOVE_4D + _DRIFT,
    ),
    "syn5": _Recipe(
        "syn5", 2, insert_remove=True,
        description="Syn5: Syn1 with inserted and removed samples. " + _MOVE_2D + _INSERT_REMOVE,
    ),
    "syn6": _Recipe(
        "syn6", 2, drift=True, insert_remove=True,
        description="Syn6: Syn3 with inserted and removed samples. "
        + _MOVE_2D + _DRIFT + _INSERT_REMOVE,
    ),
    "syn7": _Recipe(
        "syn7", 2, drift=True, disappear=True,
        description="Syn7: Syn3 with a disappearing cluster. " + _MOVE_2D + _DRIFT + _DISAPPEAR,
    ),
    "syn8": _Recipe(
        "syn8", 4, drift=True, disappear=True,
        description="Syn8: Syn4 with a disappearing cluster. " + _MOVE_4D + _DRIFT + _DISAPPEAR,
    ),
}


# ---------------------------------------------------------------------------
# Generator
# ---------------------------------------------------------------------------


def _stream(entropy: int, *key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=key))


def _moving_path(
    start: np.ndarray, target: np.ndarray, n_steps: int, step_size: float, step_mode: str
) -> np.ndarray:
    """Mean of the moving cluster at times 1..n_steps, shape (n_steps, D).

    ``"euclidean"`` moves ``step_size`` along the unit vector towards the target;
    ``"per_coordinate"`` moves ``step_size`` on every coordinate (towards the
    target's side).  Neither stops at the target.
    """
    offset = target - start
    if step_mode == "euclidean":
        direction = offset / np.linalg.norm(offset)
    else:
        direction = np.sign(offset)
    n_moves = np.arange(n_steps, dtype=np.float64)[:, None]
    return start + n_moves * step_size * direction


def _balanced(rng: np.random.Generator, destinations: np.ndarray, count: int) -> np.ndarray:
    """``count`` destinations spread evenly (counts differ by at most one), shuffled."""
    return rng.permutation(np.resize(destinations, count))


class _Schedule:
    """Builds the membership of every id, step by step, for one recipe.

    ``members[i]`` is the cluster of id ``i`` at the current step, or -1 when
    the sample is absent (not yet inserted, or removed).
    """

    def __init__(self, recipe: _Recipe, n_per_cluster: int, entropy: int) -> None:
        self.recipe = recipe
        self.members = np.repeat(np.arange(_N_CLUSTERS), n_per_cluster)
        self.others = np.array([c for c in range(_N_CLUSTERS) if c != MOVING_CLUSTER])
        self.switch_rng = _stream(entropy, _SWITCH_STREAM)
        self.remove_rng = _stream(entropy, _REMOVE_STREAM)
        self.absent_rng = _stream(entropy, _ABSENT_STREAM)
        self.away: dict[int, int] = {}  # id -> destination of the t=5 switchers
        self.absent_destination: dict[int, int] = {}

    def _choose(
        self, rng: np.random.Generator, cluster: int, count: int, t: int, what: str
    ) -> np.ndarray:
        """Draw ``count`` present members of ``cluster`` (sorted ids) for an event."""
        candidates = np.flatnonzero(self.members == cluster)
        if candidates.size < count:
            raise ValueError(
                f"{self.recipe.name}: at t={t}, {what} needs {count} samples of cluster "
                f"{cluster} but only {candidates.size} are present; increase n_per_cluster"
            )
        return np.sort(rng.choice(candidates, size=count, replace=False))

    def advance(self, t: int) -> np.ndarray:
        """Apply the events of time ``t``; return the membership observed at ``t``."""
        recipe = self.recipe
        if recipe.drift:
            if t in _SWITCH_OUT_TIMES:
                leaving = self._choose(self.switch_rng, MOVING_CLUSTER, _N_SWITCHED, t, "a switch")
                destinations = _balanced(self.switch_rng, self.others, leaving.size)
                self.members[leaving] = destinations
                if t == _SWITCH_OUT_TIMES[-1]:
                    self.away = dict(zip(leaving.tolist(), destinations.tolist()))
            if t == _SWITCH_BACK_TIME:
                returning = [i for i in self.away if self.members[i] >= 0]
                self.members[returning] = MOVING_CLUSTER
        if recipe.insert_remove:
            if t in _REMOVE_TIMES:
                removed = [
                    self._choose(self.remove_rng, c, _N_REMOVED_OR_INSERTED, t, "a removal")
                    for c in range(_N_CLUSTERS)
                ]
                self.members[np.concatenate(removed)] = -1
            if t in _INSERT_TIMES:
                new_members = np.repeat(np.arange(_N_CLUSTERS), _N_REMOVED_OR_INSERTED)
                self.members = np.concatenate([self.members, new_members])
        observed = self.members.copy()
        if recipe.disappear and t in _ABSENT_TIMES:
            observed = self._without_moving_cluster(observed)
        return observed

    def _without_moving_cluster(self, observed: np.ndarray) -> np.ndarray:
        """Send every member of the moving cluster to its fixed destination."""
        if not self.absent_destination:
            # Samples that switched out at t=5 keep that destination.
            self.absent_destination.update(self.away)
        moving = np.flatnonzero(observed == MOVING_CLUSTER)
        new = [i for i in moving.tolist() if i not in self.absent_destination]
        if new:
            drawn = _balanced(self.absent_rng, self.others, len(new))
            self.absent_destination.update(zip(new, drawn.tolist()))
        observed[moving] = [self.absent_destination[i] for i in moving.tolist()]
        return observed


def _membership_events(times: list[int], memberships: list[np.ndarray]) -> pd.DataFrame:
    """Tidy table of membership changes between consecutive steps."""
    rows: list[tuple[int, int, str, int, int]] = []
    for t, before, after in zip(times[1:], memberships, memberships[1:]):
        before = np.concatenate([before, np.full(after.size - before.size, -1)])
        for i in np.flatnonzero(before != after).tolist():
            if before[i] < 0:
                kind = "insert"
            elif after[i] < 0:
                kind = "remove"
            else:
                kind = "switch"
            rows.append((t, i, kind, int(before[i]), int(after[i])))
    return pd.DataFrame(rows, columns=["time", "id", "event", "from_cluster", "to_cluster"])


def _check_params(
    n_steps: int, step_size: float, cov_scale: float, n_per_cluster: int, step_mode: str, noise: str
) -> None:
    if isinstance(n_steps, bool) or not isinstance(n_steps, (int, np.integer)) or n_steps < 1:
        raise ValueError(f"n_steps must be a positive int, got {n_steps!r}")
    if (
        isinstance(n_per_cluster, bool)
        or not isinstance(n_per_cluster, (int, np.integer))
        or n_per_cluster < 1
    ):
        raise ValueError(f"n_per_cluster must be a positive int, got {n_per_cluster!r}")
    if not (math.isfinite(step_size) and step_size >= 0):
        raise ValueError(f"step_size must be a finite number >= 0, got {step_size!r}")
    if not (math.isfinite(cov_scale) and cov_scale > 0):
        raise ValueError(f"cov_scale must be a finite number > 0, got {cov_scale!r}")
    if step_mode not in _STEP_MODES:
        raise ValueError(f"step_mode must be one of {list(_STEP_MODES)}, got {step_mode!r}")
    if noise not in _NOISE_MODES:
        raise ValueError(f"noise must be one of {list(_NOISE_MODES)}, got {noise!r}")


def _generate(
    recipe: _Recipe,
    seed: int | None,
    n_steps: int,
    step_size: float,
    cov_scale: float,
    n_per_cluster: int,
    step_mode: str,
    noise: str,
) -> TemporalDataset:
    _check_params(n_steps, step_size, cov_scale, n_per_cluster, step_mode, noise)
    entropy = np.random.SeedSequence(seed).entropy
    base = _BASE_MEANS[recipe.dim]
    moving_path = _moving_path(
        base[MOVING_CLUSTER], base[TARGET_CLUSTER], n_steps, step_size, step_mode
    )
    times = list(range(1, n_steps + 1))
    schedule = _Schedule(recipe, n_per_cluster, entropy)
    memberships = [schedule.advance(t) for t in times]

    n_ids = memberships[-1].size  # ids only ever get added
    scale = math.sqrt(cov_scale)
    fixed_offsets = _stream(entropy, _NOISE_STREAM, 0).standard_normal((n_ids, recipe.dim))

    X_list, id_list, label_list, true_means, true_mean_labels = [], [], [], [], []
    for index, t in enumerate(times):
        means = base.copy()
        means[MOVING_CLUSTER] = moving_path[index]
        if noise == "fixed":
            offsets = fixed_offsets
        else:
            offsets = _stream(entropy, _NOISE_STREAM, t).standard_normal((n_ids, recipe.dim))
        membership = memberships[index]
        ids = np.flatnonzero(membership >= 0)
        labels = membership[ids]
        X_list.append(means[labels] + scale * offsets[ids])
        id_list.append(ids)
        label_list.append(labels)
        present = np.unique(labels)
        true_means.append(means[present])
        true_mean_labels.append(present)

    params = {
        "seed": entropy,
        "n_steps": n_steps,
        "step_size": step_size,
        "cov_scale": cov_scale,
        "n_per_cluster": n_per_cluster,
        "step_mode": step_mode,
        "noise": noise,
    }
    metadata = {
        "scenario": recipe.name,
        "description": recipe.description,
        "params": params,
        "k": None if recipe.disappear else _N_CLUSTERS,
        "true_means": true_means,
        "true_mean_labels": true_mean_labels,
        "moving_cluster": MOVING_CLUSTER,
        "target_cluster": TARGET_CLUSTER,
        "events": _membership_events(times, memberships),
        "paper_ercot": {metric: paper_value(metric, recipe.name, "ERCOT")[0]
                        for metric in ("mRI", "mNMI")},
    }
    return TemporalDataset.from_arrays(
        X_list,
        ids=id_list,
        labels=label_list,
        times=times,
        feature_names=[f"x{j}" for j in range(recipe.dim)],
        name=recipe.name,
        metadata=metadata,
    )


# ---------------------------------------------------------------------------
# Public loaders
# ---------------------------------------------------------------------------

_PARAMETERS_DOC = """
    Returns
    -------
    TemporalDataset
        Ids are integers; the same id is the same sample at every step, and
        ground-truth labels are cluster memberships (0-3).  ``metadata`` holds
        ``true_means`` and ``true_mean_labels`` (per step, the clusters that
        exist at that step), ``k``, ``params``, ``description``, ``events``
        (a table of membership switches, insertions and removals) and
        ``paper_ercot`` (ERCOT's published mRI and mNMI).
"""


def _loader(recipe_name: str) -> Callable[..., TemporalDataset]:
    """Make the public loader of one scenario, documented by its recipe."""
    recipe = _RECIPES[recipe_name]

    def load(
        seed: int | None,
        *,
        n_steps: int,
        step_size: float,
        cov_scale: float,
        n_per_cluster: int,
        step_mode: str,
        noise: str,
    ) -> TemporalDataset:
        return _generate(
            recipe, seed, n_steps, step_size, cov_scale, n_per_cluster, step_mode, noise
        )

    load.__name__ = load.__qualname__ = recipe_name
    load.__doc__ = recipe.description + "\n" + _PARAMETERS_DOC
    return with_params(PARAMS)(load)


syn1 = _loader("syn1")
syn2 = _loader("syn2")
syn3 = _loader("syn3")
syn4 = _loader("syn4")
syn5 = _loader("syn5")
syn6 = _loader("syn6")
syn7 = _loader("syn7")
syn8 = _loader("syn8")


def oracle_partition(dataset: TemporalDataset) -> list[np.ndarray]:
    """Assign every sample to the nearest true cluster mean, at every step.

    For the Gaussian scenarios (equal, isotropic covariances and near-equal
    cluster sizes) this is the Bayes rule: a reference for the best accuracy
    any method can reach.

    Parameters
    ----------
    dataset : TemporalDataset
        A dataset whose ``metadata`` holds ``true_means`` (per step, an array
        of shape (k_t, n_features)) and optionally ``true_mean_labels`` (per
        step, the label of each mean; default ``0..k_t-1``).

    Returns
    -------
    list of ndarray of shape (n_t,), dtype int64
        Per step, the label of the nearest true mean of each sample.

    Raises
    ------
    ValueError
        If the dataset has no true means, or they do not match its steps.
    """
    means_per_step = dataset.metadata.get("true_means")
    if means_per_step is None:
        raise ValueError(
            f"dataset {dataset.name!r} has no true means (metadata['true_means']); "
            "the oracle partition needs them"
        )
    labels_per_step = dataset.metadata.get("true_mean_labels")
    if len(means_per_step) != len(dataset) or (
        labels_per_step is not None and len(labels_per_step) != len(dataset)
    ):
        raise ValueError(
            f"metadata['true_means'] has {len(means_per_step)} entries but the dataset has "
            f"{len(dataset)} steps"
        )
    partition = []
    for index, snapshot in enumerate(dataset):
        means = np.asarray(means_per_step[index], dtype=np.float64)
        if means.ndim != 2 or means.shape[1] != dataset.n_features or means.shape[0] == 0:
            raise ValueError(
                f"step {index} (time={snapshot.time!r}): true means must have shape "
                f"(k, {dataset.n_features}), got {means.shape}"
            )
        mean_labels = (
            np.arange(means.shape[0])
            if labels_per_step is None
            else np.asarray(labels_per_step[index], dtype=np.int64)
        )
        squared_distances = ((snapshot.X[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
        partition.append(mean_labels[np.argmin(squared_distances, axis=1)].astype(np.int64))
    return partition
