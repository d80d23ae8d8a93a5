"""The apps on a 1280×720 laptop screen (issue 36): the first screen holds what a run needs, nothing cut.

At 1280×720, without scrolling, the Explorer shows its partition view, Run, the status
line and the time slider; Compare its Run button, status line, slider and first
partition.  No text of the known boxes runs past its edge (progress text, status line,
tab titles, labels, the "show run" menu's run name).
"""
from __future__ import annotations

import json

import pytest

from .app_harness import kernel_restarts, open_app
from .test_voila_explorer import _wait_status

pytestmark = pytest.mark.slow

LAPTOP = {"width": 1280, "height": 720}
WIDE = {"width": 1920, "height": 1080}

# the boxes of the first screen (the first visible one of each), as rectangles; the partition's
# is what it draws (title, axes, ticks, legend, images), not the blank margin below its x-axis title
FIRST_SCREEN = """(run) => {
    const visible = e => e && e.offsetParent !== null;
    const rect = e => { const r = e.getBoundingClientRect();
                        return {top: r.top, left: r.left, bottom: r.bottom, right: r.right}; };
    const drawn = svg => {
        const rects = [...svg.parentElement.querySelectorAll('.main-svg text, .main-svg .bglayer rect, .main-svg image')]
            .map(e => e.getBoundingClientRect()).filter(r => r.width > 0 && r.height > 0);
        if (!rects.length) return rect(svg);
        return {top: Math.min(...rects.map(r => r.top)), left: Math.min(...rects.map(r => r.left)),
                bottom: Math.max(...rects.map(r => r.bottom)), right: Math.max(...rects.map(r => r.right))};
    };
    const plot = [...document.querySelectorAll('.js-plotly-plot')].filter(visible)[0];
    const button = [...document.querySelectorAll('button')].filter(visible)
        .find(b => b.textContent.trim() === run);
    const status = [...document.querySelectorAll('.ercot-nb-message')].filter(visible)[0];
    const slider = [...document.querySelectorAll('.widget-slider')].filter(visible)[0];
    const wide = [...document.querySelectorAll('.js-plotly-plot')].filter(visible)
        .map(p => [p.querySelector('.gtitle')?.textContent ?? '', p.querySelector('.main-svg')])
        .filter(([, svg]) => svg && svg.getBoundingClientRect().right > innerWidth + 0.5)
        .map(([title, svg]) => title + ' ' + svg.getBoundingClientRect().right);
    return JSON.stringify({partition: plot && drawn(plot.querySelector('.main-svg')), wide,
                           run: button && rect(button), status: status && rect(status),
                           slider: slider && rect(slider),
                           viewport: {width: innerWidth, height: innerHeight}});
}"""

# text past the edge of its box: wrapped boxes (scrollWidth), and select menus, whose
# chosen option is measured with the menu's own font against the room left of the arrow
OVERFLOW = """() => {
    const visible = e => e.offsetParent !== null;
    const cut = [];
    const boxes = '.ercot-nb-progress-text, .ercot-nb-message, .lm-TabBar-tabLabel, ' +
                  '.widget-label, .widget-html-content, .widget-button, .widget-toggle-button';
    for (const e of document.querySelectorAll(boxes)) {
        if (visible(e) && e.scrollWidth > e.clientWidth + 1)
            cut.push(`${e.className}: "${e.textContent.trim().slice(0, 50)}" ${e.scrollWidth} > ${e.clientWidth}`);
    }
    const canvas = document.createElement('canvas').getContext('2d');
    for (const select of document.querySelectorAll('.widget-dropdown select')) {
        if (!visible(select) || select.selectedIndex < 0) continue;
        const style = getComputedStyle(select);
        canvas.font = `${style.fontSize} ${style.fontFamily}`;
        const text = select.options[select.selectedIndex].text;
        const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        if (canvas.measureText(text).width > room)
            cut.push(`select: "${text}" ${canvas.measureText(text).width.toFixed(0)} > ${room}`);
    }
    return cut;
}"""


