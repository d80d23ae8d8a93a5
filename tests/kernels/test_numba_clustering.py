"""Code generation of the clustering kernels' nearest-centroid loop (the hot loop of every fit)."""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import numpy as np
import pytest

from ercot_nb.kernels import get_backend

# In a fresh process with an empty numba cache (cached code cannot be inspected):
# run evaluate, recentre and assign on 3-D data and return the assembly of the
# nearest-centroid loop they share.
_ASSEMBLY = r"""
import json
import numpy as np
from ercot_nb.kernels import _numba_clustering as kernels
rng = np.random.default_rng(0)
X = rng.random((600, 3))
pop = rng.random((6, 4 * 8))
f_cp, f_sep, counts = np.empty(6), np.empty(6), np.empty((6, 8), dtype=np.int64)
xt, xu = kernels.feature_major(X), kernels.with_ones(X)
kernels.evaluate_population(X, pop, 8, False, f_cp, f_sep, counts, xt)
kernels.recentre_population(X, X, pop, 8, False, np.empty((6, 8, 3)), counts, xt, xu)
kernels.assign_nearest(X, pop[0], 8, np.empty(600, dtype=np.int64), np.empty(600), xt)
kernels.evaluate_population_parallel(X, pop, 8, False, f_cp, f_sep, counts, xt)
kernels.recentre_population_parallel(X, X, pop, 8, False, np.empty((6, 8, 3)), counts, xt, xu)
kernels.assign_nearest_parallel(X, pop[0], 8, np.empty(600, dtype=np.int64), np.empty(600), xt)
asm = "".join(kernels._nearest_block.inspect_asm().values())
# precision="float32": the same kernels on float32 samples
X32 = X.astype(np.float32)
kernels.evaluate_population(X32, pop, 8, False, f_cp, f_sep, counts, kernels.feature_major(X32))
asm32 = "".join(code for sig, code in kernels._nearest_block.inspect_asm().items() if "float32" in str(sig))
parallel_loops = {}
for name in ("evaluate_population", "recentre_population", "assign_nearest"):
    kernel = getattr(kernels, name + "_parallel")
    diagnostics = kernel.get_metadata(kernel.signatures[0])["parfor_diagnostics"]
    parallel_loops[name] = len(diagnostics.initial_parfors)
print(json.dumps({"lines": len(asm.splitlines()), "masked": asm.count("maskmov"),
                  "packed_sub": asm.count("subpd"), "parallel_loops": parallel_loops,
                  "float32": {"lines": len(asm32.splitlines()), "masked": asm32.count("maskmov"),
                              "packed_single": asm32.count("subps"), "packed_double": asm32.count("subpd"),
                              "to_double": asm32.count("cvtps2pd")}}))
"""


