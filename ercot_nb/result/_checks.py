"""Checks of a loaded result file: header types, step scalars, every array's dtype, shape and range.

Used by :func:`ercot_nb.result._format.load_result`: a file is checked before
anything is drawn or computed from it, so a damaged or hand-made file is
refused at load with the step and array named, never later as a raw
``TypeError``/``KeyError`` or a page that draws for ever.
"""
from __future__ import annotations

import datetime as _dt
import math
import numbers

import numpy as np
import pandas as pd

__all__ = ["check_header_types", "check_step_scalars", "check_step_arrays", "MAX_LABEL"]


def check_header_types(header: dict) -> None:
    """Refuse a header whose entries have the wrong JSON types (TypeError naming the entry)."""
    def need(value, kind, what):
        if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
            raise TypeError(f"{what} is {type(value).__name__} {value!r:.60}, expected {kind.__name__}")

    for key in ("algorithm", "params", "next_label", "steps"):
        if key not in header:
            raise KeyError(f"the header has no {key!r}")
    need(header["algorithm"], str, "algorithm")
    need(header["params"], dict, "params")
    need(header["next_label"], int, "next_label")
    need(header["steps"], list, "steps")
    for t, meta in enumerate(header["steps"]):
        need(meta, dict, f"step {t}")
        need(meta.get("t"), int, f"step {t}: t")
        for name, value in meta.items():
            if name.endswith("__object"):
                need(value, dict, f"step {t}: {name}")
                need(value.get("object"), str, f"step {t}: {name}['object']")
                if value["object"] == "json":
                    need(value.get("values"), list, f"step {t}: {name}['values']")
                elif value["object"] not in ("str", "int", "float"):
                    raise ValueError(f"step {t}: {name} has unknown kind {value['object']!r:.60}")


_TIME_TYPES = (numbers.Integral, numbers.Real, str, pd.Timestamp, np.datetime64, pd.Timedelta, np.timedelta64,
               _dt.date, _dt.timedelta, tuple)


def check_step_scalars(kwargs: dict, t: int) -> None:
    """Refuse a loaded step whose scalars have the wrong types or values (TypeError/ValueError)."""
    for name in ("t", "knee", "n_max"):
        value = kwargs.get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"step {t}: {name} is {type(value).__name__} {value!r:.60}, expected an int")
    for name in ("alpha", "seconds"):
        value = kwargs.get(name)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or math.isinf(value):
            raise TypeError(f"step {t}: {name} is {type(value).__name__} {value!r:.60}, expected a finite "
                            "number or nan")
    if kwargs["n_max"] < 0 or kwargs["knee"] < -1 or (kwargs["seconds"] < 0):
        raise ValueError(f"step {t}: n_max={kwargs['n_max']}, knee={kwargs['knee']} or "
                         f"seconds={kwargs['seconds']} is negative")
    time = kwargs.get("time")
    if (isinstance(time, bool) or not isinstance(time, _TIME_TYPES)
            or isinstance(time, float) and not math.isfinite(time)):
        raise TypeError(f"step {t}: time label {time!r:.60} ({type(time).__name__}) is not a number, string, "
                        "date or time")


MAX_LABEL = 2**62  # labels and counts above this are not from a fit (next_label's bound)


def check_step_arrays(step, t: int) -> None:
    """Refuse a loaded step whose arrays have the wrong dtype, shape or range, or do not fit together.

    Raises ``ValueError`` naming the step and every array that is wrong:
    cluster counts are bounded by the number of samples and the centroid
    slots (a count of 2**62 made the page draw a colour per k), labels by
    :data:`MAX_LABEL`, and every array has the dtype the fit gives it.
    """
    problems: list[str] = []

    def kind_of(name: str, kinds: str, what: str, ndim: int | None = None) -> np.ndarray | None:
        value = getattr(step, name)
        if not isinstance(value, np.ndarray) or value.dtype.kind not in kinds:
            problems.append(f"{name} has dtype {getattr(value, 'dtype', type(value).__name__)}, expected {what}")
            return None
        if ndim is not None and value.ndim != ndim:
            problems.append(f"{name} has shape {value.shape}, expected {ndim}-D")
            return None
        return value

    def within(name: str, value: np.ndarray | None, low: int, high: int, bound: str) -> None:
        if value is not None and value.size and (value.min() < low or value.max() > high):
            bad = value.max() if value.max() > high else value.min()
            problems.append(f"{name} holds {int(bad)}, outside {low}..{high} ({bound})")

    ids = kind_of("ids", "iufUSO", "numbers, text or Python objects", ndim=1)  # as the data takes them
    n = len(ids) if ids is not None else 0
    if ids is not None and n and (ids.dtype.kind in "Of" and pd.isna(ids).any() or len(set(ids.tolist())) != n):
        problems.append("ids are missing or repeated")
    for name in ("labels", "aligned_labels"):
        value = kind_of(name, "iu", "ints", ndim=1)
        if value is not None and value.shape != (n,):
            problems.append(f"{name} has shape {value.shape}, expected ({n},)")
        elif name == "aligned_labels":
            within(name, value, 0, MAX_LABEL - 1, "labels")
    centroids = kind_of("centroids", "f", "floats", ndim=2)
    if centroids is not None and not np.isfinite(centroids).all():
        problems.append("centroids hold nan or inf")
    labels = step.labels if not problems else None
    if labels is not None and n and centroids is not None:
        within("labels", labels, 0, len(centroids) - 1, f"{len(centroids)} centroids")
    population = kind_of("population", "f", "floats", ndim=2)
    P = len(population) if population is not None else 0
    shapes = {"objectives": ((P, 2), "f", "floats"), "objectives_accumulated": ((P, 2), "f", "floats"),
              "population_n_clusters": ((P,), "iu", "ints"), "population_n_active": ((P,), "iu", "ints"),
              "first_front": ((P,), "b", "bools")}
    checked = {}
    for name, (shape, kinds, what) in shapes.items():
        value = kind_of(name, kinds, what)
        if value is not None and (P or value.size) and value.shape != shape:
            problems.append(f"{name} has shape {value.shape}, expected {shape}")
            value = None
        checked[name] = value
    if P:
        within("population_n_clusters", checked["population_n_clusters"], 0, min(n, step.n_max),
               f"a member has at most min(n_samples, n_max) = {min(n, step.n_max)} clusters")
        within("population_n_active", checked["population_n_active"], 0, step.n_max,
               f"a member has n_max = {step.n_max} centroid slots")
    if population is None:
        pass
    elif P and not step.knee < P:
        problems.append(f"knee {step.knee} is not one of the {P} population members")
    elif P and centroids is not None and population.shape[1] != step.n_max * (1 + centroids.shape[1]):
        problems.append(f"population has {population.shape[1]} genes, expected n_max * (1 + features) = "
                        f"{step.n_max * (1 + centroids.shape[1])}")
    alpha_pairs = kind_of("alpha_pairs", "f", "floats", ndim=1)
    pairs = kind_of("matched_pairs", "iu", "ints", ndim=2)
    if pairs is not None and alpha_pairs is not None and pairs.shape != (len(alpha_pairs), 2):
        problems.append(f"matched_pairs has shape {pairs.shape}, expected ({len(alpha_pairs)}, 2)")
    elif pairs is not None:
        within("matched_pairs", pairs, 0, MAX_LABEL - 1, "cluster numbers")
    if problems:
        raise ValueError(f"step {t}: " + "; ".join(problems))
