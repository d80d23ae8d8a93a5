"""The explorer page's data and HTML, checked from Python (the browser tests are in tests/browser)."""
from __future__ import annotations

import base64
import html
import json
import re

import numpy as np
import pytest

from ercot_nb import ERCOT, TemporalDataset, datasets, figures
from ercot_nb.figures.style import escape
from ercot_nb.page import ExplorerPage, page_data, read_table
from ercot_nb.page import write as write_page

HOSTILE = '</script><img src=x onerror="alert(1)">&amp;\u2028<!--'


def decode(value):
    """The page's JSON with its typed arrays as numpy arrays (as explorer.js decodes them)."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        if isinstance(value.get("bdata"), str):
            array = np.frombuffer(base64.b64decode(value["bdata"]), np.dtype(value["dtype"]).newbyteorder("<"))
            return array.reshape([int(n) for n in value["shape"].split(",")]) if "shape" in value else array
        return {k: decode(v) for k, v in value.items()}
    return value


def gathered(trace: dict, knee: list[dict]) -> dict:
    if "gather" not in trace:
        return trace
    paths, index = trace["gather"]["paths"], np.asarray(trace["gather"]["index"], dtype=int)
    holders = [t for t in knee if all(p in t for p in paths)]
    out = {k: v for k, v in trace.items() if k != "gather"}
    for p in paths:
        pool = [v for t in holders for v in list(t[p])]
        out[p] = [pool[i] for i in index]
    return out


def inherited(trace: dict, base: list[dict]) -> dict:
    if not trace.get("inherit"):
        return trace
    out = dict(next(b for b in base if b.get("name") == trace["name"]))
    for key, value in trace.items():
        if key != "inherit":
            if value is None:
                out.pop(key, None)
            else:
                out[key] = value
    return out


def shown(entry: dict, t: int, member: int | None = None) -> list[dict]:
    """A view's traces at step t (and member) as the page applies its data (data changes only)."""
    base = data = decode(entry["base"])["data"]
    step = decode(entry["steps"][t])
    if step and "data" in step:
        data = [inherited(tr, base) for tr in step["data"]]
    for name, values in ((step or {}).get("traces") or {}).items():
        trace = next(tr for tr in data if tr.get("name") == name)
        for path, value in values.items():
            if "." not in path and not (isinstance(value, dict) and "patch" in value):
                trace[path] = value
    if member is not None:
        change = decode(entry["members"][t][str(member)])
        if change and isinstance(change.get("data"), int):
            change["data"] = decode(entry["member_data"][t][change["data"]])
        if change and "data" in change:
            data = [gathered(inherited(tr, base), data) for tr in change["data"]]
    return data


def read_drawing(stored: dict) -> dict:
    """One stored drawing of a view, its tables (base, steps, members) read as explorer.js reads them."""
    return {name: read_table(value) if name in ("steps", "members", "member_data") else
            read_table(value)[0] if name == "base" else value for name, value in stored.items()}


def by_view(page: dict) -> dict:
    """The page's views by key, read (:func:`read_drawing`); a view with a choice (the scores' metric)
    as its first drawing, the one the page shows first, with ``choices`` read too."""
    out = {}
    for v in page["views"]:
        if "choices" in v:
            choices = [read_drawing(drawing) for drawing in v["choices"]]
            out[v["key"]] = {**v, **choices[0], "choices": choices}
        else:
            out[v["key"]] = read_drawing(v)
    return out


def same_content(page_traces: list[dict], parts) -> None:
    """The page's traces hold the static parts' names and points (floats to float32 precision)."""
    assert [t.get("name") for t in page_traces] == parts.names
    for got, want in zip(page_traces, parts.traces):
        for path in ("x", "y", "z", "text"):
            value = getattr(want, path, None)
            if value is None:
                continue
            if path == "text" and isinstance(value, str):
                assert got[path] == value
                continue
            expected, actual = list(value), list(got[path])
            numbers = (float, int, np.floating, np.integer)
            if expected and all(v is None or isinstance(v, numbers) for v in expected) and any(
                    isinstance(v, numbers) for v in expected):  # None: a gap (NaN)
                assert [v is None for v in actual] == [v is None for v in expected], (want.name, path)
                np.testing.assert_allclose(np.asarray(actual, float), np.asarray(expected, float), rtol=1e-5, atol=1e-6)
            else:
                assert [str(v) for v in actual] == [str(v) for v in expected], (want.name, path)


@pytest.fixture(scope="module")
def syn3_run():
    data = datasets.load("syn3", seed=0)[:4]
    return data, ERCOT(seed=0, pop_size=30, n_evaluations=90).fit(data).result_


def test_every_view_of_the_page_shows_the_static_figure_of_each_step_and_member(syn3_run):
    data, result = syn3_run
    page = page_data(result, data)
    assert page["n_steps"] == 4 and page["times"] == [str(t) for t in data.times[:4]]
    source = figures.ViewData(result, data)
    keys = [v.key for v in figures.views_for(source)]
    assert [v["key"] for v in page["views"]] == keys
    stored = 0
    for item in figures.views_for(source):
        entry = by_view(page)[item.key]
        options = {k: v for k, v in {"max_points": 5000, "max_pixels": figures.VIDEO_MAX_PIXELS}.items()
                   if k in item.options}
        for choice in entry.get("choices", []):  # each metric of the scores view, as the page stores it
            for step in result:
                same_content(shown(choice, step.t), item.parts(source, step.t, **{item.choice: choice["value"]}))
        for step in result:
            same_content(shown(entry, step.t), item.parts(source, step.t, **options))
            if not item.member:
                assert "members" not in entry
                continue
            for member in np.flatnonzero(step.first_front):
                if member == step.knee:
                    continue
                assert str(member) in entry["members"][step.t], "every front member is stored under the cap"
                if item.key == "partition":
                    same_content(shown(entry, step.t, int(member)), item.parts(source, step.t, int(member)))
                    stored += 1
    assert stored > 0
    assert page["notes"] == [] and page["knees"] == [int(s.knee) for s in result]


