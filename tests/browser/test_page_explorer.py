"""The explorer page (ercot_nb.page) opened with file:// in Debian Chromium, network off.

Every request that is not file:// is aborted and recorded; the tests assert
that none was attempted.  The views are read back from the plotly graph
divs (``gd.data`` / ``gd.layout``) and compared with the run.
"""
from __future__ import annotations

import base64
import gzip
import html
import json
import re

import numpy as np
import pytest

from ercot_nb import ERCOT, TemporalDataset, datasets, figures
from ercot_nb.page import VIDEO_MAX_PIXELS, ExplorerPage, read_table
from ercot_nb.page import write as write_page

HOSTILE = '</script><img src=x onerror="alert(1)"><b>bold</b>'

# the aligned label and colour of every point of the partition traces, by id
READ_PARTITION = """(id) => {
  const out = {};
  for (const trace of document.getElementById(id).data) {
    const match = /^cluster (\\d+)$/.exec(trace.name);
    if (!match) continue;
    trace.text.forEach((text) => { out[text] = [Number(match[1]), trace.marker.color]; });
  }
  return out;
}"""
SOURCES = "() => document.getElementById('video').data.map((d) => d.source)"
VIEW_STEPS = "() => Array.from(document.querySelectorAll('[data-step]')).map((e) => [e.id, e.dataset.step])"


class Tab:
    """One page with the network cut off and its console errors recorded."""

    def __init__(self, browser, url: str) -> None:
        self.page = browser.new_page(viewport={"width": 1300, "height": 2400})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.frame_requests: list[str] = []  # made from inside the explorer's srcdoc frame
        self.dialogs: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.route("**/*", self._route)
        self.page.goto(url, timeout=180_000)

    def _route(self, route) -> None:
        url = route.request.url
        if url.startswith("file:") or url.startswith("data:"):
            route.continue_()
        else:
            self.requests.append(url)
            try:
                if route.request.frame.url == "about:srcdoc":
                    self.frame_requests.append(url)
            except Exception:  # a request of a detached frame
                pass
            route.abort()

    def ready(self, frame=None) -> None:
        (frame or self.page).wait_for_selector("body[data-ready='1']", timeout=120_000)

    def data(self) -> dict:
        """The page's data block, unpacked as the page does (gzip+base64 or plain JSON)."""
        node = self.page.evaluate(
            "() => { const n = document.getElementById('ercot-data'); return [n.dataset.encoding, n.textContent]; }")
        text = gzip.decompress(base64.b64decode(node[1])).decode() if node[0] == "gzip+base64" else node[1]
        return json.loads(text)

    def wait_step(self, t: int) -> None:
        """Every view rendered step t."""
        self.page.wait_for_function(
            """(t) => document.body.dataset.step === String(t) &&
                 Array.from(document.querySelectorAll('[data-step]')).every((e) => e.dataset.step === String(t))""",
            arg=t, timeout=60_000,
        )

    def close(self) -> None:
        self.page.close()


def expected_by_id(ids, labels) -> dict:
    return {html.escape(str(i), quote=False): [int(k), figures.label_color(int(k))] for i, k in zip(ids, labels)}


def plain_time(value):
    return value.item() if hasattr(value, "item") else value


def check_views(tab: Tab, data: dict, t: int, ids, labels, three_d: bool, result, member=None) -> None:
    """Every view shows step t, the partition views the given labels."""
    expected = expected_by_id(ids, labels)
    assert tab.page.evaluate(READ_PARTITION, "partition") == expected
    if three_d:
        assert tab.page.evaluate(READ_PARTITION, "partition3d") == expected
    steps = dict(tab.page.evaluate(VIEW_STEPS))
    assert set(steps.values()) == {str(t)}
    assert {"partition", "pareto", "alpha", "n_clusters", "sizes", "scores", "flows"} <= set(steps)
    time = data["times"][t]
    title = tab.page.evaluate("() => document.getElementById('partition').layout.title.text")
    assert f"at time {html.escape(time, quote=False)}" in title
    assert ("member" not in title) if member is None else (f"member {member}" in title)
    for line in ("alpha", "n_clusters", "sizes", "scores"):
        x0 = tab.page.evaluate(
            f"() => document.getElementById('{line}').layout.shapes.find((s) => s.name === 'current step').x0")
        assert x0 == plain_time(result.times[t])
    node_colors = tab.page.evaluate("() => document.getElementById('flows').data[0].node.color")
    for step, color in zip(figures.sankey_nodes(result)["node_step"], node_colors):
        assert color.startswith("#") == (step == t), "the Sankey brings the current step forward"
    shown = tab.page.evaluate(
        f"() => document.getElementById('pareto').data.find((d) => d.name === {json.dumps(figures.SELECTED)}).customdata")
    assert [c[0] for c in shown] == ([] if member is None else [member])