# the largest blank square (px) in the apps' views column on the screen: what the views and
# their controls leave empty between the column's top and the screen's (or the last view's)
# bottom, on an 8 px grid (a band under a short view beside a tall one, a lone figure in a
# wide row)
BLANK = """(scope) => {
    const visible = e => e.offsetParent !== null;
    const main = [...document.querySelectorAll(scope + ' .ercot-nb-main')].filter(visible)[0];
    if (!main) return -1;
    const m = main.getBoundingClientRect();
    const leaves = '.main-svg, .widget-button, .widget-toggle-buttons, .widget-html, .widget-checkbox, ' +
        '.widget-dropdown, .widget-slider, .widget-play, .widget-label, .ercot-nb-message, img';
    const rects = [...main.querySelectorAll(leaves)].filter(visible).map(e => e.getBoundingClientRect())
        .filter(r => r.width > 0 && r.height > 0);
    const cell = 8, left = m.left, top = Math.max(m.top, 0), right = Math.min(m.right, innerWidth);
    const bottom = Math.min(innerHeight, Math.max(...rects.map(r => r.bottom)));
    const cols = Math.floor((right - left) / cell), rows = Math.floor((bottom - top) / cell);
    if (cols <= 0 || rows <= 0) return 0;
    const full = Array.from({length: rows}, () => new Uint8Array(cols));
    for (const r of rects)
        for (let i = Math.max(0, Math.floor((r.top - top) / cell)); i < Math.min(rows, Math.ceil((r.bottom - top) / cell)); i++)
            for (let j = Math.max(0, Math.floor((r.left - left) / cell)); j < Math.min(cols, Math.ceil((r.right - left) / cell)); j++)
                full[i][j] = 1;
    let best = 0;
    const side = Array.from({length: rows}, () => new Uint16Array(cols));
    for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) if (!full[i][j]) {
        side[i][j] = 1 + (i && j ? Math.min(side[i - 1][j], side[i][j - 1], side[i - 1][j - 1]) : 0);
        best = Math.max(best, side[i][j]);
    }
    return best * cell;
}"""
MAX_BLANK = 200  # px: a blank square this big reads as a hole in the page

# figures whose drawing runs past a box that clips it (overflow other than visible): a
# video's panels cut at the views column's edge, a figure cut by the notebook's output
CLIPPED = """() => [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent !== null)
    .flatMap(p => {
        const svg = p.querySelector('.main-svg');
        if (!svg) return [];
        const r = svg.getBoundingClientRect();
        for (let e = p.parentElement; e && e !== document.body; e = e.parentElement) {
            const style = getComputedStyle(e), b = e.getBoundingClientRect();
            if (style.overflowX === 'visible' || style.display === 'contents') continue;  // no box
            if (r.right > b.right + 0.5 || r.left < b.left - 0.5)
                return [`${p.querySelector('.gtitle')?.textContent ?? ''}: ${r.right.toFixed(0)} > ${b.right.toFixed(0)}`];
        }
        return [];
    })"""


def _check_no_blank_band(page, where: str, scope: str = "") -> None:
    """No blank square of MAX_BLANK px among the views of the app in ``scope`` (a CSS selector; the first app)."""
    page.evaluate("() => window.scrollTo(0, 0)")
    blank = page.evaluate(BLANK, scope)
    assert 0 <= blank < MAX_BLANK, f"a blank {blank}×{blank} px square among the views ({where})"
    assert page.evaluate(CLIPPED) == [], f"a figure cut by the box around it ({where})"


def _inside(box: dict | None, viewport: dict) -> bool:
    return (box is not None and box["top"] >= 0 and box["left"] >= 0
            and box["bottom"] <= viewport["height"] + 0.5 and box["right"] <= viewport["width"] + 0.5)


