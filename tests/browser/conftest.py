"""Fixtures of the browser tests: the app server, Chromium contexts that record page errors, offline pages.

Every test under tests/browser carries the ``browser`` marker and is skipped where Debian's
Chromium is missing (tests/conftest.py adds both). The pieces themselves (start a server,
open a context) live in app_harness.py, where ``python -m tests.browser...`` scripts use them too.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .app_harness import CHROMIUM, app_server, chromium, record_errors

# the flags of the one Chromium that shows the offline pages (file:// URLs, the network cut off)
OFFLINE_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture
def console_errors() -> list[str]:
    """Page errors and console errors of every page opened in a ``browser_context`` of the test."""
    return []


@pytest.fixture
def browser_context(tmp_path: Path, console_errors: list[str]) -> Iterator[Callable[..., object]]:
    """``browser_context(height=2000, **context_args)``: a fresh headless Chromium context.

    1300 px wide; every page it opens records its errors into ``console_errors``; closed
    when the test ends (before an ``app`` it was opened after is stopped).
    """
    with contextlib.ExitStack() as stack:
        opened = []

        def open_context(*, height: int = 2000, **context_args):
            context = stack.enter_context(
                chromium(tmp_path, height=height, profile=f"profile-{len(opened)}", **context_args))
            for page in context.pages:
                record_errors(page, console_errors)
            context.on("page", lambda page: record_errors(page, console_errors))
            opened.append(context)
            return context

        yield open_context


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Callable[..., tuple]]:
    """``app(args=(), **server_args)``: `ercot-nb app ARGS` on a free port, -> (launcher, port, log path).

    Scratch HOME and TMPDIR unless ``env`` is given (see app_harness.app_server);
    the server (its whole process group) is stopped when the test ends.
    """
    with contextlib.ExitStack() as stack:
        yield lambda args=(), **server_args: stack.enter_context(
            app_server(list(args), tmp_path, **server_args))


@pytest.fixture
def app_url(app) -> str:
    """The URL of the Explorer app (`ercot-nb app` with no arguments) on 127.0.0.1."""
    _, port, _ = app()
    return f"http://127.0.0.1:{port}/"


@pytest.fixture
def shot(tmp_path: Path) -> Path:
    """Where a test leaves its screenshot."""
    return tmp_path / "explorer.png"


@pytest.fixture(scope="module")
def offline_browser():
    """One headless Chromium (a playwright Browser) for the module's offline pages."""
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=OFFLINE_FLAGS)
        try:
            yield browser
        finally:
            browser.close()