def click_front_member(tab: Tab, member: int) -> None:
    """A real mouse click on the member's marker of the Pareto plot."""
    x, y = tab.page.evaluate(
        """(member) => {
          const gd = document.getElementById('pareto');
          const trace = gd.data.find((d) => d.meta && d.meta.click === 'member' && d.name !== 'selected member' &&
                                            (d.customdata || []).some((c) => c[0] === member));
          const i = trace.customdata.findIndex((c) => c[0] === member);
          const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, box = gd.getBoundingClientRect();
          return [box.left + xa._offset + xa.l2p(trace.x[i]), box.top + ya._offset + ya.l2p(trace.y[i])];
        }""",
        member,
    )
    tab.page.mouse.move(x, y)
    tab.page.mouse.click(x, y)


def pick_member(data: dict, result, dataset, t: int) -> int:
    """A stored front member whose partition differs from the knee's and whose marker stands alone."""
    stored = read_table(next(v for v in data["views"] if v["key"] in ("partition", "video"))["members"])[t]
    pareto = figures.view("pareto").parts(figures.ViewData(result, dataset), t)
    points = {}
    for trace in pareto.traces:
        if trace.meta and trace.name != figures.SELECTED and trace.customdata is not None:
            for row, x, y in zip(trace.customdata, trace.x, trace.y):
                points.setdefault(int(row[0]), (x, y))
    step = result[t]
    for member in np.flatnonzero(step.first_front):
        if member == step.knee or str(member) not in stored:
            continue
        own = result.labels_of_member(dataset[t].X, t, int(member))
        if len(set(zip(own.tolist(), step.labels.tolist()))) == len(set(own.tolist())) == len(set(step.labels.tolist())):
            continue  # the knee's partition
        others = np.array([p for m, p in points.items() if m != member])
        if np.min(np.abs(others - np.array(points[int(member)])).max(axis=1)) > 0.03:  # >= ~12 px from any other
            return int(member)
    raise AssertionError(f"no isolated front member at step {t}")


@pytest.fixture(scope="module")
def syn4_page(tmp_path_factory):
    """A 4-D run (2-D PCA and 3-D views) with concept drift, written to disk."""
    data = datasets.load("syn4", seed=0)[:5]
    result = ERCOT(seed=0, pop_size=30, n_evaluations=90).fit(data).result_
    path = write_page(result, tmp_path_factory.mktemp("page") / "syn4.html", data)
    return data, result, path


def test_slider_member_click_and_play_drive_every_view(offline_browser, syn4_page, tmp_path):
    data, result, path = syn4_page
    tab = Tab(offline_browser, path.as_uri())
    try:
        tab.ready()
        page_data = tab.data()
        T = len(result)
        assert tab.page.evaluate("() => document.getElementById('slider').max") == str(T - 1)
        tab.page.focus("#slider")
        for t in range(T):
            if t:
                tab.page.keyboard.press("ArrowRight")  # the slider, moved as a user does
            tab.wait_step(t)
            step = result[t]
            check_views(tab, page_data, t, step.ids, step.aligned_labels, three_d=True, result=result)
        # a front member at a middle step: its partition in the 2-D and 3-D views
        middle = T // 2
        tab.page.focus("#slider")
        for _ in range(T - 1 - middle):
            tab.page.keyboard.press("ArrowLeft")
        tab.wait_step(middle)
        member = pick_member(page_data, result, data, middle)
        click_front_member(tab, member)
        tab.page.wait_for_function(
            "(m) => document.getElementById('member-label').textContent === 'showing member ' + m", arg=member)
        tab.wait_step(middle)
        own = figures.member_partition(data, result, middle, member)
        check_views(tab, page_data, middle, own.ids, own.aligned_labels, three_d=True, result=result, member=member)
        shown = tab.page.evaluate(READ_PARTITION, "partition")
        of_member = result.labels_of_member(data[middle].X, middle, member)
        pairs = {(shown[html.escape(str(i), quote=False)][0], int(k)) for i, k in zip(result[middle].ids, of_member)}
        assert len(pairs) == len(set(of_member.tolist())), "one shown cluster per labels_of_member cluster"
        tab.page.screenshot(path=str(tmp_path / "member.png"), full_page=True)
        # back to the knee, then Play from the start: every view steps through to the end
        tab.page.click("#knee")
        tab.wait_step(middle)
        check_views(tab, page_data, middle, result[middle].ids, result[middle].aligned_labels, three_d=True,
                    result=result)
        tab.page.focus("#slider")
        tab.page.keyboard.press("Home")
        tab.wait_step(0)
        tab.page.click("#play")
        tab.wait_step(1)
        assert "Pause" in tab.page.inner_text("#play")
        tab.page.wait_for_function("() => document.getElementById('play').textContent.includes('Play')",
                                   timeout=60_000)
        tab.wait_step(T - 1)
        check_views(tab, page_data, T - 1, result[-1].ids, result[-1].aligned_labels, three_d=True,
                    result=result)
        assert tab.page.evaluate("() => document.getElementById('slider').value") == str(T - 1)
        # the scores view's metric, as the widget's toggle: each choice the registry's view offers
        from ercot_nb.figures.views.scores import METRIC_CHOICES

        buttons = tab.page.locator("section:has(#scores) .choices button")
        assert buttons.all_inner_texts() == [label for label, _ in METRIC_CHOICES.values()]
        source = figures.ViewData(result, data)
        for i, metric in reversed(list(enumerate(METRIC_CHOICES))):
            buttons.nth(i).click()
            tab.page.wait_for_function("(m) => document.getElementById('scores').dataset.choice === m", arg=metric)
            expected = figures.view("scores").parts(source, T - 1, metric=metric).layout
            shown = tab.page.evaluate("() => { const l = document.getElementById('scores').layout; return ["
                                      "l.yaxis.title.text, l.shapes.find((s) => s.name === 'current step').x0]; }")
            assert shown == [expected["yaxis"]["title"]["text"], plain_time(result.times[T - 1])], metric
        assert tab.errors == [] and tab.requests == []
    finally:
        tab.close()


