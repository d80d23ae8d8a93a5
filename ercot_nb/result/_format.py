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
import lzma
import math
import numbers
import re
import struct
import zipfile
import zlib
from dataclasses import fields
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._files import atomic_write, check_outputs
from ._checks import MAX_LABEL, check_header_types, check_step_arrays, check_step_scalars

__all__ = ["encode_scalar", "decode_scalar", "encode_object_array", "decode_object_array",
           "read_npz", "DEFAULT_MAX_BYTES", "MAX_HEADER_DEPTH", "save_result", "load_result",
           "decode_format_1_scalar", "decode_format_1_text", "format_1_texts_are_ints"]

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


_TEXT_BYTES_PER_CHAR = 32  # a text array counts this much per character: it becomes Python objects
_CHUNK = 1 << 20  # bytes read from a member at a time (into the array itself)


def read_npz(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, np.ndarray]:
    """Every array of an ``.npz`` file, refusing corrupt files and decompression bombs.

    Before any array is read, the zip directory's sizes and every member's
    ``.npy`` header (shape and dtype) are checked: each member must hold
    exactly its header plus the bytes its shape declares, and the declared
    sizes must total at most ``max_bytes`` (text arrays count
    :data:`_TEXT_BYTES_PER_CHAR` bytes per character, for the Python
    objects they become), and, above 64 MiB, at most 200 times the
    compressed size.  Arrays are then read in 1 MiB chunks straight into
    their own memory, so loading takes about the declared size, never a
    second copy.

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
    except _ZIP_ERRORS as exc:
        raise fail(f"not a zip/npz file ({type(exc).__name__}: {exc})") from None
    try:
        return _read_archive(archive, max_bytes, fail)
    except ValueError as exc:
        if str(exc).startswith(f"'{path}'"):
            raise
        raise fail(f"{type(exc).__name__}: {exc}") from None
    except _ZIP_ERRORS as exc:  # a damaged stream, an unsupported zip feature: named, one line
        raise fail(f"{type(exc).__name__}: {exc}") from None


# What reading a damaged or unusual zip file can raise (zlib/lzma/bz2 stream errors, zip features
# this Python lacks: NotImplementedError, encrypted members: RuntimeError).
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, OSError, EOFError, ValueError, KeyError,
               NotImplementedError, RuntimeError, UnicodeDecodeError, struct.error, OverflowError, IndexError,
               TypeError)


def _read_archive(archive: zipfile.ZipFile, max_bytes: int, fail) -> dict[str, np.ndarray]:
    """The body of :func:`read_npz` once the zip directory is read."""
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
        # 1. every member's header: shapes and dtypes, before any array is read
        layouts = []
        budget = 0
        for info in members:
            layout = _member_layout(archive, info, fail)
            shape, _, dtype, _ = layout
            count = math.prod(shape)
            chars = dtype.itemsize // 4 if dtype.kind == "U" else dtype.itemsize if dtype.kind == "S" else 0
            budget += count * (chars * _TEXT_BYTES_PER_CHAR if chars else dtype.itemsize)
            if budget > max_bytes:
                raise fail(f"its arrays take more than max_bytes={max_bytes} bytes once read (member "
                           f"{info.filename!r} declares shape {shape} of {dtype}); pass a larger max_bytes "
                           "if the file is trusted")
            layouts.append(layout)
        # 2. the arrays, each read into its own memory
        arrays: dict[str, np.ndarray] = {}
        for info, (shape, fortran, dtype, offset) in zip(members, layouts):
            try:
                array = _read_member(archive, info, shape, fortran, dtype, offset, fail)
            except ValueError as exc:
                if str(exc).startswith(f"'{archive.filename}'"):
                    raise
                raise fail(f"member {info.filename!r}: {exc}") from None
            except _ZIP_ERRORS as exc:
                raise fail(f"member {info.filename!r}: {type(exc).__name__}: {exc}") from None
            arrays[info.filename[: -len(".npy")]] = array
        return arrays


def _member_layout(archive: zipfile.ZipFile, info: zipfile.ZipInfo, fail) -> tuple:
    """(shape, fortran_order, dtype, data offset) of one ``.npy`` member, checked against its size."""
    try:
        with archive.open(info) as handle:
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
            else:
                shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
            offset = handle.tell()
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as exc:
        raise fail(f"member {info.filename!r} has no valid array header ({type(exc).__name__}: {exc})") from None
    except _ZIP_ERRORS as exc:
        raise fail(f"member {info.filename!r}: {type(exc).__name__}: {exc}") from None
    if dtype.hasobject:
        raise fail(f"member {info.filename!r} holds Python objects (pickle)")
    declared = math.prod(shape) * dtype.itemsize
    if offset + declared != info.file_size:
        raise fail(f"member {info.filename!r} declares {declared} bytes of data (shape {shape}, {dtype}) "
                   f"but holds {info.file_size - offset}")
    return shape, fortran, dtype, offset


def _read_member(archive, info, shape, fortran, dtype, offset, fail) -> np.ndarray:
    """One member's array, read in chunks into memory allocated once."""
    count = math.prod(shape)
    array = np.empty(count, dtype=dtype)
    with archive.open(info) as handle:
        handle.read(offset)
        if array.nbytes:
            view = memoryview(array.view(np.uint8))
            done = 0
            while done < array.nbytes:
                got = handle.readinto(view[done: done + _CHUNK])
                if not got:
                    raise fail(f"member {info.filename!r} is truncated")
                done += got
        if handle.read(1):  # also makes zipfile check the member's CRC
            raise fail(f"member {info.filename!r} holds more than its header declares")
    if fortran:
        return array.reshape(shape[::-1]).transpose()
    return array.reshape(shape)


