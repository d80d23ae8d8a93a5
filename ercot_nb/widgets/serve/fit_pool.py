"""The class server's fit pool: N warm worker processes that run the fits of every kernel.

``ercot-nb app --fit-workers N`` starts a :class:`FitPool` in its own process
(the launcher) before Voila and puts :meth:`FitPool.env` into Voila's
environment, which its kernels inherit: a kernel then sends each fit here
(:mod:`ercot_nb.widgets._pool`, which describes the messages) and never imports
numba itself.  The pool listens on a unix socket in a private folder (mode
0700), with a random key per server (``multiprocessing.connection``'s
authentication); the key travels only in environment variables.

Each worker (``python -m ercot_nb.widgets.serve.fit_pool``, started with the
address and key in its environment) imports the package, connects, and fits
one job at a time; meanwhile a small fit in a background thread loads numba's
compiled kernels (a fit that comes first shows its preview meanwhile, as in a
kernel).  The pool hands a fit to a free worker, queues the others in order
(each kernel is told its place: the status line says it waits for a free
worker), relays the steps and Stop, and replaces a worker that died (the
kernel is told in one line).  At most N fits run at once.
"""
from __future__ import annotations

import contextlib
import copy
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Client, Connection, Listener, wait
from typing import Any

from .._pool import POOL_ENV, POOL_KEY_ENV, dumps, loads

__all__ = ["FitPool", "worker_main"]


@dataclass
class _Worker:
    connection: Connection
    pid: int
    process: subprocess.Popen | None = None


@dataclass
class _Queue:
    """Fits waiting for a worker, in order, and the free workers (under one condition)."""

    condition: threading.Condition = field(default_factory=threading.Condition)
    waiting: list[object] = field(default_factory=list)
    free: list[_Worker] = field(default_factory=list)


_SOCKET_PATH_MAX = 100
"""Bytes a unix socket's path may have here (the system's limit is 104 to 108, with the final NUL)."""


def _socket_folder() -> str:
    """A new private folder (mode 0700) for the pool's socket, in the temporary folder or, where
    that path is too long for a unix socket (a deep ``TMPDIR``), in ``/tmp``."""
    for parent in (None, "/tmp"):
        folder = tempfile.mkdtemp(prefix="ercot-nb-fit-pool-", dir=parent)
        if len(os.fsencode(os.path.join(folder, "pool"))) <= _SOCKET_PATH_MAX:
            return folder
        os.rmdir(folder)
    raise OSError(f"no temporary folder has a path short enough for the fit pool's socket "
                  f"({_SOCKET_PATH_MAX} bytes): set TMPDIR to a shorter path, or start the app "
                  "with --fit-workers 0")


