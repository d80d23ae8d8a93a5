"""Build notebooks/01_quickstart.ipynb: python notebooks/_build/01_quickstart.py"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _tutorial import build, code, md  # noqa: E402

cells = [
md("""# ERCOT quickstart

ERCOT (evolutionary robust clustering over time) clusters **temporal data**: the same id-tracked samples observed at time steps 1..T, giving **one partition per time step**, each found by a two-objective evolutionary search (NSGA-II) that also borrows, with an automatically tuned weight, from the previous step.
It does **not** cluster whole time series (one label per series); a sample can change cluster from one step to the next.

This notebook fits ERCOT on a small synthetic scenario, scores it against the ground truth, looks at the partitions, a Pareto front and the smoothness weight, compares it with the history-free staticEC, and exports the result. It runs in well under a minute.

**The tutorials, in order** (each short, one idea; read them with outputs only or run them):
1. this quickstart
2. [the encoding, the two objectives, the Pareto front and the knee](02_encoding_objectives_knee.ipynb)
3. [temporal smoothness a posteriori vs a priori, and the weight alpha](03_smoothness_a_posteriori.ipynb)
4. [samples that come and go, clusters that vanish](04_samples_come_and_go.ipynb)
5. [comparing algorithms and reproducing the paper](05_comparing_algorithms.ipynb)
6. [bird flocks](06_bird_flocks.ipynb)
7. [video segmentation](07_video_segmentation.ipynb)
8. [your own data: CSV and Gapminder](08_your_own_data.ipynb)

Classroom exercises with automatic feedback are in [exercises/](exercises/README.md)."""),
code("""import tempfile
from pathlib import Path

import numpy as np

from ercot_nb import ERCOT, ClusteringResult, StaticEC, datasets, figures, metrics, page"""),
md("""## The data: Syn3

Syn3 has four 2-D Gaussian clusters of 50 samples each, observed at 10 time steps (time labels 1..10).
The bottom-left cluster moves towards the top-right one: at times 4-5 it is between the other three, and it overlaps the top-right one from about time 6.
On top of that there is **concept drift**: at time 4, 15 samples of the moving cluster switch to the other three clusters, at time 5 another 15 switch, and at time 6 those last 15 switch back.
Every step holds the same 200 sample ids."""),
code("""data = datasets.load("syn3", seed=0)
data"""),
code("""data[0]  # one time step: ids, features X (n_samples, n_features) and true labels"""),
md("""## Fit ERCOT

`fit` processes the steps in order. With the default budget (100 solutions, 1000 evaluations per step) Syn3 takes a few seconds; the first step also includes the one-time compilation of the numba kernels (about 30 s the very first time on a fresh install, unless `python -m ercot_nb.warmup` ran before; on Binder it did).
`result_` holds everything the run decided; `steps_frame()` gives one row per step. `t` is the 0-based step index and `time` the dataset's time label. `alpha` is the weight of the previous step (none at the first step)."""),
code("""model = ERCOT(seed=0).fit(data)
result = model.result_
result.steps_frame()"""),
md("The same seed gives the same result, so these numbers are checked when the notebook is tested:"),
code("""# NBVAL_CHECK_OUTPUT
print("steps:", len(result))
print("clusters per step:", result.n_clusters.tolist())"""),
md("""## Accuracy per step

With ground-truth labels we can score every step with the Rand index (RI) and normalised mutual information (NMI); their means over the steps are the paper's mRI and mNMI."""),
code("""scores = metrics.score_steps(data, model.labels_)
scores"""),
code("""# NBVAL_CHECK_OUTPUT
means = metrics.mean_scores(data, model.labels_)
print(f"mRI = {means['mRI']:.3f}, mNMI = {means['mNMI']:.3f}")"""),
md("""## Partitions

Colours follow the **aligned** labels (`StepResult.aligned_labels`): a cluster keeps its label, and so its colour, from step to step. X markers are the centroids; open black rings would mark samples that entered since the previous step (Syn3 has none; see `syn5`). Axis ranges are the same at every step.

Below: time 4 (the drift begins), time 6 (the moving cluster, past the centre, starts to overlap the top-right one) and time 9."""),
code("""for t in (3, 5, 8):
    figures.partition_figure(data, result, t).show()"""),
