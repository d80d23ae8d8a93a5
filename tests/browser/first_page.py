"""What a new user's first page shows, and when: the timings of a fresh install's first Explorer page.

Used by the wheel's test (tests/browser/test_app_wheel.py: the installed wheel, an empty numba
cache) and, as a benchmark, from a checkout: ``python -m tests.browser.test_app_first_partition OUT``.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .app_harness import BUNDLE_LOADS, EXPLORER_PLOTS, app_server, chromium, kernel_cpu, scratch_env

SEEN = """() => JSON.stringify({
    plots: document.querySelectorAll('.js-plotly-plot').length,
    title: document.querySelector('.js-plotly-plot .gtitle')?.textContent ?? '',
    status: [...document.querySelectorAll('.ercot-nb-message')].map(n => n.textContent).join(' '),
})"""
"""What the page shows: how many figures, the partition's title, the status lines."""


def first_partition_timings(tmp_path: Path, shot: Path, timeout: float = 400.0,
                            env: dict[str, str] | None = None, cwd: Path | None = None,
                            python: str = sys.executable, empty_cache: bool = True) -> dict:
    """Seconds from opening the page of `ercot-nb app` until each event, with an empty numba cache.

    ``page``: every view of the Explorer drawn; ``preview``: a provisional first partition drawn;
    ``first step``: the run's own first partition; ``finished``: the run finished; plus what the
    page shows then (``preview status``, ``final title``) and how it loaded plotly's bundle
    (:data:`~tests.browser.app_harness.BUNDLE_LOADS`), and the path of the server's log
    (``server log``).  ``empty_cache``: NUMBA_CACHE_DIR is a new folder (False: numba's own
    place, e.g. next to a freshly installed package).
    """
    env = dict(env or scratch_env(tmp_path))
    if empty_cache:
        cache = tmp_path / "numba-cache"
        cache.mkdir()
        env["NUMBA_CACHE_DIR"] = str(cache)
    timings: dict = {}
    trace: list[tuple[float, dict]] = []  # what the page showed, at each change
    with app_server([], tmp_path, env=env, cwd=cwd, python=python) as (launcher, port, log), \
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
    timings["server log"] = str(log)
    return timings


def check_first_page(timings: dict) -> None:
    """A new user's first page: the views and a preview first, the run's own steps after, to time 10.

    The page may draw its views and the preview in one poll of 0.1 s; plotly's bundle (about 1 s
    to evaluate on two cores) is fetched once, from the app server, while the kernel still runs
    the notebook.
    """
    assert "finished" in timings and "preview" in timings, timings
    assert timings["page"] <= timings["preview"] < timings["first step"] <= timings["finished"], timings
    assert timings["preview status"] is True, "the status line does not say the step is a preview"
    assert "preview" not in timings["final title"] and "at time 10" in timings["final title"], timings
    assert timings["bundle fetches"] == 1 and timings["bundle from the page origin"] is True, timings
    assert timings["bundle requested"] < timings["HTML ended"], timings
