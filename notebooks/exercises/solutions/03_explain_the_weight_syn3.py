"""Solution of exercise 03_explain_the_weight_syn3 (teacher copy; not for students).

Each ``# %% solution: <key>`` section replaces the notebook cell whose
metadata says ``"solution": "<key>"`` (the cells marked # YOUR CODE HERE).
The sections run in the notebook, after its own cells have defined
``data``, ``model`` (Syn3), ``syn1`` and ``syn1_model``.
"""
# %% solution: lowest_time
import numpy as np

lowest_time = data.times[int(np.nanargmin(model.alpha_))]

# %% solution: drift_means
import numpy as np

times = np.array(data.times)
alpha = model.alpha_
in_drift = np.isin(times, [4, 5, 6])
drift_mean = np.nanmean(alpha[in_drift])
other_mean = np.nanmean(alpha[~in_drift])  # nanmean skips the first step, which has no alpha

# %% solution: control
import numpy as np

syn1_drift_mean = np.nanmean(syn1_model.alpha_[np.isin(np.array(syn1.times), [4, 5, 6])])

# %% solution: statements
import numpy as np

from ercot_nb.data import common_ids

low = int(np.nanargmin(model.alpha_))  # step index of the lowest alpha
previous, current = data[low - 1], data[low]
ia, ib = common_ids(previous, current)
true_statements = set()
if np.any(previous.labels[ia] != current.labels[ib]):
    true_statements.add("A")
if model.n_clusters_[low] != model.n_clusters_[low - 1]:
    true_statements.add("B")
if len(ia) != len(previous.ids) or len(ib) != len(current.ids):
    true_statements.add("C")
if len(np.unique(previous.labels)) != len(np.unique(current.labels)):
    true_statements.add("D")
if int(np.nanargmin(syn1_model.alpha_)) == low:
    true_statements.add("E")
