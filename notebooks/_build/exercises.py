"""Build and execute the classroom exercise notebooks in ``notebooks/exercises/``.

Usage (from the repository root)::

    python notebooks/_build/exercises.py            # all four
    python notebooks/_build/exercises.py 02         # only those whose name contains "02"

The notebooks are written in their student version (starter cells return
``None``) and executed, so the committed files carry outputs. Cells the
student fills in are tagged ``solution-cell`` and name their section of
``notebooks/exercises/solutions/<exercise>.py`` in ``metadata.exercise.solution``;
``tests/test_exercises.py`` swaps those sections in and checks every answer. The
``solutions/`` folder (modules and teacher notes) is teacher-only: neither the wheel nor
``ercot-nb tutorials`` carries it; ``ercot-nb teacher solutions|nbgrader DIR`` writes it out
(``tests/exercises/test_student_copy.py``, ``tests/exercises/test_nbgrader.py``).
"""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

OUT = Path(__file__).resolve().parents[1] / "exercises"

md = new_markdown_cell


def code(source: str) -> nbformat.NotebookNode:
    return new_code_cell(source)


def starter(key: str, source: str) -> nbformat.NotebookNode:
    """A cell the student fills in; the test replaces it by solution section ``key``."""
    cell = new_code_cell(source)
    cell.metadata["tags"] = ["solution-cell"]
    cell.metadata["exercise"] = {"solution": key}
    return cell


FEEDBACK_NOTE = (
    "Feedback comes from `check(...)` cells: run one after your code and it answers in a green box "
    "(right) or an amber one (not yet, with a hint and the numbers to debug). Check as often as "
    "you like; the hints get more specific after a wrong try."
)

# --------------------------------------------------------------------------- #
# 01: implement f_sep and f_cp
# --------------------------------------------------------------------------- #
EX01 = [
    md(f"""# Exercise 1: implement the separation objective f_sep

ERCOT (evolutionary robust clustering over time) finds one partition per time step by an evolutionary search that scores every candidate partition on two objectives to minimise: compactness `f_cp` and separation `f_sep`.
In this exercise you write both objectives yourself and compare them with the package's own implementation.

**You will learn:** how a candidate partition is encoded (centroids plus active/inactive switches), why "ghost" centroids matter for `f_sep`, and which edge cases (one cluster, duplicate centroids) a clustering objective must handle. Background: tutorial [02](../02_encoding_objectives_knee.ipynb).

{FEEDBACK_NOTE}"""),
    code("""import numpy as np
import plotly.graph_objects as go

from ercot_nb.exercises import case_inputs, check"""),
    md("""## The setting

A candidate partition is a set of `C_max` centroid slots, `centroids` of shape `(C_max, D)`, and a boolean array `active` of length `C_max` saying which slots are switched on.
Every sample of the data `X` (shape `(n, D)`) belongs to its **nearest active centroid** (Euclidean distance; on a tie, the lowest slot index wins).
An active centroid that no sample is nearest to has no members: a **ghost**.

Here is one of the test cases `check` uses: two tight groups of samples and three active centroids, one of them a ghost in the middle."""),
    code("""# NBVAL_IGNORE_OUTPUT
example = case_inputs("01_implement_f_sep", 3)
X, centroids, active = example["X"], example["centroids"], example["active"]
fig = go.Figure([
    go.Scatter(x=X[:, 0], y=X[:, 1], mode="markers", name="samples", marker=dict(size=6)),
    go.Scatter(x=centroids[:, 0], y=centroids[:, 1], mode="markers+text", name="active centroids",
               text=[f"slot {c}" for c in range(len(centroids))], textposition="top center",
               marker=dict(symbol="x", size=14, color="black")),
])
fig.update_layout(title=example["name"], template="plotly_white", width=650, height=380,
                  yaxis=dict(scaleanchor="x"))
fig.show()"""),
    md("""## Part 1: f_sep

ERCOT's separation objective is one over the smallest distance between two centroids. In this exercise we use the variant that ignores ghosts (ERCOT's `separation="nonempty"` option; the paper's text, and ERCOT's default `separation="active"`, also count ghost centroids):

$$f_{sep} = \\frac{1}{\\min_{c \\ne c'} \\lVert z_c - z_{c'} \\rVert}$$

over the pairs of **distinct** centroids $z_c, z_{c'}$ of the **non-empty active** clusters.

- With fewer than two non-empty clusters there is no pair: return `np.inf`.
- If the smallest distance is 0, use `1 / max(distance, 1e-12)`. (Can this happen for two *non-empty* clusters?)

**Task:** complete `f_sep(X, centroids, active)` so that it returns this number."""),
    starter("f_sep", """def f_sep(X, centroids, active):
    \"\"\"1 / minimum distance between the centroids of the non-empty active clusters.\"\"\"
    # YOUR CODE HERE
    return None"""),
    md("Try it on the example above (the ghost sits in the middle: should it count?):"),
    code("""print(f_sep(X, centroids, active))"""),
    md("Now let `check` run your function on seven cases, including the edge cases:"),
    code("""check("01_implement_f_sep", f_sep)"""),
    md("""## Part 2: f_cp

The compactness objective adds up, over **all** samples, the plain (not squared) Euclidean distance to the nearest active centroid:

$$f_{cp} = \\sum_{s} \\lVert a_s - z_{c(s)} \\rVert$$

**Task:** complete `f_cp(X, centroids, active)`."""),
    starter("f_cp", """def f_cp(X, centroids, active):
    \"\"\"Sum over all samples of the distance to the nearest active centroid.\"\"\"
    # YOUR CODE HERE
    return None"""),
    code("""check("01_implement_f_sep", f_cp, part="f_cp")"""),
    md("""## Think about it

- Adding one more active centroid never makes `f_cp` larger, and usually makes `f_sep` larger. Why? This trade-off is what lets ERCOT choose the number of clusters itself.
- With the paper's `f_sep` (ghosts counted), a ghost placed far from everything changes neither objective much. Why could the search then keep more *active* slots (`n_active`) than non-empty clusters? Try `ERCOT(separation="nonempty")` against the default on `datasets.load("syn1")`."""),
]

