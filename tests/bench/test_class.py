"""``ercot-nb bench class``: a class opening the app at once, in Chromium, every page ok."""
from __future__ import annotations

import os

import pytest

from ercot_nb.bench.classroom import ClassReport, StudentPage, format_report, run_class


def test_the_table_counts_each_outcome_and_names_what_left_the_machine():
    pages = [StudentPage(1, explorer=5.0, first_partition=20.0, finished=40.0),
             StudentPage(2, explorer=50.0, first_partition=70.0, finished=90.0,
                         told_to_wait="You are number 1 in the queue", waited=1.0),
             StudentPage(3, told_to_wait="Server full: you are number 2 in the queue", waited=2.0),
             StudentPage(4, off_machine=["https://cdn.example/x.css"])]
    report = ClassReport(4, pages, [(300.0, 180.0, 20.0), (310.0, 190.0, 30.0)], 1, (1.0, 1.0, 1.0), (2.0, 2.0, 2.0), [])
    table = format_report(report)
    assert "| 4 | 2 | 2 (1) | 1 | 45 / 70 s | 2 (65 / 90 s) |" in table
    assert "305 / 310 MiB resident, 185 / 190 MiB its own (2 kernels) | 1 |" in table
    assert "requests leaving 127.0.0.1: 1 (https://cdn.example/x.css)" in table
    assert "student 4: blank" in table and "student 3: told to wait" in table
    assert "fit pool" not in table  # fits in the kernels
    report.settle_seconds = 21.4  # the bench waited for the kernels of the closed pages
    assert "| 1 (still there 21 s after closing) |" in format_report(report)
    report.kernels_left, report.settle_seconds = 0, 3.2
    assert "| 0 (none left 3 s after closing) |" in format_report(report)
    report.pool_mib = [(225.0, 113.0, 9.5), (224.0, 112.0, 3.0)]
    assert "fit pool: 2 workers, 449 MiB resident, 225 MiB their own (USS), 12 CPU s, in all" in format_report(report)
    assert "CPU s in all" not in format_report(report)  # not measured
    report.cpu_split = {"kernels": 50.4, "fit pool": 12.0, "server": 9.6, "Chromium": 170.2}
    assert "CPU s in all: kernels 50, fit pool 12, server 10, Chromium 170" in format_report(report)


def test_a_class_size_out_of_bounds_is_one_clear_error():
    with pytest.raises(ValueError, match="--students must be 1 to 60"):
        run_class(0)
    with pytest.raises(ValueError, match="--students must be 1 to 60"):
        run_class(61)


@pytest.mark.slow
@pytest.mark.browser
def test_a_small_class_at_once_all_get_the_explorer(capsys):
    report = run_class(4, timeout=400, server_args=["--max-kernels", "8"], settle=30)
    with capsys.disabled():
        print(f"\n{format_report(report)}\n(load now {os.getloadavg()})")
    assert [page.outcome for page in report.pages] == ["ok"] * 4, format_report(report)
    assert all(page.first_partition is not None for page in report.pages)
    assert not [url for page in report.pages for url in page.off_machine]
    assert report.kernels_left == 0
    assert report.cpu_split["kernels"] > 0 and report.cpu_split["server"] > 0 and report.cpu_split["Chromium"] > 0
