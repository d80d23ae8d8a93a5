"""The Explorer app in a real browser: `ercot-nb app` (Voila) driven by headless Chromium.

Catches what headless kernels cannot: figures rendered from the synced
widget state (Voila renders after every cell ran), the Play/slider link in
the page, clicks reaching the kernel, and live updates from the fit thread.
Uses Debian's Chromium through the `playwright` package (never
`playwright install`), with a scratch HOME and TMPDIR.
"""
from __future__ import annotations

import json
import re
import time

from .app_harness import open_app


TIME_LABEL = """() => [...document.querySelectorAll('.widget-html-content')]
    .map(n => n.textContent).find(t => /^time /.test(t))?.slice(5) ?? null"""

PARTITION = """() => {
    const plot = [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent !== null)[0];
    return JSON.stringify({title: plot.querySelector('.gtitle')?.textContent ?? '',
                           x: (plot.data || []).map(trace => Array.from(trace.x || []))});
}"""


LAYOUT = """() => {
    const box = e => e.getBoundingClientRect();
    const clipped = [];  // parameter entries running past their form's grid
    for (const grid of document.querySelectorAll('.widget-gridbox')) {
        if (grid.offsetParent === null) continue;
        const edge = box(grid).right;
        for (const item of grid.children) {
            const input = item.querySelector('input, select') || item;
            if (box(item).right > edge + 0.5 || box(input).right > edge + 0.5)
                clipped.push(item.textContent.trim() + ': ' + box(input).right + ' > ' + edge);
        }
    }
    const axes = [...document.querySelectorAll('.widget-toggle-buttons')]
        .find(t => t.textContent.includes('first two features'));
    const label = [...axes.parentElement.querySelectorAll('.widget-label, .widget-html-content')]
        .find(n => n.textContent.trim() === 'axes');
    const middles = [label, ...axes.querySelectorAll('button')]
        .map(e => (box(e).top + box(e).bottom) / 2);
    return JSON.stringify({clipped, axes_rows_apart: Math.max(...middles) - Math.min(...middles)});
}"""


def test_explorer_in_chromium(app_url, browser_context, console_errors, shot, capsys):
    started = time.monotonic()
    context = browser_context(height=2200)
    page = open_app(context, app_url)
    try:
        _wait_status(page, "finished", timeout=180_000)  # the page shows before the first fit ends
        page.wait_for_function(
            "() => document.querySelector('.js-plotly-plot .gtitle')?.textContent"
            ".includes('ERCOT partition at time 10')", timeout=30_000,
        )
        titles = page.eval_on_selector_all(
            ".js-plotly-plot .gtitle", "nodes => nodes.map(n => n.textContent)")
        assert any("final population" in t for t in titles)
        assert any("cluster flow" in t for t in titles)
        _tab(page, "Parameters")  # the algorithm's form is a tab of the side panel
        page.get_by_text("more parameters").first.click()  # its entries must fit too
        page.wait_for_timeout(500)
        layout = json.loads(page.evaluate(LAYOUT))
        assert layout["clipped"] == [], "parameter entries cut off at the right"
        assert layout["axes_rows_apart"] < 4, "the axes switch is not one row"
        before = json.loads(page.evaluate(PARTITION))
        assert sum(len(x) for x in before["x"]) >= 200  # every sample drawn

        # move the scrubber three steps back with the keyboard
        handle = page.locator(".widget-slider .noUi-handle").first
        handle.focus()
        for _ in range(3):
            handle.press("ArrowLeft")
        page.wait_for_function(
            "() => document.querySelector('.js-plotly-plot .gtitle')?.textContent"
            ".includes('at time 7 (')", timeout=20_000,
        )
        after = json.loads(page.evaluate(PARTITION))
        assert after["x"] != before["x"], "the partition plot did not change"
        assert "time 7" in after["title"]

        # run a fit from the UI: another seed, then Run; wait for it to finish
        seed = page.locator(".widget-text:has(.widget-label:text-is('seed')) input")
        seed.fill("7")
        seed.press("Enter")
        page.get_by_role("button", name=re.compile(r"Run$")).click()
        page.wait_for_function(
            "() => [...document.querySelectorAll('.ercot-nb-message')]"
            ".some(n => n.textContent.includes('ERCOT #2 finished 10 of 10 steps'))",
            timeout=60_000,
        )
        page.wait_for_function(  # the new run is the one shown ("show run")
            "() => [...document.querySelectorAll('select')].some(s => s.value === 'ERCOT #2')",
            timeout=10_000,
        )
        # the partition followed the run to its last step (plotly.js may still be drawing
        # the queued updates when the message arrives, so wait for it)
        page.wait_for_function(
            "() => document.querySelector('.js-plotly-plot .gtitle')?.textContent"
            ".includes('ERCOT partition at time 10')", timeout=30_000,
        )
        assert page.evaluate(TIME_LABEL) == "10"  # and so did the scrubber (shown once)
    finally:
        page.screenshot(path=str(shot), full_page=True)  # end state, or the failure
    elapsed = time.monotonic() - started
    with capsys.disabled():
        print(f"\nbrowser test: {elapsed:.1f} s; screenshot: {shot}")
    assert not console_errors, f"errors in the page console: {console_errors[:3]}"
    assert shot.stat().st_size > 10_000