MAX_HEADER_DEPTH = 32  # nesting of lists/objects a result header may have (a saved one uses about 6)
_READ_VERSIONS = (1, 2)


def loads_header(text: str, path: Path) -> dict:
    """Parse the JSON header of a result file, naming the file on failure.

    Refuses (``ValueError``) text that is not JSON, is not an object, or
    nests lists/objects deeper than :data:`MAX_HEADER_DEPTH` (checked on
    the text before parsing, so no depth reaches Python's recursion limit).
    """
    depth = _json_depth(text)
    if depth > MAX_HEADER_DEPTH:
        raise ValueError(f"'{path}': the result header nests {depth} levels of lists/objects, more than "
                         f"{MAX_HEADER_DEPTH}: not written by ClusteringResult.save")
    try:
        header = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ValueError(f"'{path}': the result header is not valid JSON ({type(exc).__name__}: "
                         f"{str(exc)[:200]})") from None
    if not isinstance(header, dict):
        raise ValueError(f"'{path}': the result header is not a JSON object")
    return header


_JSON_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?')
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


def _json_depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` in JSON text, brackets inside strings ignored (no parsing)."""
    brackets = _NOT_BRACKETS.sub("", _JSON_STRINGS.sub("", text))
    depth = deepest = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


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
    """The body of :meth:`ClusteringResult.load` (see its docstring).

    Reads format 2 and format 1 (before typed scalars: its time labels were
    stored as their ``repr`` and its object arrays as text; they are read
    back with their types, see :func:`decode_format_1_scalar` and
    :func:`format_1_texts_are_ints`); any other version is refused, naming it.
    """
    path = Path(path)
    data = read_npz(path, max_bytes=max_bytes)
    if "__header__" not in data:
        raise ValueError(f"'{path}' holds no result header: not written by ClusteringResult.save")
    stored_header = data.pop("__header__")
    if stored_header.dtype.kind != "U" or stored_header.shape != ():
        raise ValueError(f"'{path}': the result header is not text (shape {stored_header.shape}, "
                         f"{stored_header.dtype}): not written by ClusteringResult.save")
    header = loads_header(str(stored_header), path)
    del stored_header
    version = header.get("format_version")
    if type(version) is not int or version not in _READ_VERSIONS:
        raise ValueError(
            f"'{path}': result format version {version!r} is not one this ercot-nb reads "
            f"(it reads format versions 1 and 2); "
            + ("a newer ercot-nb wrote it: upgrade ercot-nb to load it" if type(version) is int
               and version > FORMAT_VERSION else "was it written by ClusteringResult.save?")
        )
    where = "format 1, " if version == 1 else ""
    try:
        check_header_types(header)
        as_int = version == 1 and format_1_texts_are_ints(
            [data[f"{meta['t']}/{name[: -len('__was_object')]}"]
             for meta in header["steps"] for name in meta if name.endswith("__was_object") and meta[name]])
        result = cls(algorithm=header["algorithm"], params=header["params"])
        for t, meta in enumerate(header["steps"]):
            kwargs = {}
            for f in fields(step_class):
                key = f"{meta['t']}/{f.name}"
                if f"{f.name}__object" in meta:
                    kwargs[f.name] = decode_object_array(data.get(key), meta[f"{f.name}__object"])
                elif f.name in meta:
                    if version == 1:
                        kwargs[f.name] = decode_format_1_scalar(meta[f.name], f"{where}step {t}, {f.name}")
                    else:
                        kwargs[f.name] = decode_scalar(meta[f.name])
                else:
                    value = data[key]
                    if meta.get(f"{f.name}__was_object"):  # format 1: object arrays stored as text
                        value = decode_format_1_text(value, as_int)
                    kwargs[f.name] = value
            check_step_scalars(kwargs, t)
            step = step_class(**kwargs)
            check_step_arrays(step, t)
            result.steps.append(step)
        kinds = {type(step.time) for step in result.steps}
        if len(kinds) > 1:
            raise TypeError(f"the steps' time labels mix types ({', '.join(sorted(k.__name__ for k in kinds))})")
        if not 0 <= header["next_label"] < MAX_LABEL:
            raise ValueError(f"next_label {header['next_label']} is out of range")
        top = max((int(step.aligned_labels.max()) for step in result.steps if step.aligned_labels.size), default=-1)
        if top >= header["next_label"]:
            raise ValueError(f"aligned_labels reach {top} but next_label is {header['next_label']}")
        result._next_label = int(header["next_label"])
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError, RecursionError) as exc:
        raise ValueError(f"'{path}': not a consistent saved result ({where}{type(exc).__name__}: "
                         f"{str(exc)[:300]})") from None
    return result


_FORMAT_1_REPRS = [  # how format 1 wrote time labels: repr() of the value
    (re.compile(r"Timestamp\('([^']*)'(?:, tz='([^']*)')?(?:, freq='[^']*')?\)"),
     lambda value, tz=None: pd.Timestamp(value) if tz is None else pd.Timestamp(value).tz_convert(tz)),
    (re.compile(r"(?:numpy|np)\.datetime64\('([^']*)'(?:, ?'(\w+)')?\)"),
     lambda value, unit=None: np.datetime64(value) if unit is None else np.datetime64(value, unit)),
    (re.compile(r"(?:numpy|np)\.timedelta64\((-?\d+|'NaT'), ?'(\w+)'\)"),
     lambda value, unit: np.timedelta64("NaT" if value == "'NaT'" else int(value), unit)),
    (re.compile(r"Timedelta\('([^']*)'\)"), lambda value: pd.Timedelta(value)),
    (re.compile(r"datetime\.datetime\((-?\d+(?:, ?-?\d+){2,6})\)"),
     lambda args: _dt.datetime(*(int(v) for v in args.split(",")))),
    (re.compile(r"datetime\.date\((-?\d+, ?-?\d+, ?-?\d+)\)"),
     lambda args: _dt.date(*(int(v) for v in args.split(",")))),
]
# a repr of some other object: Name(...) with quoted or keyword arguments, or module.Name(...)
_OTHER_REPR = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\(.*\)|[A-Z]\w*\(.*(?:'|=).*\)", re.DOTALL)
_CANONICAL_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")


def decode_format_1_scalar(value: Any, where: str) -> Any:
    """A scalar of a format-1 header with its type.

    Format 1 kept numbers, strings and None, turned sequences into lists and
    anything else into its ``repr``: the reprs of ``Timestamp`` (with its
    time zone), ``datetime64``, ``timedelta64``, ``Timedelta``, ``datetime``
    and ``date`` are parsed back, lists become tuples, and a string that is
    the repr of another object raises ``ValueError`` (naming ``where``)
    rather than being read as text.
    """
    if isinstance(value, list):
        return tuple(decode_format_1_scalar(v, where) for v in value)
    if not isinstance(value, str):
        return value
    for pattern, build in _FORMAT_1_REPRS:
        match = pattern.fullmatch(value)
        if match:
            return build(*(group for group in match.groups() if group is not None))
    if _OTHER_REPR.fullmatch(value):
        raise ValueError(f"{where}: {value!r:.80} is how format 1 stored a value of a type it "
                         "could not save; this file cannot be read back with its types")
    return value


def format_1_texts_are_ints(stored: Sequence[np.ndarray]) -> bool:
    """Whether the object arrays of a format-1 file held ints: every element a canonical integer.

    Format 1 wrote object arrays with ``astype(str)``.  Ids are all numbers
    or all text (the data model refuses a mix), so the whole file decides:
    when every element is a canonical integer (``'10'``, ``'-3'``, not
    ``'007'`` or ``'1.0'``) they were ints, otherwise strings.  (Text ids
    that all look like canonical integers come back as ints.)
    """
    return all(_CANONICAL_INT.fullmatch(v) for array in stored for v in array.astype(str).ravel().tolist())


def decode_format_1_text(stored: np.ndarray, as_int: bool) -> np.ndarray:
    """A format-1 object array (stored as text) as Python ints or strings (see
    :func:`format_1_texts_are_ints`)."""
    out = np.empty(stored.shape, dtype=object)
    values = stored.astype(str).ravel().tolist()
    out.ravel()[:] = [int(v) for v in values] if as_int else values
    return out


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
