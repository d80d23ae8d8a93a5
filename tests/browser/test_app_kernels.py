"""Kernels of `ercot-nb app` are reclaimed, and capped: pages opened and closed in Chromium.

Every page load runs a kernel (~300 MB).  Closing the page must shut it down
(Voila's beforeunload beacon), a page that vanishes without closing (a crashed
browser, a laptop put to sleep) must lose its kernel to the idle culler within
--cull-idle plus the cull interval, and one page more than --max-kernels must
get a page saying its place in the queue, not a kernel.  A page closed while it still opens
(its kernel starting or its notebook running: Voila's page sets up its shutdown beacon only
once the notebook ran) must give its kernel back too.  Pages opened at once beyond
--max-starting are told their place in the starting queue and open by themselves.  Every
request of the app's pages goes to 127.0.0.1 (every other one is blocked and recorded) and
their consoles show no error: an offline classroom sees the same page (Voila's lab template
linked Font Awesome from a CDN).

ERCOT_NB_APP_LOADS=10 makes the lifetime test open 10 pages (default 3), for
the memory measure of the closing note.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import time

from .app_harness import (EXPLORER_READY, app_server, block_outside, chromium, kernels, record_errors,
                          server_process, wait_until)


LOADS = int(os.environ.get("ERCOT_NB_APP_LOADS", "3"))
CULL_IDLE = 20  # seconds; the culler looks every CULL_IDLE // 4 s


def sleepy_notebook(folder):
    """A one-cell app notebook that sleeps ``?sleep=S`` seconds of its page's URL, then shows a widget."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(
        "import os, time, urllib.parse\nimport ipywidgets as W\n"
        "time.sleep(float(urllib.parse.parse_qs(os.environ.get('QUERY_STRING', '')).get('sleep', ['0'])[0]))\n"
        "W.HTML('tiny app ready')")]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / "sleepy.ipynb"
    nbformat.write(notebook, path)
    return path


def mib(process) -> float:
    return round(process.memory_info().rss / 2**20, 1)


def test_closed_and_vanished_pages_give_their_kernels_back(tmp_path, capsys):
    report: dict[str, object] = {}
    with app_server(["--cull-idle", str(CULL_IDLE), "--max-kernels", str(LOADS + 1)], tmp_path) as (
            launcher, port, log):
        url = f"http://127.0.0.1:{port}/"
        server = server_process(launcher)
        count = lambda: len(kernels(server))  # noqa: E731
        report["kernels before"] = count()
        report["server RSS MiB before"] = mib(server)
        with chromium(tmp_path) as context:
            pages, during = [], []
            for _ in range(LOADS):  # one after the other, like students reloading
                page = context.new_page()
                page.goto(url, wait_until="domcontentloaded", timeout=180_000)
                page.wait_for_function(EXPLORER_READY, timeout=240_000)
                pages.append(page)
                during.append(count())
            report["kernels during (after each load)"] = during
            report["kernels RSS MiB during"] = [mib(kernel) for kernel in kernels(server)]
            for page in pages:
                page.close(run_before_unload=True)  # as a browser closes a tab
            report["seconds until closed pages' kernels are gone"] = round(
                wait_until(lambda: count() == report["kernels before"], timeout=30), 1)
            report["kernels after closing"] = count()
            report["server RSS MiB after loads and closes"] = mib(server)

            # a page that goes away without unloading: the culler reclaims its kernel
            page = context.new_page()
            page.goto(url, wait_until="domcontentloaded", timeout=180_000)
            page.wait_for_function(EXPLORER_READY, timeout=240_000)
            report["kernels with one more page"] = count()
            page.close(run_before_unload=False)  # no beforeunload: no shutdown beacon
            report["seconds until the vanished page's kernel is culled"] = round(
                wait_until(lambda: count() == report["kernels before"], timeout=CULL_IDLE * 3), 1)
        report["server RSS MiB at the end"] = mib(server)
        text = log.read_text()
    with capsys.disabled():
        print(f"\n{LOADS} Explorer page loads:\n" + json.dumps(report, indent=1))
    assert report["kernels before"] == 0
    assert during == list(range(1, LOADS + 1))
    assert report["kernels after closing"] == 0
    assert report["kernels with one more page"] == 1
    vanished = re.findall(r"Kernel started: ([0-9a-f-]{36})", text)[-1]
    assert f"Culling 'idle' kernel 'python3' ({vanished})" in text  # the culler reclaimed it
    # a page that vanished mid-message leaves tornado's own note that its socket closed (its
    # websocket wrapper logs WebSocketClosedError/StreamClosedError with a traceback); nothing else
    tracebacks = re.split(r"(?=Traceback \(most recent call last\))", text)[1:]
    ours = [block[:600] for block in tracebacks if not re.search(r"(WebSocket|Stream)ClosedError", block)]
    assert not ours, ours


