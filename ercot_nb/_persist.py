"""Typed, pickle-free storage helpers of :meth:`ercot_nb.result.ClusteringResult.save`.

Scalars (time labels, parameters) go to a JSON header with their type
(``Timestamp``, ``datetime64``, ``date``, ...); object arrays (ids of mixed
Python objects) are stored as plain arrays when their elements share one
type, otherwise as typed JSON lists; reading checks the file before
allocating anything large (a truncated, garbled or decompression-bomb file
raises a ``ValueError`` naming it).
"""
from __future__ import annotations

import datetime as _dt
import json
from dataclasses import fields
import math
import numbers
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._files import atomic_write, check_outputs

__all__ = ["encode_scalar", "decode_scalar", "encode_object_array", "decode_object_array",
           "read_npz", "DEFAULT_MAX_BYTES", "save_result", "load_result"]

FORMAT_VERSION = 2  # 2: typed time labels and object arrays

DEFAULT_MAX_BYTES = 2 * 1024**3  # decompressed arrays a result file may hold
_BOMB_RATIO = 200  # above 64 MiB, arrays may decompress to at most this many times the file's size
_BOMB_FLOOR = 64 * 1024**2


def encode_scalar(value: Any, where: str) -> Any:
    """A JSON value that :func:`decode_scalar` turns back into ``value`` with its type."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        return number if math.isfinite(number) else {"__type__": "float", "value": repr(number)}
    if isinstance(value, pd.Timestamp):
        return {"__type__": "Timestamp", "value": value.isoformat(), "tz": None if value.tz is None else str(value.tz)}
    if isinstance(value, np.datetime64):
        return {"__type__": "datetime64", "value": str(value)}
    if isinstance(value, pd.Timedelta):
        return {"__type__": "Timedelta", "value": value.isoformat()}
    if isinstance(value, np.timedelta64):
        return {"__type__": "timedelta64", "value": int(value.astype("timedelta64[ns]").astype(np.int64))}
    if isinstance(value, _dt.datetime):
        return {"__type__": "datetime", "value": value.isoformat()}
    if isinstance(value, _dt.date):
        return {"__type__": "date", "value": value.isoformat()}
    if isinstance(value, tuple):
        return {"__type__": "tuple", "value": [encode_scalar(v, where) for v in value]}
    raise TypeError(
        f"{where}: a value of type {type(value).__name__} ({value!r:.60}) cannot be saved; "
        "time labels and ids must be numbers, strings, dates or tuples of those"
    )


def decode_scalar(value: Any) -> Any:
    """Inverse of :func:`encode_scalar`."""
    if not isinstance(value, dict):
        return value
    kind, payload = value.get("__type__"), value.get("value")
    if kind == "float":
        return float(payload)
    if kind == "Timestamp":
        stamp = pd.Timestamp(payload)
        tz = value.get("tz")
        return stamp.tz_convert(tz) if tz is not None and stamp.tz is not None else stamp
    if kind == "datetime64":
        return np.datetime64(payload)
    if kind == "Timedelta":
        return pd.Timedelta(payload)
    if kind == "timedelta64":
        return np.timedelta64(int(payload), "ns")
    if kind == "datetime":
        return _dt.datetime.fromisoformat(payload)
    if kind == "date":
        return _dt.date.fromisoformat(payload)
    if kind == "tuple":
        return tuple(decode_scalar(v) for v in payload)
    raise ValueError(f"unknown stored type {kind!r}")


def encode_object_array(values: np.ndarray, where: str) -> tuple[np.ndarray | None, dict]:
    """Store an object array: a plain array plus its element type, or a typed JSON list."""
    items = values.tolist()
    if all(isinstance(v, str) for v in items):
        return np.asarray(items, dtype=str).reshape(values.shape), {"object": "str"}
    if all(isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_)) for v in items):
        try:
            return np.asarray(items, dtype=np.int64).reshape(values.shape), {"object": "int"}
        except OverflowError:
            pass
    if all(isinstance(v, float) for v in items):
        return np.asarray(items, dtype=np.float64).reshape(values.shape), {"object": "float"}
    if values.ndim != 1:
        raise TypeError(f"{where}: a {values.ndim}-D object array cannot be saved")
    return None, {"object": "json", "values": [encode_scalar(v, where) for v in items]}


def decode_object_array(stored: np.ndarray | None, meta: dict) -> np.ndarray:
    """Inverse of :func:`encode_object_array`: an object array of Python values."""
    kind = meta["object"]
    if kind == "json":
        out = np.empty(len(meta["values"]), dtype=object)
        out[:] = [decode_scalar(v) for v in meta["values"]]
        return out
    if stored is None:
        raise ValueError("missing array")
    out = np.empty(stored.shape, dtype=object)
    converted = {"str": str, "int": int, "float": float}[kind]
    out.ravel()[:] = [converted(v) for v in stored.ravel().tolist()]
    return out


def read_npz(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file, refusing corrupt files and decompression bombs.

    The declared shape of every member is read from its header first; the
    total must fit ``max_bytes`` (and, above 64 MiB, be at most 200 times
    the compressed size) and each member's decompressed size must match its
    header, before any array is allocated.

    Raises
    ------
    ValueError
        Naming the file, for anything that is not a complete ``.npz`` file
        within the limit.
    """
    def fail(reason: str) -> ValueError:
        return ValueError(
            f"'{path}' cannot be read as a saved result: {reason}. Was it written by "
            "ClusteringResult.save, and completely?"
        )

    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise fail(f"not a zip/npz file ({type(exc).__name__}: {exc})") from None
    with archive:
        members = [info for info in archive.infolist() if info.filename.endswith(".npy")]
        if not members:
            raise fail("it holds no arrays")
        total = 0
        for info in members:
            total += info.file_size
            if total > max_bytes:
                raise fail(f"its arrays decompress to more than max_bytes={max_bytes} bytes")
        compressed = sum(info.compress_size for info in archive.infolist())
        if total > _BOMB_FLOOR and total > _BOMB_RATIO * max(compressed, 1):
            raise fail(f"its {compressed} bytes decompress to {total} bytes, {total // max(compressed, 1)} "
                       "times more (a decompression bomb?)")
        arrays: dict[str, np.ndarray] = {}
        for info in members:
            try:
                with archive.open(info) as handle:
                    version = np.lib.format.read_magic(handle)
                    if version == (1, 0):
                        shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
                    else:
                        shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
                    if dtype.hasobject:
                        raise fail(f"member {info.filename!r} holds Python objects (pickle)")
                    declared = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
                    if declared > info.file_size:
                        raise fail(f"member {info.filename!r} declares {declared} bytes but holds "
                                   f"{info.file_size}")
                    data = handle.read(declared)
                    if len(data) != declared:
                        raise fail(f"member {info.filename!r} is truncated")
                    array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
            except ValueError as exc:
                if str(exc).startswith(f"'{path}'"):
                    raise
                raise fail(f"member {info.filename!r}: {exc}") from None
            except (zipfile.BadZipFile, OSError, EOFError, KeyError) as exc:
                raise fail(f"member {info.filename!r}: {type(exc).__name__}: {exc}") from None
            arrays[info.filename[: -len(".npy")]] = array.copy()
        return arrays