# -- the flow of issue 10: every kind of data, one after another, in one page --------------------

STATUS = """() => [...document.querySelectorAll('.ercot-nb-message')].map(n => n.textContent)
    .filter(t => t).join(' | ')"""


def _tab(page, title: str) -> None:
    """Open the side panel's tab whose title contains ``title`` ("Data", "Parameters", "How sure?")."""
    page.locator(".lm-TabBar-tab", has_text=title).first.click()


def _field(page, label: str, kind: str = "input"):
    return page.locator(f".widget-inline-hbox:has(> .widget-label:text-is('{label}')) {kind}").first


def _fill(page, label: str, value) -> None:
    box = _field(page, label)
    box.fill(str(value))
    box.press("Enter")


def _wait_status(page, text: str, timeout: float = 90_000) -> None:
    page.wait_for_function(
        f"() => ({STATUS})().includes({json.dumps(text)})", timeout=timeout)


def _partition_follows_the_slider(page, name: str) -> dict:
    """The visible partition (or segmentation) plot's title names the slider's time."""
    label = page.evaluate(TIME_LABEL)
    page.wait_for_function(
        f"() => {{ const p = ({PARTITION})(); return p.includes({json.dumps('time ' + label)}); }}",
        timeout=30_000)
    shown = json.loads(page.evaluate(PARTITION))
    assert shown["title"].startswith(name), shown["title"]
    return shown


def _choose(page, name: str, **entries) -> None:
    _tab(page, "Data")
    _field(page, "scenario", "select").select_option(name)
    _wait_status(page, f"Loaded the built-in scenario {name}.")
    if entries:
        for label, value in entries.items():
            _fill(page, label.replace("_", " "), value)
        page.get_by_role("button", name="Load scenario").click()
        page.wait_for_timeout(300)
        _wait_status(page, f"Loaded the built-in scenario {name}.")


def _run(page, name: str) -> dict:
    page.get_by_role("button", name=re.compile(r"Run$")).click()
    _wait_status(page, "finished", timeout=180_000)
    return _partition_follows_the_slider(page, name)


