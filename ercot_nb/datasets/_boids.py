"""The bird_flocks scenario: Boids flocks on parallel lanes with stray birds.

A Boids simulation after Parker's pseudocode (cohesion, separation,
alignment, speed limit), set up as ``docs/algorithm.md``, *Bird flocks*,
describes: ``n_flocks`` flocks of ``n_birds`` birds fly
along parallel lanes, and at every step after the first a stray bird of each
flock joins another flock.  Cohesion and alignment look only at a bird's
current flock-mates, which is what keeps the flocks apart; separation looks at
every bird nearby.  The ground truth is flock membership, and the number of
clusters is treated as unknown to the algorithm (``k=None``).
"""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from ..data import TemporalDataset
from ..paper import dataset_numbers
from ..params import Param, with_params
from ._seed import DATA_SEED

__all__ = ["bird_flocks"]

LANE_SPACING = 60.0  # flock f flies along y = LANE_SPACING * f
START_LENGTH = 30.0  # initial x ~ U(0, START_LENGTH)
START_HALF_WIDTH = 15.0  # initial y (and z) ~ lane + U(-15, 15)
CRUISE_SPEED = 2.0  # initial velocity (2, 0[, 0]) ...
VELOCITY_JITTER = 0.25  # ... plus U(-0.25, 0.25) per component
COHESION = 1.0 / 100.0  # r1 multiplier: move 1% of the way to the flock centre
ALIGNMENT = 1.0 / 8.0  # r3 multiplier
SEPARATION_RADIUS = 3.0  # r2 looks at birds closer than this
SPEED_LIMIT = 4.0  # v_lim of the generator without the lane rule (lane_pull=0)
LANE_PULL = 0.3  # default multiplier of the "tendency to a place" rule (the flock's lane)
FAST_SPEED_LIMIT = 20.0  # default v_lim with the lane rule: strays cross lanes in a few steps
MIN_FLOCK_SIZE = 2  # a flock never loses a bird below this size

STRAY_MODES = ("each_flock", "one")
"""Strays per step: one per flock, or one in all (``strays=``)."""
STRAY_WORDS = {"each_flock": "one per flock", "one": "one per step"}
FLOCK_DIMS = (2, 3)
"""Space dimensions of the flight (``dims=``)."""
DIMS_WORDS = {2: "2-D", 3: "3-D"}
_STRAY_MODES = STRAY_MODES

PARAMS = (
    replace(DATA_SEED, doc="None draws fresh entropy, recorded in metadata['params']['seed']. Initial "
                           "state, switches and observation noise use independent random streams, so "
                           "changing noise does not change the flight paths."),
    Param("n_flocks", "int", 4, "flocks", "Number of flocks (lanes).", low=2, high=1000),
    Param("n_birds", "int", 25, "birds per flock", "Birds in each flock at the start.", low=3, high=100_000),
    Param("n_steps", "int", 30, "time steps", "Number of time steps.", low=1, high=10_000),
    Param("strays", "choice", "each_flock", "strays",
          "One stray per flock per step, or one stray per step.", choices=STRAY_MODES,
          labels=STRAY_WORDS,
          doc="'each_flock': n_flocks switches per step. 'one': the other reading of the paper, a "
              "single stray per step, from a flock drawn uniformly."),
    Param("noise", "float", 0.0, "noise", "Standard deviation of observation noise.", low=0.0, high=1e6,
          doc="Gaussian, added to the features (0.5 is a sensible value when enabled); the true "
              "positions (and true_means) are noise-free."),
    Param("dims", "choice", 2, "dimensions", "Flight in 2-D or 3-D.", choices=FLOCK_DIMS,
          labels=DIMS_WORDS),
    Param("synchronous", "bool", True, "synchronous update", "Update all birds from the same old state.",
          doc="True computes every bird's rules from the state at t, then applies them "
              "(order-independent). False uses Parker's sequential in-place order: later birds see "
              "earlier birds' updated velocity and position."),
    Param("lane_pull", "float", LANE_PULL, "lane pull", "Strength of the pull towards the flock's lane.",
          low=0.0, high=1e6, doc="0 turns the rule off."),
    Param("speed_limit", "float", FAST_SPEED_LIMIT, "speed limit", "Largest speed of a bird.",
          low=0.0, low_open=True, high=1e6, doc="v_lim (4 without the lane rule)."),
)
"""Parameters of :func:`bird_flocks`, in signature order."""
_INIT_STREAM, _STRAY_STREAM, _NOISE_STREAM = range(3)



def _stream(entropy: int, key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=(key,)))


