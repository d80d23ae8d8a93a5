"""The status line's text: server paths cut to their last part, nothing else rewritten."""
from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from ercot_nb.widgets._messages import explain  # noqa: E402


@pytest.mark.parametrize("text", [
    "time column 'day' holds dates such as ['1/2/2020', '2/2/2020']",
    "give the format: time_format='%d/%m/%Y' (day first) or '%m/%d/%Y' (month first)",
    "a ratio of 3/4/5 parts; the time 12/30/2019",
])
def test_dates_formats_and_ratios_are_not_taken_for_paths(text):
    """'1/2/2020' was shown as '1…/2020' and '%d/%m/%Y' as '%d…/%Y' (the path scrubber)."""
    assert explain(ValueError(text), "loading").text.endswith(text)


@pytest.mark.parametrize("text, shown", [
    ("cannot read /home/teacher/class/secret.csv", "cannot read …/secret.csv"),
    ("cannot read '/srv/data/x.csv': no such file", "cannot read '…/x.csv': no such file"),
    (r"cannot read C:\Users\me\data.csv", "cannot read …/data.csv"),
])
def test_server_paths_are_still_cut_to_their_last_part(text, shown):
    assert explain(OSError(text), "loading").text.endswith(shown)
