"""``ercot-nb bench class --students N``: a class opening the app at the same moment.

Starts ``ercot-nb app`` on 127.0.0.1 (a free port, or ``--port``), then one headless
Chromium with one browser context per student (separate cookies, as separate
computers), every page opened at once, as a class does when the teacher says "open the
link".  Each page is watched until the Explorer has drawn its first partition and its
first run finished, or the server told it to wait, or ``--timeout`` passed.

Printed, with the load average before and after:

* pages ok (the Explorer shown), told to wait (a page saying so in words), blank
  (neither, by the timeout);
* seconds to the first partition (median and max over the ok pages) and to the
  first run finished;
* resident memory per kernel (psutil RSS of the server's kernel processes), once the
  runs finished, and of the fit pool's workers (``--fit-workers``: shared by the class);
* kernels left after the pages closed (a closed page's kernel shuts down): the bench waits
  up to ``--settle`` seconds for none to be left, and says how long that took (kernel
  processes only, those still shutting down included; not the fit pool's workers).

Only 127.0.0.1 is contacted; the count of students and the time are bounded.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["StudentPage", "ClassReport", "run_class", "format_report", "stop_group", "MAX_STUDENTS"]

MAX_STUDENTS = 60
"""Most students one bench opens (a bounded load test)."""

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
    "--disable-dev-shm-usage",
]

# What a page shows: the Explorer's figures, the first figure's title, its status lines, and
# a waiting page's words (the app's own queue page, or the 503 "server busy" page).
SEEN = """() => JSON.stringify({
    plots: document.querySelectorAll('.js-plotly-plot').length,
    title: document.querySelector('.js-plotly-plot .gtitle')?.textContent ?? '',
    status: [...document.querySelectorAll('.ercot-nb-message')].map(n => n.textContent).join(' '),
    wait: document.querySelector('[data-ercot-nb-wait]')?.textContent
          ?? (document.title.includes('busy') ? document.body.innerText : ''),
})"""


@dataclass
class StudentPage:
    """What one student's page showed, in seconds from opening it (None: never)."""

    student: int
    explorer: float | None = None
    first_partition: float | None = None
    finished: float | None = None
    told_to_wait: str = ""
    waited: float | None = None
    error: str = ""
    off_machine: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        """``ok`` (the Explorer shown), ``told to wait`` (and never shown), or ``blank``."""
        if self.explorer is not None:
            return "ok"
        return "told to wait" if self.told_to_wait else "blank"


@dataclass
class ClassReport:
    """The bench's result: one :class:`StudentPage` per student, and the server's side."""

    students: int
    pages: list[StudentPage]
    kernel_mib: list[tuple[float, float, float]]
    kernels_left: int
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    server_args: list[str]
    pool_mib: list[tuple[float, float, float]] = field(default_factory=list)
    settle_seconds: float | None = None
    """Seconds from closing the pages until no kernel was left, or until the bench stopped waiting."""
    cpu_split: dict[str, float] = field(default_factory=dict)
    """CPU seconds in all, once the pages were watched: ``"kernels"``, ``"fit pool"``, ``"server"``
    (Voila's own process) and ``"Chromium"`` (every page's browser work, which a class does on the
    students' own computers)."""

    def count(self, outcome: str) -> int:
        return sum(page.outcome == outcome for page in self.pages)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, process: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"ercot-nb app exited with code {process.returncode} before listening")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"ercot-nb app did not listen on port {port} within {timeout} s")


def _kernel_processes(launcher_pid: int, marker: str = "ipykernel") -> list:
    """The launcher's child processes whose command line has ``marker`` (default: the kernels)."""
    import psutil

    found = []
    with contextlib.suppress(psutil.NoSuchProcess):
        for child in psutil.Process(launcher_pid).children(recursive=True):
            with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
                if marker in " ".join(child.cmdline()):
                    found.append(child)
    return found


SERVER = "ercot_nb.widgets.serve.app_server"
"""What the command line of the app's Voila server has."""
FIT_WORKER = "ercot_nb.widgets.serve.fit_pool"
"""What the command line of a fit pool's worker has (``ercot-nb app --fit-workers``)."""