# --------------------------------------------------------------------------- #
# 02: predict the knee
# --------------------------------------------------------------------------- #
EX02 = [
    md(f"""# Exercise 2: predict the knee

At every time step ERCOT ends with a population of candidate partitions. Those that no other candidate beats on both objectives (`f_cp`, `f_sep`) form the first **Pareto front**; ERCOT outputs one of them, the **knee**.
First you predict, just by looking at a front, how many clusters the knee has; then you implement the rule that picks it.

**You will learn:** to read a Pareto front, why the number of clusters is a trade-off between the two objectives, and how the knee rule's normalisation changes what "closest to the ideal" means. Background: tutorials [01](../01_quickstart.ipynb) and [02](../02_encoding_objectives_knee.ipynb).

{FEEDBACK_NOTE}"""),
    code("""import plotly.express as px

from ercot_nb import ERCOT, datasets
from ercot_nb.exercises import check"""),
    md("""## A fitted run

We fit ERCOT on Syn3 (four 2-D Gaussian clusters over 10 time steps; one moves onto another) and look at step `t = 7` (time label 8), where that cluster already overlaps its neighbour. The seed makes the run identical every time."""),
    code("""data = datasets.load("syn3", seed=0)
model = ERCOT(seed=0).fit(data)
result = model.result_
t = 7"""),
    md("""The first front of step `t`: one row per member, with the objectives the knee was chosen on (`*_accumulated`: at steps after the first, ERCOT mixes in the previous step's fitness) and the number of non-empty clusters `n_clusters`."""),
    code("""fronts = result.fronts_frame()
front = fronts[(fronts.t == t) & fronts.first_front].reset_index(drop=True)
front = front[["member", "f_cp_accumulated", "f_sep_accumulated", "n_clusters"]]
F = front[["f_cp_accumulated", "f_sep_accumulated"]].to_numpy()
front.sort_values("f_cp_accumulated").head(12)"""),
    code("""# NBVAL_IGNORE_OUTPUT
ks = sorted(front.n_clusters.unique())
fig = px.scatter(front.assign(clusters=front.n_clusters.astype(str)), x="f_cp_accumulated",
                 y="f_sep_accumulated", color="clusters", category_orders={"clusters": [str(k) for k in ks]},
                 template="plotly_white", width=700, height=420,
                 title=f"First front at step t={t}: both objectives are minimised")
fig.update_traces(marker_size=10)
fig.show()"""),
    md("""## Part A: predict

Both objectives are minimised, so the ideal corner is bottom-left. Partitions with many clusters are compact (small `f_cp`) but have close centroids (large `f_sep`); few clusters give the opposite.
The knee is the point where the front bends: improving one objective further costs a lot of the other.

**Task:** from the plot alone, how many clusters does the knee have? Put a number in `predicted_k`."""),
    starter("predict", """predicted_k = None  # YOUR CODE HERE: a number of clusters, e.g. 2"""),
    code("""check("02_predict_the_knee", predicted_k, part="predict", result=result, t=t)"""),
    md("""## Part B: the knee rule

ERCOT's default rule, `knee="ideal"` (only its square-root scaling comes from MOCK by Handl & Knowles; MOCK's attainment score is the separate `knee="mock"` rule of tutorial 02):

1. Rescale each objective over the front: $g = \\sqrt{(f - \\min f) / (\\max f - \\min f)}$, with $g = 0$ when $\\max f = \\min f$.
2. Pick the point with the smallest Euclidean distance $\\sqrt{g_1^2 + g_2^2}$ to the ideal corner $(0, 0)$.

**Task:** complete `knee_index(F)`: `F` has one row `(f_cp, f_sep)` per front member; return the **row index** of the knee. (Rows in `F` are in population order, not sorted.)"""),
    starter("knee_index", """import numpy as np


def knee_index(F):
    \"\"\"Row index of the knee of front F (shape (n, 2), both objectives minimised).\"\"\"
    # YOUR CODE HERE
    return None"""),
    code("""print(knee_index(F))"""),
    md("`check` tries your rule on every step of the run and on four constructed fronts with traps:"),
    code("""check("02_predict_the_knee", knee_index, part="knee_rule", result=result)"""),
    md("""## Think about it

- Once both checks are green, run `figures.pareto_figure(result, t)` (after `from ercot_nb import figures`) to see the knee starred. Did the plot fool you? Where does the square root move the points?
- The true number of clusters of Syn3 is 4 at every step. Why can the knee pick another number at `t = 7`? (Hint: look at the data at time 8 with `figures.partition_figure(data, result, 7)`.)"""),
]

