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
import warnings
from collections.abc import Iterable, Iterator, Sequence
from os import PathLike
from typing import Any, overload

import numpy as np
import pandas as pd

from ._io import csv_to_dataset, dataset_to_frame, frame_to_dataset
from ._scaling import SCALINGS, scale_dataset
from ._snapshot import Snapshot
from ._validation import (_check_feature_names, _check_id_kinds, _check_unique_times, _default_feature_names,
                          _encode_label_steps, _per_step_argument, _python_scalar, _validated_snapshot)

__all__ = ["TemporalDataset", "RANGE_RATIO_WARNING"]

RANGE_RATIO_WARNING = 100.0  # feature ranges this many times apart make the widest one dominate


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
        _check_id_kinds(checked)
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
        scale: str = "none",
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
        scale : {"none", "standardize", "minmax"}, default="none"
            Rescale the features with :meth:`scaled` (statistics over all
            steps).  With ``"none"``, a ``UserWarning`` says when feature
            ranges differ by 100 times or more (see :meth:`range_warning`).

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
        if scale not in SCALINGS:
            raise ValueError(f"scale must be one of {list(SCALINGS)}, got {scale!r}")
        if isinstance(X_list, np.ndarray) and X_list.ndim == 2:
            raise TypeError(
                f"X_list is one 2-D array of shape {X_list.shape}; give one array per time step, "
                "e.g. from_arrays([X]) for a single step"
            )
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
        _check_id_kinds(snapshots)
        assert names is not None
        dataset = cls._from_checked(snapshots, names, name, metadata, label_names)
        if scale != "none":
            return dataset.scaled(scale)
        note = dataset.range_warning()
        if note is not None:
            warnings.warn(note, UserWarning, stacklevel=2)
        return dataset

    @classmethod
    def from_frame(
        cls,
        df: pd.DataFrame,
        time: Any,
        id: Any,
        features: Sequence[Any] | None = None,
        label: Any | None = None,
        name: str = "",
        scale: str = "none",
        time_format: str | None = None,
    ) -> TemporalDataset:
        """Build a dataset from a long-format table, one row per (time, id).

        Parameters
        ----------
        df : pandas.DataFrame
            The table.
        time : column label
            Column holding each row's time label.  Steps are ordered by the
            sorted unique values of this column: numbers and dates in their
            order, an ordered ``pandas.Categorical`` in its categories' order,
            text that is numbers in numeric order, ISO dates (``2020-01-31``)
            in date order (labels keep your text), dates such as ``15/1/2020``
            in date order when a field above 12 settles day first or month
            first for the whole column (else refused: give ``time_format``),
            dates with month names (``Jan 2020``) in date order, names with
            numbers (``t1, t2, ..., t10``, ``2001-Q3``) in natural order; other
            text is refused (the message shows the alphabetical order and how
            to give one).  Dates are never ordered as text.
        id : column label
            Column holding sample ids (unique within a time step).
        features : sequence of column labels, optional
            Feature columns.  Default: every int or float column other than
            ``time``, ``id`` and ``label``.  A column of numbers with some
            text cells (``?``, ``n/a``) is refused, naming the cells; text,
            boolean and date columns are left out with a ``UserWarning``
            naming them (also in ``metadata["skipped_columns"]``).
        label : column label, optional
            Column of ground-truth labels.  Integers are kept; other values
            (e.g. strings) are encoded as shared integer codes, see
            :attr:`label_names`.
        name : str, default=""
            Dataset name.
        scale : {"none", "standardize", "minmax"}, default="none"
            As in :meth:`from_arrays`.
        time_format : str, optional
            A ``datetime.strptime`` format of the time labels,
            e.g. ``"%d/%m/%Y"``: steps are ordered by the dates it reads (the
            labels keep your text); a label that does not match is refused,
            naming it.

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
        return frame_to_dataset(cls, df, time, id, features, label, name, scale, time_format)

    @classmethod
    def from_csv(
        cls,
        path: str | PathLike[str],
        time: Any,
        id: Any,
        features: Sequence[Any] | None = None,
        label: Any | None = None,
        name: str | None = None,
        scale: str = "none",
        time_format: str | None = None,
        **read_csv_kwargs: Any,
    ) -> TemporalDataset:
        """Read a long-format CSV file (one row per (time, id)).

        Parameters
        ----------
        path : str or path-like
            The CSV file.
        time, id, features, label, scale, time_format
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
        return csv_to_dataset(cls, path, time, id, features, label, name, scale, read_csv_kwargs,
                              time_format)

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
        return dataset_to_frame(self)

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
        return scale_dataset(self, method, per_step)

    def feature_ranges(self) -> dict[str, float]:
        """Range (max - min over all steps) of every feature column."""
        low = np.min([s.X.min(axis=0) for s in self._snapshots], axis=0)
        high = np.max([s.X.max(axis=0) for s in self._snapshots], axis=0)
        with np.errstate(over="ignore"):
            spans = high - low
        return dict(zip(self._feature_names, spans.tolist()))

    def range_warning(self, ratio: float = RANGE_RATIO_WARNING) -> str | None:
        """A sentence when feature ranges differ by ``ratio`` or more, else None.

        Euclidean distances are then decided by the widest feature; the
        sentence names the widest and the narrowest column and how to rescale.
        """
        spans = {name: span for name, span in self.feature_ranges().items() if span > 0}
        if len(spans) < 2:
            return None
        widest = max(spans, key=spans.get)
        narrowest = min(spans, key=spans.get)
        if not spans[widest] >= ratio * spans[narrowest]:
            return None
        return (
            f"feature ranges differ by a factor of {spans[widest] / spans[narrowest]:.3g}: "
            f"{widest!r} spans {spans[widest]:.3g}, {narrowest!r} spans {spans[narrowest]:.3g}, so "
            f"{widest!r} decides the distances. If the features are in different units, rescale: "
            "dataset.scaled() (or scale='standardize' when loading, --scale standardize on the CLI)"
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
