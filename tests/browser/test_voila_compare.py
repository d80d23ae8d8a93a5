"""Compare in a real browser: changing the selection, then the data, then running again.

The views of deselected algorithms are hidden, never taken off the page: plotly's front
end keeps a removed view listening to its figure, and the figure's next trace swap then
fails in the page ("indices must be valid indices for gd.data") and the figure's new view
stops following the kernel.
"""
from __future__ import annotations

import json
import time

from .app_harness import open_app
from .test_voila_explorer import STATUS, _field

VISIBLE_TITLES = """() => [...document.querySelectorAll('.js-plotly-plot')]
    .filter(p => p.offsetParent !== null)
    .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top
                    || a.getBoundingClientRect().left - b.getBoundingClientRect().left)
    .map(p => p.querySelector('.gtitle')?.textContent ?? '')"""


def _wait_status(page, text: str, timeout: float = 180_000) -> None:
    page.wait_for_function(f"() => ({STATUS})().includes({json.dumps(text)})", timeout=timeout)


def _visible(page) -> list[str]:
    return page.evaluate(VISIBLE_TITLES)


def _select(page, names: list[str]) -> None:
    page.locator(".widget-select-multiple select").first.select_option(names)


def test_compare_selection_then_data_then_run_in_chromium(app, browser_context, console_errors,
                                                           shot, capsys):
    started = time.monotonic()
    _, port, _ = app(["--app", "compare"])
    context = browser_context(height=2400)
    page = open_app(context, f"http://127.0.0.1:{port}/", plots=3)  # two partitions and the scores
    try:
        _wait_status(page, "Done:")
        _select(page, ["staticEC"])  # ERCOT's view hidden
        page.wait_for_function(f"() => ({VISIBLE_TITLES})().length === 2", timeout=30_000)
        _select(page, ["ERCOT", "staticEC"])  # and shown again
        page.wait_for_function(f"() => ({VISIBLE_TITLES})().length === 3", timeout=30_000)
        _field(page, "scenario", "select").select_option("bird_flocks")  # other data: traces swap
        _wait_status(page, "Loaded the built-in scenario bird_flocks.")
        page.get_by_role("button", name="Run all").click()
        _wait_status(page, "Done: ERCOT")
        page.wait_for_function(
            f"() => ({VISIBLE_TITLES})().filter(t => t.includes('bird_flocks')).length >= 2",
            timeout=30_000)
        titles = _visible(page)
        assert "ERCOT partition" in titles[0] and "staticEC partition" in titles[1], titles
        _select(page, ["staticEC", "ERCOT"])  # the same two: nothing moves
        _select(page, ["staticEC"])
        page.wait_for_function(f"() => ({VISIBLE_TITLES})().length === 2", timeout=30_000)
        assert "staticEC partition" in _visible(page)[0], _visible(page)
    finally:
        page.screenshot(path=str(shot), full_page=True)
    with capsys.disabled():
        print(f"\nCompare flow in the browser: {time.monotonic() - started:.1f} s; screenshot: {shot}")
    assert not console_errors, f"errors in the page console: {console_errors[:3]}"
