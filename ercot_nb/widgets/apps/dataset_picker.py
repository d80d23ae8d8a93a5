"""Dataset picker: a built-in scenario with its parameters, or an uploaded CSV file."""
from __future__ import annotations

import html
import io
import warnings
from pathlib import PurePath
from typing import Any, Mapping

import ipywidgets as W
import pandas as pd

from ... import datasets
from ...data import TemporalDataset
from ...figures import is_video
from .. import _limits
from .._messages import MessageArea
from ._upload import CsvUpload
from ...data import SCALING_WORDS, SCALINGS
from ...datasets import dataset_params
from ._params_form import ParamsForm
from .._state import AppState, Status

__all__ = ["DatasetPicker", "MAX_UPLOAD_BYTES", "INTERACTIVE_DEFAULTS"]

MAX_UPLOAD_BYTES = _limits.MAX_UPLOAD_BYTES
"""Largest CSV file the picker reads (50 MiB) where the server lets it through (see
:func:`ercot_nb.widgets._limits.upload_limit`: 9 MiB under a Jupyter server with its
default websocket message limit)."""

_SCALING_DONE = {"standardize": "standardised", "minmax": "min-max scaled"}

INTERACTIVE_DEFAULTS: dict[str, dict[str, Any]] = {"video_rc": {"scale": 0.25}}
"""Scenario parameters whose form default differs from the loader's.

At full size video_rc has 640 x 360 = 230,400 pixels per frame, too many for
runs in the app; ``scale=0.25`` gives 160 x 90 (about video_mo's 19,200).
A parameter the loader does not take is ignored.
"""

_MAX_FEATURE_ROWS = 12  # the features list shows every column up to this many, then scrolls
_COLUMN_HELP = {  # hover help of the column choices (without one, ipywidgets shows "null")
    "time": "the column of time labels: one step per distinct value, in sorted order",
    "id": "the column that identifies each sample from step to step",
    "label": "a column of ground-truth labels, if the file has one (scores need it)",
}
_NONE = "(none)"
_CHOOSE = "(choose)"
_TIME_NAMES = ("time", "t", "step", "date", "timestamp", "year", "frame", "day")
# Only the time column is preselected (by its name, else the first column): the id
# column must be chosen by the user (a wrong one silently mixes samples up), and a
# label column is never assumed (a feature called "y" is not a label).


def _guess_time(columns: list[str]) -> str:
    lowered = {column.lower(): column for column in columns}
    for candidate in _TIME_NAMES:
        if candidate in lowered:
            return lowered[candidate]
    return columns[0]


def describe(dataset: TemporalDataset) -> str:
    """One line of HTML summing up a dataset (name, steps, samples, features, labels).

    Parameters
    ----------
    dataset : TemporalDataset

    Returns
    -------
    str
    """
    counts = dataset.n_samples_per_step
    samples = str(counts.min()) if counts.min() == counts.max() else f"{counts.min()}–{counts.max()}"
    features = ", ".join(dataset.feature_names[:6]) + (" …" if dataset.n_features > 6 else "")
    frames = ""
    if is_video(dataset):
        height, width = dataset.metadata["frame_shape"]
        frames = f"video of {width} × {height} pixel frames, "
    story = str(dataset.metadata.get("description") or "")
    return (
        f"<b>{html.escape(dataset.name or 'unnamed dataset')}</b>: {frames}{len(dataset)} steps, "
        f"{samples} samples per step, {dataset.n_features} feature(s) ({html.escape(features)}), "
        f"ground-truth labels: {'yes' if dataset.has_labels else 'no'}"
        # the story behind a click: ten lines of it pushed the views off a laptop's first screen
        + (f"<details><summary>about this dataset</summary><small>{html.escape(story)}</small>"
           "</details>" if story else "")
    )


# entries in as many 255 px columns as the panel holds: one in a side panel, two in a wide one
_GRID = "repeat(auto-fill, 255px)"