def test_member_partition_traces_are_the_members_own(syn3_run):
    data, result = syn3_run
    entry = by_view(page_data(result, data))["partition"]
    step = result[2]
    member = next(int(m) for m in np.flatnonzero(step.first_front) if m != step.knee)
    traces = shown(entry, 2, member)
    own = figures.member_partition(data, result, 2, member)
    by_id = {str(i): k for i, k in zip(step.ids, own.aligned_labels)}
    for trace in traces:
        if trace["name"].startswith("cluster "):
            assert {by_id[str(i)] for i in trace["text"]} <= {int(trace["name"].split()[1])}


def test_member_cap_spreads_along_the_front_and_says_so(syn3_run):
    data, result = syn3_run
    page = page_data(result, data, max_members=3)
    for step, members in zip(result, by_view(page)["partition"]["members"]):
        distinct = {result[step.t].population[int(m)].tobytes() for m in members}
        assert len(distinct) <= 3
    assert any("more than 3 distinct members" in note for note in page["notes"])


def test_subsampling_keeps_persisting_ids_and_is_stated():
    rng = np.random.default_rng(1)
    X = [rng.normal(size=(1200, 2)) for _ in range(3)]
    ids = [np.arange(1200), np.arange(100, 1300), np.arange(1200)]
    data = TemporalDataset.from_arrays(X, ids=ids, name="many")
    result = ERCOT(seed=0, pop_size=10, n_evaluations=20).fit(data).result_
    page = page_data(result, data, max_points=500)
    entry = by_view(page)["partition"]
    ids_shown = [{str(i) for tr in shown(entry, t) if tr["name"].startswith("cluster ") for i in tr["text"]}
                 for t in range(3)]
    assert all(len(s) == 500 for s in ids_shown)
    assert ids_shown[0] == ids_shown[2]  # same ids at every step where they persist
    assert any("at most 500 of the 1,200 samples" in note for note in page["notes"])
    for step in result:
        label = {str(i): int(k) for i, k in zip(step.ids, step.aligned_labels)}
        for tr in shown(entry, step.t):
            if tr["name"].startswith("cluster "):
                assert {label[str(i)] for i in tr["text"]} == {int(tr["name"].split()[1])}


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
    partition = by_view(data_back)["partition3d"]["base"]
    assert escape(f"{HOSTILE}0") in [i for tr in partition["data"] for i in (tr.get("text") or [])]
    assert partition["layout"]["scene"]["xaxis"]["title"]["text"] == escape(HOSTILE)
    assert f"<title>{html.escape(HOSTILE + ' on ' + HOSTILE)}</title>" in text


def test_repr_html_is_a_sandboxed_srcdoc_iframe(syn3_run):
    data, result = syn3_run
    page = ExplorerPage(result, data)
    frame = page._repr_html_()
    assert frame.startswith("<iframe") and 'sandbox="allow-scripts"' in frame
    srcdoc = re.search(r'srcdoc="([^"]*)"', frame).group(1)
    assert html.unescape(srcdoc) == page.to_html_string()


def test_page_write_writes_the_page(syn3_run, tmp_path):
    data, result = syn3_run
    path = write_page(result, tmp_path / "sub" / "run.html", data)
    assert path.read_text(encoding="utf-8") == ExplorerPage(result, data).to_html_string()
    bare = page_data(result)
    assert "partition" not in by_view(bare) and "No dataset was given" in bare["notes"][0]


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
    size = write_page(result, tmp_path / "big.html", data).stat().st_size
    assert size < PAGE_SIZE_LIMIT
    assert len(ExplorerPage(result, data, compress=False).to_html_string().encode()) < PLAIN_PAGE_SIZE_LIMIT
    page = page_data(result, data)
    entry = by_view(page)["partition"]
    # WebGL traces carry integer ids as customdata, others as text
    assert all(sum(len(tr["text"] if "text" in tr else tr["customdata"]) for tr in shown(entry, t)
                   if tr["name"].startswith("cluster ")) == 5000 for t in range(steps))
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
    views = by_view(page)
    assert "pareto" not in views and all(m == {} for m in views["partition"]["members"])
    assert {"partition", "alpha", "n_clusters", "sizes", "scores", "flows"} <= set(views)
    source = figures.ViewData(result, data)
    for step in result:
        same_content(shown(views["partition"], step.t), figures.view("partition").parts(source, step.t))


def test_explorer_to_html_writes_the_page_of_its_run(syn3_run, tmp_path):
    pytest.importorskip("ipywidgets")
    from ercot_nb.widgets import Explorer

    data, result = syn3_run
    path = Explorer(data, result=result).to_html(tmp_path / "explorer.html")
    assert path.read_text(encoding="utf-8") == ExplorerPage(result, data).to_html_string()
