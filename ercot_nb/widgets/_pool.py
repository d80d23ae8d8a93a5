"""A kernel's side of the class server's fit pool: fits run in shared worker processes.

``ercot-nb app --fit-workers N`` starts a pool of N warm worker processes
(:mod:`ercot_nb.widgets.serve.fit_pool`), each of which imported the package
and numba once, and tells its kernels where it is through two environment
variables: :data:`POOL_ENV` (the pool's unix socket) and :data:`POOL_KEY_ENV`
(its random authentication key, hex).  A kernel that finds them sends each fit
there (:func:`fit_in_pool`) instead of fitting in its own process, so that no
student's kernel imports numba or LLVM (about 110 MiB resident each, by
``ercot-nb bench kernel``).

The conversation (``multiprocessing.connection``: pickled ``(kind, data)`` pairs;
fit objects, steps and results travel as pickles inside, opened only by the
kernel and the worker):

* kernel -> pool: ``("fit", (estimator, dataset, options))``, then ``("stop", None)``
  when the user asks;
* pool -> kernel: ``("queued", (place, workers))`` while it waits for a free worker,
  ``("started", pid)``, ``("result", header)`` when the run's result object is new
  (its steps so far), ``("step", step)`` per finished step, ``("preview", step)``, ``("tail",
  steps)`` for the result's steps the callback was not told (a fit without live steps, a Stop),
  ``("done", (result state, fitted object, error))`` at the end, or ``("lost", text)``
  when the worker died.

The steps received are kept in order; the final pickles refer to them by
number (``pickle``'s persistent ids), so the fitted object that comes back
holds the very result object the app shows, grown step by step, and the same
step objects: nothing is held twice.  Without the variables (JupyterLab, plain
Voila, the tests) fits run in the kernel as before.
"""
from __future__ import annotations

import io
import os
import pickle
from collections.abc import Callable
from typing import Any

__all__ = ["POOL_ENV", "POOL_KEY_ENV", "FitPoolError", "pool_address", "fit_in_pool", "dumps", "loads"]

POOL_ENV = "ERCOT_NB_FIT_POOL"
"""The fit pool's address (a unix socket path), set by ``ercot-nb app`` for its kernels."""
POOL_KEY_ENV = "ERCOT_NB_FIT_POOL_KEY"
"""The fit pool's authentication key (hex), set by ``ercot-nb app`` for its kernels; never on a command line."""

_RESULT = ("result",)


class FitPoolError(ConnectionError):
    """The fit pool cannot be reached, went away, or its worker died during a fit (one line)."""


def pool_address() -> tuple[str, bytes] | None:
    """(address, key) of the class server's fit pool, or None when this kernel fits by itself."""
    address, key = os.environ.get(POOL_ENV), os.environ.get(POOL_KEY_ENV)
    if not address or not key:
        return None
    try:
        return address, bytes.fromhex(key)
    except ValueError:
        raise FitPoolError(f"{POOL_KEY_ENV} is not a hex key; restart the app server (ercot-nb app)") from None


def dumps(obj: Any, persistent_id: Callable[[Any], Any] | None = None) -> bytes:
    """``pickle.dumps`` with an optional ``persistent_id`` (objects the other side already has)."""
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    if persistent_id is not None:
        pickler.persistent_id = persistent_id  # type: ignore[method-assign]
    pickler.dump(obj)
    return buffer.getvalue()


def loads(data: bytes, persistent_load: Callable[[Any], Any] | None = None) -> Any:
    """``pickle.loads`` with an optional ``persistent_load`` (see :func:`dumps`)."""
    unpickler = pickle.Unpickler(io.BytesIO(data))
    if persistent_load is not None:
        unpickler.persistent_load = persistent_load  # type: ignore[method-assign]
    return unpickler.load()