class FitPool:
    """N worker processes fitting for the kernels of one app server.

    Parameters
    ----------
    workers : int
        Worker processes (fits at once), at least 1.
    warm : bool, default=True
        Each worker runs one small fit in the background as it starts (loads numba's compiled kernels).
    env : mapping, optional
        The workers' environment (default: this process's), to which the pool's address and key are added.

    Attributes
    ----------
    address : str
        The unix socket the pool listens on (after :meth:`start`).
    """

    def __init__(self, workers: int, *, warm: bool = True, env: dict[str, str] | None = None) -> None:
        if workers < 1:
            raise ValueError(f"a fit pool needs at least 1 worker, got {workers}")
        self.workers = int(workers)
        self.warm = warm
        self.address = ""
        self._env = dict(os.environ if env is None else env)
        self._key = secrets.token_bytes(32)
        self._folder = ""
        self._listener: Listener | None = None
        self._queue = _Queue()
        self._processes: dict[int, subprocess.Popen] = {}
        self._jobs = 0
        self._closed = False

    # -- life ------------------------------------------------------------------------------------------
    def start(self) -> FitPool:
        """Listen, and start the workers (they join as soon as they are warm)."""
        self._folder = _socket_folder()  # mode 0700: this user only
        self.address = os.path.join(self._folder, "pool")
        self._listener = Listener(self.address, family="AF_UNIX", authkey=self._key)
        threading.Thread(target=self._accept, name="ercot-nb fit pool", daemon=True).start()
        for _ in range(self.workers):
            self._spawn()
        return self

    def env(self) -> dict[str, str]:
        """The environment variables that send a kernel's fits here."""
        return {POOL_ENV: self.address, POOL_KEY_ENV: self._key.hex()}

    def pids(self) -> list[int]:
        """The worker processes' ids (live or starting)."""
        return [pid for pid, process in self._processes.items() if process.poll() is None]

    def wait_ready(self, timeout: float = 120.0) -> bool:
        """Block until every worker is warm and free (True), or ``timeout`` seconds passed (False)."""
        with self._queue.condition:
            return self._queue.condition.wait_for(lambda: len(self._queue.free) >= self.workers, timeout)

    def close(self) -> None:
        """Stop listening and end the workers."""
        self._closed = True
        if self._listener is not None:
            with contextlib.suppress(OSError):
                self._listener.close()
        for process in list(self._processes.values()):
            process.terminate()
        for process in list(self._processes.values()):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> FitPool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _spawn(self) -> None:
        if self._closed:
            return
        env = {**self._env, **self.env(), "ERCOT_NB_FIT_WORKER_WARM": "1" if self.warm else "0"}
        process = subprocess.Popen([sys.executable, "-m", "ercot_nb.widgets.serve.fit_pool"], env=env,
                                   stdin=subprocess.DEVNULL)
        self._processes[process.pid] = process

    # -- connections -------------------------------------------------------------------------------
    def _accept(self) -> None:
        while not self._closed:
            try:
                connection = self._listener.accept()
            except OSError:  # closed, or a wrong key (multiprocessing's AuthenticationError)
                if self._closed:
                    return
                continue
            threading.Thread(target=self._serve, args=(connection,), daemon=True,
                             name="ercot-nb fit pool connection").start()

    def _serve(self, connection: Connection) -> None:
        try:
            kind, data = connection.recv()
        except (EOFError, OSError, ValueError, TypeError):
            connection.close()
            return
        if kind == "worker":
            with self._queue.condition:
                self._queue.free.append(_Worker(connection, int(data), self._processes.get(int(data))))
                self._queue.condition.notify_all()
        elif kind == "fit":
            try:
                self._fit(connection, data)
            except (EOFError, OSError):
                pass  # the kernel went away
            finally:
                connection.close()

    def _take_worker(self, client: Connection) -> _Worker | None:
        """Wait for a free worker, in order, telling the kernel its place; None if it stopped or left."""
        queue, ticket, told = self._queue, object(), None
        with queue.condition:
            queue.waiting.append(ticket)
        try:
            while True:
                with queue.condition:
                    dead = [w for w in queue.free if w.process is not None and w.process.poll() is not None]
                    for worker in dead:  # died while idle (killed, out of memory): replaced
                        queue.free.remove(worker)
                        self._processes.pop(worker.pid, None)
                        self._spawn()
                    if queue.waiting[0] is ticket and queue.free:
                        return queue.free.pop(0)
                    place = queue.waiting.index(ticket) + 1
                if place != told:
                    client.send(("queued", (place, self.workers)))
                    told = place
                if client.poll(0):
                    kind, _ = client.recv()
                    if kind == "stop":
                        client.send(("done", None))
                        return None
                with queue.condition:
                    queue.condition.wait(0.25)
        finally:
            with queue.condition:
                queue.waiting.remove(ticket)
                queue.condition.notify_all()

    def _release(self, worker: _Worker) -> None:
        with self._queue.condition:
            self._queue.free.append(worker)
            self._queue.condition.notify_all()

    def _fit(self, client: Connection, job: bytes) -> None:
        worker = self._take_worker(client)
        if worker is None:
            return
        self._jobs += 1
        number, client_open = self._jobs, True
        try:
            worker.connection.send(("fit", (number, job)))
        except OSError:
            return self._lost(client, worker, 0)
        client.send(("started", worker.pid))
        steps = 0
        while True:
            ready = wait([worker.connection, client] if client_open else [worker.connection], timeout=1.0)
            if worker.connection in ready:
                try:
                    message = worker.connection.recv()
                except (EOFError, OSError):
                    return self._lost(client if client_open else None, worker, steps)
                steps += message[0] == "step"
                if client_open:
                    try:
                        client.send(message)
                    except OSError:  # the kernel went away: the worker stops after its step
                        client_open = False
                        worker.connection.send(("stop", number))
                if message[0] == "done":
                    return self._release(worker)
            if client_open and client in ready:
                try:
                    kind, _ = client.recv()
                except (EOFError, OSError):
                    kind, client_open = "stop", False
                if kind == "stop":
                    with contextlib.suppress(OSError):
                        worker.connection.send(("stop", number))

    def _lost(self, client: Connection | None, worker: _Worker, steps: int) -> None:
        """The worker died during a fit: the kernel is told in one line; a new worker replaces it."""
        code = None
        if worker.process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = worker.process.wait(timeout=5)
            self._processes.pop(worker.pid, None)
        with contextlib.suppress(OSError):
            worker.connection.close()
        self._spawn()
        if client is not None:
            how = f"exit code {code}" if code is not None and code >= 0 else \
                f"killed by signal {-code}" if code is not None else "it no longer answers"
            client.send(("lost", f"the fit worker stopped during the run ({how}, after {steps} steps; "
                                 "those steps are kept); the class server started a new one: run again"))


# -- the worker process ---------------------------------------------------------------------------------


