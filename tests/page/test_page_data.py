"""The explorer page's data and HTML, checked from Python (the browser tests are in tests/browser)."""
from __future__ import annotations

import base64
import html
import json
import re

import numpy as np
import pytest

from ercot_nb import ERCOT, TemporalDataset, datasets, figures
from ercot_nb.page import ExplorerPage, page_data

HOSTILE = '</script><img src=x onerror="alert(1)">&amp;\u2028<!--'


def decode(packed: dict) -> np.ndarray:
    dtype = np.dtype(packed["dtype"]).newbyteorder("<")
    return np.frombuffer(base64.b64decode(packed["b64"]), dtype=dtype)


def same_partition(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two labelings group the samples identically (a one-to-one renaming)."""
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


@pytest.fixture(scope="module")
def syn3_run():
    data = datasets.load("syn3", seed=0)[:4]
    return data, ERCOT(seed=0, pop_size=30, n_evaluations=90).fit(data).result_


def test_steps_hold_aligned_labels_and_member_partitions(syn3_run):
    data, result = syn3_run
    page = page_data(result, data)
    assert page["n_steps"] == 4 and page["times"] == [str(t) for t in data.times[:4]]
    stored = 0
    for step, entry, where in zip(result, page["steps"], page["scatter"]["steps"]):
        assert where["ids"] == [str(i) for i in step.ids]
        np.testing.assert_array_equal(decode(entry["knee_part"]["labels"]), step.aligned_labels)
        xy = decode(where["xy"]).reshape(-1, 2)
        np.testing.assert_allclose(xy, data[step.t].X, rtol=1e-6)  # two features: as they are
        pareto = entry["pareto"]
        front = np.flatnonzero(step.first_front)
        assert pareto["front"] == step.first_front.tolist()
        for member in front:
            index = pareto["part"][member]
            assert index >= 0, "every front member is stored under the cap"
            if member == step.knee or entry["parts"][index] is None:
                assert same_partition(step.labels, result.labels_of_member(data[step.t].X, step.t, int(member)))
                continue
            shown = decode(entry["parts"][index]["labels"])
            assert same_partition(shown, result.labels_of_member(data[step.t].X, step.t, int(member)))
            np.testing.assert_array_equal(
                shown, figures.member_partition(data, result, step.t, int(member)).aligned_labels
            )
            stored += 1
    assert stored > 0
    assert page["notes"] == []
    assert len(page["colors"]) > max(int(s.aligned_labels.max()) for s in result)


def test_member_cap_spreads_along_the_front_and_says_so(syn3_run):
    data, result = syn3_run
    page = page_data(result, data, max_members=3)
    for step, entry in zip(result, page["steps"]):
        stored = {m for m in np.flatnonzero(step.first_front) if entry["pareto"]["part"][m] >= 0}
        assert step.knee in stored
        assert len(entry["parts"]) <= 4  # three spread members and the knee
    assert any("more than 3 distinct members" in note for note in page["notes"])


def test_subsampling_keeps_persisting_ids_and_is_stated():
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(1200, 2)) for _ in range(3)]
    ids = [np.arange(1200), np.arange(100, 1300), np.arange(1200)]
    data = TemporalDataset.from_arrays(X, ids=ids, name="many")
    result = ERCOT(seed=0, pop_size=10, n_evaluations=20).fit(data).result_
    page = page_data(result, data, max_points=500)
    shown = [set(s["ids"]) for s in page["scatter"]["steps"]]
    assert all(len(s) == 500 for s in shown)
    assert shown[0] == shown[2]  # same ids at every step where they persist
    assert any("at most 500 of the 1,200 samples" in note for note in page["notes"])
    for step, entry, where in zip(result, page["steps"], page["scatter"]["steps"]):
        position = {str(i): p for p, i in enumerate(step.ids)}
        rows = [position[i] for i in where["ids"]]
        np.testing.assert_array_equal(decode(entry["knee_part"]["labels"]), step.aligned_labels[rows])


def test_hostile_strings_stay_data(tmp_path):
    rng = np.random.default_rng(2)
    ids = [f"{HOSTILE}{i}" for i in range(30)]
    data = TemporalDataset.from_arrays(
        [rng.normal(size=(30, 3)) for _ in range(2)], ids=[ids, ids],
        times=[HOSTILE + "t1", "t2</SCRIPT>"], feature_names=[HOSTILE, "b<i>", "c&d"], name=HOSTILE,
    )
    result = ERCOT(seed=0, pop_size=10, n_evaluations=20).fit(data).result_
    result.algorithm = HOSTILE
    packed = ExplorerPage(result, data).to_html_string()
    assert "<img src=x" not in packed and packed.lower().count("</script>") == 3
    text = ExplorerPage(result, data, compress=False).to_html_string()
    assert "<img src=x" not in text and "</SCRIPT>" not in text.replace("</script>", "")
    assert text.lower().count("</script>") == 3  # plotly.js, data, app: nothing else closes a script
    block = re.search(r'<script type="application/json" id="ercot-data"[^>]*>(.*?)</script>', text, re.S).group(1)
    data_back = json.loads(block)
    assert data_back["dataset"] == HOSTILE and data_back["times"][0] == HOSTILE + "t1"
    assert data_back["scatter"]["steps"][0]["ids"][0] == f"{HOSTILE}0"
    assert data_back["scatter"]["axes3"][0] == HOSTILE
    assert f"<title>{html.escape(HOSTILE + ' on ' + HOSTILE)}</title>" in text


def test_repr_html_is_a_sandboxed_srcdoc_iframe(syn3_run):
    data, result = syn3_run
    page = ExplorerPage(result, data)
    frame = page._repr_html_()
    assert frame.startswith("<iframe") and 'sandbox="allow-scripts"' in frame
    srcdoc = re.search(r'srcdoc="([^"]*)"', frame).group(1)
    assert html.unescape(srcdoc) == page.to_html_string()


def test_to_html_writes_the_page(syn3_run, tmp_path):
    data, result = syn3_run
    path = result.to_html(tmp_path / "sub" / "run.html", data)
    assert path.read_text(encoding="utf-8") == ExplorerPage(result, data).to_html_string()
    bare = page_data(result)
    assert "scatter" not in bare and "No dataset was given" in bare["notes"][0]


def test_packed_page_holds_plotly_and_the_data(syn3_run):
    import gzip

    from plotly.offline import get_plotlyjs

    data, result = syn3_run
    text = ExplorerPage(result, data).to_html_string()
    script = re.search(r'<script id="plotly-js" type="application/octet-stream" data-encoding="gzip\+base64">([^<]*)</script>', text).group(1)
    code = gzip.decompress(base64.b64decode(script)).decode()
    assert code.replace("./topojson/", "") == re.sub(r"https?://cdn\.plot\.ly/[^\"'\s]*", "", get_plotlyjs())
    block = re.search(r'id="ercot-data" data-encoding="gzip\+base64">([^<]*)</script>', text).group(1)
    assert json.loads(gzip.decompress(base64.b64decode(block))) == json.loads(json.dumps(page_data(result, data)))
    assert len(text) < 0.5 * len(ExplorerPage(result, data, compress=False).to_html_string())


def test_bad_input_is_named(syn3_run):
    data, result = syn3_run
    other = datasets.load("syn5", seed=0)
    with pytest.raises(ValueError, match="step 3 .*sample ids differ"):
        page_data(result, other)
    with pytest.raises(ValueError, match="max_points must be an int >= 1"):
        page_data(result, data, max_points=0)
    with pytest.raises(ValueError, match="the dataset only 2"):
        page_data(result, data[:2])
    with pytest.raises(TypeError, match="ClusteringResult or a fitted estimator"):
        ExplorerPage("not a run")


PAGE_SIZE_LIMIT = 5_000_000
"""Bytes a 20,000-point, 10-step run's page stays under (packed plotly.js, about 2 MB, included)."""
PLAIN_PAGE_SIZE_LIMIT = 9_000_000
"""The same with ``compress=False`` (plain plotly.js, about 4.8 MB, included)."""


@pytest.mark.slow
def test_large_run_page_is_capped_and_linear(tmp_path):
    rng = np.random.default_rng(0)
    n, steps = 20_000, 10
    centres = np.array([[0, 0], [6, 0], [0, 6], [6, 6]], dtype=float)
    truth = rng.integers(0, 4, n)
    data = TemporalDataset.from_arrays(
        [centres[truth] + rng.normal(size=(n, 2)) + 0.2 * t for t in range(steps)],
        labels=[truth] * steps, name="big",
    )
    result = ERCOT(seed=0, pop_size=60, n_evaluations=120).fit(data).result_
    size = result.to_html(tmp_path / "big.html", data).stat().st_size
    assert size < PAGE_SIZE_LIMIT
    assert len(ExplorerPage(result, data, compress=False).to_html_string().encode()) < PLAIN_PAGE_SIZE_LIMIT
    page = page_data(result, data)
    assert all(len(s["ids"]) == 5000 for s in page["scatter"]["steps"])
    assert any("at most 5,000 of the 20,000 samples" in note for note in page["notes"])
    # linear in steps: the data of 10 steps is about twice that of 5
    half = len(json.dumps(page_data(_first(result, 5), data)))
    assert 1.6 < len(json.dumps(page)) / half < 2.4


def _first(result, k):
    from ercot_nb.result import ClusteringResult

    part = ClusteringResult(algorithm=result.algorithm, params=result.params)
    part.steps = result.steps[:k]
    return part


def test_run_without_population_has_no_front_but_every_other_view():
    from ercot_nb.baselines import KMeansCOT

    data = datasets.load("syn3", seed=0)[:3]
    result = KMeansCOT(n_clusters=4, seed=0).fit(data).result_
    page = page_data(result, data)
    assert all(s["pareto"] is None and s["parts"] == [] for s in page["steps"])
    for step, entry in zip(result, page["steps"]):
        np.testing.assert_array_equal(decode(entry["knee_part"]["labels"]), step.aligned_labels)
    assert page["series"]["RI"] and page["sankey"]["value"]


def test_explorer_to_html_writes_the_page_of_its_run(syn3_run, tmp_path):
    pytest.importorskip("ipywidgets")
    from ercot_nb.widgets import Explorer

    data, result = syn3_run
    path = Explorer(data, result=result).to_html(tmp_path / "explorer.html")
    assert path.read_text(encoding="utf-8") == ExplorerPage(result, data).to_html_string()
