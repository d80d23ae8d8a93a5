"""Strings from data, files and parameters cannot inject HTML into the apps or the static page.

Every string field gets a payload that would run script if it reached the page
unescaped (`<img src=x onerror=...>`, `<script>`, an attribute break-out): the
CSV file name (dataset name), feature/time/id/label column names, time labels,
ids, label values and the algorithm name of a loaded `.npz` result.  They reach
the Explorer and Compare (Voila in Chromium) through the API, through the
Explorer's CSV upload (also a file that fails to load, whose error message
quotes its name) and through the result's `_repr_html_`; and the static pages
of `ercot_nb.page.write` and `Explorer.to_html`.  The test asserts that no
dialog fires, no payload ran, no injected element exists, and that the payload
text is shown (escaped) where it belongs.
"""
from __future__ import annotations

import json

import nbformat
import numpy as np
import pandas as pd
import pytest


FAST = {"pop_size": 20, "n_evaluations": 40}


def img(tag: str) -> str:
    return f"\"'><img src=x onerror=\"window.__pwned='{tag}';alert('{tag}')\">"


def script(tag: str) -> str:
    return f"<script>window.__pwned='{tag}';alert('{tag}')</script>"


COLUMNS = {"time": img("time column"), "id": script("id column"), "f1": img("feature 1"),
           "f2": script("feature 2"), "label": img("label column")}
FILE_NAME = "<img src=x onerror=alert('file name')>.csv"  # no '/' in a file name
BROKEN_NAME = "<svg onload=alert('broken file')>.csv"
ALGORITHM = script("algorithm") + img("algorithm")

INJECTED = """() => ({
    pwned: window.__pwned ?? null,
    images: document.querySelectorAll('img[src="x"]').length,
    svgs: document.querySelectorAll('svg[onload]').length,
    scripts: [...document.querySelectorAll('script')].filter(
        s => s.text.trim().startsWith('window.__pwned')).length,  // not data quoting it
    handlers: [...document.querySelectorAll('*')].filter(
        n => [...n.attributes].some(a => a.name.startsWith('on'))).length,
})"""
CLEAN = {"pwned": None, "images": 0, "svgs": 0, "scripts": 0, "handlers": 0}


def evil_frame(n_steps: int = 4, n_ids: int = 24) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for t in range(n_steps):
        for i in range(n_ids):
            cluster = i % 2
            rows.append({COLUMNS["time"]: f"t{t}{img('time label')}",
                         COLUMNS["id"]: f"s{i:02d}{script('id')}",
                         COLUMNS["f1"]: rng.normal(6.0 * cluster, 1.0),
                         COLUMNS["f2"]: rng.normal(0.0, 1.0),
                         COLUMNS["label"]: f"{img('label value')}{cluster}"})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def evil_files(tmp_path_factory):
    from ercot_nb import ERCOT, TemporalDataset

    folder = tmp_path_factory.mktemp("evil")
    csv = folder / FILE_NAME
    evil_frame().to_csv(csv, index=False)
    (folder / BROKEN_NAME).write_text(f"{img('broken column')},b\n1,2\n")
    data = TemporalDataset.from_csv(csv, time=COLUMNS["time"], id=COLUMNS["id"], label=COLUMNS["label"])
    result = ERCOT(**FAST, seed=0, progress=False).fit(data).result_
    result.algorithm = ALGORITHM
    npz = result.save(folder / "evil.npz")
    return {"folder": folder, "csv": csv, "broken": folder / BROKEN_NAME, "npz": npz, "data": data}


def app_notebook(folder, files) -> str:
    """The page under test: the Explorer and Compare on the evil data, and the loaded result."""
    code = f"""
from ercot_nb import ClusteringResult, TemporalDataset
from ercot_nb.widgets import Compare, Explorer

data = TemporalDataset.from_csv({str(files['csv'])!r}, time={COLUMNS['time']!r}, id={COLUMNS['id']!r},
                                label={COLUMNS['label']!r})
result = ClusteringResult.load({str(files['npz'])!r})
display(data, result)  # their _repr_html_
explorer = Explorer(data, result=result, params={FAST!r})
compare = Compare(data, algorithms=("ERCOT",), params={{"ERCOT": {FAST!r}}})
compare.run(wait=True)
display(explorer, compare)
"""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(code)]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / "inject.ipynb"
    nbformat.write(notebook, path)
    return path


