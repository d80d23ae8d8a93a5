"""Time the first ERCOT fit in a fresh Jupyter kernel and count numba compilations.

Used by binder/check.sh (run it under binder/start, with the Binder environment's
python). The kernel runs with NUMBA_DEBUG_CACHE=1, so numba reports every cache
index it reads ("index loaded"), every compiled function it loads from the cache
("data loaded") and every function it had to compile and then saved ("data saved").
After the fit, the kernel also reads each ercot_nb numba dispatcher's own hit and
miss counters. A warm cache means: misses 0, nothing saved, at least one load.

Prints one JSON line and exits 1 when anything compiled.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time

from jupyter_client.manager import start_new_kernel

FIT = r"""
import json, sys, time
t0 = time.perf_counter()
from ercot_nb import ERCOT, datasets
data = datasets.load("syn1", seed=0)
model = ERCOT(seed=0).fit(data)
seconds = time.perf_counter() - t0
from numba.core.dispatcher import Dispatcher
hits = misses = signatures = 0
for name, module in list(sys.modules.items()):
    if name.startswith("ercot_nb"):
        for obj in vars(module).values():
            if isinstance(obj, Dispatcher):
                hits += sum(obj._cache_hits.values())
                misses += sum(obj._cache_misses.values())
                signatures += len(obj.signatures)
print("FIRST_FIT " + json.dumps({"import_and_first_fit_s": round(seconds, 2), "steps": len(data),
      "dispatcher_cache_hits": hits, "dispatcher_cache_misses": misses, "compiled_signatures": signatures}))
"""


def main() -> int:
    started = time.perf_counter()
    manager, client = start_new_kernel(kernel_name="python3", env=dict(os.environ), cwd=tempfile.gettempdir())
    kernel_ready_s = time.perf_counter() - started
    lines: list[str] = []
    try:
        client.execute_interactive(
            FIT, timeout=600,
            output_hook=lambda msg: lines.extend(
                msg["content"].get("text", "").splitlines() if msg["msg_type"] == "stream" else []),
        )
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    fit_lines = [line for line in lines if line.startswith("FIRST_FIT ")]
    if not fit_lines:
        print("\n".join(lines[-40:]), file=sys.stderr)
        print("first_fit: the kernel printed no result (see its output above)", file=sys.stderr)
        return 1
    report = json.loads(fit_lines[0].split(" ", 1)[1])
    report.update(
        kernel_start_s=round(kernel_ready_s, 2),
        numba_debug_cache={
            "index_loaded": sum("index loaded from" in line for line in lines),
            "data_loaded": sum("data loaded from" in line for line in lines),
            "data_saved": sum("data saved to" in line for line in lines),
        },
    )
    print(json.dumps(report))
    compiled = report["dispatcher_cache_misses"] or report["numba_debug_cache"]["data_saved"]
    return 1 if compiled or not report["numba_debug_cache"]["data_loaded"] else 0


if __name__ == "__main__":
    sys.exit(main())