def _warm_up() -> None:
    """One small fit: numba's compiled kernels loaded (from the cache) before the first job."""
    from ercot_nb import ERCOT, datasets

    ERCOT(seed=0).fit(datasets.load("syn3"))


def _run(connection: Connection, number: int, job: bytes) -> None:
    """Fit one job, sending its steps and its end; Stop (of this job) makes the callback return False."""
    from ercot_nb.result import ClusteringResult

    stopped = False

    def stop_requested() -> bool:
        nonlocal stopped
        while not stopped and connection.poll(0):
            kind, data = connection.recv()
            stopped = kind == "stop" and data == number
        return stopped

    sent: list[Any] = []
    numbers: dict[int, int] = {}
    result: list[Any] = [None]

    def known(obj: Any) -> bool:
        index = numbers.get(id(obj))
        return index is not None and sent[index] is obj

    def persistent_id(obj: Any) -> Any:
        if obj is result[0] and obj is not None:
            return ("result",)
        return ("step", numbers[id(obj)]) if known(obj) else None

    def keep(steps: Sequence[Any]) -> None:
        for step in steps:
            if not known(step):
                numbers[id(step)] = len(sent)
                sent.append(step)

    def new_result(current: Any, upto: int) -> None:
        header = copy.copy(current)
        header.steps = list(current.steps[:upto])
        result[0] = None  # the header itself is sent whole, its steps by number
        connection.send(("result", dumps(header, persistent_id)))
        keep(header.steps)
        result[0] = current

    def callback(step: Any) -> bool:
        current = getattr(estimator, "result_", None)
        if current is not result[0]:
            upto = next((i for i in range(len(current.steps) - 1, -1, -1) if current.steps[i] is step),
                        len(current.steps))
            new_result(current, upto)
        connection.send(("step", dumps(step, persistent_id)))
        keep([step])
        return not stop_requested()

    def preview(step: Any) -> None:
        connection.send(("preview", dumps(step)))

    try:
        estimator, dataset, options = loads(job)
    except Exception as exc:  # noqa: BLE001 - the kernel checked it opens; a worker stays up anyway
        connection.send(("done", (None, None, dumps(RuntimeError(f"a fit worker could not open the fit "
                                                                 f"({type(exc).__name__}: {exc})")))))
        return
    if hasattr(estimator, "should_stop"):  # SeedEnsemble asks between its seeds
        estimator.should_stop = stop_requested
    error = None
    try:
        if options.get("live") and options.get("preview"):
            estimator.fit(dataset, callback=callback, preview=preview)
        elif options.get("live"):
            estimator.fit(dataset, callback=callback)
        else:
            estimator.fit(dataset)
    except Exception as exc:  # noqa: BLE001 - sent to the kernel, which raises it as a fit here would
        error = exc
    final = getattr(estimator, "result_", None)
    state = None
    if isinstance(final, ClusteringResult):
        if final is not result[0]:
            new_result(final, len(final.steps))
        unsent = [step for step in final.steps if not known(step)]
        if unsent:  # steps made without a callback, or after a Stop (a consensus has them all at once)
            connection.send(("tail", dumps(unsent, persistent_id)))
            keep(unsent)
        result[0] = None
        state = dumps({**final.__dict__, "__class__": type(final)}, persistent_id)
        result[0] = final
    try:
        fitted = dumps(estimator, persistent_id)
    except Exception as exc:  # noqa: BLE001 - an estimator that cannot travel back
        fitted, error = None, error or exc
    problem = None
    if error is not None:
        try:
            problem = dumps(error)
        except Exception:  # noqa: BLE001 - an error that cannot be pickled: its type and message
            problem = dumps(RuntimeError(f"{type(error).__name__}: {error}"))
    connection.send(("done", (state, fitted, problem)))


def worker_main() -> int:
    """A worker: warm up, connect to the pool (address and key from the environment), fit jobs until it closes."""
    address, key = os.environ[POOL_ENV], bytes.fromhex(os.environ[POOL_KEY_ENV])
    os.environ.pop(POOL_KEY_ENV)
    import ercot_nb  # noqa: F401 - imported once, warm

    if os.environ.get("ERCOT_NB_FIT_WORKER_WARM", "1") == "1":
        # in the background: a fit that comes meanwhile shows its preview while the kernels
        # load or compile (a fresh install), as it would in a kernel
        threading.Thread(target=_warm_up, name="ercot-nb fit worker warm-up", daemon=True).start()
    connection = Client(address, family="AF_UNIX", authkey=key)
    connection.send(("worker", os.getpid()))
    while True:
        try:
            kind, data = connection.recv()
        except (EOFError, OSError):
            return 0
        if kind == "fit":
            _run(connection, *data)


if __name__ == "__main__":
    sys.exit(worker_main())
