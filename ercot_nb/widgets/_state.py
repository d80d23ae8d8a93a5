"""The one UI state of an app: dataset, runs, selected run, step, member, status.

Every widget app of this package (:class:`~ercot_nb.widgets.Explorer`,
:class:`~ercot_nb.widgets.Compare`) keeps what the user sees in one
:class:`AppState`.  Controls change it (the picker sets the dataset, the
runner adds runs and reports finished steps, the scrubber sets the step, a
click on the Pareto front sets the member) and views only render it: they
observe its traits and never keep a second copy of what is selected.

During a live run the run's result object grows in place (it is the
estimator's own ``result_``); the runner tells the state at a bounded rate
(:class:`~ercot_nb.widgets._pace.RateLimit`) with :meth:`AppState.grow`, an
O(1) change (a counter), so that what the views redraw for a live run is a
bounded share of the run time.  Every change goes through the methods of
:class:`AppState`, under its :attr:`~AppState.lock`: the runner's thread and
the user's actions never interleave.
"""
from __future__ import annotations

import re

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import traitlets

from ..data import TemporalDataset
from ..result import ClusteringResult

__all__ = ["AppState", "Status", "LEVELS", "DatasetCheck", "RUN_NUMBER", "OWN_RUN", "VIEW_TRAITS",
           "run_number", "clamp_step"]

VIEW_TRAITS = ("dataset", "runs", "run", "revision", "n_done", "step", "member", "agreements")
"""What the views draw: the state's traits :meth:`AppState.follow` reports."""

LEVELS = ("", "info", "success", "warning", "error")
"""Status levels; ``""`` is no message."""

RUN_NUMBER = "{n}"
"""Placeholder for the run's number in a name given to :meth:`AppState.add_run`."""


def clamp_step(step: int, n_steps: int) -> int:
    """``step`` within ``[0, n_steps - 1]`` (0 when there is no step): the one clamp of the apps."""
    return min(max(int(step), 0), max(int(n_steps) - 1, 0))


OWN_RUN = "run"
"""The name of the run in the state of a view made on its own (:meth:`AppState.of`)."""


def run_number(name: str) -> str:
    """The ``#<n>`` that identifies run ``name`` (``"ERCOT #2"`` -> ``"#2"``), or the name itself."""
    match = re.search(r"#\d+", name)
    return match.group(0) if match else name


@dataclass(frozen=True)
class Status:
    """One status line: what happened (and what to do), details on demand.

    Attributes
    ----------
    level : {"", "info", "success", "warning", "error"}
    text : str
        One line, plain text (escaped when shown).
    details : str
        Optional longer explanation (plain text, shown folded); never a
        traceback with server paths (those go to the log).
    action : str
        What the user asked for, e.g. ``"load dataset"`` or ``"run"``
        (lets tests and apps check which action the status answers).
    """

    level: str = ""
    text: str = ""
    details: str = ""
    action: str = ""

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"status level must be one of {LEVELS}, got {self.level!r}")


DatasetCheck = Callable[[TemporalDataset, str], "Status | None"]
"""``check(dataset, name)``: why a view cannot show ``dataset`` (a status), or None."""