def _check_params(
    n_flocks: int, n_birds: int, n_steps: int, strays: str, noise: float, dims: int
) -> None:
    checks = (("n_flocks", n_flocks, 2), ("n_birds", n_birds, 3), ("n_steps", n_steps, 1))
    for name, value, low in checks:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    if strays not in _STRAY_MODES:
        raise ValueError(f"strays must be one of {list(_STRAY_MODES)}, got {strays!r}")
    if not (isinstance(noise, (int, float, np.floating)) and math.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")
    if dims not in FLOCK_DIMS:
        raise ValueError(f"dims must be 2 or 3, got {dims!r}")


def _mates_mean(values: np.ndarray, flock: np.ndarray, n_flocks: int) -> np.ndarray:
    """Per bird, the mean of ``values`` over its *other* current flock-mates."""
    counts = np.bincount(flock, minlength=n_flocks).astype(np.float64)
    sums = np.zeros((n_flocks, values.shape[1]))
    np.add.at(sums, flock, values)
    others = np.maximum(counts[flock] - 1.0, 1.0)[:, None]
    return (sums[flock] - values) / others


def _separation(position: np.ndarray) -> np.ndarray:
    """Parker's r2 for every bird: minus the sum of offsets to birds closer than d_sep."""
    pairs = cKDTree(position).query_pairs(SEPARATION_RADIUS, output_type="ndarray")
    push = np.zeros_like(position)
    if pairs.size:
        i, j = pairs[:, 0], pairs[:, 1]
        offset = position[j] - position[i]
        close = np.einsum("ij,ij->i", offset, offset) < SEPARATION_RADIUS**2  # strict <
        i, j, offset = i[close], j[close], offset[close]
        np.add.at(push, i, -offset)  # bird i moves away from j ...
        np.add.at(push, j, offset)  # ... and j away from i
    return push


def _limit_speed(velocity: np.ndarray, speed_limit: float) -> np.ndarray:
    speed = np.linalg.norm(velocity, axis=-1, keepdims=True)
    factor = np.where(speed > speed_limit, speed_limit / np.maximum(speed, 1e-300), 1.0)
    return velocity * factor


def _lane_steering(
    position: np.ndarray, velocity: np.ndarray, flock: np.ndarray, lane_pull: float
) -> np.ndarray:
    """Steer the lateral velocity to ``lane_pull`` times the offset to the bird's lane.

    A damped "tendency to a place" (Reynolds' arrival steering): the lateral
    velocity (``y`` and ``z``) is replaced by ``lane_pull * (lane - position)``,
    so a bird approaches its lane (``y = LANE_SPACING * flock``, ``z = 0``)
    geometrically without overshooting; the flight direction ``x`` is free.
    ``lane_pull=0`` turns the rule off.
    """
    steer = np.zeros_like(position)
    if lane_pull > 0:
        lane = np.zeros_like(position[:, 1:])
        lane[:, 0] = LANE_SPACING * flock
        steer[:, 1:] = lane_pull * (lane - position[:, 1:]) - velocity[:, 1:]
    return steer


def _step_synchronous(
    position: np.ndarray,
    velocity: np.ndarray,
    flock: np.ndarray,
    n_flocks: int,
    lane_pull: float,
    speed_limit: float,
) -> None:
    """One rule update computed from the state at t for every bird, then applied."""
    r1 = COHESION * (_mates_mean(position, flock, n_flocks) - position)
    r2 = _separation(position)
    r3 = ALIGNMENT * (_mates_mean(velocity, flock, n_flocks) - velocity)
    r4 = _lane_steering(position, velocity, flock, lane_pull)
    velocity[:] = _limit_speed(velocity + r1 + r2 + r3 + r4, speed_limit)
    position += velocity


def _step_in_place(
    position: np.ndarray,
    velocity: np.ndarray,
    flock: np.ndarray,
    lane_pull: float,
    speed_limit: float,
) -> None:
    """Parker's order: birds in index order, each seeing earlier birds' new state."""
    for b in range(position.shape[0]):
        mates = np.flatnonzero(flock == flock[b])
        mates = mates[mates != b]
        r1 = COHESION * (position[mates].mean(axis=0) - position[b])
        offset = position - position[b]
        near = np.einsum("ij,ij->i", offset, offset) < SEPARATION_RADIUS**2
        near[b] = False
        r2 = -offset[near].sum(axis=0)
        r3 = ALIGNMENT * (velocity[mates].mean(axis=0) - velocity[b])
        r4 = _lane_steering(position[b : b + 1], velocity[b : b + 1], flock[b : b + 1], lane_pull)[0]
        velocity[b] = _limit_speed(velocity[b] + r1 + r2 + r3 + r4, speed_limit)
        position[b] += velocity[b]


def _switch_strays(
    flock: np.ndarray, n_flocks: int, strays: str, rng: np.random.Generator
) -> list[tuple[int, int, int]]:
    """Move stray birds to other flocks in place; return (bird, from, to) per switch.

    A bird switches at most once per step, and a flock at ``MIN_FLOCK_SIZE``
    members gives no bird away (its turn is skipped).
    """
    order = range(n_flocks) if strays == "each_flock" else [int(rng.integers(n_flocks))]
    moved = np.zeros(flock.size, dtype=bool)
    switches = []
    for f in order:
        if np.count_nonzero(flock == f) <= MIN_FLOCK_SIZE:
            continue
        candidates = np.flatnonzero((flock == f) & ~moved)
        if candidates.size == 0:
            continue
        bird = int(rng.choice(candidates))
        others = np.array([g for g in range(n_flocks) if g != f])
        target = int(rng.choice(others))
        flock[bird] = target
        moved[bird] = True
        switches.append((bird, f, target))
    return switches


@with_params(PARAMS)
def bird_flocks(
    seed: int | None,
    *,
    n_flocks: int,
    n_birds: int,
    n_steps: int,
    strays: str,
    noise: float,
    dims: int,
    synchronous: bool,
    lane_pull: float,
    speed_limit: float,
) -> TemporalDataset:
    """Boids flocks on parallel lanes whose stray birds change flock (concept drift).

    Flock ``f`` starts on the lane ``y = 60 f``: positions ``x ~ U(0, 30)``,
    ``y ~ 60 f + U(-15, 15)`` (and ``z ~ U(-15, 15)`` in 3-D), velocity
    ``(2, 0[, 0])`` plus ``U(-0.25, 0.25)`` per component.  Bird ``i`` starts
    in flock ``i // n_birds``.  At every time ``t = 1..n_steps``:

    1. (``t >= 2``) drift: for each flock in turn, one current member drawn
       uniformly (not one that already switched at this step) joins a flock
       drawn uniformly from the others.  It keeps its position and velocity,
       so it is spatially in the wrong flock for a few steps.  A flock with
       only 2 members gives no bird away.
    2. One Boids rule update: ``v <- v + r1 + r2 + r3 + r4``, speed limited
       to ``speed_limit``, then ``x <- x + v``, with r1 (cohesion) = 1/100 of
       the way to the mean position of the bird's other flock-mates; r2
       (separation) = minus the sum of offsets to every bird (any flock)
       closer than 3; r3 (alignment) = 1/8 of the difference to the
       flock-mates' mean velocity; r4 (Parker's "tendency to a place", the
       place being the bird's current lane) = ``lane_pull`` times the
       lateral offset to the lane (``y = 60 f``, ``z = 0``).
    3. Observation: features are the positions after the update (plus
       optional Gaussian noise); labels are flock memberships after the
       step's switches.

    Why the lane rule.  ``lane_pull=0, speed_limit=4`` is exactly the
    plain generator (no lane rule), but its flocks do
    not stay on parallel paths: a flock's centroid is held only by cohesion
    and alignment and moves when members change, each stray that joins drags
    it ~60/25 towards the stray's lane, and a stray needs ~25 steps to reach
    its new flock while every bird switches about every 25 steps.  The lanes
    drift to the middle and the nearest-centroid oracle scores mRI about
    0.70 (seeds 0-2).  The defaults (``lane_pull=0.3``, ``speed_limit=20``)
    keep the four parallel lanes of the paper's figure and let a stray reach
    its new lane in a few steps, so it is in the wrong place only briefly
    (oracle mRI 0.90 for seeds 0-2; the paper reports 0.895 for ERCOT).
    ``strays="one"`` is the other reading of the paper (fewer switches).

    Returns
    -------
    TemporalDataset
        ``n_flocks * n_birds`` integer ids, the same at every step (no bird is
        inserted or removed); features ``x, y[, z]``; labels = flock (0 to
        n_flocks - 1).  ``metadata`` holds ``description``, ``params``,
        ``k`` (None: unknown to the algorithm), ``true_means`` and
        ``true_mean_labels`` (per step, the noise-free centroid of each flock,
        for :func:`ercot_nb.datasets.oracle_partition`), ``events`` (a table of
        switches: time, id, from_cluster, to_cluster), ``lane_spacing`` and
        ``paper`` (the published mRI and seconds per step of ERCOT and staticEC
        on the paper's flock data, from :mod:`ercot_nb.paper`).

    Raises
    ------
    ValueError
        For an invalid parameter value.

    Examples
    --------
    >>> from ercot_nb import datasets
    >>> datasets.load("bird_flocks")
    TemporalDataset(name='bird_flocks', steps=30, features=2, samples=100..100, labels=yes)
    """
    _check_params(n_flocks, n_birds, n_steps, strays, noise, dims)
    for name, value in (("lane_pull", lane_pull), ("speed_limit", speed_limit)):
        if not (isinstance(value, (int, float, np.floating)) and math.isfinite(value)) or value < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    if speed_limit == 0:
        raise ValueError("speed_limit must be > 0, got 0")
    entropy = np.random.SeedSequence(seed).entropy
    init_rng = _stream(entropy, _INIT_STREAM)
    stray_rng = _stream(entropy, _STRAY_STREAM)
    noise_rng = _stream(entropy, _NOISE_STREAM)

    n_total = n_flocks * n_birds
    flock = np.repeat(np.arange(n_flocks), n_birds)
    position = np.empty((n_total, dims))
    position[:, 0] = init_rng.uniform(0.0, START_LENGTH, n_total)
    position[:, 1:] = init_rng.uniform(-START_HALF_WIDTH, START_HALF_WIDTH, (n_total, dims - 1))
    position[:, 1] += LANE_SPACING * flock
    velocity = init_rng.uniform(-VELOCITY_JITTER, VELOCITY_JITTER, (n_total, dims))
    velocity[:, 0] += CRUISE_SPEED

    times = list(range(1, n_steps + 1))
    ids = np.arange(n_total)
    X_list, label_list, true_means, true_mean_labels = [], [], [], []
    events: list[tuple[int, int, str, int, int]] = []
    for t in times:
        if t >= 2:
            for bird, source, target in _switch_strays(flock, n_flocks, strays, stray_rng):
                events.append((t, bird, "switch", source, target))
        if synchronous:
            _step_synchronous(position, velocity, flock, n_flocks, lane_pull, speed_limit)
        else:
            _step_in_place(position, velocity, flock, lane_pull, speed_limit)
        observed = position.copy()
        if noise > 0:
            observed += noise_rng.normal(0.0, noise, observed.shape)
        X_list.append(observed)
        label_list.append(flock.copy())
        present = np.unique(flock)
        true_means.append(np.array([position[flock == f].mean(axis=0) for f in present]))
        true_mean_labels.append(present)

    params = {
        "seed": entropy,
        "n_flocks": n_flocks,
        "n_birds": n_birds,
        "n_steps": n_steps,
        "strays": strays,
        "noise": noise,
        "dims": dims,
        "synchronous": synchronous,
        "lane_pull": lane_pull,
        "speed_limit": speed_limit,
    }
    stray_text = (
        "at every step after the first, one stray bird of each flock joins a flock drawn "
        "uniformly from the others"
        if strays == "each_flock"
        else "at every step after the first, a single stray bird (from a flock drawn "
        "uniformly) joins a flock drawn uniformly from the others"
    )
    description = (
        f"bird_flocks: a {dims}-D Boids simulation of {n_flocks} flocks of {n_birds} birds "
        f"flying along parallel lanes {LANE_SPACING:g} apart for {n_steps} steps; "
        f"{stray_text}, keeping its position and velocity (concept drift). Cohesion and "
        "alignment act between flock-mates only, separation between all birds closer than "
        f"{SEPARATION_RADIUS:g}; a pull of {lane_pull:g} towards the bird's current lane; "
        f"speed limit {speed_limit:g}; "
        f"{'synchronous' if synchronous else 'sequential in-place'} updates. Features are "
        "positions, labels are flock memberships; the number of clusters is treated as "
        "unknown (k=None)."
    )
    metadata = {
        "scenario": "bird_flocks",
        "description": description,
        "params": params,
        "k": None,
        "true_means": true_means,
        "true_mean_labels": true_mean_labels,
        "events": pd.DataFrame(
            events, columns=["time", "id", "event", "from_cluster", "to_cluster"]
        ),
        "lane_spacing": LANE_SPACING,
        "paper": dataset_numbers("bird_flocks"),
    }
    return TemporalDataset.from_arrays(
        X_list,
        ids=[ids] * n_steps,
        labels=label_list,
        times=times,
        feature_names=["x", "y", "z"][:dims],
        name="bird_flocks",
        metadata=metadata,
    )
