"""Dataset picker: built-in scenarios with parameters, CSV upload with column mapping."""
from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pandas as pd
import pytest

from ercot_nb.widgets import DatasetPicker, Explorer

FAST = {"pop_size": 20, "n_evaluations": 40}


def upload(picker: DatasetPicker, content: bytes, name: str) -> None:
    """What the browser does when a file is chosen in the FileUpload widget."""
    picker.upload.value = ({
        "name": name, "type": "text/csv", "size": len(content),
        "content": memoryview(content), "last_modified": datetime.now(timezone.utc),
    },)


def long_csv(n_ids: int = 30, n_steps: int = 3) -> bytes:
    """Two blobs over a few steps; string ids and labels, one sample leaves, one arrives."""
    rng = np.random.default_rng(0)
    rows = []
    for step in range(n_steps):
        ids = [i for i in range(n_ids) if not (step == n_steps - 1 and i == 0)]
        ids += [99] if step == n_steps - 1 else []
        for i in ids:
            group = i % 2
            rows.append({"Day": step + 1, "who": f"s{i}", "a": 6 * group + rng.normal(0, .4),
                         "b": rng.normal(0, .4), "kind": "left" if group == 0 else "right"})
    return pd.DataFrame(rows).to_csv(index=False).encode()


def test_builtin_scenario_with_parameters():
    picker = DatasetPicker("syn1", seed=3, params={"n_steps": 4})
    assert picker.dataset.name == "syn1" and len(picker.dataset) == 4
    picker._forms["syn1"].fields["n_per_cluster"].widget.value = 10
    picker.load_button.click()
    assert picker.dataset.n_samples_per_step.tolist() == [40] * 4
    assert picker.message.level == "success"
    picker.scenario.value = "syn2"  # switching scenario loads it with its own form
    assert picker.dataset.name == "syn2" and picker.dataset.n_features == 4


def test_invalid_parameters_keep_the_dataset_and_the_entries():
    picker = DatasetPicker("syn1")
    before = picker.dataset
    field = picker._forms["syn1"].fields["n_steps"].widget
    field.value = 0
    picker.load_button.click()
    assert picker.dataset is before
    assert picker.message.level == "error" and "n_steps" in picker.message.text
    assert field.value == 0  # what the user typed is still there
    assert "Traceback" not in picker.message.value


@pytest.mark.parametrize(
    "content, expected",
    [
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", "CSV"),  # an image, not a table
        (b"", "empty"),
        (b"time,id\n1,a\n", "three columns"),
    ],
)
def test_an_unreadable_file_keeps_the_previous_dataset(content, expected):
    explorer = Explorer("syn3", params=FAST, views=("partition",))
    before, title = explorer.dataset, explorer.partition.figure.layout.title.text
    upload(explorer.picker, content, "bad.csv")
    assert explorer.dataset is before
    assert explorer.partition.figure.layout.title.text == title
    message = explorer.picker.message
    assert message.level == "error" and expected in message.text and "bad.csv" in message.text
    assert "Traceback" not in message.value


def test_a_bad_mapping_keeps_the_previous_dataset_and_the_mapping():
    explorer = Explorer("syn3", params=FAST, views=("partition",))
    before = explorer.dataset
    picker = explorer.picker
    upload(picker, long_csv(), "walks.csv")
    assert picker.message.level == "info"
    # the time column is found by its name; id and label are never guessed
    assert (picker.time_column.value, picker.id_column.value, picker.label_column.value) == (
        "Day", "(choose)", "(none)")
    picker.load_csv_button.click()  # without an id column: refused, with what to do
    assert explorer.dataset is before
    assert picker.message.level == "error" and "choose the id column" in picker.message.text
    picker.id_column.value = "kind"  # not unique within a step
    picker.load_csv_button.click()
    assert explorer.dataset is before
    assert picker.message.level == "error" and "walks.csv" in picker.message.text
    assert picker.id_column.value == "kind"  # the mapping stays as entered
    picker.feature_columns.value = ("who",)  # a text column as a feature
    picker.id_column.value = "who"
    picker.load_csv_button.click()
    assert explorer.dataset is before and "who" in picker.message.text


