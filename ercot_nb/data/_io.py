"""Tables in and out: long-format DataFrame / CSV to a TemporalDataset and back.

Feature columns are chosen (or refused) here and time labels are put in order.
"""
from __future__ import annotations

import datetime
import re
import warnings
from os import PathLike
from pathlib import Path
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._validation import _column_values, _few, _is_feature_dtype, _python_scalar, _step_name

_FRAME_COLUMNS = ("time", "id", "label")  # reserved column names of to_frame()


def frame_to_dataset(cls, df: pd.DataFrame, time: Any, id: Any, features: Sequence[Any] | None,
                     label: Any | None, name: str, scale: str, time_format: str | None = None):
    """The body of :meth:`TemporalDataset.from_frame` (see its docstring)."""
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

    skipped: list[str] = []
    if features is None:
        features, skipped = _automatic_features(df, role_columns, time, id)
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
                f"e.g. in rows {_few(df.index[missing])}; fill them in or drop those rows "
                f"(in pandas: df.dropna(subset=[{roles[role]!r}])), then load again"
            )
    step_codes, step_times = _step_order(df[time], time, time_format)

    order = np.argsort(step_codes, kind="stable")
    bounds = np.cumsum(np.bincount(step_codes, minlength=len(step_times)))[:-1]
    X_all = df[features].to_numpy(dtype=np.float64, na_value=np.nan)[order]
    ids_all = _column_values(df[id])[order]
    X_steps = np.split(X_all, bounds)
    id_steps = np.split(ids_all, bounds)
    times = [_python_scalar(t) for t in step_times]
    if skipped:
        warnings.warn(
            f"columns left out of the features (not numeric): {skipped}; pass features=[...] "
            "to choose the features yourself", UserWarning, stacklevel=2)
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
                    f"{_few(id_steps[index][missing])}; fill them in, drop those rows, or "
                    "choose no label column"
                )
    return cls.from_arrays(
        X_steps,
        ids=id_steps,
        labels=label_steps if label is not None else None,
        times=times,
        feature_names=[str(c) for c in features],
        name=name,
        metadata={"skipped_columns": [str(c) for c in skipped]} if skipped else None,
        scale=scale,
    )


def csv_to_dataset(cls, path: str | PathLike[str], time: Any, id: Any, features: Sequence[Any] | None,
                   label: Any | None, name: str | None, scale: str, read_csv_kwargs: dict[str, Any],
                   time_format: str | None = None):
    """The body of :meth:`TemporalDataset.from_csv` (see its docstring)."""
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
            name=path.stem if name is None else name, scale=scale, time_format=time_format,
        )
    except ValueError as exc:
        raise ValueError(f"'{path}': {exc}") from exc


def dataset_to_frame(self) -> pd.DataFrame:
    """The body of :meth:`TemporalDataset.to_frame` (see its docstring)."""
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


def _automatic_features(df: pd.DataFrame, role_columns: list[Any], time: Any,
                        id: Any) -> tuple[list[Any], list[Any]]:
    """Numeric columns (features) and the columns left out; refuse numbers with text cells."""
    features, skipped = [], []
    for column in df.columns:
        if column in role_columns:
            continue
        series = df[column]
        if _is_feature_dtype(series):
            features.append(column)
            continue
        if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
            as_number = pd.to_numeric(series, errors="coerce")
            present = series.notna().to_numpy()
            numeric = as_number.notna().to_numpy()
            bad = present & ~numeric
            if numeric.any() and bad.any():
                cells = series[bad]
                raise ValueError(
                    _non_numeric_message(df, column, time, id)
                    + f"; {int(bad.sum())} of {int(present.sum())} cells are not numbers "
                    f"({_few(pd.unique(cells.to_numpy(dtype=object)))}), so the column cannot be a "
                    "feature as it is. Either convert it (df[col] = pd.to_numeric(df[col], "
                    "errors='coerce') turns those cells into NaN; then drop or fill those rows) "
                    "or leave it out by giving features=[...]"
                )
        skipped.append(column)
    return features, skipped


def _natural_key(text: str) -> tuple:
    parts = re.split(r"(\d+)", text)
    return tuple(int(part) if i % 2 else part for i, part in enumerate(parts))


_NUMERIC_DATE = re.compile(r"^\s*(\d{1,4})([/.\-])(\d{1,2})\2(\d{1,4})(?:[ T].*)?$")
_MONTH_NAME = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\b", re.IGNORECASE)
_FORMAT_HINT = ("give the format: time_format='%d/%m/%Y' (day first) or '%m/%d/%Y' (month first) "
                "in from_csv/from_frame, --time-format on the command line, the time format box of "
                "the Explorer's CSV form")


