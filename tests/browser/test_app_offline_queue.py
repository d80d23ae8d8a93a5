"""`ercot-nb app` pages contact nobody but the server, and a class at once is queued in words.

* Every request of the page (its CSS, scripts, fonts, websockets) goes to 127.0.0.1, with
  every other request blocked and recorded, and the console shows no error: an offline
  classroom sees the same page (Voila's lab template linked Font Awesome from a CDN).
* Pages opened at once beyond ``--max-starting`` get a page saying their place in the
  queue, which opens the app by itself.
"""
from __future__ import annotations

import contextlib

import nbformat
import pytest
from playwright.sync_api import Error as PlaywrightError

from .app_harness import app_server, block_outside, chromium, record_errors, tiny_notebook

pytestmark = pytest.mark.browser


def test_the_app_page_requests_only_its_own_server_and_logs_no_error(tmp_path):
    notebook = tiny_notebook(tmp_path)
    outside: list[str] = []
    errors: list[str] = []
    with app_server(["--notebook", str(notebook)], tmp_path) as (_, port, _log), chromium(tmp_path) as context:
        block_outside(context, outside)
        page = context.new_page()
        record_errors(page, errors)
        failed: list[str] = []
        page.on("requestfailed", lambda request: failed.append(request.url))
        page.goto(f"http://127.0.0.1:{port}/", timeout=120_000)
        page.wait_for_selector("text=tiny app ready", timeout=120_000)
        page.wait_for_timeout(1000)
        html = page.content()
    assert outside == [], outside
    assert failed == [], failed
    assert errors == [], errors
    assert "cdn." not in html


def test_pages_opened_at_once_are_told_their_place_and_all_open(tmp_path):
    notebook = tiny_notebook(tmp_path)
    slow = nbformat.read(notebook, as_version=4)
    slow.cells.insert(0, nbformat.v4.new_code_cell("import time\ntime.sleep(4)"))
    nbformat.write(slow, notebook)
    with app_server(["--notebook", str(notebook), "--max-starting", "1"], tmp_path) as (_, port, _log), \
            chromium(tmp_path) as context:
        pages = [context.new_page() for _ in range(3)]
        told: list[str] = []
        url = f"http://127.0.0.1:{port}/"
        pages[0].goto(url, wait_until="commit", timeout=120_000)  # starting: its notebook sleeps 4 s
        for page in pages[1:]:  # opened meanwhile: each told its place at once
            page.goto(url, wait_until="domcontentloaded", timeout=120_000)
            with contextlib.suppress(PlaywrightError):  # unless it reloaded itself already
                told.append(page.inner_text("body", timeout=1000))
        for page in pages:
            page.wait_for_selector("text=tiny app ready", timeout=120_000)
    assert told, "no page was told to wait, with one page starting at a time"
    assert any("You are number 1 in the queue" in text for text in told), told
    assert all("in the queue" in text and "opens here by itself" in text for text in told), told
