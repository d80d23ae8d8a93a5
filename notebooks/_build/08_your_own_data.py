"""Build and execute notebooks/08_your_own_data.ipynb."""
from _tutorial import build, code, md

cells = [
md("""# Your own data: CSV files, scaling, and Gapminder

ERCOT clusters **temporal data**: id-tracked samples observed at time steps 1..T, giving **one partition per time step**. It does **not** cluster whole time series: each country below gets a cluster *per year*, and can change cluster as it changes.

This notebook shows how to bring your own table in (a long-format CSV or a pandas DataFrame), what a bad file's error looks like, why and how to scale features, and then runs ERCOT on real data: 142 countries over 12 years of the Gapminder table, asking **which countries move between clusters, and when**.

Previous: [07 video segmentation](07_video_segmentation.ipynb) · Next: [09 without ground truth](09_without_ground_truth.ipynb) · or back to [01 quickstart](01_quickstart.ipynb)"""),
code("""import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from ercot_nb import ERCOT, TemporalDataset, datasets, figures, metrics"""),
md("""## Part 1. A long-format CSV

ERCOT reads **long** (tidy) tables: one row per (time, id), a column for the time, a column for the sample id, numeric feature columns and, optionally, a reference label. Ids only need to be unique within a time step; a sample may be missing at some steps.

A small made-up example: 40 people observed in three years, with their age and income. Two groups differ by age; income is noise on a much larger scale."""),
code("""rng = np.random.default_rng(0)
people = [f"p{i:02d}" for i in range(40)]
group = np.repeat(["young", "old"], 20)
rows = []
for year in (2020, 2021, 2022):
    age = np.where(group == "young", 30, 60) + (year - 2020) + rng.normal(0, 3, 40)
    income = rng.normal(50_000, 15_000, 40)
    rows.append(pd.DataFrame({"year": year, "person": people, "age": age.round(1),
                              "income": income.round(-2), "group": group}))
folder = Path(tempfile.mkdtemp())
csv_path = folder / "people.csv"
pd.concat(rows).to_csv(csv_path, index=False)
print(csv_path.read_text().splitlines()[:4])"""),
code("""people_data = TemporalDataset.from_csv(csv_path, time="year", id="person", label="group")
people_data"""),
md("""`features=` picks the feature columns (default: every numeric column other than time, id and label); `from_frame(df, time=..., id=..., ...)` does the same from a DataFrame already in memory.

### When the file is wrong

Bad input raises a `ValueError` whose message names the file, the step and the column, instead of a traceback from deep inside the algorithm. Three common mistakes:"""),
code("""# NBVAL_IGNORE_OUTPUT
table = pd.read_csv(csv_path)
mistakes = {
    "a misspelt column": dict(time="Year", id="person"),
    "an id twice in one year": dict(time="year", id="person", frame=pd.concat([table, table.iloc[[0]]])),
    "text in a feature column": dict(time="year", id="person", features=["age", "income"],
                                     frame=table.assign(income=table["income"].astype(str) + " USD")),
}
for what, arguments in mistakes.items():
    frame = arguments.pop("frame", table)
    bad_path = folder / "bad.csv"
    frame.to_csv(bad_path, index=False)
    try:
        TemporalDataset.from_csv(bad_path, **arguments)
    except ValueError as error:
        print(f"{what}:\\n  {error}\\n")"""),
md("""### Why scale, and how

ERCOT's objectives use Euclidean distances, so a feature measured in large units dominates: here income (spread of about 15,000) drowns age (spread of about 15 years), and the clusters follow income noise instead of the age groups. `dataset.scaled(method, per_step=False)` returns a rescaled copy:

* `"standardize"` (mean 0, standard deviation 1 per feature), `"minmax"` (each feature mapped to [0, 1]) or `"none"`;
* `per_step=False` fits one shift and scale over all steps together, so movements over time are kept (a cluster that drifts still drifts); `per_step=True` fits them on each step separately, which removes any drift of the whole population (then only positions *relative to the same step* count).

The same model on raw and standardised features, scored against the groups. The number of clusters is given here (`ERCOT(2, ...)`), so that only the scaling differs:"""),
code("""# NBVAL_CHECK_OUTPUT
for name, version in {"raw": people_data, "standardized": people_data.scaled("standardize")}.items():
    model = ERCOT(2, seed=0).fit(version)
    scores = metrics.mean_scores(version, model.labels_)
    print(f"{name:13s} clusters per step {model.n_clusters_.tolist()}, mRI = {scores['mRI']:.3f}")"""),
code("""# NBVAL_CHECK_OUTPUT
overall = people_data.scaled("standardize")
per_year = people_data.scaled("standardize", per_step=True)
print("mean standardized age per year, scaled over all years:", [round(float(s.X[:, 0].mean()), 2) for s in overall])
print("mean standardized age per year, scaled per year:      ", [round(float(s.X[:, 0].mean()), 2) + 0.0 for s in per_year])"""),
md("""Everyone ages by a year per year: scaled over all years the mean age still rises, scaled per year it is 0 every year. Choose `per_step=True` only when a shift of the whole population is not something the clusters should see.

## Part 2. Gapminder: which countries change cluster?

`datasets.load("gapminder")` is the Gapminder excerpt that ships with Plotly: 142 countries every 5 years from 1952 to 2007. We keep two features, life expectancy and GDP per capita (taken as log10, since it spans three orders of magnitude), standardised over all years so that countries' progress over time is kept. The continent is stored as a reference label, not a ground truth: nothing says countries should cluster by continent."""),
code("""gapminder = datasets.load("gapminder", features=("lifeExp", "gdpPercap"))
print(gapminder.metadata["description"])
gapminder"""),
md("""ERCOT with its defaults (the number of clusters is chosen at every year, up to 8):"""),
code("""# NBVAL_IGNORE_OUTPUT
model = ERCOT(seed=0).fit(gapminder)
result = model.result_
result.steps_frame()"""),
md("""To read the clusters, undo the scaling (`metadata["scaling"]` holds each year's shift and scale) and describe each (year, aligned cluster) by its number of countries and its mean life expectancy and GDP per capita. Clusters are named by their aligned label, which is also their colour in every figure:"""),
code("""scaling = gapminder.metadata["scaling"]
rows = []
for step, snapshot in zip(result, gapminder):
    raw = snapshot.X * scaling["scale"][step.t] + scaling["shift"][step.t]   # lifeExp, log10 GDP
    for cluster in np.unique(step.aligned_labels):
        members = raw[step.aligned_labels == cluster]
        rows.append({"year": step.time, "cluster": cluster,
                     "cell": f"{len(members)}: {members[:, 0].mean():.0f} y, ${10 ** members[:, 1].mean():,.0f}"})
profiles = pd.DataFrame(rows).pivot(index="cluster", columns="year", values="cell").fillna("")
profiles"""),
code("""# NBVAL_IGNORE_OUTPUT
figures.partition_animation(gapminder, result, title="Gapminder: life expectancy vs log10 GDP per capita (standardised)")"""),
md("""### Who moves: the membership figure

`figures.membership_figure(result, dataset)` draws one row per country and one column per year, each cell in the colour of the country's cluster that year; by default only the countries that change cluster at least once, ordered by the year of their first move, at most 60 rows (`max_rows=None` shows all). Hover a cell for the country, year, cluster and continent."""),
code("""# NBVAL_IGNORE_OUTPUT
figures.membership_figure(result, gapminder)"""),
md("""The same moves as a table, one row per change of cluster (`figures.cluster_moves`, built on `result.to_frame()`):"""),
code("""moves = figures.cluster_moves(result)
moves.head()"""),
code("""# NBVAL_CHECK_OUTPUT
continent = {country: gapminder.label_names[label] for country, label in zip(gapminder[0].ids, gapminder[0].labels)}
print(f"{moves['id'].nunique()} of {gapminder[0].n_samples} countries change cluster at least once; {len(moves)} moves in all")
movers = pd.Series(continent).rename("continent").to_frame().assign(moves=moves.groupby("id").size()).fillna(0)
print(movers.groupby("continent")["moves"].agg(countries="size", movers=lambda m: int((m > 0).sum()),
                                               moves="sum").astype(int).to_string())
stayers = movers[movers["moves"] == 0].index
final = dict(zip(result[-1].ids, result[-1].aligned_labels))
print("countries that never move, by their cluster:",
      pd.Series({c: final[c] for c in stayers}).value_counts().to_dict())"""),
code("""# NBVAL_CHECK_OUTPUT
print(moves.groupby(["time_from", "time", "from_cluster", "to_cluster"]).size()
      .sort_values(ascending=False).head(8).rename("countries").to_string())"""),
code("""# NBVAL_CHECK_OUTPUT
life = {s.time: dict(zip(s.ids, s.X[:, 0] * scaling["scale"][t, 0] + scaling["shift"][t, 0]))
        for t, s in enumerate(gapminder)}
print(f"{'cluster by year':23s}", " ".join(f"{year % 100:02d}" for year in gapminder.times))
for country in ("China", "India", "Korea, Rep.", "Botswana", "South Africa", "Kuwait"):
    path = result.to_frame().query("id == @country")["aligned_label"].tolist()
    print(f"{country:23s}", "  ".join(str(label) for label in path))
print("Botswana life expectancy:", [round(life[year]["Botswana"]) for year in gapminder.times])
last = result[-1]
cluster_8 = [country for country, label in zip(last.ids, last.aligned_labels) if label == 8]
print("cluster 8 in 2007:", ", ".join(cluster_8))
print("their mean life expectancy in 1987 and in 2002:",
      round(np.mean([life[1987][c] for c in cluster_8])), round(np.mean([life[2002][c] for c in cluster_8])))"""),
md("""### What the figures show

* **1952–1967**: two large groups and an outlier: cluster 1 (79–91 countries, life expectancy 41–47 years, about $1,100–1,300) and cluster 0 (50–62 countries, 63–67 years, $4,900–7,700), with Kuwait alone in cluster 2 (GDP per capita above $80,000).
* **1972–1982**: a middle group forms out of cluster 1: 24 countries move 1 → 3 between 1967 and 1972 (China and Korea among them, see the rows above), and the middle clusters 3 and 5 hold 28–45 countries with 56–66 years and $2,300–5,100.
* **1987**: ERCOT chooses only two clusters, and the middle group merges into cluster 0 (34 countries move 5 → 0).
* **1992**: the richest 40 countries split off as cluster 6 (75 years, about $19,000): this is the largest single move (0 → 6).
* **1997**: 21 countries leave the poorest cluster for a new one, 7 (58 years, $1,600): India is one of them.
* **2002–2007**: cluster 8 appears, 9 countries with middle incomes ($5,600–6,800) but a life expectancy of about 50 years: Angola, Botswana, Congo Rep., Equatorial Guinea, Gabon, Iraq, Namibia, South Africa and Swaziland. Botswana's life expectancy rose to 64 years in 1987 and fell back to 47 in 2002, and the group's mean went down as well (printed above): these countries left their income peers as their life expectancy fell.
* **Who never moves**: 26 countries, 22 of them in the poorest cluster (1) all along; 21 of the 26 are African. Every country of the Americas moves at least once.

Two cautions when reading it. A "move" means that the country's cluster that year is not the one it had the year before; when a whole cluster splits or merges (1987, 1992), many countries move at once without anything special happening to each of them, and the Sankey view (`figures.sankey_figure(result)`) shows those cluster-level events. And the number of clusters changes from year to year on this continuum of countries (2 to 6 here); another seed, other features (try adding `"pop"`) or `per_step=True` scaling (positions relative to the same year) give different, equally valid, partitions: the figure shows what this run found, not a fixed classification of the world."""),
]

if __name__ == "__main__":
    build("08_your_own_data.ipynb", cells)
