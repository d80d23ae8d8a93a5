"""The Explorer app in a real browser: `ercot-nb app` (Voila) driven by headless Chromium.

Catches what headless kernels cannot: figures rendered from the synced
widget state (Voila renders after every cell ran), the Play/slider link in
the page, clicks reaching the kernel, and live updates from the fit thread.
Uses Debian's Chromium through the `playwright` package (never
`playwright install`), with a scratch HOME and TMPDIR.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="Debian's chromium is not installed at /usr/bin/chromium (.ci/run installs it)",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"ercot-nb app exited with code {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"Voila did not listen on port {port} within {timeout} s")


@pytest.fixture
def scratch(tmp_path: Path) -> dict[str, Path]:
    paths = {name: tmp_path / name for name in ("home", "tmp", "profile")}
    for path in paths.values():
        path.mkdir()
    paths["log"] = tmp_path / "voila.log"
    paths["shot"] = tmp_path / "explorer.png"
    return paths


@pytest.fixture
def app_url(scratch):
    """`ercot-nb app` on a free port of 127.0.0.1, stopped (its process group) afterwards."""
    port = free_port()
    env = {**os.environ, "HOME": str(scratch["home"]), "TMPDIR": str(scratch["tmp"])}
    with open(scratch["log"], "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "ercot_nb.cli", "app", "--port", str(port), "--no-browser"],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        wait_for_port(port, process, timeout=60)
        yield f"http://127.0.0.1:{port}/"
    finally:
        os.killpg(process.pid, signal.SIGTERM)  # the launcher and the Voila it started
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


PARTITION = """() => {
    const plot = document.querySelectorAll('.js-plotly-plot')[0];
    return JSON.stringify({title: plot.querySelector('.gtitle')?.textContent ?? '',
                           x: (plot.data || []).map(trace => Array.from(trace.x || []))});
}"""


def test_explorer_in_chromium(app_url, scratch, capsys):
    from playwright.sync_api import sync_playwright

    started = time.monotonic()
    errors: list[str] = []
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(scratch["profile"]), executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport={"width": 1300, "height": 2200},
        )
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(app_url, wait_until="domcontentloaded", timeout=75_000)
            # Voila runs the notebook (imports and a first fit) before the page renders
            page.wait_for_function(
                "() => document.querySelectorAll('.js-plotly-plot').length === 5",
                timeout=75_000,
            )
            page.wait_for_function(
                "() => document.querySelector('.js-plotly-plot .gtitle')?.textContent"
                ".includes('ERCOT partition at time 10')", timeout=30_000,
            )
            titles = page.eval_on_selector_all(
                ".js-plotly-plot .gtitle", "nodes => nodes.map(n => n.textContent)")
            assert any("final population" in t for t in titles)
            assert any("cluster flow" in t for t in titles)
            before = json.loads(page.evaluate(PARTITION))
            assert sum(len(x) for x in before["x"]) >= 200  # every sample drawn

            # move the scrubber three steps back with the keyboard
            handle = page.locator(".widget-slider .noUi-handle").first
            handle.focus()
            for _ in range(3):
                handle.press("ArrowLeft")
            page.wait_for_function(
                "() => document.querySelector('.js-plotly-plot .gtitle')?.textContent"
                ".includes('(step 6,')", timeout=20_000,
            )
            after = json.loads(page.evaluate(PARTITION))
            assert after["x"] != before["x"], "the partition plot did not change"
            assert "time 7" in after["title"]

            # run a fit from the UI: another seed, then Run; wait for it to finish
            seed = page.locator(".widget-text:has(.widget-label:text-is('seed')) input")
            seed.fill("7")
            seed.press("Enter")
            page.get_by_role("button", name="Run").click()
            page.wait_for_function(
                "() => [...document.querySelectorAll('.ercot-nb-message')]"
                ".some(n => n.textContent.includes('ERCOT finished 10 of 10 steps'))",
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
            assert page.evaluate(
                "() => [...document.querySelectorAll('.widget-readout')].map(n => n.textContent)"
            )[0] == "9"  # and so did the scrubber
            page.screenshot(path=str(scratch["shot"]), full_page=True)
        finally:
            context.close()
    elapsed = time.monotonic() - started
    with capsys.disabled():
        print(f"\nbrowser test: {elapsed:.1f} s; screenshot: {scratch['shot']}")
    assert not errors, f"JavaScript errors in the page: {errors[:3]}"
    assert scratch["shot"].stat().st_size > 10_000
