"""Validation of raw input: one step's arrays, ids, time labels, labels, numeric range.

Every message names the step (0-based index and time label), the column and a few
offending ids or values.
"""
from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._snapshot import Snapshot

__all__ = ["check_arithmetic_range", "check_float32_range", "ARITHMETIC_LIMIT", "FLOAT32_LIMIT",
           "FLOAT32_MIN_LEVELS"]

_N_LISTED = 5  # how many offending ids / values an error message shows
ARITHMETIC_LIMIT = 1e150  # |feature| above this (or a total spread below its inverse) breaks squared distances
FLOAT32_LIMIT = 1e17  # the same limit for float32 distances (squares of sums of up to ~100 features stay finite)
FLOAT32_MIN_LEVELS = 1000  # float32 values a feature needs across its range (else distances are rounding noise)


def _step_name(index: int, time: Any) -> str:
    """Where a message points: the step's time label, which is what the user knows.

    (A 0-based step count beside a time label read as a wrong position; a step
    without a usable label is named by its 1-based position, see
    :func:`_check_unique_times`.)
    """
    return f"time {time!r}"


def _few(values: Iterable[Any]) -> str:
    """Format the first few values of ``values`` for an error message."""
    values = list(values)
    shown = ", ".join(repr(_python_scalar(v)) for v in values[:_N_LISTED])
    return f"[{shown}, ...]" if len(values) > _N_LISTED else f"[{shown}]"


def _python_scalar(value: Any) -> Any:
    """Turn numpy scalars (except dates) into plain Python values."""
    if isinstance(value, np.generic) and not isinstance(value, (np.datetime64, np.timedelta64)):
        return value.item()
    return value


def _default_feature_names(n_features: int) -> list[str]:
    return [f"x{j}" for j in range(n_features)]


def _check_feature_names(feature_names: Iterable[Any]) -> tuple[str, ...]:
    names = tuple(str(name) for name in feature_names)
    if len(names) == 0:
        raise ValueError("a dataset needs at least one feature column; got none")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"feature names must be unique; repeated: {repeated}")
    return names


def _is_number_array(array: np.ndarray) -> bool:
    return array.dtype.kind in "iuf"


def _validated_snapshot(
    time: Any,
    ids: Any,
    X: Any,
    labels: Any,
    *,
    index: int,
    feature_names: Sequence[str] | None,
) -> Snapshot:
    """Check one step's raw input and build its :class:`Snapshot`.

    ``feature_names=None`` accepts any number of features (used for the first
    step, from which the names are derived).
    """
    where = _step_name(index, time)
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(
            f"{where}: X must be a 2-D array of shape (n_samples, n_features), "
            f"got a {X.ndim}-D array of shape {X.shape}"
        )
    names = list(feature_names) if feature_names is not None else _default_feature_names(X.shape[1])
    if X.shape[1] != len(names):
        raise ValueError(
            f"{where}: X has {X.shape[1]} feature column(s) but {len(names)} were expected "
            f"({names}); the number of features must be the same at every step"
        )
    if X.dtype.kind == "b":
        raise ValueError(f"{where}: X is boolean; features must hold int or float values")
    if not _is_number_array(X):
        X = _numeric_or_raise(X, where, names)

    n_samples = X.shape[0]
    if ids is None:
        ids = np.arange(n_samples, dtype=np.int64)
    ids = np.asarray(ids)
    if ids.ndim != 1:
        raise ValueError(f"{where}: ids must be 1-D, got shape {ids.shape}")
    if ids.shape[0] != n_samples:
        raise ValueError(f"{where}: ids has {ids.shape[0]} entries but X has {n_samples} rows")
    missing = pd.isna(ids)
    if missing.any():
        raise ValueError(f"{where}: {int(missing.sum())} id(s) are missing (None or NaN); give "
                         "every row its sample id, or drop the rows without one")
    _id_kind(ids, where)
    duplicated = pd.Series(ids).duplicated().to_numpy()
    if duplicated.any():
        repeated = pd.unique(ids[duplicated])
        raise ValueError(
            f"{where}: ids must be unique within a step; {len(repeated)} id(s) occur more "
            f"than once: {_few(repeated)}"
        )

    if n_samples < 2:
        raise ValueError(f"{where}: has {n_samples} sample(s); every step needs at least 2")

    finite = np.isfinite(X)
    if not finite.all():
        problems = []
        for column in np.flatnonzero(~finite.all(axis=0)):
            rows = np.flatnonzero(~finite[:, column])
            problems.append(
                f"column {names[column]!r}: {rows.size} row(s), e.g. ids {_few(ids[rows])}"
            )
        columns = [names[column] for column in np.flatnonzero(~finite.all(axis=0))]
        raise ValueError(
            f"{where}: non-finite feature values (NaN or ±inf) in " + "; ".join(problems)
            + ". Drop those rows or fill in their values (in pandas: "
            f"df.dropna(subset={columns!r}) or df.fillna(...)), or leave "
            + ("that column" if len(columns) == 1 else "those columns")
            + " out of the features, then load again"
        )

    if labels is not None:
        labels = np.asarray(labels)
        if labels.ndim != 1:
            raise ValueError(f"{where}: labels must be 1-D, got shape {labels.shape}")
        if labels.shape[0] != n_samples:
            raise ValueError(
                f"{where}: labels has {labels.shape[0]} entries but X has {n_samples} rows"
            )
        labels = _integer_labels(labels, where)

    return Snapshot(time=time, ids=ids, X=X, labels=labels)


