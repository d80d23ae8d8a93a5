"""Validation of the public Python API (issue 22): every argument checked, no silent wrong answer."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ercot_nb.cli import main
from ercot_nb.data import TemporalDataset


def _table(times) -> pd.DataFrame:
    """Two groups of three samples at each step, the steps in the given (unsorted) order."""
    rows = []
    for k, time in enumerate(times):
        for i in range(6):
            rows.append({"time": time, "id": i, "a": float(i // 3) * 5 + 0.1 * k, "b": 0.1 * i})
    return pd.DataFrame(rows)


# -- text dates -------------------------------------------------------------------------
@pytest.mark.parametrize(("given", "ordered"), [
    (["15/1/2020", "16/1/2020", "1/2/2020"], ["15/1/2020", "16/1/2020", "1/2/2020"]),  # day first
    (["1/2/2020", "16/1/2020", "15/1/2020"], ["15/1/2020", "16/1/2020", "1/2/2020"]),
    (["1/1/2020", "12/30/2019"], ["12/30/2019", "1/1/2020"]),  # month first
    (["02.03.2021", "28.02.2021", "1.3.2021"], ["28.02.2021", "1.3.2021", "02.03.2021"]),
    (["01-13-2020", "12-31-2019", "02-01-2020"], ["12-31-2019", "01-13-2020", "02-01-2020"]),
    (["2020/01/15", "2019/12/31", "2020/1/2"], ["2019/12/31", "2020/1/2", "2020/01/15"]),
    (["13/1/2020 09:00", "2/1/2020 10:00", "13/1/2020 08:00"],
     ["2/1/2020 10:00", "13/1/2020 08:00", "13/1/2020 09:00"]),
    (["Feb 2020", "Dec 2019", "Jan 2020"], ["Dec 2019", "Jan 2020", "Feb 2020"]),
    (["3 March 2020", "15 February 2020"], ["15 February 2020", "3 March 2020"]),
])
def test_text_dates_are_ordered_as_dates_never_as_text(given, ordered):
    assert TemporalDataset.from_frame(_table(given), "time", "id").times == ordered


@pytest.mark.parametrize("given", [
    ["1/2/2020", "1/3/2020", "2/1/2020"],  # no field above 12: day or month first?
    ["05.06.2021", "06.05.2021"],
    ["13/1/2020", "1/13/2020"],  # one label needs day first, the other month first
])
def test_ambiguous_text_dates_are_refused_asking_for_the_format(given):
    with pytest.raises(ValueError, match=r"time column 'time'.*time_format=.*--time-format"):
        TemporalDataset.from_frame(_table(given), "time", "id")


def test_time_format_orders_ambiguous_dates_and_names_a_label_that_does_not_match(tmp_path):
    given = ["1/2/2020", "1/3/2020", "2/1/2020"]
    day_first = TemporalDataset.from_frame(_table(given), "time", "id", time_format="%d/%m/%Y")
    assert day_first.times == ["2/1/2020", "1/2/2020", "1/3/2020"]
    month_first = TemporalDataset.from_frame(_table(given), "time", "id", time_format="%m/%d/%Y")
    assert month_first.times == ["1/2/2020", "1/3/2020", "2/1/2020"]
    path = tmp_path / "days.csv"
    _table(given).to_csv(path, index=False)
    assert TemporalDataset.from_csv(path, "time", "id", time_format="%d/%m/%Y").times == day_first.times
    with pytest.raises(ValueError, match=r"'13/13/2020' does not match time_format='%d/%m/%Y'"):
        TemporalDataset.from_frame(_table(["1/2/2020", "13/13/2020"]), "time", "id", time_format="%d/%m/%Y")
    with pytest.raises(TypeError, match="time_format must be"):
        TemporalDataset.from_frame(_table(given), "time", "id", time_format=3)


def test_invalid_or_mixed_text_dates_are_refused_naming_the_label():
    with pytest.raises(ValueError, match=r"'31/2/2020' is not a valid date read as day/month/year"):
        TemporalDataset.from_frame(_table(["31/2/2020", "15/1/2020"]), "time", "id")
    with pytest.raises(ValueError, match=r"mixes dates .* with other text"):
        TemporalDataset.from_frame(_table(["15/1/2020", "t2"]), "time", "id")


def test_names_with_numbers_and_iso_dates_keep_working():
    quarters = ["2001-Q3", "2001-Q4", "2002-Q1"]
    assert TemporalDataset.from_frame(_table(quarters[::-1]), "time", "id").times == quarters
    assert TemporalDataset.from_frame(_table(["t10", "t2", "t1"]), "time", "id").times == ["t1", "t2", "t10"]
    iso = ["2020-01-15", "2019-12-01", "2020-01-02"]
    assert TemporalDataset.from_frame(_table(iso), "time", "id").times == sorted(iso)


def test_cli_time_format(tmp_path, capsys):
    path = tmp_path / "days.csv"
    _table(["1/2/2020", "1/3/2020", "2/1/2020"]).to_csv(path, index=False)
    base = ["run", "--csv", str(path), "--time", "time", "--id", "id", "--pop-size", "20",
            "--evaluations", "40", "--n-clusters", "2"]
    assert main(base) == 2
    err = capsys.readouterr().err
    assert "--time-format" in err and len(err.strip().splitlines()) == 1
    out_csv = tmp_path / "labels.csv"
    assert main([*base, "--time-format", "%d/%m/%Y", "--out", str(out_csv)]) == 0, capsys.readouterr().err
    assert list(pd.read_csv(out_csv).drop_duplicates("t")["time"]) == ["2/1/2020", "1/2/2020", "1/3/2020"]
    assert main([*base, "--time-format", "%Y"]) == 2
    assert "does not match time_format='%Y'" in capsys.readouterr().err
