"""The lean numba pipeline: same results as numba's default one, a cheaper LLVM stage, used by the small kernels."""
from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import njit

from ercot_nb.kernels import _numba_evolution, _numba_smoothness
from ercot_nb.kernels._compile import _supported, lean_pipeline


def _scale(a, factor):  # pragma: no cover - compiled
    for i in range(a.shape[0]):
        a[i] = a[i] * factor + 1.0


def _vector_ops(dispatcher) -> int:
    llvm = next(iter(dispatcher.inspect_llvm().values()))
    return llvm.count("<2 x double>") + llvm.count("<4 x double>") + llvm.count("<8 x double>")


def test_numba_exposes_what_the_lean_library_needs():
    # Without these internals the pipeline silently falls back to numba's own LLVM stage.
    library = numba.core.registry.cpu_target.target_context.codegen().create_library("probe")
    assert _supported(library)


def test_plain_pipeline_does_not_vectorise_where_numba_does():
    default = njit(_scale)
    plain = njit(pipeline_class=lean_pipeline(vectorize=False))(_scale)
    kept = njit(pipeline_class=lean_pipeline(vectorize=True))(_scale)
    for kernel in (default, plain, kept):
        kernel(np.ones(64), 2.0)
    assert _vector_ops(default) > 0 and _vector_ops(kept) > 0
    assert _vector_ops(plain) == 0


@pytest.mark.parametrize("vectorize", [False, True])
def test_lean_kernels_give_numbas_results_bit_for_bit(vectorize):
    rng = np.random.default_rng(3)
    mutate = _numba_evolution.polynomial_mutation.py_func
    offspring = rng.normal(size=(40, 12))
    args = (np.full(12, -1.0), np.full(12, 1.0), 0.3, 20.0, rng.random((40, 12)), rng.random((40, 12)))
    outs = []
    for kernel in (njit(mutate), njit(pipeline_class=lean_pipeline(vectorize=vectorize))(mutate)):
        out = offspring.copy()
        kernel(out, *args)
        outs.append(out)
    np.testing.assert_array_equal(outs[0], outs[1])


def test_small_kernels_compile_with_the_plain_pipeline():
    # The smoothness weight's parallel pair kernel too (the lean library reaches its parfor lowering).
    plain = lean_pipeline(vectorize=False)
    kernels = [value for module in (_numba_evolution, _numba_smoothness) for value in vars(module).values()
               if isinstance(value, numba.core.registry.CPUDispatcher)]
    assert _numba_smoothness.smoothness_pair_alphas_parallel in kernels
    assert len(kernels) >= 10
    assert all(kernel._compiler.pipeline_class is plain for kernel in kernels), \
        [kernel.py_func.__name__ for kernel in kernels if kernel._compiler.pipeline_class is not plain]


def _thread_ids(out):  # pragma: no cover - compiled
    for i in numba.prange(out.shape[0]):
        out[i] = numba.get_thread_id()


def test_lean_pipeline_keeps_prange_loops_parallel():
    """With parallel=True the lean pipeline gives the function its cheaper LLVM stage and still
    hands a prange loop to numba's thread pool."""
    kernel = njit(parallel=True, pipeline_class=lean_pipeline(vectorize=False))(_thread_ids)
    out = np.full(1000, -1)
    kernel(out)
    assert 0 <= out.min() and out.max() < numba.config.NUMBA_NUM_THREADS
    diagnostics = kernel.get_metadata(kernel.signatures[0])["parfor_diagnostics"]
    assert len(diagnostics.initial_parfors) == 1
    llvm = next(iter(kernel.inspect_llvm().values()))
    assert "numba_parallel_for" in llvm and "do_scheduling" in llvm
    if _supported(kernel.overloads[kernel.signatures[0]].library):  # ... through the cheaper LLVM stage
        assert "_optimize_functions" in vars(kernel.overloads[kernel.signatures[0]].library)