def test_a_good_csv_becomes_the_dataset_of_every_view():
    explorer = Explorer("syn3", params=FAST)
    explorer.run(wait=True)
    assert explorer.runs
    picker = explorer.picker
    upload(picker, long_csv(), "walks.csv")
    picker.id_column.value = "who"
    picker.label_column.value = "kind"
    assert picker.understanding() == (
        "Steps: the 3 distinct values of “Day”. Samples: identified by “who” (31 ids). "
        "Features: a, b. Ground-truth labels: “kind”.")
    picker.load_csv_button.click()
    data = explorer.dataset
    assert data.name == "walks" and len(data) == 3 and data.feature_names == ["a", "b"]
    assert data.label_names == ["left", "right"]
    assert picker.message.level == "success" and "identified by “who”" in picker.message.text
    assert explorer.runs == {} and explorer.result is None  # runs belonged to the old data
    assert explorer.scrubber.max == 2
    assert explorer.partition.figure.layout.title.text.startswith("walks: ground truth")
    explorer.step = 2
    entered = [t for t in explorer.partition.figure.data if t.name == "entered since previous step"]
    assert list(entered[0].text) == ["s99"]
    left = [t for t in explorer.partition.figure.data if t.name == "left since previous step"]
    assert list(left[0].text) == ["s0"]
    job = explorer.run(wait=True)
    assert job.state == "finished" and len(explorer.result) == 3


def test_the_picker_is_locked_while_a_run_goes_on():
    picker = DatasetPicker("syn1")
    picker.disabled = True
    assert picker.load_button.disabled and picker.upload.disabled and picker.load_csv_button.disabled
    picker.disabled = False
    assert not picker.load_button.disabled and picker.load_csv_button.disabled  # no file yet


def test_unknown_initial_dataset_is_an_error():
    with pytest.raises(ValueError, match="unknown dataset"):
        DatasetPicker("syn99")


def xy_csv() -> bytes:
    """time, id, x, y: a "y" feature must not be taken for labels (issue 10)."""
    rng = np.random.default_rng(1)
    rows = [{"time": t, "id": i, "x": rng.normal(), "y": rng.normal()}
            for t in range(3) for i in range(8)]
    return pd.DataFrame(rows).to_csv(index=False).encode()


def test_a_y_column_is_a_feature_not_a_label_and_the_id_is_confirmed():
    picker = DatasetPicker("syn1")
    upload(picker, xy_csv(), "xy.csv")
    assert picker.label_column.value == "(none)" and picker.id_column.value == "(choose)"
    assert "choose the column that identifies each sample" in picker.understanding()
    picker.id_column.value = "id"
    picker.load_csv_button.click()
    assert picker.message.level == "success", picker.message.text
    assert picker.dataset.feature_names == ["x", "y"] and not picker.dataset.has_labels


def test_a_file_without_an_id_column_is_not_run_on_a_guess():
    explorer = Explorer("syn3", params=FAST, views=("partition",))
    before = explorer.dataset
    content = pd.DataFrame({"time": [1, 1, 2, 2], "x": [0.0, 1, 0, 1], "y": [1.0, 2, 3, 4]})
    upload(explorer.picker, content.to_csv(index=False).encode(), "noid.csv")
    explorer.picker.load_csv_button.click()
    assert explorer.dataset is before and explorer.message.level == "error"
    assert explorer.run() is None  # Run does not silently fit syn3 instead
    assert "not loaded" in explorer.message.text and explorer.runs == {}


def test_column_names_are_escaped_in_what_was_understood():
    picker = DatasetPicker("syn1")
    frame = pd.DataFrame({"time": [1, 1], "<img src=x onerror=alert(1)>": [1, 2], "x": [0.0, 1]})
    upload(picker, frame.to_csv(index=False).encode(), "evil.csv")
    picker.id_column.value = "<img src=x onerror=alert(1)>"
    assert "<img" not in picker.understood.value and "&lt;img" in picker.understood.value


