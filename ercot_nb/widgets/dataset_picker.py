"""Dataset picker: a built-in scenario with its parameters, or an uploaded CSV file."""
from __future__ import annotations

import html
import io
from pathlib import PurePath
from typing import Any, Mapping

import ipywidgets as W
import pandas as pd
import traitlets

from .. import datasets
from ..data import TemporalDataset
from ..figures import is_video
from ._messages import MessageArea
from ._params_form import ParamsForm, param_specs

__all__ = ["DatasetPicker", "MAX_UPLOAD_BYTES", "INTERACTIVE_DEFAULTS"]

MAX_UPLOAD_BYTES = 50 * 2**20
"""Largest CSV file the picker accepts (50 MiB)."""

INTERACTIVE_DEFAULTS: dict[str, dict[str, Any]] = {"video_rc": {"scale": 0.25}}
"""Scenario parameters whose form default differs from the loader's.

At full size video_rc has 640 x 360 = 230,400 pixels per frame, too many for
runs in the app; ``scale=0.25`` gives 160 x 90 (about video_mo's 19,200).
A parameter the loader does not take is ignored.
"""

_NONE = "(none)"
_ROLE_GUESSES = {
    "time": ("time", "t", "step", "date", "timestamp", "year", "frame", "day"),
    "id": ("id", "sample_id", "sample", "key", "name", "object", "who", "node"),
    "label": ("label", "cluster", "class", "true_label", "target", "y", "group", "kind"),
}


def _guess(columns: list[str], role: str, taken: set[str]) -> str | None:
    lowered = {str(column).lower(): column for column in columns if column not in taken}
    for candidate in _ROLE_GUESSES[role]:
        if candidate in lowered:
            return lowered[candidate]
    return None


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
    return (
        f"<b>{html.escape(dataset.name or 'unnamed dataset')}</b>: {frames}{len(dataset)} steps, "
        f"{samples} samples per step, {dataset.n_features} feature(s) ({html.escape(features)}), "
        f"ground-truth labels: {'yes' if dataset.has_labels else 'no'}"
    )