def _numeric_or_raise(X: np.ndarray, where: str, names: Sequence[str]) -> np.ndarray:
    """Convert an object array of numbers to float64, or name the first bad column."""
    if X.dtype.kind == "O":
        for column in range(X.shape[1]):
            for value in X[:, column]:
                if isinstance(value, (bool, np.bool_)) or not isinstance(
                    value, (int, float, np.integer, np.floating)
                ):
                    raise ValueError(
                        f"{where}: feature column {names[column]!r} holds a non-numeric "
                        f"value {value!r}; features must hold int or float values"
                    )
        return X.astype(np.float64)
    raise ValueError(
        f"{where}: X has non-numeric dtype {X.dtype}; features must hold int or float values"
    )


def _integer_labels(labels: np.ndarray, where: str) -> np.ndarray:
    """Return labels as int64, accepting integral floats; raise otherwise."""
    if labels.dtype.kind in "iu":
        return labels.astype(np.int64, copy=False)
    if labels.dtype.kind == "b":
        return labels.astype(np.int64)
    if labels.dtype.kind == "f":
        if not np.isfinite(labels).all():
            n_bad = int((~np.isfinite(labels)).sum())
            raise ValueError(f"{where}: {n_bad} label(s) are missing or not finite; fill them in, "
                             "drop those rows, or load the data without labels")
        if np.any(labels != np.round(labels)):
            raise ValueError(f"{where}: labels must be integers; got non-integral floats")
        return labels.astype(np.int64)
    raise ValueError(f"{where}: labels must be integers, got dtype {labels.dtype}")


def _encode_label_steps(
    label_steps: list[Any], times: Sequence[Any]
) -> tuple[list[np.ndarray | None], list[Any] | None]:
    """Encode non-numeric labels (e.g. strings) as int codes shared by all steps.

    Returns the per-step labels (unchanged when all are numeric) and the label
    names (``names[code]`` is the original label), or None when no encoding was
    needed.
    """
    arrays = [None if labels is None else np.asarray(labels) for labels in label_steps]
    if all(a is None or a.dtype.kind in "iufb" for a in arrays):
        return arrays, None
    present = [a for a in arrays if a is not None]
    for step, a in enumerate(arrays):
        if a is not None and bool(pd.isna(a).any()):
            raise ValueError(
                f"{_step_name(step, times[step])}: {int(pd.isna(a).sum())} label(s) are missing; "
                "fill them in, drop those rows, or load the data without labels"
            )
    try:
        names = np.unique(np.concatenate([a.astype(object) for a in present]))
    except TypeError as exc:  # unorderable mix of types
        raise ValueError(f"labels cannot be sorted into a consistent encoding: {exc}") from exc
    codes = {name: code for code, name in enumerate(names.tolist())}
    encoded = [
        None if a is None else np.fromiter((codes[v] for v in a.tolist()), np.int64, a.shape[0])
        for a in arrays
    ]
    return encoded, names.tolist()