def _mixed_units_csv() -> bytes:
    """GDP-like dollars next to a 0-1 share: the dollars would decide every distance."""
    rng = np.random.default_rng(1)
    rows = ["year,country,gdp,share"]
    for year in (2000, 2001, 2002):
        for i in range(20):
            rows.append(f"{year},c{i},{rng.uniform(1e3, 5e4):.1f},{rng.uniform(0, 1):.3f}")
    return ("\n".join(rows) + "\n").encode()


def test_the_upload_offers_scaling_and_says_when_one_feature_dominates():
    picker = DatasetPicker("syn1")
    assert picker.scaling.value == "none"  # off unless chosen, as everywhere else
    assert [value for _, value in picker.scaling.options] == ["none", "standardize", "minmax"]
    upload(picker, _mixed_units_csv(), "countries.csv")
    picker.id_column.value = "country"
    picker.load_csv_button.click()
    raw = picker.state.dataset
    assert picker.message.level == "warning"
    assert "'gdp' decides the distances" in picker.message.text and "scaling" in picker.message.text
    picker.scaling.value = "standardize"
    picker.load_csv_button.click()
    scaled = picker.state.dataset
    assert scaled is not raw and picker.message.level == "success"
    assert "standardised over all steps" in picker.message.text
    X = np.vstack([step.X for step in scaled])
    np.testing.assert_allclose(X.mean(axis=0), 0.0, atol=1e-9)
    np.testing.assert_allclose(X.std(axis=0), 1.0, atol=1e-9)


def test_a_view_error_while_loading_stays_on_the_status_line():
    """Load good → load data a view cannot draw → the error stays → load good → "Loaded"."""
    explorer = Explorer("syn3", params=FAST, views=("alpha",))
    view, picker, state = explorer.alpha, explorer.picker, explorer.state
    draw = view._draw_content

    def draw_or_fail() -> None:
        if state.dataset_name == "syn2":
            raise RuntimeError("cannot draw <syn2>")
        draw()

    view._draw_content = draw_or_fail
    picker.scenario.value = "syn1"
    assert picker.message.level == "success" and picker.message.text.startswith("Loaded")
    picker.scenario.value = "syn2"  # the data is loaded, the alpha view fails to draw it
    assert explorer.dataset.name == "syn2"
    status = state.status
    assert status.level == "error" and status.action == "load dataset"
    assert "syn2" in status.text and "cannot draw" in status.text
    assert "\n" not in status.text and "Try again" in status.text  # one line, what to do
    assert "smoothness-weight view" in status.text and "AlphaView" not in status.text  # words, no class
    assert "RuntimeError: cannot draw <syn2>" in status.details  # details on demand
    assert "&lt;syn2&gt;" in picker.message.value and "<syn2>" not in picker.message.value
    picker.load_button.click()  # loading it again fails the same way
    assert state.status.level == "error" and "cannot draw" in state.status.text
    picker.scenario.value = "syn3"
    assert state.status.level == "success" and state.status.text == "Loaded the built-in scenario syn3."
    assert view.figure.layout.title.text == view.static().layout.title.text


def test_a_view_error_while_loading_a_csv_stays_on_the_status_line():
    explorer = Explorer("syn3", params=FAST, views=("alpha",))
    view, picker, state = explorer.alpha, explorer.picker, explorer.state
    draw = view._draw_content

    def draw_or_fail() -> None:
        if state.dataset_name == "walks.csv":
            raise RuntimeError("cannot draw")
        draw()

    view._draw_content = draw_or_fail
    upload(picker, long_csv(), "walks.csv")
    picker.id_column.value = "who"
    picker.load_csv_button.click()
    assert explorer.dataset.name == "walks"
    assert state.status.level == "error" and "walks.csv" in state.status.text
    assert "cannot draw" in state.status.text and state.status.action == "load dataset"
    picker.source.value = "builtin"
    picker.load_button.click()
    assert state.status.level == "success" and state.status.text.startswith("Loaded")