@pytest.fixture(scope="module")
def codegen(tmp_path_factory):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path),
               NUMBA_CACHE_DIR=str(tmp_path_factory.mktemp("numba-cache")))
    out = subprocess.run([sys.executable, "-c", _ASSEMBLY], env=env, check=True, capture_output=True,
                         text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_nearest_loop_has_no_masked_stores(codegen):
    # A conditional update of the running minimum compiles to masked vector
    # stores, which cost several times a plain store on AMD processors (the
    # nearest-centroid loop ran 1.6x slower per sample-centroid pair).
    asm = codegen
    assert asm["lines"] > 0
    assert asm["masked"] == 0
    if platform.machine() in ("x86_64", "AMD64"):
        assert asm["packed_sub"] > 0  # the loop is vectorised (SSE2 or wider)


@pytest.mark.slow
def test_float32_nearest_loop_stays_in_single_precision(codegen):
    # precision="float32" pays only if the loop computes in float32: one
    # float64 constant (the padding of a missing feature was 0.0) promoted
    # the whole loop to float64, and float32 ran 1.3x slower than float64.
    asm = codegen["float32"]
    assert asm["lines"] > 0
    assert asm["masked"] == 0
    if platform.machine() in ("x86_64", "AMD64"):
        assert asm["packed_single"] > 0
        assert asm["packed_double"] == 0 and asm["to_double"] == 0


@pytest.mark.slow
def test_parallel_kernels_have_one_parallel_loop(codegen):
    # Only the prange over solutions (or sample chunks) runs in parallel: numba
    # turns np.zeros/np.ones into parallel loops too, which the engine's
    # dynamic schedule (chunks of one) then runs element by element (a
    # np.zeros copy of X made the re-centring 4x slower on video_rc).
    assert codegen["parallel_loops"] == {"evaluate_population": 1, "recentre_population": 1,
                                         "assign_nearest": 1}


@pytest.mark.parametrize("n_samples", [1, 3, 255, 256, 257, 1029])
@pytest.mark.parametrize("n_features", [1, 2, 3, 4])
def test_recentre_lane_sums_equal_plain_means(n_samples, n_features):
    # The re-centring sums each centroid's members in four lanes (sample j in
    # lane j % 4) of a copy of X with a column of ones: block edges, tails
    # shorter than four samples and D > 3 (no padding) give the plain means
    # and the exact counts.
    rng = np.random.default_rng(n_samples + 10 * n_features)
    X_assign = rng.normal(size=(n_samples, n_features))
    X_update = rng.normal(size=(n_samples, n_features))
    n_max = 5
    pop = np.concatenate([np.ones((3, n_max)), rng.normal(size=(3, n_max * n_features))], axis=1)
    pop[2, 3:] = 0.0  # two inactive slots
    moved = pop.copy()
    counts = np.empty((3, n_max), dtype=np.int64)
    numba_kernels = get_backend("numba")
    numba_kernels.recentre_population(X_assign, X_update, moved, n_max, False, np.empty((3, n_max, n_features)),
                                      counts, numba_kernels.feature_major(X_assign),
                                      numba_kernels.with_ones(X_update))
    for i in range(3):
        active = np.flatnonzero(pop[i, :n_max] >= 0.5)
        C = pop[i, n_max:].reshape(n_max, n_features)[active]
        nearest = active[np.argmin(((X_assign[:, None] - C[None]) ** 2).sum(axis=2), axis=1)]
        expected_counts = np.bincount(nearest, minlength=n_max)
        np.testing.assert_array_equal(counts[i], expected_counts)
        moved_centroids = moved[i, n_max:].reshape(n_max, n_features)
        for c in range(n_max):
            if expected_counts[c]:
                np.testing.assert_allclose(moved_centroids[c], X_update[nearest == c].mean(axis=0),
                                           rtol=1e-12, atol=1e-14)
            else:
                np.testing.assert_array_equal(moved_centroids[c], pop[i, n_max:].reshape(n_max, n_features)[c])


@pytest.mark.parametrize("n_samples", [1, 7, 40_000])  # 40_000 x 4 doubles: NumPy's allocation is not line-aligned
@pytest.mark.parametrize("n_features", [1, 2, 3, 5])
def test_sample_layouts_hold_the_samples_on_cache_line_boundaries(n_samples, n_features):
    # The caller's copies that the kernels read: feature-major (D <= 3, padded to
    # 3 rows) and row-major with a column of ones (padded to 4 columns).  Their
    # data starts on a 64-byte boundary, as numba's own arrays did when the
    # kernels made them: rows of four doubles then never straddle cache lines.
    kernels = get_backend("numba")
    X = np.random.default_rng(n_samples).normal(size=(n_samples, n_features))
    xt, xu = kernels.feature_major(X), kernels.with_ones(X)
    width = max(n_features + 1, 4)
    assert xu.shape == (n_samples, width) and xu.flags.c_contiguous and xu.ctypes.data % 64 == 0
    np.testing.assert_array_equal(xu[:, :n_features], X)
    np.testing.assert_array_equal(xu[:, n_features:-1], 0.0)
    np.testing.assert_array_equal(xu[:, -1], 1.0)
    if n_features > 3:
        assert xt.shape == (3, 0)
    else:
        assert xt.shape == (3, n_samples) and xt.flags.c_contiguous and xt.ctypes.data % 64 == 0
        np.testing.assert_array_equal(xt[:n_features], X.T)
        np.testing.assert_array_equal(xt[n_features:], 0.0)


@pytest.mark.parametrize("n_samples", [5, 300])
@pytest.mark.parametrize("n_features", [1, 2, 3, 5])
def test_float32_kernels_agree_with_float64_to_single_precision(n_samples, n_features):
    # precision="float32": distances in float32, sums in float64.  On
    # separated clusters (no near-ties) the labels and counts are those of
    # float64; f_cp, f_sep and the moved centroids agree to single precision.
    rng = np.random.default_rng(n_samples * n_features)
    n_max = 4
    centres = rng.normal(scale=10.0, size=(n_max, n_features))
    X64 = centres[rng.integers(0, n_max, n_samples)] + rng.normal(scale=0.3, size=(n_samples, n_features))
    pop = np.concatenate([np.ones((3, n_max)), (centres[None] + rng.normal(scale=0.5, size=(3, n_max, n_features)))
                          .reshape(3, -1)], axis=1)
    pop[1, 0] = 0.0  # one inactive slot
    kernels = get_backend("numba")
    results = {}
    for dtype in (np.float64, np.float32):
        X = X64.astype(dtype)
        xt, xu = kernels.feature_major(X), kernels.with_ones(X)
        f_cp, f_sep, counts = np.empty(3), np.empty(3), np.empty((3, n_max), dtype=np.int64)
        kernels.evaluate_population(X, pop, n_max, False, f_cp, f_sep, counts, xt)
        moved, moved_counts = pop.copy(), np.empty((3, n_max), dtype=np.int64)
        kernels.recentre_population(X, X, moved, n_max, False, np.empty((3, n_max, n_features)), moved_counts,
                                    xt, xu)
        labels, distances = np.empty(n_samples, dtype=np.int64), np.empty(n_samples)
        kernels.assign_nearest(X, pop[1], n_max, labels, distances, xt)
        results[dtype] = (f_cp, f_sep, counts, moved, moved_counts, labels, distances)
    single, double = results[np.float32], results[np.float64]
    for name, a, b in zip(("counts", "recentre counts", "labels"), (single[2], single[4], single[5]),
                          (double[2], double[4], double[5])):
        np.testing.assert_array_equal(a, b, err_msg=name)
    for name, a, b in zip(("f_cp", "f_sep", "centroids", "distances"), (single[0], single[1], single[3], single[6]),
                          (double[0], double[1], double[3], double[6])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5, err_msg=name)
    assert single[3].dtype == np.float64
