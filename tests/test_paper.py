"""The paper's numbers: one package data file, read by experiments, bench and the data sets."""
from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from ercot_nb import datasets, paper


def test_the_data_file_ships_with_the_package_and_holds_every_table():
    text = resources.files("ercot_nb").joinpath("paper_results.csv").read_text(encoding="utf-8")
    assert text.count("\nmRI,") == 8 * 6 + 4 * 6 and text.count("\nmNMI,") == 8 * 6
    assert text.count("\nseconds_per_step,") == 6 + 5 + 4
    assert paper.PAPER_ALGORITHMS == ("k-meansCOT", "AFFECT", "E2SC", "penaltyEC", "staticEC", "ERCOT")


@pytest.mark.parametrize("spelling", ["k-meansCOT", "kmeanscot", "KMeans_COT"])
def test_cells_by_any_spelling_and_na(spelling):
    assert paper.paper_value("mRI", "syn1", spelling) == (0.8988, 0.0197, ">")
    mean, std, mark = paper.paper_value("mRI", "syn5", spelling)
    assert np.isnan(mean) and np.isnan(std) and mark == ""
    assert paper.paper_value("mRI", "gapminder", "ERCOT") is None


def test_data_sets_quote_the_file():
    assert datasets.load("bird_flocks", n_steps=2).metadata["paper"] == {
        "ERCOT_mRI": 0.8951, "ERCOT_seconds_per_step": 0.2748,
        "staticEC_mRI": 0.893, "staticEC_seconds_per_step": 0.2131}
    assert datasets.load("syn8").metadata["paper_ercot"] == {"mRI": 0.9862, "mNMI": 0.9616}
    assert datasets.load("video_bt", scale=0.1).metadata["paper"] == paper.dataset_numbers("video_bt")