def _quarters_csv(hole: tuple[int, str] | None = None, missing_id: int | None = None) -> bytes:
    """Four samples over the quarters 2001-Q1..Q4; optionally one NaN (row, column) or one missing id."""
    rows = [{"quarter": f"2001-Q{q}", "region": f"r{i}", "gdp": float(i + q), "pop": float(3 * i - q)}
            for q in range(1, 5) for i in range(4)]
    frame = pd.DataFrame(rows)
    if hole is not None:
        frame.loc[hole[0], hole[1]] = np.nan
    if missing_id is not None:
        frame.loc[missing_id, "region"] = None
    return frame.to_csv(index=False).encode()


@pytest.mark.parametrize("hole, time, column", [((9, "gdp"), "2001-Q3", "gdp"), ((13, "pop"), "2001-Q4", "pop")])
def test_a_missing_value_is_refused_at_its_time_with_what_to_do(hole, time, column):
    """The message said "step 2 (time='2001-Q3')" (0-based, beside the label) and gave no advice."""
    picker = DatasetPicker("syn1")
    upload(picker, _quarters_csv(hole=hole), "gdp.csv")
    picker.id_column.value = "region"
    assert picker.load_csv() is None
    text = picker.message.text
    assert f"time '{time}'" in text and "step" not in text, text
    assert f"column '{column}'" in text and "Drop those rows or fill in their values" in text, text
    assert f"dropna(subset=['{column}'])" in text and "out of the features" in text, text


def test_a_missing_id_is_refused_with_what_to_do():
    picker = DatasetPicker("syn1")
    upload(picker, _quarters_csv(missing_id=6), "gdp.csv")
    picker.id_column.value = "region"
    assert picker.load_csv() is None
    text = picker.message.text
    assert "id column 'region' has 1 missing value" in text and "drop those rows" in text, text


# -- upload size and the CSV form (issue 22) ----------------------------------------------------


@pytest.mark.parametrize("over", [60, 1])
def test_a_file_just_over_the_limit_shows_sizes_that_differ(over):
    """The message read "the file has 50 MiB; the limit is 50 MiB" for a file 60 bytes over."""
    from ercot_nb.widgets.apps.dataset_picker import MAX_UPLOAD_BYTES

    picker = DatasetPicker("syn1")
    assert not picker.read_csv(b"x" * (MAX_UPLOAD_BYTES + over), "big.csv")
    text = picker.message.text
    assert f"the file has {MAX_UPLOAD_BYTES + over:,} bytes" in text, text
    assert f"the limit is {MAX_UPLOAD_BYTES:,} bytes" in text, text


def test_sizes_stay_short_when_they_differ_anyway():
    from ercot_nb.widgets._limits import sizes

    assert sizes(60 * 2**20, 50 * 2**20) == ["60.0 MiB", "50.0 MiB"]
    assert sizes(50 * 2**20 + 20_000, 50 * 2**20) == ["50.02 MiB", "50.00 MiB"]


def _refuse(picker: DatasetPicker, name: str, size: int) -> None:
    """What the browser sends when a file above the limit is chosen (the file itself is not sent)."""
    picker.upload._handle_custom_msg({"event": "refused", "name": name, "size": size,
                                      "type": "text/csv", "last_modified": 0}, [])


