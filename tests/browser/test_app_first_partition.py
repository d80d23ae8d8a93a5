"""A fresh install's first fit: the page answers Stop while the numba kernels compile.

`ercot-nb app` with an empty numba cache (NUMBA_CACHE_DIR a fresh folder), as a new user
starts it.  That the page shows at once and its first partition within seconds (a
provisional first step while the kernels compile) is checked on the installed wheel
(tests/browser/test_app_wheel.py, with tests/browser/first_page.py); run as a script, this
module times it from the checkout:
``python -m tests.browser.test_app_first_partition OUT_DIR [CHECKOUT]``.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from .app_harness import EXPLORER_READY, app_server, chromium, scratch_env
from .first_page import SEEN, first_partition_timings


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


if __name__ == "__main__":  # python -m tests.browser.test_app_first_partition OUT_DIR [CHECKOUT]
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    checkout = Path(sys.argv[2]).resolve() if len(sys.argv) > 2 else None  # the app of another checkout
    server_env = scratch_env(out, **({"PYTHONPATH": str(checkout)} if checkout else {}))
    print(json.dumps(first_partition_timings(out, out / "first-partition.png", env=server_env, cwd=checkout)))