def test_pages_beyond_the_caps_wait_in_the_queue_open_by_themselves_and_ask_only_the_server(tmp_path):
    notebook = sleepy_notebook(tmp_path)
    outside: list[str] = []
    errors: list[str] = []
    failed: list[str] = []
    with app_server(["--notebook", str(notebook), "--max-kernels", "2", "--max-starting", "1"], tmp_path) as (
            launcher, port, log):
        url = f"http://127.0.0.1:{port}/"
        server = server_process(launcher)
        with chromium(tmp_path) as context:
            block_outside(context, outside)  # an offline classroom: nothing may leave 127.0.0.1
            first, second, third = (context.new_page() for _ in range(3))
            for page in (first, second, third):
                record_errors(page, errors)
            second.on("requestfailed", lambda request: failed.append(request.url))
            # two pages at once, one starting at a time: the second is told its place, then opens
            assert first.goto(url + "?sleep=4", wait_until="commit", timeout=120_000).status == 200
            second.goto(url, wait_until="domcontentloaded", timeout=120_000)
            told = second.inner_text("body", timeout=1000)
            assert "You are number 1 in the queue" in told and "opens here by itself" in told, told
            for page in (first, second):
                page.wait_for_selector("text=tiny app ready", timeout=120_000)
            assert len(kernels(server)) == 2
            asked = []
            third.on("request", lambda request: asked.append(request.url))
            response = third.goto(url, timeout=120_000)
            assert response.status == 503 and response.headers.get("retry-after") == "5"
            assert third.title() == "Server full: you are in the queue"
            told = third.inner_text("[data-ercot-nb-wait]")
            assert "You are number 1 in the queue" in told and "opens here by itself" in told
            time.sleep(6)  # it checks again: still full, still first
            assert "You are number 1" in third.inner_text("[data-ercot-nb-wait]")
            assert len(kernels(server)) == 2  # no kernel started for it
            # a browser's own request (its icon) is no page of the app: it takes no place in the
            # queue (each used to hold one ahead of the students for a minute), and waiting pages ask none
            icon = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            icon.request("GET", "/favicon.ico")
            assert icon.getresponse().status == 302  # Voila's redirect to the file, not a wait page
            assert not [address for address in asked if "favicon" in address], asked
            first.close(run_before_unload=True)  # a student closes a tab: room for one more
            third.wait_for_selector("text=tiny app ready", timeout=120_000)  # no reload by hand
            assert len(kernels(server)) == 2

            # a page closed while its notebook still runs: no beacon yet, and no page will ever
            # connect to its kernel (the culler spares such a kernel for 10 minutes): given back
            third.close(run_before_unload=True)
            wait_until(lambda: len(kernels(server)) == 1, timeout=60)
            fourth = context.new_page()
            assert fourth.goto(url + "?sleep=15", wait_until="commit", timeout=120_000).status == 200
            assert len(kernels(server)) == 2  # its kernel started; its notebook sleeps
            fourth.close(run_before_unload=True)
            wait_until(lambda: len(kernels(server)) == 1, timeout=60)  # only second's is left
            assert "page closed while it opened: shutting its kernel" in log.read_text() or \
                "page closed while its kernel" in log.read_text()
            second.wait_for_selector("text=tiny app ready", timeout=10_000)  # the open page is untouched
            html = second.content()
    assert outside == [], outside
    assert failed == [], failed
    assert errors == [], errors
    assert "cdn." not in html