def _browser_cpu() -> float:
    """CPU seconds of this process's Chromium processes (the bench's browser, all its pages)."""
    import psutil

    total = 0.0
    for child in psutil.Process().children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            if "chrom" in child.name().lower():
                cpu = child.cpu_times()
                total += cpu.user + cpu.system
    return total


def _rss_mib(processes: list) -> list[tuple[float, float, float]]:
    """(resident MiB, unique MiB, CPU seconds) of each process: unique is what it alone holds
    (psutil's USS), resident also counts the libraries' pages that every kernel shares."""
    import psutil

    sizes = []
    for process in processes:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            info = process.memory_full_info()
            cpu = process.cpu_times()
            sizes.append((info.rss / 2**20, info.uss / 2**20, cpu.user + cpu.system))
    return sizes


async def _student(browser, number: int, url: str, timeout: float,
                   start: asyncio.Event) -> tuple[StudentPage, object]:
    """One student: a fresh context, the page opened at the signal, watched until finished."""
    seen_page = StudentPage(number)
    context = await browser.new_context(viewport={"width": 1300, "height": 1600})
    page = await context.new_page()

    def record(request) -> None:  # every request that would leave this machine
        host = request.url.split("/")[2] if "://" in request.url else ""
        if request.url.startswith(("http://", "https://", "ws://", "wss://")) and \
                not host.startswith(("127.0.0.1", "localhost", "[::1]")):
            seen_page.off_machine.append(request.url)

    page.on("request", record)
    started = time.monotonic()

    def waiting(response) -> None:  # a wait page (it reloads itself: its text may be missed)
        if response.request.resource_type == "document" and response.headers.get("retry-after") \
                and not seen_page.told_to_wait:
            seen_page.told_to_wait = f"(a page to wait, HTTP {response.status})"
            seen_page.waited = time.monotonic() - started

    page.on("response", waiting)
    await start.wait()
    started = time.monotonic()
    try:
        await page.goto(url, wait_until="commit", timeout=timeout * 1000)
        while (now := time.monotonic() - started) < timeout:
            try:
                seen = json.loads(await page.evaluate(SEEN))
            except Exception:  # noqa: BLE001 - a page navigating (the wait page reloads) answers later
                await asyncio.sleep(0.5)
                continue
            if seen["wait"] and (not seen_page.told_to_wait or seen_page.told_to_wait.startswith("(")):
                seen_page.told_to_wait = " ".join(seen["wait"].split())[:160]  # its words
                seen_page.waited = seen_page.waited if seen_page.waited is not None else now
            if seen["plots"] and seen_page.explorer is None:
                seen_page.explorer = now
            if "partition" in seen["title"] and seen_page.first_partition is None:
                seen_page.first_partition = now
            if "finished" in seen["status"] and seen_page.first_partition is not None:
                seen_page.finished = now
                break
            await asyncio.sleep(0.5)
    except Exception as exc:  # noqa: BLE001 - reported per page, the bench goes on
        seen_page.error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
    return seen_page, context