def loads_header(text: str, path: Path) -> dict:
    """Parse the JSON header of a result file, naming the file on failure."""
    try:
        header = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"'{path}': the result header is not valid JSON ({exc})") from None
    if not isinstance(header, dict):
        raise ValueError(f"'{path}': the result header is not a JSON object")
    return header


def result_path(path) -> Path:
    """The file :meth:`ClusteringResult.save` writes for ``path`` (``.npz`` appended)."""
    path = Path(path)
    return path if path.suffix == ".npz" else path.with_suffix(".npz")


def save_result(result, step_class, path, *, overwrite: bool = False) -> Path:
    """The body of :meth:`ClusteringResult.save` (see its docstring)."""
    path = check_outputs({"path": result_path(path)}, overwrite=overwrite, create_parents=True)["path"]
    arrays: dict[str, np.ndarray] = {}
    scalars = []
    for s in result.steps:
        meta: dict[str, Any] = {}
        where = f"step {s.t} (time {s.time!r})"
        for f in fields(step_class):
            value = getattr(s, f.name)
            if isinstance(value, np.ndarray):
                if value.dtype == object:
                    value, meta[f"{f.name}__object"] = encode_object_array(value, f"{where}, {f.name}")
                    if value is None:
                        continue
                arrays[f"{s.t}/{f.name}"] = value
            else:
                meta[f.name] = encode_scalar(value, f"{where}, {f.name}")
        scalars.append(meta)
    header = {
        "format_version": FORMAT_VERSION,
        "algorithm": result.algorithm,
        "params": {k: _jsonable(v) for k, v in result.params.items()},
        "next_label": result._next_label,
        "steps": scalars,
    }
    arrays["__header__"] = np.array(json.dumps(header))
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, lambda file: np.savez_compressed(file, **arrays))


