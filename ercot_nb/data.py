"""Temporal data model: id-tracked samples observed over a sequence of time steps.

A :class:`TemporalDataset` is an ordered sequence of :class:`Snapshot` objects,
one per time step.  Each snapshot holds the samples present at that step: their
ids (the same id at two steps means the same sample), their feature matrix and,
optionally, their ground-truth cluster labels.  Samples may appear and disappear
between steps, so every step has its own number of samples.

All input goes through the same validation, whichever constructor is used, and
every error message names the offending step (0-based index and time label) and
column.  Arrays stored in a dataset are read-only.
"""
from __future__ import annotations

import html
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any, overload

import numpy as np
import pandas as pd

__all__ = ["Snapshot", "TemporalDataset", "common_ids"]

_N_LISTED = 5  # how many offending ids / values an error message shows
_FRAME_COLUMNS = ("time", "id", "label")  # reserved column names of to_frame()


# ---------------------------------------------------------------------------
# Snapshot
# ---------------------------------------------------------------------------


def _frozen(values: Any, dtype: Any = None) -> np.ndarray:
    """Return a read-only, C-contiguous array of ``values``.

    An array that is already read-only, C-contiguous and of the requested dtype
    is returned as is; anything else is copied, so freezing never affects the
    caller's own (writeable) array.
    """
    if (
        isinstance(values, np.ndarray)
        and not values.flags.writeable
        and values.flags.c_contiguous
        and (dtype is None or values.dtype == np.dtype(dtype))
    ):
        return values
    array = np.array(values, dtype=dtype, order="C", copy=True)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class Snapshot:
    """The samples present at one time step.

    Parameters
    ----------
    time : object
        The step's time label (an int, a string, a timestamp: whatever the
        user's time column held).
    ids : ndarray of shape (n_samples,)
        Sample ids, unique within the step.  The user's dtype is kept (ints,
        strings or objects).
    X : ndarray of shape (n_samples, n_features)
        Feature matrix, stored as float64 and C-contiguous.
    labels : ndarray of shape (n_samples,) or None, default=None
        Ground-truth cluster labels (int64), or None when unknown.

    Notes
    -----
    Arrays are copied into read-only arrays on construction (an array that is
    already read-only with the right dtype and layout is kept).  Snapshots are
    normally built by the :class:`TemporalDataset` constructors, which check the
    content (finite values, unique ids, at least two samples, ...).
    Snapshots compare by identity.
    """

    time: Any
    ids: np.ndarray
    X: np.ndarray
    labels: np.ndarray | None = None

    def __post_init__(self) -> None:
        ids = _frozen(self.ids)
        X = _frozen(self.X, np.float64)
        if X.ndim != 2:
            raise ValueError(f"Snapshot(time={self.time!r}): X must be 2-D, got shape {X.shape}")
        if ids.shape != (X.shape[0],):
            raise ValueError(
                f"Snapshot(time={self.time!r}): ids must have shape ({X.shape[0]},), "
                f"got {ids.shape}"
            )
        labels = None
        if self.labels is not None:
            labels = _frozen(self.labels, np.int64)
            if labels.shape != (X.shape[0],):
                raise ValueError(
                    f"Snapshot(time={self.time!r}): labels must have shape ({X.shape[0]},), "
                    f"got {labels.shape}"
                )
        object.__setattr__(self, "ids", ids)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "labels", labels)

    @property
    def n_samples(self) -> int:
        """Number of samples present at this step."""
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return int(self.X.shape[1])

    def __repr__(self) -> str:
        labels = "yes" if self.labels is not None else "no"
        return (
            f"Snapshot(time={self.time!r}, samples={self.n_samples}, "
            f"features={self.n_features}, labels={labels})"
        )


# ---------------------------------------------------------------------------
# Validation helpers
# ---------------------------------------------------------------------------