class _HereOnly(pickle.Unpickler):
    """Refuses what only this process can open: the classes and functions of its ``__main__``."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "__main__":
            raise pickle.UnpicklingError(f"__main__.{name} exists only in this kernel")
        return super().find_class(module, name)


class _Received:
    """The steps and the result object received so far, as the final pickles refer to them."""

    def __init__(self) -> None:
        self.steps: list[Any] = []
        self._ids: set[int] = set()
        self.result: Any = None

    def load(self, data: bytes) -> Any:
        return loads(data, self._load)

    def _load(self, token: Any) -> Any:
        if tuple(token) == _RESULT:
            return self.result
        return self.steps[token[1]]

    def keep(self, steps: Any) -> None:
        """Number the steps not seen yet, in order (the worker numbers them in the same order)."""
        for step in steps:
            if id(step) not in self._ids:
                self._ids.add(id(step))
                self.steps.append(step)


def fit_in_pool(job: Any, address: str, key: bytes, poll: float = 0.1) -> bool:
    """Run ``job``'s fit in the pool at ``address``; returns when it ended, like ``estimator.fit``.

    The job's ``remote_result`` grows step by step (the job's ``result``), its
    callback is told each step, its preview the preview, ``job.waiting(place,
    workers)`` the place in the queue (``None`` once a worker took the fit);
    Stop is passed on.  At the end the fitted object's state replaces the
    estimator's (``adopt`` and "How sure?" work on it as after a fit here).

    Returns
    -------
    bool
        False, having done nothing, for a fit that cannot travel to a worker (an estimator
        class defined in the notebook itself): the caller fits it here.

    Raises
    ------
    FitPoolError
        When the pool cannot be reached, goes away, or its worker dies (the steps done are kept).
    Exception
        The fit's own error, raised again here.
    """
    from multiprocessing.connection import Client

    options = {"live": job.live, "preview": job.on_preview is not None}
    try:
        fit = dumps((job.estimator, job.dataset, options))
        if b"__main__" in fit:  # maybe a class of the notebook's own: no worker could open it
            _HereOnly(io.BytesIO(fit)).load()
    except Exception:  # noqa: BLE001 - anything that cannot be pickled, or opened elsewhere: fitted here
        return False
    try:
        connection = Client(address, family="AF_UNIX", authkey=key)
    except (OSError, EOFError) as exc:
        raise FitPoolError(f"the class server's fit pool is not reachable ({exc}); the app server "
                           "(ercot-nb app) may have stopped: ask the person running it to restart it") from None
    received = _Received()
    with connection:
        connection.send(("fit", fit))
        stop_sent = False
        while True:
            if job.stop_requested and not stop_sent:
                stop_sent = _send(connection, ("stop", None))
            try:
                if not connection.poll(poll):
                    continue
                kind, data = connection.recv()
            except (EOFError, OSError):
                raise FitPoolError(f"the class server's fit pool went away after {len(received.steps)} steps "
                                   "(the app server stopped?); the steps done are kept") from None
            if kind == "queued":
                job.waiting(*data)
            elif kind == "started":
                job.waiting(None, 0)
            elif kind == "result":
                received.result = received.load(data)
                received.keep(received.result.steps)
                job.remote_result = received.result
            elif kind == "step":
                step = received.load(data)
                received.keep([step])
                received.result.steps.append(step)
                job._callback(step)
            elif kind == "tail":  # steps of the result the callback was not told (as in a fit here)
                received.keep(received.load(data))
            elif kind == "preview":
                job._preview(loads(data))
            elif kind == "lost":
                raise FitPoolError(data)
            elif kind == "done":
                _finish(job, received, data)
                return True


def _send(connection: Any, message: tuple) -> bool:
    try:
        connection.send(message)
    except OSError:
        pass
    return True


def _finish(job: Any, received: _Received, data: Any) -> None:
    """The end of a pooled fit: the result object's final state, the fitted object, its error."""
    if data is None:  # stopped while it waited for a worker
        return
    state, fitted, error = data
    if state is not None:
        result_state = received.load(state)
        if received.result is None:
            received.result = object.__new__(result_state.pop("__class__"))
        else:
            result_state.pop("__class__")
        received.result.__dict__.update(result_state)
        job.remote_result = received.result
    if fitted is not None:
        fitted = received.load(fitted)
        # the fitted state, as pickling sees it (without what stays here: a lock, a Stop function)
        state = fitted.__getstate__() if hasattr(fitted, "__getstate__") else getattr(fitted, "__dict__", None)
        if isinstance(state, dict) and hasattr(job.estimator, "__dict__") and type(fitted) is type(job.estimator):
            job.estimator.__dict__.update(state)  # fitted in place, as here: whoever holds it sees the run
        else:
            job.estimator = fitted
        job.remote_result = None  # the estimator's own result_ from now on: the same object
    if error is not None:
        raise loads(error)
