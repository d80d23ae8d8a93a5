"""Solution of exercise 04_find_the_vanishing_cluster (teacher copy; not for students).

Each ``# %% solution: <key>`` section replaces the notebook cell whose
metadata says ``"solution": "<key>"`` (the cells marked # YOUR CODE HERE).
The sections run in the notebook, after its own cells have defined
``data`` (Syn7) and, from the third part on, ``model``.
"""
# %% solution: true_counts
import numpy as np

true_counts = [len(np.unique(step.labels)) for step in data]

# %% solution: vanished
import numpy as np

first_labels = set(np.unique(data[0].labels))
vanished_times = [step.time for step in data if first_labels - set(np.unique(step.labels))]
(vanished_label,) = first_labels - set(np.unique(data[data.times.index(vanished_times[0])].labels))

# %% solution: compare
ercot_counts = model.n_clusters_.tolist()
missed_times = [time for time, chosen, true in zip(data.times, ercot_counts, true_counts) if chosen != true]

# %% solution: statements
gone = [data.times.index(time) for time in vanished_times]
back = gone[-1] + 1  # the first step after the cluster's absence
true_statements = set()
if ercot_counts[gone[0]] < ercot_counts[gone[0] - 1]:
    true_statements.add("A")
if back < len(ercot_counts) and ercot_counts[back] > ercot_counts[back - 1]:
    true_statements.add("B")
if all(ercot_counts[i] == true_counts[i] for i in gone):
    true_statements.add("C")
if ercot_counts == true_counts:
    true_statements.add("D")
