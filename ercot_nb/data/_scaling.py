"""Feature scaling of a TemporalDataset (standardise / min-max), exact up to the float limit."""
from __future__ import annotations

import numpy as np

from ._snapshot import Snapshot

SCALINGS = ("none", "standardize", "minmax")
"""Feature scalings of :meth:`TemporalDataset.scaled` (``method=``) and of the data sets that scale."""
SCALING_WORDS = {"none": "none (raw units)", "standardize": "standardise (mean 0, sd 1)",
                 "minmax": "min-max to [0, 1]"}
"""Words for the scalings, shown by user interfaces (the values stay what runs)."""


def scale_dataset(self, method: str, per_step: bool):
    """The body of :meth:`TemporalDataset.scaled` (see its docstring)."""
    if method not in SCALINGS:
        raise ValueError(f"method must be one of {list(SCALINGS)}, got {method!r}")
    n_steps, n_features = len(self._snapshots), self.n_features

    def fit(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # Statistics of X / unit, unit a power of two per column: exact, and no
        # overflow of squares for values near the float64 limit (1e300 data).
        magnitude = np.abs(X).max(axis=0)
        unit = np.exp2(np.floor(np.log2(np.where(magnitude > 0, magnitude, 1.0))))
        Xn = X / unit
        if method == "standardize":
            shift, spread = Xn.mean(axis=0), Xn.std(axis=0)
        elif method == "minmax":
            shift = Xn.min(axis=0)
            spread = Xn.max(axis=0) - shift
        else:
            unit = np.ones(n_features)
            shift, spread = np.zeros(n_features), np.ones(n_features)
        # Constant feature: only shift it (to 0), never divide by zero.
        return unit, shift, np.where(spread > 0, spread, 1.0)

    if per_step:
        fitted = [fit(s.X) for s in self._snapshots]
    else:
        fitted = [fit(np.vstack([s.X for s in self._snapshots]))] * n_steps
    units = np.array([f[0] for f in fitted], dtype=np.float64).reshape(n_steps, n_features)
    shifts_n = np.array([f[1] for f in fitted], dtype=np.float64).reshape(n_steps, n_features)
    scales_n = np.array([f[2] for f in fitted], dtype=np.float64).reshape(n_steps, n_features)
    with np.errstate(over="ignore"):
        shifts, scales = shifts_n * units, scales_n * units

    def transform(A: np.ndarray, i: int) -> np.ndarray:
        return (A / units[i] - shifts_n[i]) / scales_n[i]

    snapshots = [
        Snapshot(s.time, s.ids, transform(s.X, i), s.labels)
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
            metadata["true_means"] = [transform(a, i) for i, a in enumerate(arrays)]
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