def _step_name(index: int, time: Any) -> str:
    return f"step {index} (time={time!r})"


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
        raise ValueError(f"{where}: {int(missing.sum())} id(s) are missing (None or NaN)")
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
        raise ValueError(
            f"{where}: non-finite feature values (NaN or ±inf) in " + "; ".join(problems)
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
            raise ValueError(f"{where}: {n_bad} label(s) are missing or not finite")
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
                f"{_step_name(step, times[step])}: {int(pd.isna(a).sum())} label(s) are missing"
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


def _check_unique_times(times: Sequence[Any]) -> None:
    seen: dict[Any, int] = {}
    for index, time in enumerate(times):
        try:
            first = seen.setdefault(time, index)
        except TypeError as exc:
            raise ValueError(f"step {index}: time label {time!r} is not hashable") from exc
        if first != index:
            raise ValueError(
                f"{_step_name(index, time)}: time label {time!r} is already used by step {first}; "
                "time labels must be unique"
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


# ---------------------------------------------------------------------------
# TemporalDataset
# ---------------------------------------------------------------------------


class TemporalDataset(Sequence[Snapshot]):
    """A sequence of time steps, each holding id-tracked samples.

    Parameters
    ----------
    snapshots : iterable of Snapshot
        The steps, in time order.
    feature_names : sequence of str, optional
        One name per feature column; default ``x0, x1, ...``.
    name : str, default=""
        A short name shown in reprs (e.g. ``"syn3"``).
    metadata : dict, optional
        Free-form information (the built-in scenarios store true cluster means,
        parameters and a description there).
    label_names : list, optional
        When ground-truth labels were given as non-integers (e.g. strings),
        ``label_names[code]`` is the original label of integer code ``code``.

    Attributes
    ----------
    name : str
        The dataset's name.
    metadata : dict
        Free-form metadata.  A value that is a ``list`` with one entry per step
        is treated as per-step information and is sliced along with the steps.

    See Also
    --------
    TemporalDataset.from_arrays, TemporalDataset.from_frame, TemporalDataset.from_csv

    Examples
    --------
    >>> import numpy as np
    >>> X0 = np.array([[0.0, 0.0], [1.0, 1.0], [5.0, 5.0]])
    >>> X1 = np.array([[0.1, 0.0], [5.1, 4.9]])
    >>> ds = TemporalDataset.from_arrays([X0, X1], ids=[[10, 11, 12], [10, 12]])
    >>> ds
    TemporalDataset(name='', steps=2, features=2, samples=2..3, labels=no)
    >>> ds[1].ids
    array([10, 12])
    """

    def __init__(
        self,
        snapshots: Iterable[Snapshot],
        *,
        feature_names: Sequence[str] | None = None,
        name: str = "",
        metadata: dict[str, Any] | None = None,
        label_names: Sequence[Any] | None = None,
    ) -> None:
        snapshots = list(snapshots)
        if not snapshots:
            raise ValueError("a TemporalDataset needs at least one time step; got none")
        for index, snapshot in enumerate(snapshots):
            if not isinstance(snapshot, Snapshot):
                raise TypeError(f"step {index}: expected a Snapshot, got {type(snapshot).__name__}")
        if feature_names is None:
            feature_names = _default_feature_names(snapshots[0].n_features)
        names = _check_feature_names(feature_names)
        checked = [
            _validated_snapshot(
                s.time, s.ids, s.X, s.labels, index=index, feature_names=names
            )
            for index, s in enumerate(snapshots)
        ]
        _check_unique_times([s.time for s in checked])
        self._init_checked(checked, names, name, metadata, label_names)

    def _init_checked(
        self,
        snapshots: Sequence[Snapshot],
        feature_names: tuple[str, ...],
        name: str,
        metadata: dict[str, Any] | None,
        label_names: Sequence[Any] | None,
    ) -> None:
        self._snapshots = tuple(snapshots)
        self._feature_names = feature_names
        self._label_names = None if label_names is None else list(label_names)
        self.name = str(name)
        self.metadata = dict(metadata) if metadata is not None else {}

    @classmethod
    def _from_checked(
        cls,
        snapshots: Sequence[Snapshot],
        feature_names: tuple[str, ...],
        name: str,
        metadata: dict[str, Any] | None,
        label_names: Sequence[Any] | None,
    ) -> TemporalDataset:
        """Build a dataset from snapshots that are already validated."""
        dataset = cls.__new__(cls)
        dataset._init_checked(snapshots, feature_names, name, metadata, label_names)
        return dataset

    # -- constructors --------------------------------------------------------

    @classmethod
    def from_arrays(
        cls,
        X_list: Sequence[Any],
        ids: Sequence[Any] | None = None,
        labels: Sequence[Any] | None = None,
        times: Sequence[Any] | None = None,
        feature_names: Sequence[str] | None = None,
        name: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> TemporalDataset:
        """Build a dataset from one feature matrix per step.

        Parameters
        ----------
        X_list : sequence of array-like of shape (n_t, n_features)
            Feature matrix of each step; ``n_t`` may change between steps.
        ids : sequence of array-like of shape (n_t,) or None, default=None
            Sample ids of each step.  None means ids ``0..n_t-1`` at every step
            (so row i is the same sample at every step).  A single step's
            entry may also be None.
        labels : sequence of array-like of shape (n_t,) or None, default=None
            Ground-truth labels of each step (None entries for unlabelled
            steps).  Integers are kept; other values (e.g. strings) are encoded
            as integer codes shared by all steps, see :attr:`label_names`.
        times : sequence, default=None
            Time label of each step, unique; default ``0..T-1``.
        feature_names : sequence of str, default=None
            Default ``x0, x1, ...``.
        name : str, default=""
            Dataset name.
        metadata : dict, optional
            Free-form metadata.

        Returns
        -------
        TemporalDataset

        Raises
        ------
        ValueError
            On empty input, mismatched lengths, a changing number of features,
            non-numeric or non-finite features, duplicate ids, or a step with
            fewer than two samples.  The message names the step.
        """
        X_list = list(X_list)
        n_steps = len(X_list)
        if n_steps == 0:
            raise ValueError("X_list is empty: a TemporalDataset needs at least one time step")
        ids_list = _per_step_argument(ids, "ids", n_steps)
        label_list = _per_step_argument(labels, "labels", n_steps)
        times = list(range(n_steps)) if times is None else list(times)
        if len(times) != n_steps:
            raise ValueError(f"times has {len(times)} entries but X_list has {n_steps} steps")
        times = [_python_scalar(t) for t in times]
        label_list, label_names = _encode_label_steps(label_list, times)

        names = None if feature_names is None else _check_feature_names(feature_names)
        snapshots: list[Snapshot] = []
        for index in range(n_steps):
            snapshot = _validated_snapshot(
                times[index],
                ids_list[index],
                X_list[index],
                label_list[index],
                index=index,
                feature_names=names,
            )
            if names is None:
                names = _check_feature_names(_default_feature_names(snapshot.n_features))
            snapshots.append(snapshot)
        _check_unique_times(times)
        assert names is not None
        return cls._from_checked(snapshots, names, name, metadata, label_names)

    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        time: Any,
        id: Any,
        features: Sequence[Any] | None = None,
        label: Any | None = None,
        name: str = "",
    ) -> TemporalDataset:
        """Build a dataset from a long-format table, one row per (time, id).

        Parameters
        ----------
        df : pandas.DataFrame
            The table.
        time : column label
            Column holding each row's time label.  Steps are ordered by the
            sorted unique values of this column.
        id : column label
            Column holding sample ids (unique within a time step).
        features : sequence of column labels, optional
            Feature columns.  Default: every int or float column other than
            ``time``, ``id`` and ``label`` (boolean columns are skipped).
        label : column label, optional
            Column of ground-truth labels.  Integers are kept; other values
            (e.g. strings) are encoded as shared integer codes, see
            :attr:`label_names`.
        name : str, default=""
            Dataset name.

        Returns
        -------
        TemporalDataset

        Raises
        ------
        ValueError
            On an empty frame, a missing column (the message lists the
            available ones), a non-numeric feature column, missing times or ids,
            or any per-step problem listed in :meth:`from_arrays`.
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"df must be a pandas DataFrame, got {type(df).__name__}")
        if df.shape[0] == 0:
            raise ValueError("the frame is empty: a TemporalDataset needs at least one time step")
        if not df.columns.is_unique:
            repeated = df.columns[df.columns.duplicated()].unique().tolist()
            raise ValueError(f"the frame has repeated column names: {repeated}")

        roles = {"time": time, "id": id}
        if label is not None:
            roles["label"] = label
        for role, column in roles.items():
            _require_column(df, column, role)
        role_columns = list(roles.values())
        if len(set(role_columns)) != len(role_columns):
            raise ValueError(f"time, id and label must be different columns; got {roles}")

        if features is None:
            features = [
                c for c in df.columns if c not in role_columns and _is_feature_dtype(df[c])
            ]
            if not features:
                raise ValueError(
                    "no int or float feature columns found besides time/id/label; "
                    f"available columns: {list(df.columns)}"
                )
        else:
            features = [features] if isinstance(features, str) else list(features)
            if not features:
                raise ValueError("features is empty: give at least one feature column")
            for column in features:
                _require_column(df, column, "feature")
                if column in role_columns:
                    raise ValueError(
                        f"column {column!r} cannot be both a feature and time/id/label"
                    )
            for column in features:
                if not _is_feature_dtype(df[column]):
                    raise ValueError(_non_numeric_message(df, column, time, id))

        for role in ("time", "id"):
            missing = df[roles[role]].isna().to_numpy()
            if missing.any():
                raise ValueError(
                    f"{role} column {roles[role]!r} has {int(missing.sum())} missing value(s), "
                    f"e.g. in rows {_few(df.index[missing])}"
                )
        try:
            step_codes, step_times = pd.factorize(df[time], sort=True)
        except TypeError as exc:
            raise ValueError(
                f"time column {time!r} holds values that cannot be sorted: {exc}"
            ) from exc

        order = np.argsort(step_codes, kind="stable")
        bounds = np.cumsum(np.bincount(step_codes, minlength=len(step_times)))[:-1]
        X_all = df[features].to_numpy(dtype=np.float64, na_value=np.nan)[order]
        ids_all = _column_values(df[id])[order]
        X_steps = np.split(X_all, bounds)
        id_steps = np.split(ids_all, bounds)
        times = [_python_scalar(t) for t in step_times]
        label_steps: list[Any] = [None] * len(times)
        if label is not None:
            label_values = _column_values(df[label])[order]
            label_steps = np.split(label_values, bounds)
            for index, labels in enumerate(label_steps):
                missing = pd.isna(labels)
                if missing.any():
                    raise ValueError(
                        f"{_step_name(index, times[index])}: label column {label!r} has "
                        f"{int(missing.sum())} missing value(s), e.g. at ids "
                        f"{_few(id_steps[index][missing])}"
                    )
        return cls.from_arrays(
            X_steps,
            ids=id_steps,
            labels=label_steps if label is not None else None,
            times=times,
            feature_names=[str(c) for c in features],
            name=name,
        )

    @classmethod
    def from_csv(
        cls,
        path: str | PathLike[str],
        time: Any,
        id: Any,
        features: Sequence[Any] | None = None,
        label: Any | None = None,
        name: str | None = None,
        **read_csv_kwargs: Any,
    ) -> TemporalDataset:
        """Read a long-format CSV file (one row per (time, id)).

        Parameters
        ----------
        path : str or path-like
            The CSV file.
        time, id, features, label
            As in :meth:`from_frame`.
        name : str, optional
            Dataset name; default is the file name without extension.
        **read_csv_kwargs
            Passed to :func:`pandas.read_csv`.

        Returns
        -------
        TemporalDataset

        Raises
        ------
        ValueError
            If the file does not exist or cannot be parsed, or for any problem
            listed in :meth:`from_frame`; the message names the file.
        """
        path = Path(path)
        if not path.exists():
            raise ValueError(f"CSV file not found: '{path}'")
        if not path.is_file():
            raise ValueError(f"'{path}' is not a file")
        try:
            df = pd.read_csv(path, **read_csv_kwargs)
        except (ValueError, OSError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            # UnicodeDecodeError and pandas' parser errors are ValueErrors too
            raise ValueError(f"could not parse CSV file '{path}': {exc}") from exc
        try:
            return cls.from_frame(
                df, time, id, features=features, label=label,
                name=path.stem if name is None else name,
            )
        except ValueError as exc:
            raise ValueError(f"'{path}': {exc}") from exc

    # -- export ---------------------------------------------------------------

    def to_frame(self) -> pd.DataFrame:
        """Return the data as a long table, one row per (time, id).

        Returns
        -------
        pandas.DataFrame
            Columns ``time``, ``id``, the feature names, and ``label`` when every
            step has labels (original label values when :attr:`label_names` is
            set).  ``from_frame(df, "time", "id", label="label")`` rebuilds the
            dataset.

        Raises
        ------
        ValueError
            If a feature is named ``time``, ``id`` or ``label``.
        """
        clashes = [c for c in self._feature_names if c in _FRAME_COLUMNS]
        if clashes:
            raise ValueError(
                f"feature name(s) {clashes} clash with the columns "
                f"{list(_FRAME_COLUMNS)} of to_frame()"
            )
        counts = self.n_samples_per_step
        id_arrays = [s.ids for s in self._snapshots]
        if len({a.dtype for a in id_arrays}) > 1:
            id_arrays = [a.astype(object) for a in id_arrays]
        columns: dict[str, Any] = {
            "time": pd.Index(self.times).repeat(counts),
            "id": np.concatenate(id_arrays),
        }
        X_all = np.vstack([s.X for s in self._snapshots])
        for j, feature in enumerate(self._feature_names):
            columns[feature] = X_all[:, j]
        if self.has_labels:
            codes = np.concatenate([s.labels for s in self._snapshots])
            if self._label_names is not None:
                columns["label"] = np.asarray(self._label_names, dtype=object)[codes]
            else:
                columns["label"] = codes
        return pd.DataFrame(columns)

    # -- sequence protocol ------------------------------------------------------

    def __len__(self) -> int:
        return len(self._snapshots)

    def __iter__(self) -> Iterator[Snapshot]:
        return iter(self._snapshots)

    @overload
    def __getitem__(self, index: int) -> Snapshot: ...

    @overload
    def __getitem__(self, index: slice) -> TemporalDataset: ...

    def __getitem__(self, index: int | slice) -> Snapshot | TemporalDataset:
        """Return step ``index`` (a Snapshot), or a new dataset for a slice."""
        if isinstance(index, slice):
            steps = range(len(self._snapshots))[index]
            if len(steps) == 0:
                raise ValueError(f"slice {index} selects no time step")
            metadata = {
                key: [value[i] for i in steps] if self._is_per_step(value) else value
                for key, value in self.metadata.items()
            }
            return self._from_checked(
                [self._snapshots[i] for i in steps],
                self._feature_names,
                self.name,
                metadata,
                self._label_names,
            )
        if isinstance(index, (int, np.integer)) and not isinstance(index, (bool, np.bool_)):
            return self._snapshots[index]
        raise TypeError(f"steps are indexed by int or slice, not {type(index).__name__}")

    def _is_per_step(self, value: Any) -> bool:
        return isinstance(value, list) and len(value) == len(self._snapshots)

    # -- properties -------------------------------------------------------------

    @property
    def times(self) -> list[Any]:
        """Time label of each step, in order."""
        return [s.time for s in self._snapshots]

    @property
    def feature_names(self) -> list[str]:
        """Name of each feature column."""
        return list(self._feature_names)

    @property
    def n_features(self) -> int:
        """Number of feature columns."""
        return len(self._feature_names)

    @property
    def n_samples_per_step(self) -> np.ndarray:
        """Number of samples at each step, shape (n_steps,)."""
        return np.array([s.n_samples for s in self._snapshots], dtype=np.int64)

    @property
    def has_labels(self) -> bool:
        """True when every step has ground-truth labels."""
        return all(s.labels is not None for s in self._snapshots)

    @property
    def label_names(self) -> list[Any] | None:
        """Original label values by integer code, or None when labels were integers."""
        return None if self._label_names is None else list(self._label_names)

    @property
    def is_video(self) -> bool:
        """Whether the data is a video: one frame per step, one sample per pixel.

        True when ``metadata["kind"] == "video"`` and ``metadata["frame_shape"]``
        is set.  A video's samples are pixels with id ``row * W + col`` and its
        first three features are the colour ``r, g, b`` in [0, 1].
        """
        return self.metadata.get("kind") == "video" and self.metadata.get("frame_shape") is not None

    # -- feature scaling ------------------------------------------------------------

    def scaled(self, method: str = "standardize", per_step: bool = False) -> TemporalDataset:
        """Return a copy whose features are rescaled, column by column.

        Raw units dominate Euclidean distances (population against life
        expectancy, say); rescaling puts every feature on a comparable scale.

        Parameters
        ----------
        method : {"standardize", "minmax", "none"}, default="standardize"
            ``"standardize"``: subtract the mean, divide by the (population,
            ``ddof=0``) standard deviation.  ``"minmax"``: map the minimum to 0
            and the maximum to 1.  ``"none"``: leave the features unchanged.
        per_step : bool, default=False
            False fits the statistics once, over the samples of all steps
            together, so positions stay comparable across time (a cluster
            that moves still moves).  True fits them on each step separately,
            which removes any global drift of the whole population.

        Returns
        -------
        TemporalDataset
            Same steps, ids, labels, times, names and label names, with
            rescaled features.  ``metadata["scaling"]`` records ``method``,
            ``per_step`` and the per-step ``shift`` and ``scale`` arrays (each
            of shape (n_steps, n_features); ``X_scaled = (X - shift) / scale``).
            ``metadata["true_means"]``, when present with one
            (k_t, n_features) array per step, is transformed the same way; if
            it cannot be (wrong shape), it is dropped and
            ``metadata["scaling_note"]`` says so.

        Raises
        ------
        ValueError
            For an unknown ``method``.

        Notes
        -----
        A constant feature (zero standard deviation or zero range within the
        fitted samples) is not divided by zero: it is only shifted, so it
        becomes 0 under both methods.

        Examples
        --------
        >>> X0 = np.array([[0.0, 10.0], [2.0, 10.0]])
        >>> X1 = np.array([[4.0, 10.0], [6.0, 10.0]])
        >>> ds = TemporalDataset.from_arrays([X0, X1])
        >>> ds.scaled("minmax")[1].X
        array([[0.66666667, 0.        ],
               [1.        , 0.        ]])
        >>> ds.scaled("minmax", per_step=True)[1].X
        array([[0., 0.],
               [1., 0.]])
        """
        methods = ("standardize", "minmax", "none")
        if method not in methods:
            raise ValueError(f"method must be one of {list(methods)}, got {method!r}")
        n_steps, n_features = len(self._snapshots), self.n_features

        def fit(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            if method == "standardize":
                shift, spread = X.mean(axis=0), X.std(axis=0)
            elif method == "minmax":
                shift = X.min(axis=0)
                spread = X.max(axis=0) - shift
            else:
                shift, spread = np.zeros(n_features), np.ones(n_features)
            # Constant feature: only shift it (to 0), never divide by zero.
            return shift, np.where(spread > 0, spread, 1.0)

        if per_step:
            fitted = [fit(s.X) for s in self._snapshots]
        else:
            fitted = [fit(np.vstack([s.X for s in self._snapshots]))] * n_steps
        shifts = np.array([f[0] for f in fitted], dtype=np.float64).reshape(n_steps, n_features)
        scales = np.array([f[1] for f in fitted], dtype=np.float64).reshape(n_steps, n_features)

        snapshots = [
            Snapshot(s.time, s.ids, (s.X - shifts[i]) / scales[i], s.labels)
            for i, s in enumerate(self._snapshots)
        ]
        metadata = dict(self.metadata)
        true_means = metadata.get("true_means")
        if true_means is not None:
            try:
                arrays = [np.asarray(m, dtype=np.float64) for m in true_means]
                if len(arrays) != n_steps or any(
                    a.ndim != 2 or a.shape[1] != n_features for a in arrays
                ):
                    raise ValueError("shape mismatch")
                metadata["true_means"] = [
                    (a - shifts[i]) / scales[i] for i, a in enumerate(arrays)
                ]
            except (TypeError, ValueError):
                del metadata["true_means"]
                metadata.pop("true_mean_labels", None)
                metadata["scaling_note"] = (
                    "true_means were dropped: they could not be rescaled "
                    "(not one (k, n_features) array per step)"
                )
        metadata["scaling"] = {
            "method": method,
            "per_step": bool(per_step),
            "shift": shifts,
            "scale": scales,
        }
        return self._from_checked(
            snapshots, self._feature_names, self.name, metadata, self._label_names
        )

    # -- display ------------------------------------------------------------------

    def _labels_summary(self) -> str:
        n_labelled = sum(s.labels is not None for s in self._snapshots)
        if n_labelled == len(self._snapshots):
            return "yes"
        return "no" if n_labelled == 0 else "partial"

    def __repr__(self) -> str:
        counts = self.n_samples_per_step
        return (
            f"{type(self).__name__}(name={self.name!r}, steps={len(self)}, "
            f"features={self.n_features}, samples={counts.min()}..{counts.max()}, "
            f"labels={self._labels_summary()})"
        )

    def _repr_html_(self) -> str:
        esc = html.escape
        counts = self.n_samples_per_step
        times = self.times
        shown_times = times if len(times) <= 6 else times[:3] + ["…"] + times[-2:]
        summary = [
            ("steps", str(len(self))),
            ("features", f"{self.n_features} ({', '.join(self._feature_names)})"),
            ("samples per step", f"{counts.min()}..{counts.max()}"),
            ("labels", self._labels_summary()),
            ("times", ", ".join(str(t) for t in shown_times)),
        ]
        rows = "".join(
            f"<tr><th style='text-align:left'>{esc(key)}</th><td style='text-align:left'>"
            f"{esc(value)}</td></tr>"
            for key, value in summary
        )
        title = f"TemporalDataset {self.name!r}" if self.name else "TemporalDataset"
        return f"<table><caption>{esc(title)}</caption>{rows}</table>"


def _per_step_argument(values: Sequence[Any] | None, what: str, n_steps: int) -> list[Any]:
    """Expand an optional per-step argument to a list with one entry per step."""
    if values is None:
        return [None] * n_steps
    values = list(values)
    if len(values) != n_steps:
        raise ValueError(f"{what} has {len(values)} entries but X_list has {n_steps} steps")
    return values


def _require_column(df: pd.DataFrame, column: Any, role: str) -> None:
    if column not in df.columns:
        raise ValueError(
            f"{role} column {column!r} not found; available columns: {list(df.columns)}"
        )


def _non_numeric_message(df: pd.DataFrame, column: Any, time: Any, id: Any) -> str:
    series = df[column]
    message = (
        f"feature column {column!r} is not numeric (dtype {series.dtype}); "
        "features must hold int or float values"
    )
    if pd.api.types.is_bool_dtype(series.dtype):
        return message
    as_number = pd.to_numeric(series, errors="coerce")
    bad = np.flatnonzero(as_number.isna().to_numpy() & series.notna().to_numpy())
    if bad.size:
        row = bad[0]
        message += (
            f", e.g. {series.iloc[row]!r} at time={_python_scalar(df[time].iloc[row])!r}, "
            f"id={_python_scalar(df[id].iloc[row])!r}"
        )
    return message


# ---------------------------------------------------------------------------
# Ids shared by two steps
# ---------------------------------------------------------------------------


def common_ids(a: Snapshot, b: Snapshot) -> tuple[np.ndarray, np.ndarray]:
    """Positions of the samples present at both steps.

    Parameters
    ----------
    a, b : Snapshot
        Two steps, typically consecutive (``b`` the later one).

    Returns
    -------
    ia, ib : ndarray of shape (n_common,), dtype intp
        ``a.ids[ia] == b.ids[ib]``, ordered by position in ``b``.

    Notes
    -----
    O(n log n): integer and string ids use :func:`numpy.intersect1d`; other ids
    (objects, or mixed dtypes) use a hash map.

    Examples
    --------
    >>> import numpy as np
    >>> a = Snapshot(0, np.array([5, 7, 9]), np.zeros((3, 1)))
    >>> b = Snapshot(1, np.array([9, 8, 5]), np.zeros((3, 1)))
    >>> common_ids(a, b)
    (array([2, 0]), array([0, 2]))
    """
    ids_a, ids_b = a.ids, b.ids
    kinds = {ids_a.dtype.kind, ids_b.dtype.kind}
    sortable_together = (
        (kinds <= set("iu") and np.result_type(ids_a.dtype, ids_b.dtype).kind in "iu")
        or kinds == {"U"}
        or kinds == {"S"}
    )
    if sortable_together:
        _, ia, ib = np.intersect1d(ids_a, ids_b, assume_unique=True, return_indices=True)
        order = np.argsort(ib, kind="stable")
        return ia[order].astype(np.intp), ib[order].astype(np.intp)
    position_in_a = {value: i for i, value in enumerate(ids_a.tolist())}
    pairs = [
        (position_in_a[value], j)
        for j, value in enumerate(ids_b.tolist())
        if value in position_in_a
    ]
    if not pairs:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    ia, ib = np.array(pairs, dtype=np.intp).T
    return np.ascontiguousarray(ia), np.ascontiguousarray(ib)