@pytest.mark.parametrize("app, limit", [(True, 50 * 2**20), (False, 9 * 2**20)])
def test_a_file_above_the_server_limit_is_refused_in_the_browser_with_a_message(monkeypatch, app, limit):
    """Above ~10 MiB an upload did nothing: the server dropped the websocket message."""
    from ercot_nb.widgets import _limits

    if app:  # ercot-nb app's server says what it lets through
        monkeypatch.setenv(_limits.MESSAGE_LIMIT_ENV, str(_limits.APP_MESSAGE_LIMIT))
    else:  # a Jupyter server with tornado's default (JupyterLab)
        monkeypatch.delenv(_limits.MESSAGE_LIMIT_ENV, raising=False)
    picker = DatasetPicker("syn1")
    assert picker.upload.limit == limit  # the browser refuses larger files before sending them
    before = picker.dataset
    _refuse(picker, "huge <b>.csv", limit + 30 * 2**20)
    text = picker.message.text
    assert picker.message.level == "error" and picker.dataset is before
    assert "huge <b>.csv" in text and "not sent" in text and "<b>" not in picker.message.value
    assert f"the limit is {limit / 2**20:.1f} MiB" in text, text
    assert ("websocket" in text) is ("from_csv" in text) is (not app)  # outside the app: what code can do
    _refuse(picker, "huge <b>.csv", limit + 30 * 2**20)  # the same file again: said again
    assert picker.message.level == "error"


def test_a_file_within_the_limit_arrives_as_an_upload():
    picker = DatasetPicker("syn1")
    content = long_csv()
    picker.upload._handle_custom_msg({"event": "file", "name": "days.csv", "type": "text/csv",
                                      "size": len(content), "last_modified": 1.7e12}, [content])
    assert picker.source.value == "csv" and picker.time_column.value == "Day"
    assert "Read days.csv" in picker.message.text


def test_the_upload_button_has_a_tooltip_and_the_features_list_shows_every_column():
    picker = DatasetPicker("syn1")
    assert picker.upload.tooltip and "null" not in picker.upload.tooltip
    assert "MiB" in picker.upload.tooltip and "MiB" in picker.csv_help.value
    frame = pd.DataFrame({"time": [1, 1, 2, 2], "id": ["a", "b"] * 2,
                          **{f"f{j}": np.arange(4.0) for j in range(5)}})
    upload(picker, frame.to_csv(index=False).encode(), "five.csv")
    assert picker.feature_columns.rows >= len(frame.columns) == 7  # the fifth feature was hidden
    wide = pd.DataFrame({"time": [1, 1], "id": ["a", "b"], **{f"f{j}": [0.0, 1.0] for j in range(30)}})
    upload(picker, wide.to_csv(index=False).encode(), "wide.csv")
    assert picker.feature_columns.rows == 12  # a sensible most: then it scrolls


def test_no_control_of_the_picker_shows_a_null_tooltip():
    """ipywidgets shows a described control's missing tooltip as the hover text "null"."""
    import ipywidgets as W

    picker = DatasetPicker("syn1")
    described = [widget for widget in vars(picker).values()
                 if isinstance(widget, W.DOMWidget) and getattr(widget, "description", "")]
    assert len(described) >= 9
    assert [widget.description for widget in described if not widget.tooltip] == []


def _dates_csv(times: list[str]) -> bytes:
    rows = [f"{time},{who},{i + j}" for i, time in enumerate(times) for j, who in enumerate("ab")]
    return ("day,who,x\n" + "\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("times, fmt", [
    (["1/2/2020", "2/2/2020", "1/3/2020"], "%d/%m/%Y"),   # in time order, day first
    (["1/2/2020", "1/3/2020", "2/1/2020"], "%m/%d/%Y"),   # in time order, month first
])
def test_ambiguous_dates_in_a_csv_are_settled_in_the_form(times, fmt):
    """The refusal asked for time_format=, which the form had no place for."""
    picker = DatasetPicker("syn1")
    upload(picker, _dates_csv(times), "days.csv")
    picker.id_column.value = "who"
    assert picker.load_csv() is None
    assert "time format" in picker.message.text  # the box the user can fill in
    picker.time_format.value = fmt
    assert picker.pending is not None  # the form now shows data not loaded yet
    dataset = picker.load_csv()
    assert dataset is not None and picker.pending is None
    assert [str(time) for time in dataset.times] == times  # the labels as written, in time order