class AppState(traitlets.HasTraits):
    """What an app shows, as observable traits.

    Attributes
    ----------
    dataset : TemporalDataset or None
        The data every view shows.
    dataset_name : str
        Built-in scenario name, or the CSV file's name.
    dataset_params : dict
        Parameters the dataset was made with (seed included).
    runs : dict of str to ClusteringResult
        Runs on the current dataset, by name (``"ERCOT #1"``), in order.
        A running run is here from its first finished step and grows in
        place; a new dict is assigned whenever a run is added or the
        dataset changes, so observers see every change of the set of runs.
    run : str or None
        The run shown; None shows the dataset (ground truth preview).
    n_done : int
        Steps of the selected run shown so far (grows during a live run, at
        the rate the runner allows; the number of dataset steps when no run
        is selected).
    revision : int
        Counts the growths of any run (Compare shows several runs at once).
    step : int
        The step shown by every view (0-based).
    member : int or None
        Population member picked on the Pareto front instead of the knee
        (None: the knee).  Reset when the step or the run changes.
    running : bool
        Whether a run is going on.
    status : Status
        The status line: the answer to the user's last action.
    estimators : dict of str to estimator
        The fitted estimator behind each run made in the app, by run name
        (what "Use this partition from here on" continues and "How sure?"
        repeats); dropped with its run.
    agreements : dict of (str or None) to Ensemble
        Per run name, the runs of several seeds whose agreement the
        partition view draws as opacity on that run (a consensus of
        "How sure?"); dropped with its run.
    lock : threading.RLock
        Held by every change (the runner's thread changes the state too).
    checks : list of DatasetCheck
        Asked by :meth:`set_dataset` before anything changes: the views
        register what they cannot show, so refused data leaves every view
        as it was.
    """

    dataset = traitlets.Instance(TemporalDataset, allow_none=True)
    dataset_name = traitlets.Unicode("")
    dataset_params = traitlets.Dict()
    runs = traitlets.Dict()
    run = traitlets.Unicode(None, allow_none=True)
    n_done = traitlets.Int(0)
    revision = traitlets.Int(0)
    step = traitlets.Int(0)
    member = traitlets.Int(None, allow_none=True)
    running = traitlets.Bool(False)
    status = traitlets.Instance(Status, kw=dict())
    estimators = traitlets.Dict()
    agreements = traitlets.Dict()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._count = 0
        self.lock = threading.RLock()
        self.checks: list[DatasetCheck] = []
        self._followers: list[tuple[bool, Callable[[dict[str, Any]], None]]] = []
        self.observe(self._tell_followers, names=list(VIEW_TRAITS))

    # -- views ------------------------------------------------------------------------------
    def follow(self, handler: Callable[[dict[str, Any]], None], *, first: bool = False) -> None:
        """Call ``handler(change)`` on every change of :data:`VIEW_TRAITS`.

        Handlers run one after another in the thread that changed the state,
        each redrawing its view (tens of milliseconds a figure).  Those
        followed with ``first=True`` run before all others (the step's
        partition, which a user looks at first), each group in the order
        followed.

        Parameters
        ----------
        handler : callable
        first : bool, default=False
        """
        self.unfollow(handler)
        self._followers.append((first, handler))

    def unfollow(self, handler: Callable[[dict[str, Any]], None]) -> None:
        """Stop calling ``handler`` (nothing happens if it is not followed)."""
        self._followers = [(first, known) for first, known in self._followers if known != handler]

    def _tell_followers(self, change: dict[str, Any]) -> None:
        followers = self._followers
        for handler in [known for first, known in followers if first] + [
                known for first, known in followers if not first]:
            handler(change)

    # -- queries ------------------------------------------------------------------------------
    @property
    def result(self) -> ClusteringResult | None:
        """The selected run, or None while the dataset is previewed."""
        return self.runs.get(self.run) if self.run is not None else None

    def chosen_run(self, name: str | None = None) -> ClusteringResult | None:
        """Run ``name`` (default: the selected run) as chosen: with a member picked, the run whose
        partition at the step shown is that member's (the views of the chosen partition draw it:
        the number of clusters, cluster sizes, flows, scores); else the run itself.

        The run made is kept while the run, its length, the step and the member stay (the same
        object: a view redraws once per pick); its other steps are the run's own objects.
        """
        name = self.run if name is None else name
        run = self.runs.get(name) if name is not None else None
        member = self.member
        if member is None or run is None or name != self.run or self.dataset is None or not len(run):
            return run
        t = self.step_of(run)
        key = (len(run), t, member)
        known = self._chosen
        if known is not None and known[0] is run and known[1] == key:
            return known[2]
        steps = list(run.steps)
        steps[t] = run.member_partition(self.dataset[t].X, t, member)
        chosen = ClusteringResult(run.algorithm, run.params, steps)
        self._chosen = (run, key, chosen)
        return chosen

    _chosen: tuple[Any, tuple[int, int, int], ClusteringResult] | None = None

    @property
    def n_steps(self) -> int:
        """Steps the scrubber can reach: the selected run's so far, or the dataset's."""
        return self.n_done

    def step_of(self, result: Any = None) -> int:
        """The step of ``result`` a view shows: the state's step, clamped to the steps it has.

        The one rule every view follows: a run shorter than the step (one of
        Compare's runs, a live run) shows its last step; no run (None) counts
        the dataset's steps.

        Parameters
        ----------
        result : ClusteringResult or None
            A run of the state (or any sized run); None: the dataset.

        Returns
        -------
        int
            In ``[0, len(result) - 1]`` (0 for an empty run).
        """
        n = len(result) if result is not None else (len(self.dataset) if self.dataset is not None else 0)
        return clamp_step(self.step, n)

    @classmethod
    def of(cls, dataset: TemporalDataset | None = None, result: Any = None, *,
           runs: dict[str, Any] | None = None, step: int = 0) -> AppState:
        """A state that shows ``dataset`` and ``result`` (or ``runs``) at ``step``.

        What a view made on its own draws (``AlphaView(result)``): its
        methods change this state and the view renders it, as it renders an
        app's.

        Parameters
        ----------
        dataset : TemporalDataset, optional
        result : ClusteringResult, optional
            The run shown (named :data:`OWN_RUN`).
        runs : mapping of str to ClusteringResult, optional
            Runs shown side by side (none selected), instead of ``result``.
        step : int, default=0
            The step asked for; a run that has fewer steps shows its last one
            (:meth:`step_of`) until it grows.

        Returns
        -------
        AppState
        """
        state = cls()
        state.show(dataset, result, runs=runs, step=step)
        return state

    def show(self, dataset: TemporalDataset | None = None, result: Any = None, *,
             runs: dict[str, Any] | None = None, step: int = 0) -> None:
        """Show exactly ``dataset`` and ``result`` (or ``runs``) at ``step``: a view's ``load``.

        Unlike :meth:`set_dataset`, nothing is checked and the step is kept
        as asked (a run shorter than ``step`` shows its last step, see
        :meth:`step_of`).  The member choice and the agreements are dropped.
        """
        with self.lock:
            if runs is None:
                runs = {OWN_RUN: result} if result is not None else {}
                name = OWN_RUN if result is not None else None
            else:
                runs, name = dict(runs), None
            shown = runs.get(name) if name is not None else None
            n = len(shown) if shown is not None else (len(dataset) if dataset is not None else 0)
            with self.hold_trait_notifications():
                self.member = None
                self.agreements = {}
                self.runs = runs
                self.run = name
                self.dataset = dataset
                self.n_done = n
                self.step = max(int(step), 0)
                self.revision += 1

    # -- changes -------------------------------------------------------------------------------
    def set_dataset(self, dataset: TemporalDataset, name: str = "",
                    params: dict[str, Any] | None = None) -> bool:
        """Show a new dataset: its runs are dropped, the step goes back to 0.

        The :attr:`checks` are asked first: data a view cannot show is
        refused (the status line says why, nothing else changes).  The
        traits change in one ``hold_trait_notifications`` block, so an
        observer never sees the new dataset with the old runs.

        Returns
        -------
        bool
            Whether the dataset is now shown.
        """
        name = name or (dataset.name or "")
        with self.lock:
            for check in self.checks:
                refusal = check(dataset, name)
                if refusal is not None:
                    self.status = refusal
                    return False
            with self.hold_trait_notifications():
                self.member = None
                self.run = None
                self.runs = {}
                self.estimators = {}
                self.agreements = {}
                self.step = 0
                self.n_done = len(dataset)
                self.dataset_name = name
                self.dataset_params = dict(params or {})
                self.dataset = dataset
        return True

    def add_run(self, algorithm: str, result: ClusteringResult, *, select: bool = True,
                name: str | None = None) -> str:
        """Add a run (possibly still growing) and, by default, show it.

        Parameters
        ----------
        algorithm : str
            Algorithm name; the run is called ``"<algorithm> #<n>"`` (``n``
            counts the runs) unless ``name`` is given.  A name with the
            placeholder ``RUN_NUMBER`` gets the number there instead, e.g.
            ``"consensus #{n} (5 seeds of #1)"``.
        result : ClusteringResult
            Fitted on :attr:`dataset` (may grow in place afterwards).
        select : bool, default=True
            Show the new run.
        name : str, optional
            Exact name (replaces a run of that name).

        Returns
        -------
        str
            The run's name.
        """
        if name is None:
            self._count += 1
            name = (algorithm.replace(RUN_NUMBER, str(self._count)) if RUN_NUMBER in algorithm
                    else f"{algorithm} #{self._count}")
        with self.lock:
            runs = dict(self.runs)
            runs[name] = result
            with self.hold_trait_notifications():
                self.runs = runs
                if select:
                    self.select_run(name, step=self.step)
        return name

    def replace_run(self, name: str, result: ClusteringResult) -> None:
        """Show ``result`` as run ``name`` from now on (a run's provisional first step gives way).

        The views redraw the new result object; the step is kept (clamped),
        the member choice is dropped.
        """
        with self.lock:
            if name not in self.runs:
                raise KeyError(f"no run called {name!r}; runs: {', '.join(self.runs) or 'none'}")
            runs = dict(self.runs)
            runs[name] = result
            with self.hold_trait_notifications():
                self.runs = runs
                if name == self.run:
                    self._select_run(name, None)
                self.revision += 1

    def drop_run(self, name: str) -> None:
        """Take run ``name`` away (the dataset is shown if it was the run shown)."""
        with self.lock:
            if name not in self.runs:
                return
            runs = {key: value for key, value in self.runs.items() if key != name}
            with self.hold_trait_notifications():
                self.runs = runs
                self.estimators = {key: value for key, value in self.estimators.items() if key != name}
                self.agreements = {key: value for key, value in self.agreements.items() if key != name}
                if name == self.run:
                    self._select_run(None, None)
                self.revision += 1

    def select_run(self, name: str | None, *, step: int | None = None) -> None:
        """Show run ``name`` (None: the dataset) at ``step`` (default: the current one, clamped)."""
        with self.lock:
            self._select_run(name, step)

    def _select_run(self, name: str | None, step: int | None) -> None:
        if name is not None and name not in self.runs:
            raise KeyError(f"no run called {name!r}; runs: {', '.join(self.runs) or 'none'}")
        result = self.runs[name] if name is not None else None
        n = len(result) if result is not None else (len(self.dataset) if self.dataset is not None else 0)
        target = self.step if step is None else int(step)
        with self.hold_trait_notifications():
            self.member = None
            self.run = name
            self.n_done = n
            self.step = clamp_step(target, n)

    def grow(self, name: str) -> None:
        """Show the steps run ``name`` added since the last call (O(1): counters move).

        When the selected run grows while its newest step is shown, the
        step follows to the new newest one.  The runner calls this at a
        bounded rate (see :class:`~ercot_nb.widgets._runner.Runner`).
        """
        with self.lock, self.hold_trait_notifications():
            if name == self.run:
                following = self.step >= self.n_done - 1
                self.n_done = len(self.runs[name])
                if following and self.step != self.n_done - 1:
                    self.member = None
                    self.step = self.n_done - 1
            self.revision += 1

    def set_step(self, step: int) -> None:
        """Show ``step`` (clamped to the steps available); the member choice is dropped."""
        with self.lock:
            step = clamp_step(step, self.n_done)
            if step != self.step:
                with self.hold_trait_notifications():
                    self.member = None
                    self.step = step

    def select_member(self, member: int | None) -> None:
        """Show population ``member`` at the current step (None or the knee: the knee)."""
        with self.lock:
            self._select_member(member)

    def _select_member(self, member: int | None) -> None:
        result = self.result
        if member is not None:
            if result is None or not len(result):
                raise ValueError("there is no run to pick a front member from; run an algorithm first")
            step = result[self.step_of(result)]
            if not 0 <= int(member) < len(step.population):
                raise ValueError(f"member {member} is not in step {step.t}'s population "
                                 f"of {len(step.population)}")
            if int(member) == step.knee:
                member = None
        self.member = None if member is None else int(member)

    def keep_estimator(self, name: str, estimator: Any) -> None:
        """Remember the fitted ``estimator`` behind run ``name`` (see :attr:`estimators`)."""
        with self.lock:
            if name in self.runs:
                self.estimators = {**self.estimators, name: estimator}

    def set_agreement(self, name: str | None, ensemble: Any) -> None:
        """Draw run ``name`` with the agreement of ``ensemble``'s runs (None: plainly again)."""
        with self.lock:
            agreements = {key: value for key, value in self.agreements.items() if key != name}
            if ensemble is not None:
                agreements[name] = ensemble
            self.agreements = agreements

    def say(self, level: str, text: str, details: str = "", action: str = "") -> None:
        """Set the status line."""
        with self.lock:
            self.status = Status(level, text, details, action)