def _is_missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # arrays, tuples: not a missing scalar
        return False


def _id_kind(ids: np.ndarray, where: str) -> str:
    """``"number"`` or ``"text"`` (or ``"other"``); refuse ids that mix numbers and text."""
    if ids.dtype.kind in "iuf":
        return "number"
    if ids.dtype.kind in "US":
        return "text"
    if ids.dtype.kind != "O":
        return "other"
    numbers_at = [i for i, v in enumerate(ids.tolist())
                  if isinstance(v, numbers.Number) and not isinstance(v, bool)]
    texts_at = [i for i, v in enumerate(ids.tolist()) if isinstance(v, (str, bytes))]
    if numbers_at and texts_at:
        raise ValueError(
            f"{where}: ids mix numbers and text ({len(numbers_at)} numbers such as "
            f"{_few(ids[numbers_at[:2]])}, {len(texts_at)} strings such as {_few(ids[texts_at[:2]])}); "
            "10 and '10' would be different samples. Make them one type, e.g. ids.astype(str)"
        )
    if numbers_at and len(numbers_at) == len(ids):
        return "number"
    if texts_at and len(texts_at) == len(ids):
        return "text"
    return "other"


def _check_id_kinds(snapshots: Sequence[Snapshot]) -> None:
    """Refuse ids that are numbers at one step and text at another (no sample would match)."""
    first_kind = None
    for index, snapshot in enumerate(snapshots):
        kind = _id_kind(snapshot.ids, _step_name(index, snapshot.time))
        if kind == "other":
            continue
        if first_kind is None:
            first_kind = (kind, index)
        elif kind != first_kind[0]:
            raise ValueError(
                f"{_step_name(index, snapshot.time)}: ids are {kind} but {first_kind[0]} at "
                f"{_step_name(first_kind[1], snapshots[first_kind[1]].time)}; no sample would be the "
                "same at both steps. Give every step ids of one type, e.g. all strings"
            )


def _check_unique_times(times: Sequence[Any]) -> None:
    seen: dict[Any, int] = {}
    for index, time in enumerate(times):
        if _is_missing(time):
            raise ValueError(
                f"step {index + 1} of {len(times)} (counting from 1): time label {time!r} is "
                "missing (None/NaN/NaT); give every step its own time label"
            )
        try:
            first = seen.setdefault(time, index)
        except TypeError as exc:
            raise ValueError(f"step {index + 1} of {len(times)} (counting from 1): time label "
                             f"{time!r} is not hashable") from exc
        if first != index:
            raise ValueError(
                f"time label {time!r} is used by two steps ({first + 1} and {index + 1} of "
                f"{len(times)}, counting from 1); time labels must be unique"
            )


def _is_feature_dtype(series: pd.Series) -> bool:
    """Int or float columns (nullable ones included); not bool, not complex."""
    dtype = series.dtype
    return (
        pd.api.types.is_numeric_dtype(dtype)
        and not pd.api.types.is_bool_dtype(dtype)
        and not pd.api.types.is_complex_dtype(dtype)
    )


def _column_values(series: pd.Series) -> np.ndarray:
    """A column as a numpy array: integers stay integers, strings become objects."""
    if pd.api.types.is_integer_dtype(series.dtype) and not series.isna().any():
        return series.to_numpy()
    if pd.api.types.is_float_dtype(series.dtype):
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    return series.to_numpy(dtype=object)


def _per_step_argument(values: Sequence[Any] | None, what: str, n_steps: int) -> list[Any]:
    """Expand an optional per-step argument to a list with one entry per step."""
    if values is None:
        return [None] * n_steps
    values = list(values)
    if len(values) != n_steps:
        raise ValueError(f"{what} has {len(values)} entries but X_list has {n_steps} steps")
    return values