def test_video_page_shows_frames_and_member_segmentation(offline_browser, tmp_path):
    data = datasets.load("video_mo", seed=0, scale=0.25, n_frames=3)
    result = ERCOT(seed=0, pop_size=30, n_evaluations=90).fit(data).result_
    path = ExplorerPage(result, data).save(tmp_path / "video.html")
    tab = Tab(offline_browser, path.as_uri())
    try:
        tab.ready()
        page_data = tab.data()
        source, video_view = figures.ViewData(result, data), figures.view("video")
        tab.page.focus("#slider")
        for t in range(len(result)):
            if t:
                tab.page.keyboard.press("ArrowRight")
            tab.wait_step(t)
            expected = [tr.source for tr in video_view.parts(source, t, max_pixels=VIDEO_MAX_PIXELS).traces]
            assert tab.page.evaluate(SOURCES) == expected  # frame, segmentation, ground truth
            assert len(expected) == 3
            assert "partition" not in dict(tab.page.evaluate(VIEW_STEPS))
        t = len(result) - 1
        member = pick_member(page_data, result, data, t)
        click_front_member(tab, member)
        tab.page.wait_for_function(
            "(m) => document.getElementById('member-label').textContent === 'showing member ' + m", arg=member)
        tab.wait_step(t)
        expected = [tr.source for tr in video_view.parts(source, t, member, max_pixels=VIDEO_MAX_PIXELS).traces]
        assert tab.page.evaluate(SOURCES) == expected
        assert expected[1] != video_view.parts(source, t, max_pixels=VIDEO_MAX_PIXELS).traces[1].source
        assert tab.errors == [] and tab.requests == []
    finally:
        tab.close()


def test_strings_from_data_are_shown_as_text(offline_browser, tmp_path):
    rng = np.random.default_rng(0)
    ids = [f"{HOSTILE}{i}" for i in range(40)]
    data = TemporalDataset.from_arrays(
        [rng.normal(size=(40, 2)) for _ in range(2)], ids=[ids, ids], times=[HOSTILE, "t2"],
        feature_names=[HOSTILE, "y"], name=HOSTILE,
    )
    result = ERCOT(seed=0, pop_size=10, n_evaluations=20).fit(data).result_
    path = ExplorerPage(result, data, compress=False).save(tmp_path / "hostile.html")  # plain JSON and script
    tab = Tab(offline_browser, path.as_uri())
    try:
        tab.ready()
        assert tab.page.inner_text("#page-title") == f"ERCOT on {HOSTILE}: explorer"
        assert tab.page.inner_text("#step-label").startswith(f"time {HOSTILE}")
        assert tab.page.locator("img[src=x]").count() == 0 and tab.page.locator("b").count() == 0
        xtitle = tab.page.evaluate("() => document.getElementById('partition').layout.xaxis.title.text")
        assert xtitle == html.escape(HOSTILE, quote=False).replace('"', "&#34;")  # escaped by ercot_nb.figures
        assert tab.page.locator("#partition text", has_text=HOSTILE).count() >= 1  # drawn literally
        assert tab.dialogs == [] and tab.errors == [] and tab.requests == []
    finally:
        tab.close()


