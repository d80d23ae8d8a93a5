"""Build and execute notebooks/09_without_ground_truth.ipynb."""
from _tutorial import build, code, md

cells = [
md("""# Without ground truth: how good, what happened, how sure, and choosing differently

On the synthetic sets of the earlier notebooks every sample has a true label, so the Rand index (RI) and NMI say how good a run is. On your own table there is no such label. This notebook asks the same questions **without labels**, on 142 countries of the Gapminder table over 12 years (1952-2007):

1. **How good, how smooth?** Scores computed from the data and the partitions alone.
2. **What happened?** Births, deaths, splits, merges, growth and shrinkage of clusters between years, each with a p-value saying whether chance could produce it.
3. **How sure?** The same estimator with other seeds: where do the runs agree?
4. **Choosing differently.** Take another member of a year's Pareto front and carry that choice forward to the later years.

Gapminder's continent is a *reference* label (it comes with the table), not a true clustering of countries by life expectancy, income and population, so we do not score against it here.

Previous: [08 your own data](08_your_own_data.ipynb) · Next: [classroom exercises](exercises/README.md) · or back to [01 quickstart](01_quickstart.ipynb)"""),
code("""import numpy as np

from ercot_nb import ERCOT, datasets, figures, metrics
from ercot_nb.ensemble import ensemble"""),
md("""A small budget keeps this notebook quick (about half a second per run); the defaults (`ERCOT()`: 100 solutions, 1000 evaluations per year) give steadier runs."""),
code("""data = datasets.load("gapminder")
params = dict(pop_size=50, n_evaluations=500)
model = ERCOT(seed=0, **params).fit(data)
result = model.result_
data"""),
md("""## 1. How good, how smooth

`metrics.label_free_steps(result, data)` scores every year of the run with what the data and the partitions give (source: `ercot_nb/metrics/_label_free.py`):

* **silhouette** (-1 to 1): for each country, how much closer it is to its own cluster than to the nearest other cluster, averaged. Higher means tighter, better separated clusters.
* **f_cp** and **f_sep**: ERCOT's two objectives for the year's centroids (compactness and inverse separation; lower is better for both). They depend on the data's scale, so compare them between runs on the same data only.
* **NMI with the previous step** (0 to 1) over the countries present in both years: 1 means the same grouping as last year, whatever the cluster numbers.
* **churn** (0 to 1): the share of countries whose cluster (with the colours kept over time) changed since last year."""),
code("""scores = metrics.label_free_steps(result, data)
scores.round(3)"""),
md("""The same scores as time lines, one row each, sharing the year axis (`metric=None`: no score against labels):"""),
code("""figures.scores_figure(data, {"ERCOT": result}, metric=None)"""),
md("""Read the rows together: a year where churn jumps and the NMI with the previous year drops is a year where the grouping was redrawn. If the number of clusters changes in the same year, the run changed its mind about *how many* groups there are, not only *which* countries belong together. Whether that is the data or the run's chance is what the next two parts ask."""),
md("""## 2. What happened: cluster lifecycle events

`result.events()` links the clusters of consecutive years through the countries they share (source: `ercot_nb/events.py`). A cluster of one year and one of the next are *linked* when enough of one went to the other. From the links:

| event | meaning |
|---|---|
| birth | a cluster with no link to last year |
| death | a cluster with no link to next year |
| split | one cluster linked to two or more of next year's |
| merge | two or more clusters linked to one of next year's |
| grow / shrink | a one-to-one link and a size change of 20% or more |
| continue | any other one-to-one link |

**Is it real?** Each split, merge, grow and shrink gets a p-value from a permutation test: the next year's cluster labels are shuffled among the shared countries 199 times (cluster sizes kept), and the p-value is the share of shuffles whose links are as strong as the observed ones. A small p-value (at most 0.05) means random relabelling rarely produces the event. Births and deaths are the absence of links, which shuffling produces by itself, so they get no p-value."""),
code("""events = result.events(seed=0)
changes = events[(events.t > 0) & (events.event != "continue")]
changes[["time", "event", "before", "after", "size_before", "size_after", "p_value"]]"""),
md("""The Sankey diagram shows the flows of countries between clusters; with `events=` every node carries its event. CAPITALS mark a significant event (p ≤ 0.05), a question mark one that chance could give (p > 0.05); hover a node to read the event and its p-value."""),
code("""figures.sankey_figure(result, events=events)"""),
md("""A split with a large p-value is worth a second look. When one cluster holds almost every country, *any* relabelling of the next year splits it in the same proportions, so the split says nothing about the countries; the test reports that as a p-value near 1."""),
md("""## 3. How sure: an ensemble of seeds

ERCOT is stochastic: one run is one draw. `ensemble(estimator, data, seeds)` fits the same estimator once per seed (on a Dask cluster with `client=`, or in local processes with `n_jobs=`) and merges the runs year by year (source: `ercot_nb/ensemble.py`): each run's clusters are matched to a reference run's by the Hungarian algorithm, every country takes the cluster most runs put it in, and its **agreement** is the share of runs that did (1: all runs agree)."""),
code("""runs = ensemble(ERCOT(**params), data, seeds=range(5))
runs.steps_frame()[["time", "n_clusters", "agreement_mean", "share_unanimous",
                    "runs_n_clusters_low", "runs_n_clusters_high"]].round(2)"""),
md("""`n_clusters` is the consensus's number of clusters; `runs_n_clusters_low`/`_high` the band the runs span (10% and 90% quantiles). Where the band is wide, the runs disagree on how many groups there are.

Which countries are the runs unsure about? The consensus partition of one year, drawn with each country's agreement as its marker opacity (faint: unsure; hover a point for its country and agreement):"""),
code("""year = data.times.index(1977)
figures.partition_figure(data, runs.to_result(data), year, agreement=runs)"""),
code("""frame = runs.to_frame()
frame[frame.time == 1977].nsmallest(8, "agreement")[["id", "aligned_label", "agreement"]]"""),
md("""## All of it on one time axis

`figures.overview_figure` (source: `ercot_nb/figures/overview.py`) stacks the answers in four rows sharing the year axis: the label-free scores; the ensemble's agreement; the number of clusters of this run against the consensus and the runs' band (grey); and the events, filled when significant, hollow when chance could give them, one marker per year and event type (larger when several clusters share it; hover for the list)."""),
code("""figures.overview_figure(data, result, ensemble=runs, events=events)"""),
md("""## 4. Choosing differently, and carrying it forward

At every year ERCOT keeps its whole final population, and the knee rule picks one member of the first Pareto front (see [02](02_encoding_objectives_knee.ipynb)). Other rules can pick after the run (source: `ercot_nb/knee.py`): `"fixed_k"` takes the front member with exactly `k` clusters nearest the ideal corner, `"asf"` and `"pseudo_weights"` weigh the two objectives.

Picking another member of one year only relabels that year, unless the later years see it. `model.adopt(t, member)` makes the choice real (source: `ercot_nb/evolution/_adopt.py`): the years before `t` stay as they are, year `t` takes the member's partition, and the later years are fitted again from there, with the random stream where it was, so the next year's history and smoothness compare with the partition you chose.

Which year to change? Look for a year where this run's number of clusters leaves the runs' consensus:"""),
code("""consensus_k = runs.steps_frame()["n_clusters"].to_numpy()
print("this run :", result.n_clusters.tolist())
print("consensus:", consensus_k.tolist())
t = int(np.argmax(result.n_clusters != consensus_k))  # the first year where they differ
k = int(consensus_k[t])
front = result[t].population_n_clusters[result[t].first_front]
print(f"{data.times[t]}: the knee has {result[t].n_clusters} clusters; the front offers {sorted(set(front.tolist()))}")"""),
code("""member = result.choose(t, "fixed_k", k=k)
before = model.result_
model.adopt(t, member)
after = model.result_
print(f"adopted member {member} ({k} clusters) at {data.times[t]} instead of the knee (member {before[t].knee})")
print("years before it unchanged:", all(np.array_equal(a.labels, b.labels) for a, b in zip(before[:t], after[:t])))
print("clusters before:", before.n_clusters.tolist())
print("clusters after: ", after.n_clusters.tolist())"""),
md("""Before and after, side by side (the years before the chosen one are the same run, so their lines overlap):"""),
code("""figures.scores_figure(data, {"knee everywhere": before, f"{k} clusters from {data.times[t]}": after},
                      metric=None, label_free=["silhouette", "churn", "n_clusters"], t=t)"""),
md("""Adopting the knee member itself gives back exactly the same run (the package's test suite checks this), so every difference above comes from the choice you made. Look at the years after the chosen one too: they were fitted again from a different history, so they can change in ways you did not ask for. Compare them year by year (and with the ensemble) before trusting either run.

## What to remember

* Without labels, judge a run by **within-year quality** (silhouette, the objectives) and **smoothness** (churn, NMI with the previous year), not by one number.
* Lifecycle events say **what happened** to the clusters; their p-values say whether chance could have done it.
* An ensemble of seeds says **how sure** the grouping is, per country and per year.
* The Pareto front is a set of answers. `choose` picks one by a rule you can state, and `adopt` carries it forward in time.

The Explorer app (`ercot-nb app`, or `ercot_nb.widgets.Explorer` in a notebook) does the same interactively: the scores view offers "no labels needed" (the only choice on data without labels), the cluster flow marks the events, `explorer.show_agreement(runs)` draws an ensemble's agreement as opacity, and after clicking a member of the Pareto front, **Use this partition from here on** does what `adopt` did here (the original run is kept beside the new one)."""),
]

if __name__ == "__main__":
    build("09_without_ground_truth.ipynb", cells)