class DatasetPicker(W.VBox):
    """Choose the data: a built-in scenario (with parameters) or a CSV file.

    A bad file or an invalid column mapping shows a message in the picker
    and keeps the current dataset; the user's entries stay as they were.

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
        defaults, except those in :data:`INTERACTIVE_DEFAULTS` (e.g. a
        downscaled video_rc).

    Attributes
    ----------
    dataset : TemporalDataset
        The current dataset (a traitlet: ``picker.observe(fn, "dataset")``).
    message : MessageArea
        Feedback of the last action.
    """

    dataset = traitlets.Instance(TemporalDataset, allow_none=True)

    def __init__(
        self,
        dataset: str | TemporalDataset = "syn3",
        *,
        seed: int = 0,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.message = MessageArea()
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
            style={"description_width": "120px"}, layout=W.Layout(width="250px"),
        )
        self.seed = W.IntText(
            value=seed, description="data seed", style={"description_width": "120px"},
            layout=W.Layout(width="250px"),
        )
        self._forms: dict[str, ParamsForm] = {}
        self.load_button = W.Button(description="Load scenario", icon="database", button_style="primary")
        self._form_box = W.Box([self._form(initial.lower())])
        builtin = W.VBox([
            W.GridBox([self.scenario, self.seed],
                      layout=W.Layout(grid_template_columns="repeat(2, 255px)", grid_gap="2px 8px")),
            self._form_box,
            self.load_button,
        ])
        # -- CSV upload and column mapping
        self.upload = W.FileUpload(accept=".csv,text/csv,text/plain", multiple=False,
                                   description="Choose CSV file")
        self.time_column = self._column_dropdown("time")
        self.id_column = self._column_dropdown("id")
        self.label_column = self._column_dropdown("label")
        self.feature_columns = W.SelectMultiple(
            options=[], rows=4, description="features", style={"description_width": "120px"},
            layout=W.Layout(width="380px"),
            tooltip="none selected = every other numeric column",
        )
        self.load_csv_button = W.Button(description="Load CSV", icon="table", button_style="primary",
                                        disabled=True)
        self.csv_help = W.HTML(
            "<small>Long format: one row per (time, sample id), one column per feature. "
            "Leave <i>features</i> unselected to use every other numeric column.</small>"
        )
        csv = W.VBox([
            self.csv_help,
            self.upload,
            W.GridBox([self.time_column, self.id_column, self.label_column],
                      layout=W.Layout(grid_template_columns="repeat(2, 255px)", grid_gap="2px 8px")),
            self.feature_columns,
            self.load_csv_button,
        ])
        self._frame: pd.DataFrame | None = None
        self._file_name = ""
        self.pages = W.Stack([builtin, csv], selected_index=0 if self.source.value == "builtin" else 1)
        self.children = [self.source, self.pages, self.message, self.summary]

        self.source.observe(self._on_source, names="value")
        self.scenario.observe(self.message.guarded("switching scenario")(self._on_scenario), names="value")
        self.load_button.on_click(lambda _: self.load_builtin())
        self.upload.observe(self._on_upload, names="value")
        self.load_csv_button.on_click(lambda _: self.load_csv())
        self.observe(self._on_dataset, names="dataset")

        if isinstance(dataset, TemporalDataset):
            self.dataset = dataset
        else:
            if params:
                self._forms[initial.lower()].set_values(params)
            self.load_builtin()
            if self.dataset is None:  # invalid initial parameters: say so, do not half-start
                raise ValueError(self.message.text)

    # -- building blocks -----------------------------------------------------------
    def _form(self, name: str) -> ParamsForm:
        if name not in self._forms:
            loader = datasets._LOADERS[name]  # the scenario's own signature and docs
            self._forms[name] = ParamsForm(
                param_specs(loader, skip=("seed",), defaults=INTERACTIVE_DEFAULTS.get(name))
            )
        return self._forms[name]

    def _column_dropdown(self, role: str) -> W.Dropdown:
        return W.Dropdown(
            options=[_NONE] if role == "label" else [], description=f"{role} column",
            style={"description_width": "120px"}, layout=W.Layout(width="250px"),
        )

    # -- actions ----------------------------------------------------------------------
    def load_builtin(self) -> TemporalDataset | None:
        """Load the selected scenario with the entered seed and parameters.

        Returns
        -------
        TemporalDataset or None
            The new dataset, or None when the parameters are invalid (the
            message says why; the current dataset is kept).
        """
        name = self.scenario.value
        with self.message.guard(f"loading {name}"):
            loaded = datasets.load(name, seed=self.seed.value, **self._forms[name].values())
            self.dataset = loaded
            self.message.show(f"Loaded the built-in scenario {name}.", "success")
            return loaded
        return None

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
            message explains why and the current dataset and mapping stay.
        """
        doing = f"reading {name!r}"
        with self.message.guard(doing):
            if len(content) > MAX_UPLOAD_BYTES:
                raise ValueError(
                    f"the file has {len(content) / 2**20:.0f} MiB; the limit is "
                    f"{MAX_UPLOAD_BYTES // 2**20} MiB"
                )
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
                f"Read {name}: {frame.shape[0]} rows, {frame.shape[1]} columns. Check the column "
                "mapping, then press “Load CSV”.",
                "info",
            )
            return True
        return False

    def _set_columns(self, frame: pd.DataFrame, name: str) -> None:
        columns = [str(column) for column in frame.columns]
        frame = frame.set_axis(columns, axis=1)
        taken: set[str] = set()
        guesses = {}
        for role, fallback in (("time", 0), ("id", 1)):
            guess = _guess(columns, role, taken) or next(c for c in columns[fallback:] if c not in taken)
            guesses[role] = guess
            taken.add(guess)
        label = _guess(columns, "label", taken)
        self._frame, self._file_name = frame, name
        self.time_column.options = columns
        self.time_column.value = guesses["time"]
        self.id_column.options = columns
        self.id_column.value = guesses["id"]
        self.label_column.options = [_NONE, *columns]
        self.label_column.value = label if label is not None else _NONE
        self.feature_columns.options = columns
        self.feature_columns.value = ()
        self.load_csv_button.disabled = False

    def load_csv(self) -> TemporalDataset | None:
        """Build the dataset from the read CSV table and the column mapping.

        Returns
        -------
        TemporalDataset or None
            The new dataset, or None when the mapping or the content is
            invalid (the message says why; the current dataset is kept).
        """
        with self.message.guard(f"loading {self._file_name or 'the CSV file'}"):
            if self._frame is None:
                raise ValueError("choose a CSV file first")
            label = None if self.label_column.value == _NONE else self.label_column.value
            features = list(self.feature_columns.value) or None
            loaded = TemporalDataset.from_frame(
                self._frame,
                time=self.time_column.value,
                id=self.id_column.value,
                features=features,
                label=label,
                name=PurePath(self._file_name).stem,
            )
            self.dataset = loaded
            self.message.show(f"Loaded {self._file_name}.", "success")
            return loaded
        return None

    # -- event handlers ---------------------------------------------------------------
    def _on_source(self, change: dict[str, Any]) -> None:
        self.pages.selected_index = 0 if change["new"] == "builtin" else 1

    def _on_scenario(self, change: dict[str, Any]) -> None:
        self._form_box.children = [self._form(change["new"])]
        self.load_builtin()

    def _on_upload(self, change: dict[str, Any]) -> None:
        files = change["new"]
        if not files:
            return
        upload = files[0]
        self.read_csv(bytes(upload["content"]), str(upload.get("name") or "uploaded.csv"))

    def _on_dataset(self, change: dict[str, Any]) -> None:
        self.summary.value = describe(change["new"]) if change["new"] is not None else ""

    # -- state ------------------------------------------------------------------------
    @property
    def disabled(self) -> bool:
        """Whether loading is locked (e.g. while a fit runs)."""
        return self.load_button.disabled and self.upload.disabled

    @disabled.setter
    def disabled(self, value: bool) -> None:
        for control in (self.load_button, self.scenario, self.upload):
            control.disabled = value
        self.load_csv_button.disabled = value or self._frame is None
