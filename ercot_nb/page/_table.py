"""A list of JSON values (a view's change at every step) stored as columns.

The changes of a view from step to step have the same shape: the same keys,
the same traces, arrays of the same kind; only some values differ.  Stored as
a list, every step repeats the keys, the unchanged values and a base64 string
per array.  :func:`table` stores the list by columns instead, as a data frame
does: the values of one place (``steps[*]["data"][*]["x"]``) together, each
column as compact as its values allow:

==========  ==========================================================
``"same"``  one value, equal at every row: ``{"k": "same", "v": value}``
``"num"``   numbers: one typed array ``{"k": "num", "a": typed}``
``"bool"``  booleans: one typed array of 0 and 1
``"str"``   strings, each distinct one once: ``{"k": "str", "u": [...], "i": typed}``
``"fmt"``   strings differing by whole numbers: the texts around them (a column,
            a NUL where a number was) and the numbers: a column per position where
            every string has as many, else one typed array
``"opt"``   values and nulls: ``{"k": "opt", "p": typed 0/1, "c": column}``
``"dict"``  objects: a column per key, ``"p"``: where a key is present
``"list"``  arrays: ``{"k": "list", "n": lengths, "c": column of all items}``
``"tuple"`` short arrays of one length (rows of a table): a column per position, ``"c"``
``"typed"`` typed arrays of one dtype: their bytes in one ``"bdata"``, ``"n"`` lengths
``"json"``  anything else, as it is: ``{"k": "json", "v": [...]}``
==========  ==========================================================

A table is ``{"rows": n, "col": column}``.  Typed arrays
(``{"dtype", "bdata"}``) are plotly.js's; ``explorer.js``'s ``rows`` reads
a table back, knowing nothing of what it holds (:func:`read_table` is its
Python twin).  Reading gives back equal JSON values (a typed array of a
``"typed"`` column comes back as the array itself).
"""
from __future__ import annotations

import base64
import re
from typing import Any

import numpy as np

__all__ = ["Typed", "finish", "table", "read_table"]

_F4_BELOW = 1e4
"""Floats below this in size travel as float32 (off by less than 1e-3); larger ones as float64."""
_TUPLE_MAX = 8
"""Arrays of at most this many items, as long at every row (a customdata row), are stored by position."""
_INTS = (("u1", 0, 255), ("u2", 0, 65535), ("i4", -2**31, 2**31 - 1))


class Typed:
    """A numeric array as it travels (little-endian bytes of a plotly.js dtype), compared by value.

    Written as a plotly.js typed array (``{"dtype", "bdata"[, "shape"]}``) by
    :func:`finish`, or joined with the arrays of the same place of other rows
    by :func:`table`.
    """

    __slots__ = ("dtype", "data", "shape")

    def __init__(self, dtype: str, data: bytes, shape: str | None = None) -> None:
        self.dtype, self.data, self.shape = dtype, data, shape

    def __eq__(self, other: object) -> bool:
        return (type(other) is Typed and self.dtype == other.dtype and self.data == other.data
                and self.shape == other.shape)

    def __hash__(self) -> int:
        return hash((self.dtype, self.data, self.shape))

    def spec(self) -> dict[str, Any]:
        """The plotly.js typed array."""
        spec = {"dtype": self.dtype, "bdata": base64.b64encode(self.data).decode("ascii")}
        if self.shape is not None:
            spec["shape"] = self.shape
        return spec


def finish(value: Any) -> Any:
    """``value`` with every :class:`Typed` written as a plotly.js typed array (JSON-ready)."""
    kind = type(value)
    if kind is Typed:
        return value.spec()
    if kind is dict:
        return {key: finish(v) for key, v in value.items()}
    if kind is list:
        return [finish(v) for v in value]
    return value


def _ints(values: Any) -> Typed:
    """Integers in the smallest plotly.js type that holds them."""
    array = np.asarray(values, dtype=np.int64)
    low, high = (int(array.min()), int(array.max())) if array.size else (0, 0)
    dtype = next((name for name, least, most in _INTS if least <= low and high <= most), "f8")
    return Typed(dtype, array.astype("<" + dtype).tobytes())


def table(values: list[Any]) -> dict[str, Any]:
    """The JSON values of ``values`` (plain JSON and :class:`Typed`) as a table (see the module docstring)."""
    return {"rows": len(values), "col": _column(values)}