# --------------------------------------------------------------------------- #
# 03: explain the weight
# --------------------------------------------------------------------------- #
EX03 = [
    md(f"""# Exercise 3: tune nothing, explain the weight

ERCOT borrows from the previous time step with a weight alpha that it tunes itself, from the data, at every step: it selects on `(1 - alpha) f(t) + alpha f(t-1)`. You will not tune anything here; you will **explain** the values alpha takes on Syn3.

**You will learn:** to read `alpha_` against the events in the data, to tell time labels from step indices, and to test an explanation with a control experiment (the same data without the event). Background: tutorials [01](../01_quickstart.ipynb) and [03](../03_smoothness_a_posteriori.ipynb).

{FEEDBACK_NOTE}"""),
    code("""import numpy as np
import pandas as pd

from ercot_nb import ERCOT, datasets, figures
from ercot_nb.exercises import check"""),
    md("""## The data and the run

Read the description of Syn3: it names the events (the moving cluster, the concept drift)."""),
    code("""data = datasets.load("syn3", seed=0)
print(data.metadata["description"])"""),
    code("""# NBVAL_IGNORE_OUTPUT
model = ERCOT(seed=0).fit(data)
model.result_.steps_frame()"""),
    md("""`t` is the 0-based step index, `time` the time label from the data (here `time = t + 1`). alpha at a step is the weight of the *previous* step's fitness (there is none at the first step: `nan`). Below, the line is alpha and the open circles are the per-cluster weights alpha_i it aggregates."""),
    code("""# NBVAL_IGNORE_OUTPUT
figures.alpha_figure(model, show_pairs=True).show()"""),
    md("""## Question 1

At which **time label** is alpha lowest? Compute it from `model.alpha_` and `data.times`."""),
    starter("lowest_time", """lowest_time = None  # YOUR CODE HERE"""),
    code("""check("03_explain_the_weight_syn3", lowest_time, part="lowest_time", model=model, data=data)"""),
    md("""## Question 2

The concept-drift switches happen at time labels 4, 5 and 6. Compute the mean alpha at those three steps (`drift_mean`) and at all other steps that have an alpha (`other_mean`)."""),
    starter("drift_means", """drift_mean = None  # YOUR CODE HERE
other_mean = None"""),
    code("""check("03_explain_the_weight_syn3", (drift_mean, other_mean), part="drift_means", model=model, data=data)"""),
    md("""## Question 3: a control experiment

Is the drift the reason? Syn1 is Syn3 **without** the drift: same clusters, same movement. Fit it with the same seed and compute its mean alpha at time labels 4, 5 and 6 (`syn1_drift_mean`)."""),
    code("""# NBVAL_IGNORE_OUTPUT
syn1 = datasets.load("syn1", seed=0)
syn1_model = ERCOT(seed=0).fit(syn1)
pd.DataFrame({"time": data.times, "alpha Syn3": model.alpha_, "alpha Syn1": syn1_model.alpha_,
              "clusters Syn3": model.n_clusters_, "clusters Syn1": syn1_model.n_clusters_}).round(3)"""),
    starter("control", """syn1_drift_mean = None  # YOUR CODE HERE"""),
    code("""check("03_explain_the_weight_syn3", syn1_drift_mean, part="control", model=model, data=data,
      syn1_model=syn1_model)"""),
    md("""## Question 4: explain the lowest alpha

Which of these statements are true **at the time step where alpha is lowest on Syn3** (your answer to question 1)? Compare with the step just before it. Put the letters of all true statements in a set, e.g. `{"A", "C"}` (an empty set `set()` if none is true).

- **A.** Between the previous time step and this one, some samples switched to another true cluster (a concept-drift switch).
- **B.** ERCOT's chosen number of clusters differs from the one at the previous time step.
- **C.** Samples entered or left the data set at this time step.
- **D.** The true number of clusters differs from the one at the previous time step.
- **E.** On Syn1 (the same data without drift), fitted with the same seed, alpha is also lowest at this time step.

Useful: `data[t].labels`, `data[t].ids`, `model.n_clusters_`, the table above."""),
    starter("statements", """true_statements = None  # YOUR CODE HERE, e.g. {"A", "C"}"""),
    code("""check("03_explain_the_weight_syn3", true_statements, part="statements", model=model, data=data,
      syn1_model=syn1_model)"""),
    md("""## Think about it

- alpha measures how well each cluster's data at the previous step explain its data now. What, then, makes alpha drop: an event in the data, a change in ERCOT's own partition, or both?
- Your comparison used one seed. Runs of an evolutionary search are chaotic: would you trust a difference between Syn1 and Syn3 from one run? Repeat questions 2 and 3 with `seed=1, 2, 3` and see whether the difference keeps its sign."""),
]