md("""The same view for all steps as a Plotly animation. Its slider and play button run in the browser alone, so it also works in a static HTML export, without a kernel."""),
code("""figures.partition_animation(data, result)"""),
md("""## The Pareto front and the knee

At every step the search ends with a population of candidate partitions, each scored on two objectives to minimise: compactness `f_cp` (how tight the clusters are) and separation `f_sep` (one over the smallest distance between centroids). No partition is best on both: more clusters make them tighter but closer together. A member is *non-dominated* if no other member is at least as good on both objectives and better on one; these members form the first front, the best trade-offs.

The **knee** is the front member ERCOT outputs: the point where the trade-off bends, i.e. where improving one objective further would cost much of the other (by default, after normalising both objectives, the point closest to the ideal corner (0, 0)). Here is the final population at step `t=5` (time 6), coloured by number of clusters, with the chosen partition starred."""),
code("""figures.pareto_figure(result, 5)"""),
code("""fronts = result.fronts_frame()
fronts[(fronts.t == 5) & fronts.knee]"""),
md("""One row per member of the final population. `f_cp_accumulated` and `f_sep_accumulated` are the mixed objectives `(1 - alpha) f(t) + alpha f(t-1)` on which, from the second step on, selection and the knee are computed; `n_active` counts the active centroid slots and `n_clusters` the non-empty clusters; `first_front` marks the non-dominated members."""),
md("""Any other front member can be chosen a posteriori: `result.labels_of_member(data[5].X, 5, member)` returns its partition of that step."""),
md("""## The smoothness weight alpha

At each step after the first, ERCOT selects on the accumulated fitness `(1 - alpha) f(t) + alpha f(t-1)`, with alpha tuned from the data: it estimates how well each cluster's previous data explain its current data. The open circles are the per-cluster weights alpha_i that alpha aggregates."""),
code("""figures.alpha_figure(result, show_pairs=True)"""),
md("""alpha is highest at time 2 (0.56), about 0.21-0.24 at times 3-6, lowest at time 7 (0.05), where the moving cluster overlaps the top-right one and ERCOT's partition drops to 3 clusters, and it rises again at times 8-10. One reading: with the clusters overlapping, the previous step's clusters explain the current samples worse than a fit to the current samples does, so history gets less weight.

How much do the membership switches of times 4-6 add? Fitting Syn1 (the same four clusters with the same moving one, but without the switches; `datasets.load("syn1")`) with the same seed gives higher weights at times 5-7 (0.43, 0.33, 0.11), so in this run the switches lower alpha, while the dip at time 7 appears in both. Tutorial [03](03_smoothness_a_posteriori.ipynb) repeats the comparison with the number of clusters given (k = 4) and finds the opposite: one run is an illustration, not a proof."""),
md("""## ERCOT vs staticEC

staticEC is the same evolutionary clustering without history: every step starts from scratch and is selected on its own objectives only."""),
code("""static = StaticEC(seed=0).fit(data)
figures.scores_figure(data, {"ERCOT": result, "staticEC": static.result_}, metric="RI")"""),
code("""figures.n_clusters_figure(static.result_, data)"""),
md("""Both methods agree where the clusters are well apart. At times 4 and 5, where the drift begins, ERCOT still finds the four clusters while staticEC already merges two of them; from about time 7 the overlap is too strong for either to separate the moving cluster, and their scores are close. A single seed is only an illustration: the paper's comparison averages 30 runs (see `ercot-nb bench quality`)."""),
md("""## Export

`to_frame()` gives a tidy table, one row per (step, sample), ready for pandas or a CSV file. `save` writes the whole result (fronts, weights, timings) to one `.npz` file and `ClusteringResult.load` reads it back. `page.write(result, path, data)` writes the run's **explorer page**: one self-contained offline HTML file (no kernel, no network) where one time slider and a Play button drive the partition, the Pareto front (click a point to see that member's partition), alpha, the scores and the cluster flow. `figures.save_html` writes chosen figures to an offline page.

From a terminal, `ercot-nb run --dataset syn3 --out labels.csv` does the same fit and export."""),
code("""result.to_frame().head()"""),
code("""folder = Path(tempfile.mkdtemp())
path = result.save(folder / "syn3_ercot.npz")
loaded = ClusteringResult.load(path)
print(loaded)
print("same labels after loading:", all(np.array_equal(a, b) for a, b in zip(loaded.labels, result.labels)))

explorer_page = page.write(result, folder / "syn3_explorer.html", data)
print(f"explorer page: {explorer_page.stat().st_size / 1e6:.1f} MB")
report = figures.save_html([figures.partition_animation(data, result), figures.alpha_figure(result)],
                         folder / "syn3_ercot.html")
print(f"offline report: {report.stat().st_size / 1e6:.1f} MB")"""),
]


build("01_quickstart.ipynb", cells)