def _column(values: list[Any]) -> dict[str, Any]:
    kinds = set(map(type, values))
    if not values:
        return {"k": "json", "v": []}
    if len(kinds) == 1:
        kind = type(values[0])
        if kind is dict:
            return _dicts(values)
        if kind is list:
            lengths = [len(v) for v in values]
            if len(values) > 1 and 0 < lengths[0] <= _TUPLE_MAX and min(lengths) == max(lengths):
                return {"k": "tuple", "c": [_column([v[j] for v in values]) for j in range(lengths[0])]}
            flat = [item for v in values for item in v]
            return {"k": "list", "n": lengths[0] if min(lengths) == max(lengths) else _ints(lengths).spec(),
                    "c": _column(flat)}
        first = values[0]
        if kind is str and len(values) > 1:
            return _strings(values)
        if kind is Typed:
            if all(v == first for v in values):
                return {"k": "same", "v": first.spec()}
            return _arrays(values)
        if all(v == first for v in values):
            return {"k": "same", "v": first}
        if kind is bool:
            return {"k": "bool", "a": Typed("u1", np.asarray(values, dtype="<u1").tobytes()).spec()}
    if kinds <= {int, float}:
        array = np.asarray(values, dtype=np.float64)
        if np.isfinite(array).all():
            top = np.abs(array).max()
            if (array == np.round(array)).all() and top < 2**31:
                return {"k": "num", "a": _ints(array).spec()}
            if kinds == {float} or top < 2**53:
                # float32 (about 7 digits, as the page's arrays) where that is within 1e-3 of every value
                dtype = "f4" if top < _F4_BELOW else "f8"
                return {"k": "num", "a": Typed(dtype, array.astype("<" + dtype).tobytes()).spec()}
    if kinds == {Typed, list} and all(not v for v in values if type(v) is list):
        return _arrays([v if type(v) is Typed else None for v in values])  # [] as an empty array
    if type(None) in kinds and len(kinds) > 1:
        present = [v is not None for v in values]
        return {"k": "opt", "p": Typed("u1", np.asarray(present, dtype="<u1").tobytes()).spec(),
                "c": _column([v for v in values if v is not None])}
    return {"k": "json", "v": finish(values)}


def _dicts(values: list[dict[str, Any]]) -> dict[str, Any]:
    found: dict[str, tuple[list[Any], list[int]]] = {}  # key -> its values and their rows (one pass)
    for row, value in enumerate(values):
        for key, item in value.items():
            held = found.get(key)
            if held is None:
                found[key] = held = ([], [])
            held[0].append(item)
            held[1].append(row)
    columns, present = {}, {}
    for key, (column, rows) in found.items():
        if len(column) < len(values):
            mask = np.zeros(len(values), dtype="<u1")
            mask[rows] = 1
            present[key] = Typed("u1", mask.tobytes()).spec()
        columns[key] = _column(column)
    out = {"k": "dict", "c": columns}
    if present:
        out["p"] = present
    return out


def _arrays(values: list[Typed | None]) -> dict[str, Any]:
    """Typed arrays (None: an empty one) in one typed array, or as they are (2-D, mixed kinds)."""
    arrays = [v for v in values if v is not None]
    dtypes = {v.dtype for v in arrays}
    if any(v.shape is not None for v in arrays) or (len(dtypes) > 1 and not all(d[0] in "iu" for d in dtypes)):
        return {"k": "json", "v": [[] if v is None else v.spec() for v in values]}
    parts = [np.frombuffer(v.data, np.dtype("<" + v.dtype)) for v in arrays]
    if len(dtypes) == 1:
        dtype, data = arrays[0].dtype, b"".join(v.data for v in arrays)
    else:  # integers of several widths: the widest needed
        joined = _ints(np.concatenate(parts))
        dtype, data = joined.dtype, joined.data
    lengths = iter([len(p) for p in parts])
    counts = [0 if v is None else next(lengths) for v in values]
    return {"k": "typed", "dtype": dtype, "n": _ints(counts).spec(),
            "bdata": base64.b64encode(data).decode("ascii")}


_NUMBER = re.compile(r"(?<![0-9.])(0|[1-9][0-9]{0,8})(?![0-9.])")  # a whole number (not of a decimal)