# --------------------------------------------------------------------------- #
# 04: find the vanishing cluster
# --------------------------------------------------------------------------- #
EX04 = [
    md(f"""# Exercise 4: find the vanishing cluster

In Syn7 one cluster disappears for a while and then comes back, and nobody tells the algorithm how many clusters there are. You will find the event in the ground truth first, then see whether ERCOT noticed it.

**You will learn:** to read per-step labels of a `TemporalDataset`, to count clusters correctly when a label goes missing, and to compare ERCOT's chosen number of clusters (`n_clusters_`) with the truth, step by step. Background: tutorial [04](../04_samples_come_and_go.ipynb) (Syn7 is the 2-D twin of its Syn8).

{FEEDBACK_NOTE}"""),
    code("""import numpy as np

from ercot_nb import ERCOT, datasets
from ercot_nb.exercises import check"""),
    md("""## The data

Each step `data[t]` has `ids`, features `X` and true `labels`; `data.times` holds the time labels (1..10)."""),
    code("""data = datasets.load("syn7", seed=0)
print(data)
print("time labels:", data.times)
print("labels at the first step:", np.unique(data[0].labels))"""),
    md("""## Part 1: the true number of clusters

**Task:** make `true_counts` a list with the number of true clusters at every step (10 numbers). Careful: label numbers are not renumbered when a cluster vanishes."""),
    starter("true_counts", """true_counts = None  # YOUR CODE HERE"""),
    code("""check("04_find_the_vanishing_cluster", true_counts, part="true_counts", data=data)"""),
    md("""## Part 2: which cluster vanishes, and when?

**Task:** `vanished_times` = the list of **time labels** at which a cluster of the first step is missing, `vanished_label` = that cluster's label."""),
    starter("vanished", """vanished_times = None  # YOUR CODE HERE
vanished_label = None"""),
    code("""check("04_find_the_vanishing_cluster", {"times": vanished_times, "label": vanished_label},
      part="vanished", data=data)"""),
    md("""## Part 3: what did ERCOT see?

ERCOT runs with the number of clusters unknown (`n_clusters=None`, up to 8)."""),
    code("""# NBVAL_IGNORE_OUTPUT
model = ERCOT(seed=0).fit(data)
model.result_.steps_frame()"""),
    md("""**Task:** `ercot_counts` = ERCOT's chosen number of clusters per step (a list), `missed_times` = the time labels at which it differs from `true_counts`."""),
    starter("compare", """ercot_counts = None  # YOUR CODE HERE
missed_times = None"""),
    code("""check("04_find_the_vanishing_cluster", {"ercot_counts": ercot_counts, "missed_times": missed_times},
      part="compare", data=data, model=model)"""),
    md("""## Part 4: what do you conclude?

Which statements are true for this run? Put the letters of all true statements in a set, e.g. `{"B"}` (or `set()`).

- **A.** ERCOT's number of clusters drops at the first time step where the vanishing cluster is gone.
- **B.** ERCOT's number of clusters rises again at the time step where that cluster comes back.
- **C.** At every time step where that cluster is gone, ERCOT finds the true number of clusters.
- **D.** ERCOT finds the true number of clusters at every time step."""),
    starter("statements", """true_statements = None  # YOUR CODE HERE"""),
    code("""check("04_find_the_vanishing_cluster", true_statements, part="statements", data=data, model=model)"""),
    md("""## Think about it

Where is the returning cluster when it comes back? Print `data.metadata["true_means"][6]` (the true means at time 7) and look at the step with `figures.partition_figure(data, model.result_, 6)` (after `from ercot_nb import figures`). Would *you* draw a separate cluster there? What does that say about judging an algorithm by its number of clusters alone?"""),
]

NOTEBOOKS = {
    "01_implement_f_sep": EX01,
    "02_predict_the_knee": EX02,
    "03_explain_the_weight_syn3": EX03,
    "04_find_the_vanishing_cluster": EX04,
}


def build(name: str, cells: list) -> Path:
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    path = OUT / f"{name}.ipynb"
    started = time.perf_counter()
    # Plotly JSON for JupyterLab plus CDN-backed HTML for nbviewer / HTML exports.
    os.environ["PLOTLY_RENDERER"] = "plotly_mimetype+notebook_connected"
    NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=False,
                   resources={"metadata": {"path": str(OUT)}}).execute()
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"
        cell.metadata.pop("execution", None)  # timestamps only add diff noise
    nbformat.write(nb, path)
    print(f"{path.name}: executed in {time.perf_counter() - started:.1f} s")
    return path


if __name__ == "__main__":
    wanted = sys.argv[1:]
    for name, cells in NOTEBOOKS.items():
        if not wanted or any(w in name for w in wanted):
            build(name, cells)
