"""Fixed plot coordinates of a dataset: two features, a PCA projection, or three features (3-D)."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..data import TemporalDataset
from .style import escape

__all__ = ["PROJECTIONS", "Plane"]

PROJECTIONS = (None, "pca", "3d")
"""The ways to place samples on a partition plot: features, PCA, 3-D features."""


class Plane:
    """Maps every step's samples and centroids to fixed 2-D or 3-D plot coordinates.

    Four cases: one feature (feature vs sample index), two chosen feature
    columns, a PCA projection fitted on all steps at once so the axes do not
    change between steps, or (``projection="3d"``) three chosen feature columns.

    Parameters
    ----------
    dataset : TemporalDataset
    features : sequence of int or str, optional
        Feature columns (two, or three in 3-D); default the first ones.
    projection : {None, "pca", "3d"}
    """

    def __init__(
        self,
        dataset: TemporalDataset,
        features: Sequence[int | str] | None,
        projection: str | None,
    ) -> None:
        n_features = dataset.n_features
        names = dataset.feature_names
        if projection not in PROJECTIONS:
            raise ValueError(f"projection must be None, 'pca' or '3d', got {projection!r}")
        self.by_index = n_features == 1 and projection != "3d"
        self.dims = 3 if projection == "3d" else 2
        self.components: np.ndarray | None = None
        self.mean: np.ndarray | None = None
        if projection == "3d":
            if n_features < 3:
                raise ValueError(
                    f"projection='3d' needs at least three features; the data has {n_features}"
                )
            features = (0, 1, 2) if features is None else features
            self.columns = tuple(self._column(f, names) for f in features)
            if len(self.columns) != 3:
                raise ValueError(
                    f"projection='3d' needs features naming exactly three columns, got {features!r}"
                )
            self.titles = tuple(escape(names[c]) for c in self.columns)
        elif self.by_index:
            if projection is not None:
                raise ValueError("projection='pca' needs at least two features; the data has one")
            self.columns = (0, 0)
            self.titles = ("sample index (within the step)", escape(names[0]))
        elif projection == "pca":
            self._fit_pca(np.vstack([s.X for s in dataset]))
            share = self.explained
            self.titles = (f"PC1 ({share[0]:.0%} of variance)", f"PC2 ({share[1]:.0%} of variance)")
            self.columns = (0, 1)
        else:
            features = (0, 1) if features is None else features
            self.columns = tuple(self._column(f, names) for f in features)
            if len(self.columns) != 2:
                raise ValueError(f"features must name exactly two columns, got {features!r}")
            self.titles = (escape(names[self.columns[0]]), escape(names[self.columns[1]]))

    @staticmethod
    def _column(feature: int | str, names: list[str]) -> int:
        if isinstance(feature, str):
            if feature not in names:
                raise ValueError(f"unknown feature {feature!r}; features: {names}")
            return names.index(feature)
        index = int(feature)
        if not -len(names) <= index < len(names):
            raise ValueError(f"feature index {feature} out of range for {len(names)} feature(s)")
        return index % len(names)

    def _fit_pca(self, X: np.ndarray) -> None:
        self.mean = X.mean(axis=0)
        _, singular, components = np.linalg.svd(X - self.mean, full_matrices=False)
        components = components[:2]
        # Deterministic sign: the largest loading of each component is positive.
        largest = np.abs(components).argmax(axis=1)
        components *= np.sign(components[np.arange(2), largest])[:, None]
        self.components = components
        variance = singular**2
        self.explained = variance[:2] / variance.sum() if variance.sum() > 0 else np.zeros(2)

    def project(self, X: np.ndarray) -> tuple[np.ndarray, ...]:
        """Plot coordinates of the rows of ``X``: (x, y) or, in 3-D, (x, y, z).

        For one feature: (index, value).
        """
        if self.by_index:
            return np.arange(len(X), dtype=np.float64), X[:, 0]
        if self.components is not None:
            Z = (X - self.mean) @ self.components.T
            return Z[:, 0], Z[:, 1]
        return tuple(X[:, c] for c in self.columns)