def _strings(values: list[str]) -> dict[str, Any]:
    """Strings: each distinct one once; where they differ by whole numbers (a title per step), each
    distinct text around the numbers once and the numbers in one typed array."""
    unique: dict[str, int] = {}
    index = [unique.setdefault(v, len(unique)) for v in values]
    if len(unique) == 1:
        return {"k": "same", "v": values[0]}
    if len(unique) * 2 <= len(values):
        return {"k": "str", "u": list(unique), "i": _ints(index).spec()}
    pieces = [_NUMBER.split(v) for v in values]  # text, number, text, ..., text
    texts = ["\x00".join(parts[::2]) for parts in pieces]
    if "\x00" in "".join(values) or len(set(texts)) * 2 > len(values):
        return {"k": "json", "v": values}
    found = [[int(n) for n in parts[1::2]] for parts in pieces]
    widths = {len(numbers) for numbers in found}
    if len(widths) == 1:  # as many numbers in every string: a column per position (a step's time, a member)
        return {"k": "fmt", "t": _strings(texts), "d": [_column([numbers[j] for numbers in found])
                                                     for j in range(widths.pop())]}
    return {"k": "fmt", "t": _strings(texts), "d": _ints([n for numbers in found for n in numbers]).spec()}


# ------------------------------------------------------------------ reading
def _array(spec: dict[str, Any]) -> np.ndarray:
    return np.frombuffer(base64.b64decode(spec["bdata"]), np.dtype(spec["dtype"]).newbyteorder("<"))


def read_table(data: dict[str, Any]) -> list[Any]:
    """The values a table of the page's data holds, read as ``explorer.js`` reads them.

    Parameters
    ----------
    data : dict
        A table of :func:`~ercot_nb.page.page_data`: a view's ``base``, ``steps``, ``members``
        or ``member_data`` (``{"rows": n, "col": column}``).

    Returns
    -------
    list
        One JSON value per row.  A typed array stored with its column comes back as a numpy
        array, a plotly.js typed array (``{"dtype", "bdata"}``) stored whole as it is.
    """
    return _rows(data["col"], int(data["rows"]))


def _counts(spec: Any, n: int) -> list[int]:
    return [int(spec)] * n if isinstance(spec, int) else _array(spec).tolist()


def _rows(column: dict[str, Any], n: int) -> list[Any]:
    kind = column["k"]
    if kind == "same":
        return [column["v"]] * n
    if kind == "json":
        return list(column["v"])
    if kind == "num":
        return _array(column["a"]).tolist()
    if kind == "bool":
        return [bool(v) for v in _array(column["a"]).tolist()]
    if kind == "str":
        return [column["u"][i] for i in _array(column["i"]).tolist()]
    if kind == "fmt":
        if isinstance(column["d"], list):  # a column per position
            numbers = iter([x for row in zip(*(_rows(sub, n) for sub in column["d"])) for x in row])
        else:
            numbers = iter(_array(column["d"]).tolist())
        return ["".join(piece if i == 0 else str(next(numbers)) + piece for i, piece in enumerate(text.split("\x00")))
                for text in _rows(column["t"], n)]
    if kind == "opt":
        present = _array(column["p"]).astype(bool)
        values = iter(_rows(column["c"], int(present.sum())))
        return [next(values) if p else None for p in present.tolist()]
    if kind == "list":
        lengths = _counts(column["n"], n)
        flat = _rows(column["c"], sum(lengths))
        out, start = [], 0
        for length in lengths:
            out.append(flat[start:start + length])
            start += length
        return out
    if kind == "tuple":
        return [list(row) for row in zip(*(_rows(sub, n) for sub in column["c"]))]
    if kind == "typed":
        lengths = _counts(column["n"], n)
        flat = _array({"dtype": column["dtype"], "bdata": column["bdata"]})
        ends = np.cumsum(lengths)
        return [flat[end - length:end] for end, length in zip(ends.tolist(), lengths)]
    if kind == "dict":
        out = [{} for _ in range(n)]
        for key, sub in column["c"].items():
            where = (_array(column["p"][key]).astype(bool).tolist() if key in column.get("p", {})
                     else [True] * n)
            values = iter(_rows(sub, sum(where)))
            for row, here in zip(out, where):
                if here:
                    row[key] = next(values)
        return out
    raise ValueError(f"unknown column kind {kind!r} in the page's data")
