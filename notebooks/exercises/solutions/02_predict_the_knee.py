"""Solution of exercise 02_predict_the_knee (teacher copy; not for students).

Each ``# %% solution: <key>`` section replaces the notebook cell whose
metadata says ``"solution": "<key>"`` (the cells marked # YOUR CODE HERE).
The prediction is read from the fitted run in the notebook (``result``, ``t``).
"""
# %% solution: predict
predicted_k = int(result[t].population_n_clusters[result[t].knee])

# %% solution: knee_index
import numpy as np


def knee_index(F):
    """Index of the front point nearest the ideal corner after MOCK's normalisation."""
    F = np.asarray(F, dtype=float)
    low = F.min(axis=0)
    span = F.max(axis=0) - low
    scaled = np.divide(F - low, span, out=np.zeros_like(F), where=span > 0)
    g = np.sqrt(scaled)
    return int(np.argmin(np.hypot(g[:, 0], g[:, 1])))