def _step_order(series: pd.Series, column: Any,
                time_format: str | None = None) -> tuple[np.ndarray, list[Any]]:
    """Codes 0..T-1 of each row's step and the time label of each step, in time order."""
    dtype = series.dtype
    if time_format is not None:
        return _formatted_step_order(series, column, time_format)
    if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered:
        codes, uniques = pd.factorize(series, sort=True)
        return codes, list(uniques)
    values = series.to_numpy(dtype=object)
    uniques = list(pd.unique(values))
    if uniques and all(isinstance(v, str) for v in uniques):
        return _text_step_order(values, uniques, column)
    try:
        codes, uniques = pd.factorize(series.astype(object) if isinstance(dtype, pd.CategoricalDtype)
                                      else series, sort=True)
    except TypeError as exc:
        raise ValueError(
            f"time column {column!r} holds values that cannot be sorted (e.g. numbers and text "
            f"together: {_few(uniques)}): {exc}"
        ) from exc
    return codes, list(uniques)


def _codes_by_keys(values: np.ndarray, uniques: list[Any], keys: list[Any]) -> tuple[np.ndarray, list[Any]]:
    order = sorted(range(len(uniques)), key=lambda i: keys[i])
    code_of = {uniques[i]: r for r, i in enumerate(order)}
    codes = np.fromiter((code_of[v] for v in values.tolist()), np.int64, len(values))
    return codes, [uniques[i] for i in order]


def _formatted_step_order(series: pd.Series, column: Any, time_format: Any) -> tuple[np.ndarray, list[Any]]:
    """Order time labels parsed with the user's ``time_format`` (labels keep the user's values)."""
    if not isinstance(time_format, str) or not time_format.strip():
        raise TypeError(f"time_format must be a strptime format such as '%d/%m/%Y', got {time_format!r}")
    values = series.to_numpy(dtype=object)
    uniques = list(pd.unique(values))
    keys = []
    for value in uniques:
        if isinstance(value, (pd.Timestamp, np.datetime64, datetime.datetime)):
            keys.append(pd.Timestamp(value))  # already a date: nothing to read
            continue
        try:
            keys.append(pd.to_datetime(str(value), format=time_format))
        except (ValueError, TypeError, OverflowError) as exc:
            raise ValueError(
                f"time column {column!r}: {value!r} does not match time_format={time_format!r} "
                f"({str(exc).splitlines()[0]}); give the format every time label is written in"
            ) from None
    if len(set(keys)) != len(keys):
        raise ValueError(
            f"time column {column!r}: two time labels read as the same date with "
            f"time_format={time_format!r}; time labels must be distinct times"
        )
    return _codes_by_keys(values, uniques, keys)


def _date_fields(text: str) -> re.Match | None:
    """The fields of a numeric date: a 4-digit year first (2020/1/15) or a 2- or 4-digit year last."""
    m = _NUMERIC_DATE.match(text)
    if m is None:
        return None
    first, last = len(m.group(1)), len(m.group(4))
    if (first == 4 and last <= 2) or (first <= 2 and last in (2, 4)):
        return m
    return None  # e.g. a version number 1.2.3


