"""A first partition while the numba kernels compile (a fresh install's first fit).

With an empty numba cache the first fit of a process compiles its kernels
(seconds of CPU); its first step arrives only afterwards.  When ``fit`` is
given ``preview=``, the estimator instead

1. computes step 0 with the plain NumPy twins (``backend="numpy"``, same
   parameters, same seed) and hands it to ``preview``;
2. starts compiling (or loading from the disk cache) every kernel of its
   fit in a background thread (:func:`prepare_kernels`: a tiny fit with the
   same parameters and precision, so the same signatures compile) once the
   preview is handed over, or after :data:`PREVIEW_HEAD_START` seconds if
   it is not by then.  The compiler holds the GIL most of the time: run
   together from the start, the two took 1.9 s for syn3's preview, which
   takes 0.2 s alone (every built-in set of up to a few hundred samples:
   0.14-0.21 s).  A preview still going on when the kernels are ready (a
   warm cache, or data so large that the NumPy step would be slower) is
   abandoned;
3. then runs the whole fit on numba as usual.

The fit's result (``result_``, ``callback``) is therefore numba's, bit for
bit that of a fit with a warm cache: the preview never feeds the run.  The
preview's labels equal numba's step 0 except where a sample is equidistant
from two centroids to rounding (the twins add in another order; objectives
and centroids agree to ~1e-12 relative, see ``_numpy_twins``).
"""
from __future__ import annotations

import contextvars
import copy
import threading

import numpy as np

# Set (to a threading.Event) in the thread that computes a preview: the NumPy
# engine of that thread then stops at its next kernel call once the event is set.
interrupt: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar(
    "ercot_nb_preview_interrupt", default=None)

# Kernels a default fit calls (serial variants; the parallel ones only serve large data on
# several threads and compile when first needed).
_FIT_KERNELS = ("evaluate_population", "recentre_population", "assign_nearest", "binary_tournament",
                "single_point_crossover", "polynomial_mutation", "repair_min_active",
                "environmental_selection",  # non-dominated sort and crowding inside it
                "smoothness_pair_alphas")
_SAMPLE_KERNELS = ("evaluate_population", "recentre_population", "assign_nearest")
_lock = threading.Lock()
_preparing: dict[str, threading.Thread] = {}

PREVIEW_HEAD_START = 0.5
"""Seconds the NumPy preview runs alone before the kernels start compiling beside it."""


class PreviewInterrupted(Exception):
    """Raised inside the preview's NumPy engine once the numba kernels are ready."""


def kernels_ready(precision: str = "float64") -> bool:
    """Whether every kernel of a fit in ``precision`` is compiled or loaded in this process."""
    from . import _cache, get_backend

    if "numba" not in _cache:  # not imported in this process: nothing is loaded (importing takes 0.25 s)
        return False
    kernels = get_backend("numba")
    dtype = np.dtype(precision)
    for name in _FIT_KERNELS:
        signatures = getattr(kernels, name).signatures
        if not signatures:
            return False
        if name in _SAMPLE_KERNELS and not any(str(sig[0].dtype) == dtype.name for sig in signatures):
            return False
    return True


def _tiny_fit(estimator, n_features: int) -> None:
    rng = np.random.default_rng(0)
    data = [rng.normal(size=(24, n_features)) for _ in range(2)]
    tiny = estimator.clone()
    tiny.set_params(seed=0, progress=False, pop_size=4, n_evaluations=8)
    if getattr(tiny, "n_clusters", None) is not None:
        tiny.set_params(n_clusters=2)
    if getattr(tiny, "max_clusters", None) is not None:
        tiny.set_params(max_clusters=min(tiny.max_clusters, 4))
    tiny.fit(data)


def prepare_kernels(estimator, n_features: int) -> threading.Thread:
    """Start (once per process and precision) compiling ``estimator``'s kernels in a thread."""
    precision = getattr(estimator, "precision", "float64")
    with _lock:
        thread = _preparing.get(precision)
        if thread is None:
            def run():
                try:
                    _tiny_fit(estimator, n_features)
                except Exception:  # noqa: BLE001 - the real fit compiles (and reports) itself
                    pass

            thread = _preparing[precision] = threading.Thread(
                target=run, name=f"ercot_nb-compile-{precision}", daemon=True)
            thread.start()
    return thread


def _interruptible(kernels, event: threading.Event):
    """``kernels`` (a backend namespace) whose every function first checks ``event``."""
    from types import SimpleNamespace

    def wrap(function):
        def checked(*args, **kwargs):
            if event.is_set():
                raise PreviewInterrupted
            return function(*args, **kwargs)
        return checked

    return SimpleNamespace(**{name: (wrap(value) if callable(value) else value)
                              for name, value in vars(kernels).items()})


def interruptible_backend(kernels):
    """The NumPy backend as the engine should use it in this thread (interruptible in a preview)."""
    event = interrupt.get()
    return kernels if event is None else _interruptible(kernels, event)


def preview_first_step(estimator, dataset, preview) -> bool:
    """Hand ``preview`` a NumPy-twin step 0, then (or after a head start) compile in the background.

    Does nothing when the kernels are ready (or the estimator does not run on
    numba).  Returns whether ``preview`` was called.
    """
    if getattr(estimator, "backend", None) != "numba" or len(dataset) == 0:
        return False
    precision = getattr(estimator, "precision", "float64")
    if kernels_ready(precision):
        return False
    ready = threading.Event()
    started = threading.Lock()

    def start_compiling():  # once: when the preview is handed over, or after the head start
        if not started.acquire(blocking=False):
            return
        thread = prepare_kernels(estimator, dataset[0].X.shape[1])

        def watch():
            thread.join()
            ready.set()

        threading.Thread(target=watch, daemon=True).start()

    head_start = threading.Timer(PREVIEW_HEAD_START, start_compiling)
    head_start.daemon = True
    head_start.start()
    twin = estimator.clone()
    seed = getattr(estimator, "seed", None)
    if isinstance(seed, np.random.Generator):  # the real fit must draw the same numbers
        twin.set_params(seed=copy.deepcopy(seed))
    twin.set_params(backend="numpy", progress=False)
    token = interrupt.set(ready)
    try:
        try:
            twin.fit(dataset[:1])
        except Exception:  # noqa: BLE001 - interrupted (kernels ready), or an error the real fit reports
            return False
        finally:
            interrupt.reset(token)
        preview(twin.result_[0])
        return True
    finally:  # the preview is drawn (or abandoned): the compiler may have the GIL
        head_start.cancel()
        start_compiling()