def _check_first_screen(page, run: str) -> None:
    page.evaluate("() => window.scrollTo(0, 0)")
    screen = json.loads(page.evaluate(FIRST_SCREEN, run))
    viewport = screen.pop("viewport")
    assert viewport == LAPTOP
    assert screen.pop("wide") == [], "a figure runs past the right edge of the window"
    outside = {name: box for name, box in screen.items() if not _inside(box, viewport)}
    assert not outside, f"not on the first 1280×720 screen: {outside}"
    assert page.evaluate(OVERFLOW) == [], "text cut at its box's edge"


@pytest.mark.parametrize("dataset", ["syn3", "video_mo"])
def test_explorer_first_screen_on_a_laptop(dataset, app, browser_context, console_errors, shot):
    _, port, _ = app(["--dataset", dataset])
    context = browser_context(height=720)
    context.pages[0].set_viewport_size(LAPTOP)
    page = open_app(context, f"http://127.0.0.1:{port}/")
    try:
        _wait_status(page, "finished", timeout=180_000)
        page.wait_for_timeout(500)  # the progress text follows the last step
        _check_first_screen(page, "Run")
        _check_no_blank_band(page, "1280×720")
        page.set_viewport_size(WIDE)  # the main views side by side, no blank band
        page.wait_for_timeout(500)
        _check_no_blank_band(page, "1920×1080")
        assert page.evaluate(OVERFLOW) == [], "text cut at 1920×1080"
        page.set_viewport_size(LAPTOP)
        page.wait_for_timeout(300)
        page.locator(".lm-TabBar-tab", has_text="Parameters").first.click()
        page.get_by_text("more parameters").first.click()
        page.wait_for_timeout(300)
        assert page.evaluate(OVERFLOW) == [], "text cut in the algorithm's form"
    finally:
        page.screenshot(path=str(shot))
    assert not console_errors, f"errors in the page console: {console_errors[:3]}"


def test_compare_first_screen_on_a_laptop(app, browser_context, console_errors, shot):
    _, port, _ = app(["--app", "compare"])
    context = browser_context(height=720)
    context.pages[0].set_viewport_size(LAPTOP)
    page = open_app(context, f"http://127.0.0.1:{port}/", plots=3)
    try:
        _check_first_screen(page, "Run all")
        _check_no_blank_band(page, "1280×720")
        page.set_viewport_size(WIDE)
        page.wait_for_timeout(500)
        _check_no_blank_band(page, "1920×1080")
    finally:
        page.screenshot(path=str(shot))
    assert not console_errors, f"errors in the page console: {console_errors[:3]}"


# figures running past the right edge of the notebook (JupyterLab clips them there)
CUT_IN_LAB = """() => {
    const area = document.querySelector('.jp-NotebookPanel-notebook').getBoundingClientRect();
    return [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.offsetParent !== null)
        .map(p => [p.querySelector('.gtitle')?.textContent ?? '',
                   p.querySelector('.main-svg').getBoundingClientRect().right])
        .filter(([, right]) => right > area.right + 0.5)
        .map(([title, right]) => `${title}: ${right.toFixed(0)} > ${area.right.toFixed(0)}`);
}"""


# px left blank below a scaled app (a transform keeps its unscaled height in the page), and its scale
BELOW_SCALED = """(root) => {
    const box = document.querySelector(root), layout = box.firstElementChild;
    const scale = layout.getBoundingClientRect().width / layout.offsetWidth;
    return {scale: +scale.toFixed(3),
            blank: +(box.getBoundingClientRect().bottom - layout.getBoundingClientRect().bottom).toFixed(1)};
}"""
EXPLORER_ROOT, COMPARE_ROOT = ".ercot-nb-explorer-views-root", ".ercot-nb-compare-root"


def _check_not_below(page, root: str, where: str) -> None:
    below = page.evaluate(BELOW_SCALED, root)
    assert below["blank"] < 2, f"{below['blank']} px blank below {root} drawn at {below['scale']} ({where})"


