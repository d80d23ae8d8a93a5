"""``ercot-nb bench kernel``: what one student's kernel holds, stage by stage.

Starts a real IPython kernel (jupyter_client, as the app server does, with the app's
environment: the shared plotly bundle) and runs the app notebook's steps in it:
import the Explorer, ``Explorer(dataset)``, a first run (``run(wait=True)``), a second
run.  After each it reads the kernel process's memory with psutil: resident (RSS, which
also counts the pages of shared libraries, such as LLVM's, that every kernel maps) and
its own (USS: what one more kernel adds), its CPU seconds (user + system, which the
load of the machine does not inflate, unlike wall time) and its count of modules.
``--path`` runs another checkout's package (``PYTHONPATH``), to compare two versions.
``--fit-workers N`` measures a kernel of ``ercot-nb app --fit-workers N``: its fits run in a
pool of N warm worker processes (:mod:`ercot_nb.widgets.serve.fit_pool`), whose memory (shared
by the whole class) is measured once after the stages, and whether the kernel imported numba.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from dataclasses import dataclass

__all__ = ["STAGES", "Stage", "kernel_stages", "format_stages", "main"]

STAGES = (
    ("empty kernel", ""),
    ("import", "from ercot_nb.widgets import Explorer"),
    ("Explorer()", "explorer = Explorer({dataset!r})"),
    ("first run", "explorer.run(wait=True)"),
    ("second run", "explorer.run(wait=True)"),
)
"""(name, code) run in turn in the kernel; ``{dataset}`` is the dataset's name."""


@dataclass(frozen=True)
class Stage:
    """A process's state after one stage: MiB resident and own, CPU seconds, modules, numba imported."""

    name: str
    rss_mib: float
    uss_mib: float
    cpu_s: float
    modules: int
    numba: bool | None = None


def kernel_stages(dataset: str = "syn3", path: str | None = None, timeout: float = 600.0,
                  fit_workers: int = 0, workers: list[Stage] | None = None) -> list[Stage]:
    """Run :data:`STAGES` in a fresh kernel and measure it after each.

    Parameters
    ----------
    dataset : str, default="syn3"
        The built-in scenario the Explorer opens.
    path : str, optional
        ``PYTHONPATH`` of the kernel (another checkout); default: this process's.
    timeout : float, default=600
        Seconds each stage may take.
    fit_workers : int, default=0
        Run the kernel's fits in a fit pool of this many workers, as ``ercot-nb app
        --fit-workers`` does (0: in the kernel).
    workers : list, optional
        Filled with a :class:`Stage` per pool worker, measured after the kernel's stages.

    Returns
    -------
    list of Stage
    """
    import psutil

    from ..widgets.serve.launcher import SHARED_BUNDLE_ENV  # the variable `ercot-nb app` sets

    env = {**os.environ, SHARED_BUNDLE_ENV: "1"}  # as `ercot-nb app` starts its kernels
    if path is not None:
        env["PYTHONPATH"] = path
    with contextlib.ExitStack() as stack:
        if fit_workers:
            from ..widgets.serve.fit_pool import FitPool

            pool = stack.enter_context(FitPool(fit_workers, env=env))
            if not pool.wait_ready():
                raise RuntimeError("the fit pool's workers did not start within 120 s")
            env.update(pool.env())
        stages = _stages(env, dataset, timeout)
        for number, pid in enumerate(pool.pids() if fit_workers else [], 1):
            process = psutil.Process(pid)
            memory, cpu = process.memory_full_info(), process.cpu_times()
            if workers is not None:
                workers.append(Stage(f"fit pool worker {number}", memory.rss / 2**20, memory.uss / 2**20,
                                     cpu.user + cpu.system, 0, True))  # modules: not counted (0, shown "-")
        return stages


_MEASURE = "import sys; print(len(sys.modules), 'numba' in sys.modules)"


def _stages(env: dict[str, str], dataset: str, timeout: float) -> list[Stage]:
    import psutil
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3", env=env)
    try:
        process = psutil.Process(manager.provisioner.process.pid)
        stages = []
        for name, code in STAGES:
            printed = ""
            for line in filter(None, [code.format(dataset=dataset), _MEASURE]):
                printed = _printed(client, line, timeout, name) or printed
            modules, numba = printed.split()[-2:]
            memory, cpu = process.memory_full_info(), process.cpu_times()
            stages.append(Stage(name, memory.rss / 2**20, memory.uss / 2**20, cpu.user + cpu.system, int(modules),
                                numba == "True"))
        return stages
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def _printed(client, code: str, timeout: float, name: str) -> str:  # noqa: ANN001 - a jupyter_client client
    printed: list[str] = []
    reply = client.execute_interactive(code, timeout=timeout, output_hook=lambda msg: printed.append(
        msg["content"].get("text", "")) if msg["msg_type"] == "stream" else None)
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"stage {name!r} failed in the kernel: {reply['content'].get('evalue')}")
    return "".join(printed).strip()


def format_stages(stages: list[Stage]) -> str:
    """A Markdown table of ``stages``."""
    lines = ["| stage | resident MiB | own (USS) MiB | CPU s (cumulative) | modules | numba imported |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {s.name} | {s.rss_mib:.0f} | {s.uss_mib:.0f} | {s.cpu_s:.1f} | {s.modules or '-'} | "
              f"{'-' if s.numba is None else 'yes' if s.numba else 'no'} |" for s in stages]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ercot-nb bench kernel", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", default="syn3", help="built-in scenario (default: syn3)")
    parser.add_argument("--path", default=None, help="PYTHONPATH of the kernel (another checkout)")
    parser.add_argument("--json", action="store_true", help="print the stages as JSON")
    parser.add_argument("--fit-workers", type=int, default=0, metavar="N",
                        help="fits in a pool of N workers, as `ercot-nb app --fit-workers N` "
                             "(default 0: in the kernel)")
    args = parser.parse_args(argv)
    workers: list[Stage] = []
    stages = kernel_stages(args.dataset, args.path, fit_workers=args.fit_workers, workers=workers)
    if args.json:  # the pool's workers last, by their names
        print(json.dumps([s.__dict__ for s in stages + workers]))
        return 0
    print(format_stages(stages))
    if workers:
        print(f"\nThe fit pool's {len(workers)} workers (shared by every kernel of the server), after the stages:")
        print(format_stages(workers))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
