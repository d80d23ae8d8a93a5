"""CSV uploads in the Explorer app, in Chromium: what the picker promises arrives (issue 22).

A file above about 10 MiB did nothing: tornado's default websocket message
limit closed the connection and the page reconnected, without a word.  Now
`ercot-nb app` lets 50 MiB through, and the upload button refuses a larger
file in the browser, before sending it, with a message.
"""
from __future__ import annotations

import time

from .app_harness import open_app
from .test_voila_explorer import STATUS, _field, _wait_status


def padded_csv(path, size: int, n_steps: int = 20, n_ids: int = 300) -> int:
    """A long-format CSV of about ``size`` bytes: two blobs, padded by a text column (not a feature)."""
    n_rows = n_steps * n_ids
    header = "day,who,x,y,note\n"
    pad = max(1, (size - len(header)) // n_rows - 30)
    with open(path, "w") as out:
        out.write(header)
        for t in range(n_steps):
            for i in range(n_ids):
                out.write(f"{t + 1},s{i},{(i % 2) * 4 + 0.01 * t:.3f},{0.001 * i:.3f},{'n' * pad}\n")
    return path.stat().st_size


def upload(page, path) -> None:
    with page.expect_file_chooser(timeout=30_000) as chooser:
        page.locator(".widget-upload").first.click()
    chooser.value.set_files(str(path))


def test_a_30_mib_csv_loads_and_a_60_mib_one_is_refused_before_sending(
        app, browser_context, console_errors, tmp_path, capsys):
    big, huge = tmp_path / "big.csv", tmp_path / "huge.csv"
    big_size = padded_csv(big, 30 * 2**20)
    huge_size = padded_csv(huge, 60 * 2**20)
    shot = tmp_path / "upload.png"
    timings = {}
    _, port, log = app()
    context = browser_context(height=2300)
    page = open_app(context, f"http://127.0.0.1:{port}/")
    try:
        assert "to_html" not in page.inner_text("body")  # nothing a Voila user cannot act on
        untitled = page.evaluate(
            "() => [...document.querySelectorAll('[title=\"null\"]')].map(e => e.textContent.trim())")
        picker = {"scenario", "data seed", "Load scenario", "Choose CSV file", "time column",
                  "id column", "label column", "features", "scaling", "Load CSV"}
        assert not picker & set(untitled), untitled  # the upload button had title="null"
        page.get_by_role("button", name="CSV file").first.click()
        started = time.monotonic()
        upload(page, big)
        _wait_status(page, "Read big.csv: 6000 rows", timeout=180_000)
        timings["30 MiB read"] = time.monotonic() - started
        _field(page, "id column", "select").select_option("who")
        page.get_by_role("button", name="Load CSV").first.click()
        _wait_status(page, "Loaded big.csv", timeout=180_000)
        timings["loaded"] = time.monotonic() - started
        upload(page, huge)
        _wait_status(page, "the limit is 50.0 MiB", timeout=30_000)
        status = page.evaluate(STATUS)
    finally:
        page.screenshot(path=str(shot), full_page=True)
    with capsys.disabled():
        print(f"\n{big_size:,} and {huge_size:,} bytes; "
              + ", ".join(f"{step} at {seconds:.1f} s" for step, seconds in timings.items())
              + f"\nstatus: {status}\nscreenshot: {shot}")
    assert "'huge.csv'" in status and "the file was not sent" in status and f"the file has {huge_size / 2**20:.1f} MiB" in status
    server_log = log.read_text()
    assert "Traceback" not in server_log and "message too big" not in server_log.lower()
    assert not console_errors, console_errors[:3]