def test_apps_in_jupyterlab_on_a_laptop(tmp_path, browser_context, console_errors, shot):
    """In JupyterLab beside its file browser, the Explorer's views wrap below the side panel
    rather than running past the output area's edge (where JupyterLab cuts them); what a
    student sees without scrolling holds the partition, Run, the status line and the slider;
    Compare (a second cell) fills its area, and no scaled app leaves a blank below itself."""
    from .front_ends import COMPARE_CELL, LAB_CELL, explorer_server, open_explorer

    with explorer_server("lab", tmp_path, cells=(LAB_CELL, COMPARE_CELL)) as url:
        context = browser_context(height=720)
        context.pages[0].set_viewport_size(LAPTOP)
        page = open_explorer(context, url, "lab")
        try:
            _wait_status(page, "finished", timeout=180_000)
            page.wait_for_timeout(500)
            assert page.evaluate(CUT_IN_LAB) == [], "figures cut at the notebook's right edge"
            assert page.evaluate(OVERFLOW) == [], "text cut at its box's edge"
            # as the notebook shows it after the cell ran, unscrolled: the partition, Run, the
            # status line and the slider on one screen beside the file browser
            assert page.evaluate("() => document.querySelector('.jp-FileBrowser').offsetParent !== null")
            screen = json.loads(page.evaluate(FIRST_SCREEN, "Run"))
            area = page.evaluate("""() => { const r = document.querySelector('.jp-WindowedPanel-outer, '
                + '.jp-NotebookPanel-notebook').getBoundingClientRect();
                return {top: r.top, left: r.left, bottom: r.bottom, right: r.right}; }""")
            screen.pop("viewport"), screen.pop("wide")
            outside = {name: box for name, box in screen.items()
                       if box is None or box["top"] < area["top"] - 0.5 or box["bottom"] > area["bottom"] + 0.5
                       or box["left"] < area["left"] - 0.5 or box["right"] > area["right"] + 0.5}
            assert not outside, f"not on the notebook's screen {area}: {outside}"
            _check_no_blank_band(page, "JupyterLab 1280×720", EXPLORER_ROOT)
            _check_not_below(page, EXPLORER_ROOT, "JupyterLab 1280×720")

            # Compare, run in the second cell, scrolled into view
            page.locator(".jp-Notebook .jp-Cell .cm-content").nth(1).click()
            page.keyboard.press("Control+Enter")
            page.wait_for_selector(f"{COMPARE_ROOT} .js-plotly-plot", timeout=240_000)
            page.wait_for_function(f"() => document.querySelectorAll('{COMPARE_ROOT} .js-plotly-plot').length === 3",
                                   timeout=240_000)
            for size, where in ((LAPTOP, "1280×720"), (WIDE, "1920×1080")):
                page.set_viewport_size(size)
                page.wait_for_timeout(500)
                page.evaluate(f"() => document.querySelector('{COMPARE_ROOT} .ercot-nb-main')"
                              ".scrollIntoView({block: 'start'})")
                page.wait_for_timeout(300)
                assert page.evaluate(CUT_IN_LAB) == [], f"figures cut at the notebook's right edge at {where}"
                _check_no_blank_band(page, f"Compare in JupyterLab {where}", COMPARE_ROOT)
                _check_not_below(page, COMPARE_ROOT, f"Compare in JupyterLab {where}")
            # the Explorer at 1920: the main views side by side beside the file browser too
            page.evaluate(f"() => document.querySelector('{EXPLORER_ROOT} .ercot-nb-main')"
                          ".scrollIntoView({block: 'start'})")
            page.wait_for_timeout(300)
            assert page.evaluate(OVERFLOW) == [], "text cut at its box's edge at 1920"
            _check_no_blank_band(page, "JupyterLab 1920×1080", EXPLORER_ROOT)
            _check_not_below(page, EXPLORER_ROOT, "JupyterLab 1920×1080")
            # while the server runs (stopped with the page open, JupyterLab warns that its kernel's
            # websocket closed)
            logged = list(console_errors)
        finally:
            page.screenshot(path=str(shot))
    assert not logged, f"console errors or warnings in JupyterLab: {logged[:3]}"
    assert not kernel_restarts(tmp_path), kernel_restarts(tmp_path)
