"""The Explorer by keyboard and screen reader, and a clean console (issue 36, items 4 and 5).

One `ercot-nb app` page for the module; its tests run in order on it, as one user would:
Tab reaches the time slider, the arrow keys move it (time label, partition title and the
value a screen reader reads follow), Space and Enter press the Play widget's buttons,
every control has a name made of words, and the console logged no warning or error all along
(Voila's JupyterLab packages satisfy the widgets' lab extensions: no "Unsatisfied version").
"""
from __future__ import annotations

import contextlib
import json
import re

import pytest

from .app_harness import app_server, chromium, open_app
from .test_voila_explorer import PARTITION, TIME_LABEL, _tab, _wait_status

pytestmark = pytest.mark.slow

SLIDER = ".ercot-nb-scrubber [role=slider]"
FOCUSED = """() => { const e = document.activeElement;
    return e ? (e.getAttribute('aria-label') || e.textContent.trim()) + ' ' + (e.getAttribute('role') || e.tagName)
             : null; }"""
# controls a screen reader lists (roles in playwright's ARIA snapshot), with their names
CONTROL = re.compile(r'^\s*- (button|slider|combobox|checkbox|spinbutton|textbox|tab|radio|switch)\b'
                     r'(?: "((?:[^"\\]|\\.)*)")?')
CODE_NAME = re.compile(r"^\W*[a-z0-9]+(?:_[a-z0-9]+)+\W*$")  # a parameter's code name: n_clusters
ICONS = re.compile(r"[\s\uf000-\uf8ff]")  # blanks and icon-font glyphs name nothing


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """(page, console): the Explorer on syn3 after its first run, and every warning/error it logs."""
    tmp_path = tmp_path_factory.mktemp("keyboard")
    console: list[str] = []
    with contextlib.ExitStack() as stack:
        _, port, _ = stack.enter_context(app_server([], tmp_path))
        context = stack.enter_context(chromium(tmp_path, height=900))
        page = context.pages[0] if context.pages else context.new_page()
        page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}")
                if msg.type in ("warning", "error") else None)
        page.on("pageerror", lambda exc: console.append(f"pageerror: {exc}"))
        page = open_app(context, f"http://127.0.0.1:{port}/")
        _wait_status(page, "finished", timeout=180_000)
        yield page, console


def _time(page) -> str:
    return page.evaluate(TIME_LABEL)


def _shows_time(page, label: str) -> None:
    """Wait until the time label, the partition's title and the slider's read-out value say ``label``."""
    page.wait_for_function(
        f"""() => ({TIME_LABEL})() === {json.dumps(label)}
            && JSON.parse(({PARTITION})()).title.includes({json.dumps(f'at time {label} (')})
            && document.querySelector({json.dumps(SLIDER)}).getAttribute('aria-valuetext')
               === {json.dumps(f'time {label}')}""", timeout=30_000)


def test_tab_reaches_the_slider_and_arrows_move_the_time(session):
    page, _ = session
    page.locator(".widget-button", has_text=re.compile(r"^\W*Run$")).first.focus()
    path = []
    for _ in range(40):  # the Data tab's form lies between Run and the slider
        page.keyboard.press("Tab")
        path.append(page.evaluate(FOCUSED))
        if page.evaluate(f"() => document.activeElement?.matches({json.dumps(SLIDER)})"):
            break
    else:
        pytest.fail(f"40 Tabs from Run never reached the time slider: {path}")
    assert path[-3:-1] == ["play or pause the steps BUTTON",
                           "stop playing and go back to the first step BUTTON"], path
    last = _time(page)  # the run's last step: the slider followed the run
    _shows_time(page, last)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    _shows_time(page, str(int(last) - 2))
    page.keyboard.press("ArrowRight")
    _shows_time(page, str(int(last) - 1))
    page.keyboard.press("Home")
    _shows_time(page, "1")


def test_space_and_enter_press_the_play_buttons(session):
    page, _ = session
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert page.evaluate(FOCUSED) == "play or pause the steps BUTTON"
    page.keyboard.press("Space")  # play: the steps advance by themselves
    page.wait_for_function(f"() => ({TIME_LABEL})() !== '1'", timeout=30_000)
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED) == "stop playing and go back to the first step BUTTON"
    page.keyboard.press("Enter")  # stop: back to the first step
    _shows_time(page, "1")


def _unnamed(page) -> list[str]:
    found = []
    for line in page.locator("body").aria_snapshot().splitlines():
        control = CONTROL.match(line)
        if control and (not ICONS.sub("", control.group(2) or "")
                        or CODE_NAME.match(control.group(2))):
            found.append(line.strip())
    return found


def test_every_control_has_a_name_in_words(session):
    page, _ = session
    assert _unnamed(page) == [], "controls a screen reader cannot name (Data tab)"
    _tab(page, "Parameters")
    page.get_by_text("more parameters").first.click()
    page.wait_for_timeout(300)
    assert _unnamed(page) == [], "controls a screen reader cannot name (Parameters tab)"
    for title in ("How sure?", "Movie"):
        _tab(page, title)
        page.wait_for_timeout(300)
        assert _unnamed(page) == [], f"controls a screen reader cannot name ({title} tab)"
    _tab(page, "Data")


def test_the_console_stayed_clean(session):
    _, console = session
    assert console == [], f"{len(console)} warnings/errors in the page console: {console[:4]}"