def _numeric_date_keys(uniques: list[str], column: Any) -> list[Any] | None:
    """Dates written as numbers with separators (15/1/2020, 1.15.2020, 2020/01/15) as timestamps.

    None when no label looks like such a date.  The day-first or month-first
    reading is settled for the whole column by a field above 12; a column
    where nothing settles it, or where labels need both readings, is refused.
    """
    matches = [_date_fields(u) for u in uniques]
    if not any(matches):
        return None
    odd = [u for u, m in zip(uniques, matches) if m is None]
    if odd:
        raise ValueError(
            f"time column {column!r} mixes dates ({_few([u for u, m in zip(uniques, matches) if m][:3])}) "
            f"with other text ({_few(odd[:3])}); the order of the steps is unclear. Write every time "
            f"label the same way, or {_FORMAT_HINT}"
        )
    year_first = [len(m.group(1)) == 4 for m in matches]
    if any(year_first) and not all(year_first):
        raise ValueError(
            f"time column {column!r} mixes year-first and year-last dates; the order of the steps "
            f"is unclear. Write every time label the same way, or {_FORMAT_HINT}"
        )
    if all(year_first):
        dayfirst = False  # 2020/01/15: year, month, day
        order = (1, 3, 4)  # groups: year, month, day
    else:
        first = [int(m.group(1)) for m in matches]
        second = [int(m.group(3)) for m in matches]
        neither = [u for u, f, s in zip(uniques, first, second) if f > 12 and s > 12]
        if neither:
            raise ValueError(
                f"time column {column!r}: {neither[0]!r} is not a date (no month above 12 in either "
                f"field); fix that label or {_FORMAT_HINT}"
            )
        day_first = [u for u, f in zip(uniques, first) if f > 12]
        month_first = [u for u, s in zip(uniques, second) if s > 12]
        if day_first and month_first:
            raise ValueError(
                f"time column {column!r} holds dates read day first ({_few(day_first[:3])}) and dates read "
                f"month first ({_few(month_first[:3])}); the order of the steps is unclear. "
                f"Write every time label the same way, or {_FORMAT_HINT}"
            )
        if not day_first and not month_first:
            raise ValueError(
                f"time column {column!r} holds dates such as {_few(uniques[:3])} where no day is above 12, "
                f"so day-first and month-first readings are both possible and the order of the steps is "
                f"unclear; {_FORMAT_HINT}"
            )
        dayfirst = bool(day_first)
        order = (4, 3, 1) if dayfirst else (4, 1, 3)
    keys = []
    for text, m in zip(uniques, matches):
        try:
            year, month, day = (int(m.group(g)) for g in order)
            stamp = pd.to_datetime(text, dayfirst=dayfirst, yearfirst=all(year_first), format="mixed")
            if (stamp.month, stamp.day) != (month, day) or stamp.year % 100 != year % 100:
                raise ValueError("fields read in another order")
        except (ValueError, TypeError, OverflowError) as exc:
            reading = "year/month/day" if all(year_first) else ("day/month/year" if dayfirst else "month/day/year")
            raise ValueError(
                f"time column {column!r}: {text!r} is not a valid date read as {reading} "
                f"({str(exc).splitlines()[0]}); "
                f"fix that label or {_FORMAT_HINT}"
            ) from None
        keys.append(stamp)
    return keys


def _month_name_keys(uniques: list[str], column: Any) -> list[Any] | None:
    """Dates with month names (Jan 2020, 15 March 2020) as timestamps; None when no label has one."""
    if not any(_MONTH_NAME.search(u) and re.search(r"\d", u) for u in uniques):
        return None
    keys = []
    for text in uniques:
        try:
            keys.append(pd.to_datetime(text, format="mixed"))
        except (ValueError, TypeError, OverflowError):
            raise ValueError(
                f"time column {column!r}: {text!r} cannot be read as a date while other labels are dates "
                f"with month names; the order of the steps is unclear. Write every time label the same "
                f"way, or give the format: time_format='%d %b %Y' (from_csv/from_frame, --time-format "
                "on the command line)"
            ) from None
    return keys


def _text_step_order(values: np.ndarray, uniques: list[str], column: Any) -> tuple[np.ndarray, list[Any]]:
    """Order text time labels: numbers, dates, names with numbers; refuse other text.

    Dates are ISO dates (2020-01-31), numeric dates (15/1/2020: day first or
    month first settled by a field above 12, else refused asking for
    ``time_format``) and dates with month names (Jan 2020).  They are never
    ordered as text.
    """
    as_number = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce")
    keys: list[Any] | None = None
    if as_number.notna().all():
        keys = as_number.tolist()
    else:
        try:
            parsed = pd.to_datetime(pd.Series(uniques, dtype=object), format="ISO8601", utc=True)
        except (ValueError, TypeError, OverflowError):
            parsed = None
        if parsed is not None and parsed.notna().all():
            keys = list(parsed)  # ordered as dates, labelled with the user's own text
        else:
            keys = _numeric_date_keys(uniques, column)
            if keys is None:
                keys = _month_name_keys(uniques, column)
            if keys is None and all(re.search(r"\d", u) for u in uniques):
                keys = [_natural_key(u) for u in uniques]
    if keys is None or len(set(keys)) != len(keys):
        shown = sorted(uniques)
        listed = ", ".join(repr(u) for u in shown[:8]) + (", ..." if len(shown) > 8 else "")
        reason = ("labels that read the same once parsed" if keys is not None
                  else "text that is neither numbers, dates (2020-01-31) nor names with numbers (t1, t2)")
        raise ValueError(
            f"time column {column!r} holds {reason}, so the order of the steps is unclear; sorted as "
            f"text they would be {listed}. Give the order: df[{column!r}] = pd.Categorical("
            f"df[{column!r}], categories=[...in time order...], ordered=True), use numbers or dates, "
            "or give time_format= (--time-format)"
        )
    return _codes_by_keys(values, uniques, keys)


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
