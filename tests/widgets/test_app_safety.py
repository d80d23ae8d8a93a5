"""Headless checks of the app's HTML sinks and error messages (the browser tests are in
tests/browser/test_app_injection.py): data strings are escaped, tracebacks go to the log."""
from __future__ import annotations

import logging

import numpy as np

from ercot_nb import ClusteringResult, StaticEC, TemporalDataset
from ercot_nb.widgets import TimeScrubber
from ercot_nb.widgets._messages import LOGGER, MessageArea

PAYLOAD = "<img src=x onerror=alert(1)><script>alert(2)</script>"


def test_time_labels_are_escaped_at_every_step():
    scrubber = TimeScrubber([f"{PAYLOAD}{t}" for t in range(3)])
    for step in (0, 2, 1):
        scrubber.value = step
        assert "<img" not in scrubber.time_label.value and "<script" not in scrubber.time_label.value
        assert f"&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;{step}" in (
            scrubber.time_label.value)


def test_the_algorithm_name_of_a_loaded_result_is_escaped(tmp_path):
    data = TemporalDataset.from_arrays([np.random.default_rng(0).normal(size=(20, 2))] * 2)
    result = StaticEC(pop_size=10, n_evaluations=20, seed=0, progress=False).fit(data).result_
    result.algorithm = PAYLOAD
    loaded = ClusteringResult.load(result.save(tmp_path / "evil.npz"))
    page = loaded._repr_html_()
    assert "<img" not in page and "<script" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_unexpected_errors_show_no_traceback_and_reach_the_server_log(capfd, caplog):
    area = MessageArea()

    def fail():
        raise RuntimeError(f"broken at {PAYLOAD}")

    for attempt in range(2):  # a sequence: the second error too
        with area.guard("running ERCOT"):
            fail()
        assert area.level == "error"
        assert "Traceback" not in area.value and "test_app_safety.py" not in area.value
        assert "technical details" not in area.value and "<img" not in area.value
        assert "server's log" in area.text and "RuntimeError: broken at" in area.text
    # the traceback is logged: to the logging setup when there is one ...
    assert any(record.exc_info and record.name == LOGGER.name for record in caplog.records)
    # ... else to the process's real stderr (the server's terminal), not ipykernel's sys.stderr
    caplog.handler.setLevel(logging.CRITICAL)
    handlers, LOGGER.handlers = LOGGER.handlers, []
    propagate, LOGGER.propagate = LOGGER.propagate, False
    try:
        with area.guard("loading the CSV file"):
            fail()
        assert "Traceback (most recent call last)" in capfd.readouterr().err
    finally:
        LOGGER.handlers, LOGGER.propagate = handlers, propagate
