"""A fresh install's first page: the Explorer shows at once and its first partition within seconds.

`ercot-nb app` with an empty numba cache (NUMBA_CACHE_DIR a fresh folder), as a new user
starts it: the page must not wait for the first fit (the app notebook starts it in the
background), and while the numba kernels compile the partition view shows a provisional
first step ("ERCOT (preview) partition ...") that the real run then replaces.
"""
from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

from .app_harness import (BUNDLE_LOADS, EXPLORER_PLOTS, EXPLORER_READY, app_server, chromium, kernel_cpu,
                          scratch_env)


SEEN = """() => JSON.stringify({
    plots: document.querySelectorAll('.js-plotly-plot').length,
    title: document.querySelector('.js-plotly-plot .gtitle')?.textContent ?? '',
    status: [...document.querySelectorAll('.ercot-nb-message')].map(n => n.textContent).join(' '),
})"""


def first_partition_timings(tmp_path: Path, shot: Path, timeout: float = 400.0,
                            env: dict[str, str] | None = None, cwd: Path | None = None) -> dict[str, float]:
    """Seconds from opening the page until each event, with an empty numba cache.

    ``page``: every view of the Explorer drawn; ``preview``: a provisional first partition drawn;
    ``first step``: the run's own first partition; ``finished``: the run finished.
    """
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = {**(env or scratch_env(tmp_path)), "NUMBA_CACHE_DIR": str(cache)}
    timings: dict[str, float] = {}
    trace: list[tuple[float, dict]] = []  # what the page showed, at each change
    with app_server([], tmp_path, env=env, cwd=cwd) as (launcher, port, _log), \
            chromium(tmp_path, height=1600) as context:
        page = context.new_page()
        started = time.monotonic()
        page.goto(f"http://127.0.0.1:{port}/", wait_until="domcontentloaded", timeout=timeout * 1000)
        timings["page opened"] = time.monotonic() - started
        try:
            while time.monotonic() - started < timeout:
                seen = json.loads(page.evaluate(SEEN))
                now = round(time.monotonic() - started, 1)
                if not trace or trace[-1][1] != seen:
                    trace.append((now, seen))
                if seen["plots"] == EXPLORER_PLOTS:
                    timings.setdefault("page", now)
                if "(preview) partition" in seen["title"]:
                    if "preview" not in timings:
                        page.screenshot(path=str(shot.with_name(shot.stem + "-preview.png")))
                    timings.setdefault("preview", now)
                    timings.setdefault("kernel CPU s at preview", kernel_cpu(launcher))  # not inflated by load
                    timings.setdefault("preview status", "while the fast kernels compile" in seen["status"])
                elif "ERCOT partition" in seen["title"]:
                    timings.setdefault("first step", now)
                if "finished" in seen["status"]:
                    timings.setdefault("finished", now)
                    if seen["plots"] == EXPLORER_PLOTS and "ERCOT partition" in seen["title"]:
                        timings["final title"] = seen["title"]
                        break
                page.wait_for_timeout(100)
            timings.update(json.loads(page.evaluate(BUNDLE_LOADS)))
        finally:
            page.screenshot(path=str(shot), full_page=True)
            shot.with_suffix(".trace.json").write_text(json.dumps(trace, indent=1))
    return timings




@pytest.mark.slow
def test_fresh_install_shows_the_page_and_a_first_partition_before_the_kernels_compile(tmp_path, capsys):
    shot = tmp_path / "first-partition.png"
    timings = first_partition_timings(tmp_path, shot)
    with capsys.disabled():
        print(f"\nfirst partition, empty numba cache (load {os.getloadavg()}): {timings}; "
              f"screenshots {shot.parent}")
    assert "finished" in timings and "preview" in timings, timings
    # the page and a first partition come before the run's own first step (the page may draw
    # its views and the preview in one poll of 0.1 s)
    assert timings["page"] <= timings["preview"] < timings["first step"] <= timings["finished"], timings
    assert timings["preview status"] is True, "the status line does not say the step is a preview"
    assert "preview" not in timings["final title"] and "at time 10" in timings["final title"], timings
    # plotly's bundle (about 1 s to evaluate on two cores) is fetched once, from the app server,
    # while the kernel still runs the notebook
    assert timings["bundle fetches"] == 1 and timings["bundle from the page origin"] is True, timings
    assert timings["bundle requested"] < timings["HTML ended"], timings


if __name__ == "__main__":  # python -m tests.browser.test_app_first_partition OUT_DIR [CHECKOUT]
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    checkout = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else None  # the app of another checkout
    server_env = scratch_env(out, **({"PYTHONPATH": str(checkout)} if checkout else {}))
    print(json.dumps(first_partition_timings(out, out / "first-partition.png", env=server_env, cwd=checkout)))


def test_stop_works_during_the_first_fit(tmp_path, capsys):
    """The app's first fit runs in the background: the page answers Stop while it goes on.

    An empty numba cache makes the first fit last (the kernels compile): Stop is clicked
    while it shows its preview or its first steps.
    """
    shot = tmp_path / "stopped-first-fit.png"
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = scratch_env(tmp_path, NUMBA_CACHE_DIR=str(cache))
    with app_server([], tmp_path, env=env) as (_, port, _log), chromium(tmp_path, height=1600) as context:
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/", wait_until="domcontentloaded", timeout=240_000)
        try:
            page.wait_for_function(
                EXPLORER_READY, timeout=240_000)
            # the first fit starts once the page is drawn: the status line says so a moment later
            page.wait_for_function(
                "() => [...document.querySelectorAll('.ercot-nb-message')]"
                ".some(n => /running|preview/.test(n.textContent))", timeout=30_000)
            page.get_by_role("button", name=re.compile(r"^\W*Stop$")).click(timeout=10_000)
            page.wait_for_function(
                "() => [...document.querySelectorAll('.ercot-nb-message')]"
                ".some(n => n.textContent.includes('stopped after'))", timeout=120_000)
            final = json.loads(page.evaluate(SEEN))
        finally:
            page.screenshot(path=str(shot), full_page=True)
    with capsys.disabled():
        print(f"\nstopped first fit: {final['status']}; screenshot {shot}")
    assert "of 10 steps; those steps are kept" in final["status"]