class DatasetPicker(W.VBox):
    """Choose the data: a built-in scenario (with parameters) or a CSV file.

    A loaded dataset becomes the :attr:`AppState.dataset
    <ercot_nb.widgets._state.AppState>` of the app.  A bad file, an invalid
    column mapping or invalid scenario parameters set an error status and
    keep the current dataset; the user's entries stay as they were, and
    :attr:`pending` says that what the picker shows is not what is loaded.

    Parameters
    ----------
    dataset : str or TemporalDataset, default="syn3"
        Initial data: a built-in name (see :func:`ercot_nb.datasets.available`)
        or a dataset.
    seed : int, default=0
        Data seed of built-in scenarios.
    params : mapping, optional
        Scenario parameters of the initial built-in dataset (e.g.
        ``{"n_steps": 6}``).  Each scenario's form starts from the loader's
        defaults, except those in ``INTERACTIVE_DEFAULTS`` (e.g. a
        downscaled video_rc).
    state : AppState, optional
        The app's state; default a new one (with its own status line shown
        in the picker).

    Attributes
    ----------
    state : AppState
    message : MessageArea
        The status line (shown in the picker only when it has its own state).
    """

    def __init__(
        self,
        dataset: str | TemporalDataset = "syn3",
        *,
        seed: int = 0,
        params: Mapping[str, Any] | None = None,
        state: AppState | None = None,
    ) -> None:
        super().__init__()
        own = state is None
        self.state = state if state is not None else AppState()
        self.message = MessageArea(self.state)
        self.summary = W.HTML()
        names = datasets.available()
        initial = dataset if isinstance(dataset, str) else names[0]
        if initial.lower() not in names:
            raise ValueError(f"unknown dataset {dataset!r}; available: {', '.join(names)}")
        self.source = W.ToggleButtons(
            options=[("Built-in scenario", "builtin"), ("CSV file", "csv")],
            value="builtin" if isinstance(dataset, str) else "csv",
            style={"button_width": "140px"},
        )
        # -- built-in scenarios
        self.scenario = W.Dropdown(
            options=names, value=initial.lower(), description="scenario",
            tooltip="a built-in dataset (choosing one loads it)",
            style={"description_width": "120px"}, layout=W.Layout(width="250px"),
        )
        self.seed = W.IntText(
            value=seed, description="data seed", style={"description_width": "120px"},
            layout=W.Layout(width="250px"), tooltip="seed (the same seed gives the same data)",
        )
        self._forms: dict[str, ParamsForm] = {}
        self.load_button = W.Button(description="Load scenario", icon="database", button_style="primary",
                                    tooltip="load the scenario with this seed and these parameters")
        self._form_box = W.Box()
        builtin = W.VBox([
            W.GridBox([self.scenario, self.seed],
                      layout=W.Layout(grid_template_columns=_GRID, grid_gap="2px 8px")),
            self._form_box,
            self.load_button,
        ])
        # -- CSV upload and column mapping
        self.upload_limit = _limits.upload_limit()
        limit_text = _limits.sizes(self.upload_limit)[0]
        self.upload = CsvUpload(
            accept=".csv,text/csv,text/plain", description="Choose CSV file", limit=self.upload_limit,
            tooltip=f"a long-format CSV file of up to {limit_text}",
        )
        self.time_column = self._column_dropdown("time")
        self.id_column = self._column_dropdown("id")
        self.label_column = self._column_dropdown("label")
        self.time_format = W.Text(
            value="", description="time format", placeholder="e.g. %d/%m/%Y",
            style={"description_width": "120px"}, layout=W.Layout(width="250px"),
            tooltip="only for dates whose day/month order cannot be told from the data: "
                    "%d/%m/%Y (day first) or %m/%d/%Y (month first)",
        )
        self.feature_columns = W.SelectMultiple(
            options=[], rows=4, description="features", style={"description_width": "120px"},
            layout=W.Layout(width="380px"),
            tooltip="none selected = every other numeric column",
        )
        self.scaling = W.Dropdown(
            options=[(SCALING_WORDS[value], value) for value in SCALINGS], value="none",
            description="scaling", style={"description_width": "120px"}, layout=W.Layout(width="380px"),
            tooltip="scale: rescale every feature over all steps, so that features in different "
                    "units weigh alike (TemporalDataset.scaled)",
        )
        self.load_csv_button = W.Button(description="Load CSV", icon="table", button_style="primary",
                                        tooltip="build the dataset from the file and these columns",
                                        disabled=True)
        self.csv_help = W.HTML(
            "<small>Long format: one row per (time, sample id), one column per feature. "
            "Choose the column that identifies each sample; leave <i>features</i> unselected "
            f"to use every other numeric column. Files up to {limit_text}.</small>"
        )
        self.understood = W.HTML()
        csv = W.VBox([
            self.csv_help,
            self.upload,
            W.GridBox([self.time_column, self.id_column, self.label_column, self.time_format],
                      layout=W.Layout(grid_template_columns=_GRID, grid_gap="2px 8px")),
            self.feature_columns,
            self.scaling,
            self.understood,
            self.load_csv_button,
        ])
        self._frame: pd.DataFrame | None = None
        self._file_name = ""
        self._loaded_key: tuple[Any, ...] | None = None  # what the loaded dataset was made from
        self.pages = W.Stack([builtin, csv], selected_index=0 if self.source.value == "builtin" else 1)
        self.children = [self.source, self.pages, *([self.message] if own else []), self.summary]

        self._show_form(initial.lower())
        self.source.observe(self._on_source, names="value")
        self.scenario.observe(self.message.guarded("switching the scenario")(self._on_scenario),
                              names="value")
        self.load_button.on_click(lambda _: self.load_builtin())
        self.upload.observe(self._on_upload, names="value")
        self.upload.observe(self._on_refused, names="refused")
        self.upload.observe(self._on_unreadable, names="unreadable")
        self.load_csv_button.on_click(lambda _: self.load_csv())
        for control in (self.time_column, self.id_column, self.label_column, self.feature_columns,
                        self.scaling, self.time_format):
            control.observe(self._on_mapping, names="value")
        self.state.observe(self._on_dataset, names="dataset")

        if isinstance(dataset, TemporalDataset):
            self.state.set_dataset(dataset, dataset.name or "", {})
            self._loaded_key = self._visible_key()
        else:
            if params:
                self._forms[initial.lower()].set_values(params)
            if self.load_builtin() is None:  # invalid initial parameters: say so, do not half-start
                raise ValueError(self.message.text)
        self._on_dataset()

    # -- building blocks -----------------------------------------------------------
    def _form(self, name: str) -> ParamsForm:
        if name not in self._forms:
            self._forms[name] = ParamsForm(dataset_params(name), owner=name, skip=("seed",),
                                           defaults=INTERACTIVE_DEFAULTS.get(name))
        return self._forms[name]

    def _show_form(self, name: str) -> None:
        self._form_box.children = [self._form(name)]

    def _column_dropdown(self, role: str) -> W.Dropdown:
        return W.Dropdown(
            options=[_NONE] if role == "label" else [], description=f"{role} column",
            tooltip=_COLUMN_HELP[role],
            style={"description_width": "120px"}, layout=W.Layout(width="250px"),
        )

    # -- state ------------------------------------------------------------------------
    @property
    def dataset(self) -> TemporalDataset | None:
        """The loaded dataset (the state's); setting it loads a given dataset."""
        return self.state.dataset

    @dataset.setter
    def dataset(self, data: TemporalDataset) -> None:
        if not isinstance(data, TemporalDataset):
            raise TypeError(f"dataset must be a TemporalDataset, got {type(data).__name__}")
        self.state.set_dataset(data, data.name or "", {})
        if self.state.dataset is data:  # the app may refuse data it cannot show
            self._loaded_key = self._visible_key()

    def _builtin_key(self) -> tuple[Any, ...]:
        form = self._forms[self.scenario.value]
        entries = tuple((name, repr(field.widget.value)) for name, field in form.fields.items())
        return ("builtin", self.scenario.value, self.seed.value, entries)

    def _visible_key(self) -> tuple[Any, ...]:
        """What the picker shows: the data a load would make now."""
        if self.source.value == "builtin":
            return self._builtin_key()
        if self._frame is None:
            return ("csv", None)
        time, ident, label, _ = self._mapping()
        return ("csv", self._file_name, time, ident, label, tuple(self.feature_columns.value),
                self.scaling.value, self._time_format())

    @property
    def pending(self) -> str | None:
        """Why the data shown in the picker is not the data loaded, or None.

        A Run must not silently fit the previously loaded data while the
        user sees another scenario, other parameters or a CSV mapping that
        was not loaded.
        """
        if self._visible_key() == self._loaded_key:
            return None
        loaded = self.state.dataset_name or "the previous data"
        if self.source.value == "builtin":
            return (f"The scenario and parameters shown under Data are not loaded "
                    f"({loaded} is): press “Load scenario” first, or fix its parameters.")
        return (f"The CSV file and columns shown under Data are not loaded ({loaded} is): "
                f"choose a file and its id column, then press “Load CSV”.")

    # -- actions ----------------------------------------------------------------------
    def load_builtin(self) -> TemporalDataset | None:
        """Load the selected scenario with the entered seed and parameters.

        Returns
        -------
        TemporalDataset or None
            The new dataset, or None when the parameters are invalid (the
            status says why; the current dataset is kept).
        """
        name = self.scenario.value
        with self.message.guard(f"loading {name} (the data shown is still "
                                f"{self.state.dataset_name or 'the previous one'})"):
            values = self._forms[name].values()
            loaded = datasets.load(name, seed=self.seed.value, **values)
            before = self.state.status
            self.state.set_dataset(loaded, name, {"seed": self.seed.value, **values})
            if self.state.dataset is not loaded:  # the app refused it; the status says why
                return None
            self._loaded_key = self._visible_key()
            self._answer(before, f"Loaded the built-in scenario {name}.", "success",
                         f"Loaded the built-in scenario {name}.")
            return loaded
        return None

    def _answer(self, before: Status, text: str, level: str, loaded: str) -> None:
        """Say that the data is loaded, unless a view failed to draw it meanwhile.

        The views draw the new dataset while it is set; one that fails puts
        its error on the status line (see :meth:`FigureView.follow
        <ercot_nb.widgets.views._base.FigureView.follow>`).  That error is the
        outcome of the load and stays, after ``loaded`` (what did work).
        """
        status = self.state.status
        if status is not before and status.level == "error":
            self.state.status = Status("error", f"{loaded} {status.text}", status.details,
                                       "load dataset")
        else:
            self.message.show(text, level, action="load dataset")

    def read_csv(self, content: bytes, name: str = "uploaded.csv") -> bool:
        """Read a CSV file's bytes and offer its columns for mapping.

        Parameters
        ----------
        content : bytes
            The file's content.
        name : str, default="uploaded.csv"
            The file name (shown in messages; its stem names the dataset).

        Returns
        -------
        bool
            Whether the file could be read as a table.  On failure the
            status explains why and the current dataset and mapping stay.
        """
        with self.message.guard(f"reading {name!r} (the data shown is still "
                                f"{self.state.dataset_name or 'the previous one'})"):
            if len(content) > MAX_UPLOAD_BYTES:
                raise ValueError(self._too_big(len(content), MAX_UPLOAD_BYTES))
            if not content.strip():
                raise ValueError("the file is empty")
            try:
                frame = pd.read_csv(io.BytesIO(content))
            except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
                raise ValueError(f"this is not a readable CSV table ({exc})") from None
            if frame.shape[1] < 3 or frame.shape[0] == 0:
                raise ValueError(
                    f"a long-format table needs rows and at least three columns (time, id, one "
                    f"feature); found {frame.shape[0]} row(s) and {frame.shape[1]} column(s)"
                )
            self._set_columns(frame, name)
            self.message.show(
                f"Read {name}: {frame.shape[0]} rows, {frame.shape[1]} columns. Choose the id "
                "column (and a label column if there is one), then press “Load CSV”.",
                "info", action="read csv",
            )
            return True
        return False

    @staticmethod
    def _too_big(size: int, limit: int) -> str:
        shown, limit_shown = _limits.sizes(size, limit)
        text = (f"the file has {shown}; the limit is {limit_shown}. Load a smaller file (fewer "
                "steps, samples or columns)")
        if limit < MAX_UPLOAD_BYTES:  # a Jupyter server's message limit (JupyterLab): code can help
            text += (f"; or serve the app with ercot-nb app (up to {_limits.sizes(MAX_UPLOAD_BYTES)[0]}), "
                     "start Jupyter with --ServerApp.tornado_settings=\"{'websocket_max_message_size': "
                     "60*2**20}\", or read the file in code: TemporalDataset.from_csv(path, time=..., "
                     "id=...)")
        return text

    def _set_columns(self, frame: pd.DataFrame, name: str) -> None:
        columns = [str(column) for column in frame.columns]
        frame = frame.set_axis(columns, axis=1)
        self._frame, self._file_name = frame, name
        self._setting = True
        try:
            self.time_column.options = columns
            self.time_column.value = _guess_time(columns)
            self.id_column.options = [_CHOOSE, *columns]
            self.id_column.value = _CHOOSE
            self.label_column.options = [_NONE, *columns]
            self.label_column.value = _NONE
            self.feature_columns.options = columns
            self.feature_columns.rows = min(max(len(columns), 4), _MAX_FEATURE_ROWS)
            self.feature_columns.value = ()
        finally:
            self._setting = False
        self.load_csv_button.disabled = False
        self._on_mapping()

    def _mapping(self) -> tuple[str, str | None, str | None, list[str]]:
        """(time, id or None, label or None, features) as entered."""
        time = self.time_column.value
        ident = None if self.id_column.value in (_CHOOSE, None) else self.id_column.value
        label = None if self.label_column.value in (_NONE, None) else self.label_column.value
        features = list(self.feature_columns.value)
        if not features and self._frame is not None:
            roles = {time, ident, label}
            features = [c for c in self._frame.columns if c not in roles
                        and pd.api.types.is_numeric_dtype(self._frame[c])
                        and not pd.api.types.is_bool_dtype(self._frame[c])]
        return time, ident, label, features

    def _time_format(self) -> str | None:
        """The time format entered (None when the box is empty)."""
        return self.time_format.value.strip() or None

    def understanding(self) -> str:
        """What the picker understood of the CSV table and mapping, in plain words (text)."""
        if self._frame is None:
            return ""
        time, ident, label, features = self._mapping()
        frame = self._frame
        parts = [f"Steps: the {frame[time].nunique()} distinct values of “{time}”."]
        if ident is None:
            parts.append("Samples: choose the column that identifies each sample (an id that "
                         "stays the same from step to step).")
        else:
            parts.append(f"Samples: identified by “{ident}” ({frame[ident].nunique()} ids).")
        parts.append(f"Features: {', '.join(features) if features else 'none (choose numeric columns)'}.")
        parts.append(f"Ground-truth labels: {'“' + label + '”' if label else 'none'}.")
        return " ".join(parts)

    def _on_mapping(self, change: Any = None) -> None:
        if getattr(self, "_setting", False):
            return
        self.understood.value = f"<small>{html.escape(self.understanding())}</small>"

    def load_csv(self) -> TemporalDataset | None:
        """Build the dataset from the read CSV table and the column mapping.

        Returns
        -------
        TemporalDataset or None
            The new dataset, or None when the mapping or the content is
            invalid (the status says why; the current dataset is kept).
        """
        with self.message.guard(f"loading {self._file_name or 'the CSV file'} (the data shown "
                                f"is still {self.state.dataset_name or 'the previous one'})"):
            if self._frame is None:
                raise ValueError("choose a CSV file first")
            time, ident, label, _ = self._mapping()
            if ident is None:
                raise ValueError("choose the id column: the column that identifies each sample "
                                 "from step to step")
            features = list(self.feature_columns.value) or None
            scale = self.scaling.value
            time_format = self._time_format()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UserWarning)
                loaded = TemporalDataset.from_frame(
                    self._frame, time=time, id=ident, features=features, label=label,
                    name=PurePath(self._file_name).stem, scale=scale, time_format=time_format,
                )
            notes = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
            before = self.state.status
            self.state.set_dataset(loaded, self._file_name,
                                   {"time": time, "id": ident, "label": label, "features": features,
                                    "scale": scale, "time_format": time_format})
            if self.state.dataset is not loaded:  # the app refused it; the status says why
                return None
            self._loaded_key = self._visible_key()
            text = f"Loaded {self._file_name}. {self.understanding()}"
            if scale != "none":
                text += f" Features {_SCALING_DONE[scale]} over all steps."
            if notes:
                text += " Note: " + " ".join(notes) + (
                    " Choose a scaling above and load again." if scale == "none" else "")
            self._answer(before, text, "warning" if notes else "success", f"Loaded {self._file_name}.")
            return loaded
        return None

    # -- event handlers ---------------------------------------------------------------
    def _on_source(self, change: dict[str, Any]) -> None:
        self.pages.selected_index = 0 if change["new"] == "builtin" else 1

    def _on_scenario(self, change: dict[str, Any]) -> None:
        self._show_form(change["new"])
        self.load_builtin()

    def _on_upload(self, change: dict[str, Any]) -> None:
        files = change["new"]
        if not files:
            return
        upload = files[0]
        self.source.value = "csv"  # a file was chosen: the CSV page is what the user sees
        self.read_csv(bytes(upload["content"]), str(upload.get("name") or "uploaded.csv"))

    def _on_refused(self, change: dict[str, Any]) -> None:
        refused = change["new"]
        if not refused:
            return
        self.source.value = "csv"
        self.message.show_error(
            ValueError(self._too_big(int(refused["size"]), self.upload_limit)),
            f"reading {refused['name']!r} (the data shown is still "
            f"{self.state.dataset_name or 'the previous one'}; the file was not sent)",
        )

    def _on_unreadable(self, change: dict[str, Any]) -> None:
        if change["new"]:
            self.message.show(f"The browser could not read {change['new']['name']!r}; choose it "
                              "again, or check that the file is readable.", "error",
                              action="read csv")

    def _on_dataset(self, change: Any = None) -> None:
        data = self.state.dataset
        self.summary.value = describe(data) if data is not None else ""

    # -- state ------------------------------------------------------------------------
    @property
    def disabled(self) -> bool:
        """Whether loading is locked."""
        return self.load_button.disabled and self.upload.disabled

    @disabled.setter
    def disabled(self, value: bool) -> None:
        for control in (self.load_button, self.scenario, self.upload):
            control.disabled = value
        self.load_csv_button.disabled = value or self._frame is None
