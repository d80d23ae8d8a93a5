"""Build and execute notebooks/04_samples_come_and_go.ipynb."""
from _tutorial import build, code, md

cells = [
md("""# Samples come and go, clusters vanish and return

ERCOT clusters **temporal data**: id-tracked samples observed at time steps 1..T, giving **one partition per time step**. It does **not** cluster whole time series, and it does not need the same samples at every step: ids may appear and disappear, and the number of clusters may change.

This notebook covers both: Syn5, where samples are removed and inserted (the ids differ from step to step), and how ERCOT carries its population over through the ids two steps share; then Syn8, where a cluster vanishes for two steps and comes back while the number of clusters is not given, with the number of clusters per step, the cluster flows and the time-aligned labels that keep a cluster's colour.

Previous: [03 temporal smoothness a posteriori](03_smoothness_a_posteriori.ipynb) · Next: [05 comparing algorithms](05_comparing_algorithms.ipynb)"""),
code("""import numpy as np
import pandas as pd

from ercot_nb import ERCOT, datasets, figures, metrics"""),
md("""## Part 1. Syn5: samples removed and inserted

Syn1's four moving Gaussian clusters, with 10 samples of each cluster removed for good at time 4, 10 new samples (new ids) per cluster inserted at time 6 and 10 per cluster removed at time 8. Each step is a `Snapshot` with its own `ids`:"""),
code("""# NBVAL_CHECK_OUTPUT
data = datasets.load("syn5", seed=0)
rows = []
for previous, current in zip([None, *data[:-1]], data):
    common = np.intersect1d(previous.ids, current.ids) if previous is not None else np.array([])
    rows.append({"time": current.time, "samples": current.n_samples, "common with t-1": len(common),
                 "new": current.n_samples - len(common) if previous is not None else current.n_samples,
                 "gone": previous.n_samples - len(common) if previous is not None else 0})
print(pd.DataFrame(rows).to_string(index=False))"""),
md("""### How ERCOT re-seeds over the common ids

At step t > 1 ERCOT starts from 80 % of the previous final population. Their centroids live in the data space of t-1, so each kept member is moved to step t by **decode-encode over the common samples**: the common samples are assigned to the member's nearest active centroid using their positions at t-1, then every centroid is replaced by the mean of the *same samples'* positions at t. Samples that left do not take part; new samples have no past, so they only enter through the search on step t (the other 20 % of the population is random). The smoothness weight alpha is also estimated on the common samples only.

Nothing else changes, so the same call handles varying ids:"""),
code("""# NBVAL_IGNORE_OUTPUT
model = ERCOT(seed=0).fit(data)
result = model.result_
result.steps_frame()"""),
code("""# NBVAL_CHECK_OUTPUT
print("clusters per step:", result.n_clusters.tolist())
print("RI per step:      ", metrics.score_steps(data, model.labels_)["RI"].round(3).tolist())"""),
md("""`partition_figure` marks the changes: at time 4 the grey x marks are the samples gone since time 3 (at their last position), at time 6 black rings mark the 40 samples that entered."""),
code("""# NBVAL_IGNORE_OUTPUT
for t in (3, 5):
    figures.partition_figure(data, result, t).show()"""),
md("""`to_frame()` has one row per (step, sample) present, so a sample's history has gaps where it was absent:"""),
code("""frame = result.to_frame()
frame.pivot(index="id", columns="time", values="aligned_label").astype("Int64").loc[[0, 1, 200, 201]]"""),
md("""(Ids 200 and above are the samples inserted at time 6; `<NA>` means absent at that step. `figures.membership_figure` draws the same table for every sample, see [08 your own data](08_your_own_data.ipynb).)

## Part 2. Syn8: a cluster vanishes and returns

Syn8 is the 4-D version with concept drift, and its moving cluster **disappears at times 5 and 6**: its members are drawn around the other three clusters' means (and labelled with them). From time 7 the cluster is back. The true number of clusters is therefore 4, 4, 4, 4, 3, 3, 4, 4, 4, 4, and it is **not given** to ERCOT (`k=None`, up to C_max = 8)."""),
code("""# NBVAL_CHECK_OUTPUT
data8 = datasets.load("syn8", seed=0)
print("true clusters per step:", [len(np.unique(step.labels)) for step in data8])
print("k given to algorithms:", data8.metadata["k"])"""),
code("""model8 = ERCOT(seed=0).fit(data8)
result8 = model8.result_"""),
code("""# NBVAL_CHECK_OUTPUT
print("ERCOT clusters per step:", result8.n_clusters.tolist())
scores8 = metrics.mean_scores(data8, model8.labels_)
print(f"mRI = {scores8['mRI']:.3f}, mNMI = {scores8['mNMI']:.3f}")"""),
code("""# NBVAL_IGNORE_OUTPUT
figures.n_clusters_figure(result8, data8)"""),
md("""ERCOT follows the vanishing and the return: 3 clusters at times 5 and 6, 4 again from time 7. At time 10 it finds 3 again: by then the moving cluster sits almost on top of the top-right one (the generator notes that no method separates those two at times 9–10).

### Cluster flows and stable colours

Every step's labels are also **aligned** over time (`StepResult.aligned_labels`): each cluster is matched to a cluster of the previous step by the largest number of shared ids (Hungarian matching) and takes its label; a cluster without a match gets a new label. Figures colour clusters by aligned label, so a cluster keeps its colour while it persists. The Sankey diagram shows how many samples flow from each cluster at t-1 to each cluster at t (hover for numbers):"""),
code("""# NBVAL_IGNORE_OUTPUT
figures.sankey_figure(result8)"""),
code("""# NBVAL_CHECK_OUTPUT
flows = pd.DataFrame(figures.cluster_flows(result8))
flows["from time"] = flows["t"].map(lambda t: result8[t - 1].time)
flows["to time"] = flows["t"].map(lambda t: result8[t].time)
print(flows[flows["t"].isin([4, 6])][["from time", "to time", "source", "target", "count"]].to_string(index=False))"""),
md("""At time 5 aligned cluster 0 (the moving cluster, true label 2) spreads over clusters 1, 2 and 3 (12, 11 and 12 samples). At time 7 a **new** cluster, 4, forms from 12 + 10 + 13 samples of clusters 1, 2 and 3: the moving cluster is back, but with a new aligned label and colour. Labels are carried from one step to the next only, so a cluster absent at t-1 cannot get its old label back; the flows (or `figures.cluster_moves`) show where its members came from. Against the truth:"""),
code("""# NBVAL_CHECK_OUTPUT
for t in (3, 4, 6):
    print(f"time {data8[t].time}: rows = true cluster, columns = aligned label")
    print(pd.crosstab(data8[t].labels, result8[t].aligned_labels).to_string(), end="\\n\\n")"""),
code("""# NBVAL_IGNORE_OUTPUT
for t in (3, 4, 6):
    figures.partition_figure(data8, result8, t).show()"""),
md("""The partitions show features 0 and 1 of the four (pass `features=(2, 3)` or `projection="pca"` for other views); colours are the aligned labels: the moving cluster (true label 2) is aligned cluster 0, blue, until time 4, absent at times 5–6, and back in a new colour (4) at time 7."""),
]

if __name__ == "__main__":
    build("04_samples_come_and_go.ipynb", cells)
