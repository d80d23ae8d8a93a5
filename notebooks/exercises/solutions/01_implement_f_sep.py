"""Solution of exercise 01_implement_f_sep (teacher copy; not for students).

Each ``# %% solution: <key>`` section replaces the notebook cell whose
metadata says ``"solution": "<key>"`` (the cells marked # YOUR CODE HERE).
"""
# %% solution: f_sep
import numpy as np


def f_sep(X, centroids, active):
    """1 / minimum distance between the centroids of the non-empty active clusters."""
    slots = np.flatnonzero(active)
    if slots.size == 0:
        return np.inf
    # Nearest active centroid of every sample (ties go to the lowest index).
    distances = np.linalg.norm(X[:, None, :] - centroids[slots][None, :, :], axis=2)
    nonempty = slots[np.unique(np.argmin(distances, axis=1))]
    if nonempty.size < 2:
        return np.inf
    C = centroids[nonempty]
    pair = np.linalg.norm(C[:, None, :] - C[None, :, :], axis=2)
    min_distance = pair[np.triu_indices(len(C), k=1)].min()
    return 1.0 / max(min_distance, 1e-12)


# %% solution: f_cp
import numpy as np


def f_cp(X, centroids, active):
    """Sum over all samples of the Euclidean distance to the nearest active centroid."""
    slots = np.flatnonzero(active)
    if slots.size == 0:
        return np.inf
    distances = np.linalg.norm(X[:, None, :] - centroids[slots][None, :, :], axis=2)
    return distances.min(axis=1).sum()