def load_result(cls, step_class, path, max_bytes: int = DEFAULT_MAX_BYTES):
    """The body of :meth:`ClusteringResult.load` (see its docstring)."""
    path = Path(path)
    data = read_npz(path, max_bytes=max_bytes)
    if "__header__" not in data:
        raise ValueError(f"'{path}' holds no result header: not written by ClusteringResult.save")
    header = loads_header(str(data["__header__"]), path)
    if header.get("format_version") not in (1, FORMAT_VERSION):
        raise ValueError(f"'{path}': unsupported result format {header.get('format_version')!r}")
    try:
        result = cls(algorithm=header["algorithm"], params=header["params"])
        for t, meta in enumerate(header["steps"]):
            kwargs = {}
            for f in fields(step_class):
                key = f"{meta['t']}/{f.name}"
                if f"{f.name}__object" in meta:
                    kwargs[f.name] = decode_object_array(data.get(key), meta[f"{f.name}__object"])
                elif f.name in meta:
                    kwargs[f.name] = decode_scalar(meta[f.name])
                else:
                    value = data[key]
                    if meta.get(f"{f.name}__was_object"):  # format 1
                        value = value.astype(object)
                    kwargs[f.name] = value
            step = step_class(**kwargs)
            _check_step_shapes(step, t)
            result.steps.append(step)
        result._next_label = int(header["next_label"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"'{path}': not a consistent saved result ({type(exc).__name__}: {exc})") from None
    return result


def _check_step_shapes(step, t: int) -> None:
    """Refuse a loaded step whose arrays do not fit together."""
    n = len(step.ids)
    problems = []
    if step.ids.ndim != 1:
        problems.append(f"ids has shape {step.ids.shape}")
    for name in ("labels", "aligned_labels"):
        value = getattr(step, name)
        if value.shape != (n,) or value.dtype.kind not in "iu":
            problems.append(f"{name} has shape {value.shape} and dtype {value.dtype}, expected ({n},) ints")
    if step.centroids.ndim != 2:
        problems.append(f"centroids has shape {step.centroids.shape}")
    elif n and step.labels.shape == (n,) and step.labels.dtype.kind in "iu" and (
            step.labels.min() < 0 or step.labels.max() >= len(step.centroids)):
        problems.append(f"labels reach {int(step.labels.max())} but there are {len(step.centroids)} centroids")
    P = len(step.population)
    for name, shape in (("objectives", (P, 2)), ("objectives_accumulated", (P, 2)),
                        ("population_n_clusters", (P,)), ("population_n_active", (P,)),
                        ("first_front", (P,))):
        value = getattr(step, name)
        if P and value.shape != shape:
            problems.append(f"{name} has shape {value.shape}, expected {shape}")
    if step.population.ndim != 2:
        problems.append(f"population has shape {step.population.shape}")
    if problems:
        raise ValueError(f"step {t}: " + "; ".join(problems))


def _jsonable(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, Sequence):
        return [_jsonable(v) for v in value]
    return repr(value)