def test_inline_repr_renders_in_an_nbconvert_export(offline_browser, syn4_page, tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbconvert = pytest.importorskip("nbconvert")
    from nbclient import NotebookClient

    data, result, _ = syn4_page
    saved = result.save(tmp_path / "run.npz")
    source = (
        "from ercot_nb import ClusteringResult, datasets\n"
        "from ercot_nb.page import ExplorerPage\n"
        f"data = datasets.load('syn4', seed=0)[:5]\n"
        f"ExplorerPage(ClusteringResult.load({str(saved)!r}), data)"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    assert "text/html" in nb.cells[0].outputs[0]["data"]
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    exported = tmp_path / "exported.html"
    exported.write_text(body, encoding="utf-8")
    tab = Tab(offline_browser, exported.as_uri())
    try:
        tab.page.wait_for_selector("iframe.ercot-nb-explorer-page", timeout=60_000)
        frame = next(f for f in tab.page.frames if f.url == "about:srcdoc")
        tab.ready(frame)
        traces = frame.evaluate("() => document.getElementById('partition').data.map((d) => d.name)")
        labels = sorted({f"cluster {k}" for k in result[0].aligned_labels})
        assert [n for n in traces if n.startswith("cluster")] == labels
        # the exported notebook's own template asks for its CDN scripts (aborted); the page asks nothing
        assert all("net::" in e for e in tab.errors), tab.errors
        assert tab.frame_requests == []
    finally:
        tab.close()


def _as_lists(value):
    """Plain JSON of a table's rows read in Python (numpy arrays as lists)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {key: _as_lists(v) for key, v in value.items()}
    if isinstance(value, list):
        return [_as_lists(v) for v in value]
    return value


def test_explorer_js_reads_every_table_as_read_table_does(offline_browser):
    """explorer.js's table reader (run in Chromium) gives what ercot_nb.page.read_table gives, for
    every table of a long run's page and for columns of every kind."""
    from importlib import resources

    from ercot_nb.bench.speed import long_run
    from ercot_nb.page import page_data
    from ercot_nb.page._table import Typed, table

    result, data = long_run(30)
    tables = [entry[name] for entry in page_data(result, data)["views"]
              for name in ("base", "steps", "members", "member_data") if name in entry]
    rows = [{"n": t % 3 == 0, "title": f"{t} of {t + 1}" if t % 2 else f"none at {t}", "x": [t, t + 0.5],
             "a": Typed("u2", np.arange(t % 4, dtype="<u2").tobytes()) if t % 2 else [], "v": None if t % 2 else t,
             "mixed": [t, "a"] if t % 3 else "b", "nul": f"a\x00{t}"} for t in range(12)]
    tables.append(table(rows))
    kinds = set(re.findall(r'"k": "(\w+)"', json.dumps(tables)))
    assert kinds >= {"same", "json", "num", "bool", "str", "fmt", "opt", "dict", "list", "tuple", "typed"}, kinds
    source = resources.files("ercot_nb.page").joinpath("explorer.js").read_text(encoding="utf-8")
    reader = source[source.index("  var TYPES"):source.index("  function getPath")]  # typed, rows, table
    page = offline_browser.new_page()
    try:
        shown = page.evaluate(
            "(tables) => { " + reader + """
              const plain = (v) => ArrayBuffer.isView(v) ? Array.from(v) : Array.isArray(v) ? v.map(plain) :
                (v && typeof v === 'object') ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v;
              return tables.map((t) => plain(table(t))); }""",
            json.loads(json.dumps(tables)))
    finally:
        page.close()
    _assert_same_json(shown, json.loads(json.dumps([_as_lists(read_table(t)) for t in tables])))


def _assert_same_json(shown, expected, path="") -> None:
    """Equal JSON, a boolean never equal to a number (Python's True == 1)."""
    assert isinstance(shown, bool) == isinstance(expected, bool), (path, shown, expected)
    if isinstance(expected, dict):
        assert isinstance(shown, dict) and sorted(shown) == sorted(expected), (path, shown, expected)
        for key in expected:
            _assert_same_json(shown[key], expected[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(shown, list) and len(shown) == len(expected), (path, shown, expected)
        for i, (a, b) in enumerate(zip(shown, expected)):
            _assert_same_json(a, b, f"{path}[{i}]")
    else:
        assert shown == expected, (path, shown, expected)
