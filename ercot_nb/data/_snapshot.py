"""Snapshot: the samples present at one time step, and the ids two steps share."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["Snapshot", "common_ids"]


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