def check_arithmetic_range(snapshot: Snapshot, index: int,
                           feature_names: Sequence[str] | None = None) -> None:
    """Refuse features whose squared distances would overflow or underflow.

    Parameters
    ----------
    snapshot : Snapshot
    index : int
        Step index, for the message.
    feature_names : sequence of str, optional
        Column names, for the message (default ``x0, x1, ...``).

    Raises
    ------
    ValueError
        If a column holds a value beyond ``ARITHMETIC_LIMIT`` (1e150) in
        absolute value, or if every column's spread is below its inverse
        (but not zero); the message names the step and column and says to
        rescale (:meth:`TemporalDataset.scaled`).
    """
    _check_squared_range(snapshot, index, feature_names, ARITHMETIC_LIMIT, "",
                         "Rescale the features first: dataset.scaled() (or divide that column by a constant)",
                         "Rescale the features first: dataset.scaled() (or multiply them by a constant)")


def _check_squared_range(snapshot: Snapshot, index: int, feature_names: Sequence[str] | None, limit: float,
                         context: str, overflow_advice: str, underflow_advice: str):
    """Refuse values beyond ``limit`` or spreads below ``1 / limit``; return (names, where, biggest, span)."""
    X = snapshot.X
    names = list(feature_names) if feature_names is not None else _default_feature_names(X.shape[1])
    where = _step_name(index, snapshot.time)
    if X.size == 0:
        return names, where, np.zeros(X.shape[1]), np.zeros(X.shape[1])
    low, high = X.min(axis=0), X.max(axis=0)
    biggest = np.maximum(np.abs(low), np.abs(high))
    span = high - low
    over = np.flatnonzero(biggest > limit)
    if over.size:
        j = int(over[0])
        raise ValueError(
            f"{where}: feature column {names[j]!r} reaches {biggest[j]:.3g}; {context}squared distances "
            f"of values beyond {limit:.0e} overflow. {overflow_advice}"
        )
    if 0 < span.max() < 1.0 / limit:
        raise ValueError(
            f"{where}: every feature spans less than {1.0 / limit:.0e} (widest {span.max():.3g}); "
            f"{context}squared distances underflow to 0. {underflow_advice}"
        )
    return names, where, biggest, span


def check_float32_range(snapshot: Snapshot, index: int, feature_names: Sequence[str] | None = None) -> None:
    """Refuse features that float32 distances cannot handle (the estimators' ``precision="float32"``).

    Parameters
    ----------
    snapshot : Snapshot
    index : int
        Step index, for the message.
    feature_names : sequence of str, optional
        Column names, for the message (default ``x0, x1, ...``).

    Raises
    ------
    ValueError
        If a column holds a value beyond ``FLOAT32_LIMIT`` (1e17) in absolute
        value or every column's spread is below its inverse (squared
        distances overflow or underflow in float32), or if a column has
        fewer than ``FLOAT32_MIN_LEVELS`` (1000) float32 values across its
        range: float32 keeps about 7 significant digits, so a Unix time in
        seconds (about 1.7e9, spacing 128 s) over one day is rounding noise.
        The message names the step and column and says to use
        ``precision="float64"`` or to centre or rescale the column.
    """
    advice = "Use precision='float64' or rescale the features: dataset.scaled()"
    names, where, biggest, span = _check_squared_range(snapshot, index, feature_names, FLOAT32_LIMIT,
                                                       "with precision='float32' ", advice, advice)
    spacing = np.spacing(biggest.astype(np.float32)).astype(np.float64)
    coarse = np.flatnonzero((span > 0) & (spacing * FLOAT32_MIN_LEVELS > span))
    if coarse.size:
        j = int(coarse[0])
        raise ValueError(
            f"{where}: precision='float32' cannot resolve feature column {names[j]!r}: its values reach "
            f"{biggest[j]:.6g} but span only {span[j]:.6g}, so float32 keeps fewer than "
            f"{FLOAT32_MIN_LEVELS} distinct values across that range. Use precision='float64', or centre "
            "that column (subtract its mean) before clustering"
        )