def test_the_issue_10_flow_in_chromium(app_url, browser_context, console_errors, tmp_path, shot, capsys):
    started = time.monotonic()
    csv = tmp_path / "walks.csv"
    rows = ["day,who,x,y"] + [f"{t},s{i},{(i % 2) * 4 + 0.1 * t},{0.2 * i}"
                              for t in range(1, 4) for i in range(12)]
    csv.write_text("\n".join(rows) + "\n")
    context = browser_context(height=2300)
    page = open_app(context, app_url)
    try:
        _wait_status(page, "finished")
        _partition_follows_the_slider(page, "syn3")
        _tab(page, "Parameters")
        _fill(page, "population size", 20)  # small budgets: the flow is about the UI
        _fill(page, "evaluations per step", 40)

        _choose(page, "video_mo", frame_scale=0.25, frames=3)
        _run(page, "video_mo")
        _choose(page, "syn1")
        before = _run(page, "syn1")
        handle = page.locator(".widget-slider .noUi-handle").first
        handle.focus()
        for _ in range(3):
            handle.press("ArrowLeft")
        page.wait_for_function(f"() => ({TIME_LABEL})() === '7'", timeout=30_000)
        after = _partition_follows_the_slider(page, "syn1")  # was frozen after a video
        assert after["x"] != before["x"]
        _choose(page, "bird_flocks")
        _run(page, "bird_flocks")
        _choose(page, "gapminder")
        _run(page, "gapminder")
        page.get_by_role("button", name="CSV file").click()
        with page.expect_file_chooser() as chooser:  # the upload button opens a file dialog
            page.locator(".widget-upload").first.click()
        chooser.value.set_files(str(csv))
        _wait_status(page, "Choose the id column")
        _field(page, "id column", "select").select_option("who")
        page.get_by_role("button", name="Load CSV").click()
        _wait_status(page, "Loaded walks.csv")
        assert "Ground-truth labels: none" in page.evaluate(STATUS)
        _run(page, "walks")
    finally:
        page.screenshot(path=str(shot), full_page=True)  # end state, or the failure
    elapsed = time.monotonic() - started
    with capsys.disabled():
        print(f"\nissue-10 flow in the browser: {elapsed:.1f} s; screenshot: {shot}")
    assert not console_errors, f"errors in the page console: {console_errors[:3]}"


# -- issue 22: data switched while a run goes on -----------------------------------------------------

PROGRESS = """() => [...document.querySelectorAll('.ercot-nb-progress-text')].map(n => n.textContent)
    .find(t => /^\\d+\\/\\d+( ·|$)/.test(t)) ?? ''"""

TITLES = """() => JSON.stringify([...document.querySelectorAll('.js-plotly-plot')]
    .filter(p => p.offsetParent !== null).map(p => p.querySelector('.gtitle')?.textContent ?? ''))"""


def test_data_switched_during_a_run_in_chromium(app_url, browser_context, console_errors, shot, capsys):
    """syn3, then video_mo and Run, syn1 a second later, Run: nothing of the dropped run is left."""
    started = time.monotonic()
    context = browser_context(height=2300)
    page = open_app(context, app_url)
    try:
        _wait_status(page, "finished")
        _choose(page, "video_mo")  # its default size: a step takes about a second or more
        page.get_by_role("button", name=re.compile(r"Run$")).click()
        _wait_status(page, "running on video_mo")
        page.wait_for_timeout(1000)
        _choose(page, "syn1")
        _wait_status(page, "was stopped and dropped")
        status = page.evaluate(STATUS)
        assert "The run of ERCOT #2 on video_mo" in status, status
        assert page.evaluate(PROGRESS) == "", page.evaluate(PROGRESS)  # the dropped run's steps are gone
        page.get_by_role("button", name="Load scenario").click()  # and Load, as in the report
        page.wait_for_timeout(300)
        status = page.evaluate(STATUS)  # the note stays while the dropped run ends its step
        assert status.startswith("Loaded the built-in scenario syn1."), status
        assert "on syn1 was" not in status and page.evaluate(PROGRESS) == "", status
        page.wait_for_function(  # the dropped run ends after its current step
            "() => !document.querySelector('.widget-button.mod-success').disabled", timeout=120_000)
        _run(page, "syn1")  # the partition plot's title names syn1 at the slider's time
        titles = json.loads(page.evaluate(TITLES))
        assert titles[0].startswith("syn1: ERCOT partition at time 10"), titles
        assert any(title.endswith("on syn1") for title in titles), titles
        assert page.evaluate(PROGRESS).startswith("10/10 ·"), page.evaluate(PROGRESS)
    finally:
        page.screenshot(path=str(shot), full_page=True)  # end state, or the failure
    elapsed = time.monotonic() - started
    with capsys.disabled():
        print(f"\nswitch during a run in the browser: {elapsed:.1f} s; screenshot: {shot}")
    assert not console_errors, f"errors in the page console: {console_errors[:3]}"