def stop_group(process: subprocess.Popen) -> None:
    """End a server started in its own process group (it and its children): TERM, then KILL."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def run_class(students: int, *, timeout: float = 300.0, server_args: list[str] | None = None,
              chromium: str = CHROMIUM, settle: float = 30.0, port: int | None = None,
              server_path: Path | None = None) -> ClassReport:
    """Open the app in ``students`` browser contexts at once and report what each page showed.

    Parameters
    ----------
    students : int
        Pages opened at once, 1 to :data:`MAX_STUDENTS`.
    timeout : float, default=300
        Seconds each page is watched for.
    server_args : list of str, optional
        More ``ercot-nb app`` options (e.g. ``["--max-kernels", "25"]``).
    chromium : str, default="/usr/bin/chromium"
    settle : float, default=30
        Seconds to wait, after the pages closed, for their kernels to shut down.
    port : int, optional
        Port of 127.0.0.1 to serve on (default: a free one).
    server_path : path, optional
        Serve the app from this source tree (put first on ``PYTHONPATH``): another checkout
        of the package, to compare with (default: the package imported here).

    Returns
    -------
    ClassReport
    """
    if not 1 <= students <= MAX_STUDENTS:
        raise ValueError(f"--students must be 1 to {MAX_STUDENTS}, got {students}")
    if not Path(chromium).is_file():
        raise ValueError(f"Chromium not found at {chromium}; install it (apt install chromium) or pass --chromium PATH")
    server_args = list(server_args or [])
    port = port or _free_port()
    scratch = Path(tempfile.mkdtemp(prefix="ercot-nb-class-"))
    (scratch / "home").mkdir()
    env = {**os.environ, "HOME": str(scratch / "home")}
    if server_path is not None:
        if not (Path(server_path) / "ercot_nb" / "cli.py").is_file():
            raise ValueError(f"--server-path {server_path} holds no ercot_nb package; give a checkout's root folder")
        env["PYTHONPATH"] = os.pathsep.join([str(Path(server_path).resolve()), env.get("PYTHONPATH", "")])
    log_path = scratch / "server.log"
    load_before = os.getloadavg()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "ercot_nb.cli", "app", "--no-browser", "--port", str(port), *server_args],
            env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
    kernel_mib: list[tuple[float, float, float]] = []
    pool_mib: list[tuple[float, float, float]] = []
    cpu_split: dict[str, float] = {}
    try:
        _wait_for_port(port, process, timeout=120)
        loop = asyncio.new_event_loop()
        try:
            pages, kernel_mib, left, settled = loop.run_until_complete(
                _class_session(students, f"http://127.0.0.1:{port}/", timeout, chromium, process.pid, settle,
                               pool_mib, cpu_split))
        finally:
            loop.close()
        load_after = os.getloadavg()
    finally:
        stop_group(process)
    return ClassReport(students, pages, kernel_mib, left, load_before, load_after, server_args, pool_mib,
                       settled, cpu_split)


async def _class_session(students: int, url: str, timeout: float, chromium: str, launcher_pid: int,
                         settle: float, pool_mib: list, cpu_split: dict,
                         ) -> tuple[list[StudentPage], list[tuple[float, float, float]], int, float]:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium, headless=True, args=FLAGS)
        try:
            start = asyncio.Event()
            tasks = [asyncio.ensure_future(_student(browser, number, url, timeout, start))
                     for number in range(1, students + 1)]
            await asyncio.sleep(1.0)  # every context made: then all pages open at the same moment
            start.set()
            results = await asyncio.gather(*tasks)
            kernel_mib = _rss_mib(_kernel_processes(launcher_pid))  # the runs finished (or timed out)
            pool_mib[:] = _rss_mib(_kernel_processes(launcher_pid, FIT_WORKER))
            cpu_split.update(kernels=sum(m[2] for m in kernel_mib), **{"fit pool": sum(m[2] for m in pool_mib)},
                             server=sum(m[2] for m in _rss_mib(_kernel_processes(launcher_pid, SERVER))),
                             Chromium=_browser_cpu())
            closed = time.monotonic()
            for _, context in results:  # the students close their tabs, as a browser closes one
                for page in context.pages:
                    with contextlib.suppress(Exception):
                        await page.close(run_before_unload=True)
            await asyncio.sleep(2.0)  # the beacons leave before the browser goes
        finally:
            await browser.close()
    deadline = time.monotonic() + settle
    while (left := len(_kernel_processes(launcher_pid))) and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    return [page for page, _ in results], kernel_mib, left, time.monotonic() - closed


def _stat(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.0f} / {max(values):.0f} s"


def _left(report: ClassReport) -> str:
    """Kernels left after the pages closed, and when none was left (or when the bench stopped waiting)."""
    if report.settle_seconds is None:
        return str(report.kernels_left)
    when = "none left" if not report.kernels_left else "still there"
    return f"{report.kernels_left} ({when} {report.settle_seconds:.0f} s after closing)"


def format_report(report: ClassReport) -> str:
    """The bench's table (one row) and a line per page that was not ok."""
    pages = report.pages
    ok = [page for page in pages if page.outcome == "ok"]
    firsts = [page.first_partition for page in ok if page.first_partition is not None]
    finished = [page.finished for page in ok if page.finished is not None]
    waited = [page for page in pages if page.told_to_wait]
    rss = [sizes[0] for sizes in report.kernel_mib]
    uss = [sizes[1] for sizes in report.kernel_mib]
    cpu = [sizes[2] for sizes in report.kernel_mib if len(sizes) > 2]
    memory = (f"{statistics.median(rss):.0f} / {max(rss):.0f} MiB resident, {statistics.median(uss):.0f} / "
              f"{max(uss):.0f} MiB its own ({len(rss)} kernels)" if rss else "-")
    off = sorted({url for page in pages for url in page.off_machine})
    load = "load {:.1f} {:.1f} {:.1f}".format
    lines = [
        f"ercot-nb bench class: {report.students} students at once; app options: "
        f"{' '.join(report.server_args) or '(defaults)'}; {os.cpu_count()} cores; "
        f"{load(*report.load_before)} before, {load(*report.load_after)} after",
        "| students | ok | told to wait (then ok) | blank | first partition median / max | finished | "
        "memory per kernel median / max (resident; its own: USS) | kernels left after close |",
        "|---|---|---|---|---|---|---|---|",
        f"| {report.students} | {len(ok)} | {len(waited)} ({sum(p.outcome == 'ok' for p in waited)}) | "
        f"{report.count('blank')} | {_stat(firsts)} | {len(finished)} ({_stat(finished)}) | {memory} | "
        f"{_left(report)} |",
        f"CPU per kernel until then (median / max): {_stat(cpu)}" if cpu else "CPU per kernel: -",
        f"requests leaving 127.0.0.1: {len(off)}" + (f" ({', '.join(off[:5])})" if off else ""),
    ]
    if report.cpu_split:  # where the machine's CPU went while the pages were watched
        lines.insert(-1, "CPU s in all: " + ", ".join(f"{name} {seconds:.0f}" for name, seconds in
                                                     report.cpu_split.items()))
    if report.pool_mib:  # shared by the whole class
        lines.insert(-1, f"fit pool: {len(report.pool_mib)} workers, "
                         f"{sum(m[0] for m in report.pool_mib):.0f} MiB resident, "
                         f"{sum(m[1] for m in report.pool_mib):.0f} MiB their own (USS), "
                         f"{sum(m[2] for m in report.pool_mib):.0f} CPU s, in all")
    for page in pages:
        if page.outcome != "ok" or page.error:
            lines.append(f"  student {page.student}: {page.outcome}"
                         + (f", told at {page.waited:.0f} s: {page.told_to_wait!r}" if page.told_to_wait else "")
                         + (f", {page.error}" if page.error else ""))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``ercot-nb bench class``: parse the options, run, print the table."""
    import argparse

    parser = argparse.ArgumentParser(prog="ercot-nb bench class", description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=5, help=f"pages opened at once (1 to {MAX_STUDENTS})")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds each page is watched (default 300)")
    parser.add_argument("--settle", type=float, default=30.0,
                        help="seconds, after the pages close, for their kernels to shut down (default 30)")
    parser.add_argument("--port", type=int, default=None, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--chromium", default=CHROMIUM, help=f"Chromium executable (default {CHROMIUM})")
    parser.add_argument("--server-path", type=Path, default=None,
                        help="serve the app from this checkout of the package (to compare with another version)")
    parser.add_argument("--json", type=Path, default=None, help="also write every page's timings here (JSON)")
    args, server_args = parser.parse_known_args(argv)
    try:
        report = run_class(args.students, timeout=args.timeout, server_args=server_args,
                           chromium=args.chromium, settle=args.settle, port=args.port,
                           server_path=args.server_path)
    except ValueError as exc:
        print(f"ercot-nb bench class: error: {exc}", file=sys.stderr)
        return 2
    print(format_report(report), flush=True)
    if args.json:
        from .._files import atomic_write

        data = {"load_before": report.load_before, "load_after": report.load_after,
                "kernel_mib": report.kernel_mib, "fit_pool_mib": report.pool_mib, "kernels_left": report.kernels_left,
                "settle_seconds": report.settle_seconds, "cpu_seconds": report.cpu_split,
                "pages": [page.__dict__ for page in report.pages]}
        atomic_write(args.json, lambda file: file.write(json.dumps(data, indent=1).encode()))
    return 0 if report.count("ok") + report.count("told to wait") == report.students and \
        report.count("blank") == 0 else 1