def upload(page, path) -> None:
    """Choose ``path`` with the Explorer's upload button, as a user does."""
    with page.expect_file_chooser(timeout=30_000) as chooser:
        page.locator(".widget-upload").first.click()
    chooser.value.set_files(str(path))


def watch_dialogs(page) -> list[str]:
    dialogs: list[str] = []

    def record(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", record)
    return dialogs


def test_no_injection_in_the_explorer_and_compare_apps(evil_files, app, browser_context, tmp_path, capsys):
    notebook = app_notebook(tmp_path, evil_files)
    _, port, log = app(["--notebook", str(notebook)])
    context = browser_context()
    page = context.new_page()
    dialogs = watch_dialogs(page)
    page.goto(f"http://127.0.0.1:{port}/", wait_until="domcontentloaded", timeout=300_000)
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 7",
                           timeout=300_000)
    page.wait_for_timeout(2_000)  # an injected image's onerror fires after its load fails
    rendered = page.evaluate(INJECTED)
    text = page.inner_text("body")

    # the Explorer's CSV upload: the file, then one that fails and whose name the error quotes
    page.get_by_role("button", name="CSV file").first.click()
    upload(page, evil_files["csv"])
    page.get_by_text("Choose the id column").first.wait_for(timeout=60_000)
    for role in ("time", "id", "label"):  # the mapping is the user's: nothing is guessed but time
        mapping = page.locator(
            f".widget-inline-hbox:has(> .widget-label:text-is('{role} column')) select").first
        mapping.select_option(COLUMNS[role])
    page.get_by_role("button", name="Load CSV").first.click()
    page.locator(".ercot-nb-message", has_text="Loaded <img").first.wait_for(timeout=60_000)
    messages = page.eval_on_selector_all(".ercot-nb-message", "ns => ns.map(n => n.innerText)")
    upload(page, evil_files["broken"])
    page.locator(".ercot-nb-message", has_text="Problem reading").first.wait_for(timeout=60_000)
    page.wait_for_timeout(2_000)
    uploaded = page.evaluate(INJECTED)
    messages += page.eval_on_selector_all(".ercot-nb-message", "ns => ns.map(n => n.innerText)")
    labels = page.eval_on_selector_all(".widget-html-content", "ns => ns.map(n => n.innerText)")
    page.screenshot(path=str(tmp_path / "injection.png"), full_page=True)
    with capsys.disabled():
        print(f"\nafter render: {json.dumps(rendered)}\nafter upload: {json.dumps(uploaded)}\n"
              f"dialogs: {dialogs}\nscreenshot: {tmp_path / 'injection.png'}")
    assert dialogs == []
    assert rendered == CLEAN and uploaded == CLEAN
    # the strings did reach the page, as text
    assert ALGORITHM in text  # _repr_html_ of the loaded .npz result
    assert any(label.startswith("time t0" + img("time label")) for label in labels)  # scrubbers
    assert sum(label.startswith("time t0") for label in labels) >= 2  # Explorer and Compare
    assert any(f"Loaded {FILE_NAME}" in m for m in messages)
    assert any(f"Problem reading {BROKEN_NAME!r}" in m for m in messages)
    assert "Traceback" not in log.read_text()


def test_no_injection_in_the_static_pages(evil_files, browser_context, tmp_path, capsys):
    from ercot_nb import ClusteringResult
    from ercot_nb.page import write as write_page
    from ercot_nb.widgets import Explorer

    data = evil_files["data"]
    result = ClusteringResult.load(evil_files["npz"])
    pages = [write_page(result, tmp_path / "result.html", data),
             Explorer(data, result=result, params=FAST).to_html(tmp_path / "explorer.html")]
    found = {}
    context = browser_context()
    for path in pages:
        page = context.new_page()
        dialogs = watch_dialogs(page)
        page.goto(path.as_uri(), wait_until="load", timeout=120_000)
        page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 1",
                               timeout=120_000)
        page.wait_for_timeout(2_000)
        found[path.name] = {**page.evaluate(INJECTED), "dialogs": dialogs,
                            "title": page.title()}
    with capsys.disabled():
        print("\n" + json.dumps(found, indent=1))
    for name, state in found.items():
        assert {key: state[key] for key in CLEAN} == CLEAN, name
        assert state["dialogs"] == [], name
    assert found["result.html"]["title"].startswith(ALGORITHM)
