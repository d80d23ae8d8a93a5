"""Compare's first partitions while the numba kernels compile (a fresh install's first fit).

The cold cache is simulated by the ``kernels_compiling`` fixture (tests/conftest.py).
"""
from __future__ import annotations

import numpy as np

from ercot_nb import ERCOT
from ercot_nb.widgets import Compare

FAST = {"pop_size": 20, "n_evaluations": 40, "seed": 3}


def test_compare_shows_a_preview_first_then_exactly_the_numba_run(kernels_compiling):
    compare = Compare("syn1", algorithms=("ERCOT",), params={"ERCOT": FAST})
    data = compare.dataset
    plain = ERCOT(**FAST).fit(data)  # the run a warm cache gives
    seen = []

    def runs_changed(change):
        result = compare.runs.get("ERCOT")
        if result is not None:
            view = compare.partitions["ERCOT"]
            seen.append({"algorithm": result.algorithm, "steps": len(result),
                         "labels": result[0].labels.copy(), "status": compare.state.status.text,
                         "title": view.figure.layout.title.text})
        kernels_compiling.set()  # the kernels are "compiled" once the preview is shown

    compare.state.observe(runs_changed, names="runs")
    compare.run(wait=True)
    first = seen[0]  # a preview before any real step, clearly labelled, in the algorithm's view
    assert first["algorithm"] == "ERCOT (preview)" and first["steps"] == 1
    assert "preview" in first["status"]
    assert "ERCOT (preview) partition" in first["title"]
    np.testing.assert_array_equal(first["labels"], plain.result_[0].labels)
    result = compare.runs["ERCOT"]  # then the numba fit's own run, bit for bit a warm one
    assert result.algorithm == "ERCOT" and len(result) == len(data)
    for ours, warm in zip(result, plain.result_, strict=True):
        np.testing.assert_array_equal(ours.labels, warm.labels)
    assert "preview" not in compare.partitions["ERCOT"].figure.layout.title.text
    assert compare.progress.value == len(data)  # the preview is not counted as a step
