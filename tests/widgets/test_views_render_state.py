"""Widget views render one AppState and keep no copy of it; the Explorer iterates the view registry.

* No view module assigns a copy of what the state holds (``self.result =``,
  ``self._step =``...): the old views kept 19 such copies and clamped the
  step in 9 places of their own.
* A view's own methods change the state every view draws (the old
  ``pareto.show_step(2)`` moved the Pareto view alone, the other views and
  the scrubber stayed at the old step).
* What lived off the state is on it: the estimators behind the runs, the
  agreements of "How sure?", and the run name of each fit (on the job).
* A view added to :data:`ercot_nb.figures.VIEWS` appears in the Explorer,
  which names no view, and follows the step.
"""
from __future__ import annotations

import ast
from pathlib import Path

import plotly.graph_objects as go
import pytest
from comm.base_comm import BaseComm

from ercot_nb import datasets, figures
from ercot_nb.figures import CURRENT_STEP, Change, Parts, View
from ercot_nb.widgets import AlphaView, Explorer, ParetoView, PartitionView, FlowsView, ScoresView
from ercot_nb.widgets._state import AppState

FAST = {"pop_size": 10, "n_evaluations": 20, "max_clusters": 3, "seed": 0}
VIEWS_DIR = Path(__file__).resolve().parents[2] / "ercot_nb" / "widgets" / "views"
STATE_COPIES = {"result", "dataset", "runs", "run", "step", "member", "selected", "agreement",
                "_step", "_member", "_selected", "_requested", "_agreement_result", "_result"}


def state_copies(source: str) -> list[str]:
    """``self.<name> = ...`` assignments of state names in ``source`` (tuple targets included)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
        for target in targets:
            for item in ast.walk(target):
                if (isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name)
                        and item.value.id == "self" and item.attr in STATE_COPIES):
                    found.append(f"line {node.lineno}: self.{item.attr}")
    return found


def test_no_view_assigns_a_copy_of_the_state():
    copies = {path.name: state_copies(path.read_text()) for path in sorted(VIEWS_DIR.glob("*.py"))}
    copies = {name: found for name, found in copies.items() if found}
    assert copies == {}, copies
    clamps = [path.name for path in VIEWS_DIR.glob("*.py") if "min(self._step" in path.read_text()]
    assert clamps == []


@pytest.fixture(scope="module")
def explorer():
    app = Explorer("syn3", params=FAST, data_params={"n_steps": 5})
    job = app.run(wait=True)
    assert job.state == "finished", app.message.text
    return app, job


def test_a_view_changes_the_state_that_every_view_draws(explorer):
    app, _ = explorer
    app.step = 0
    app.pareto.show_step(2)  # the view's own method: the state moves, every view follows
    assert app.state.step == 2 and app.scrubber.value == 2
    time = app.result[2].time
    assert app.alpha.figure.data[-1].x == (time,)
    assert app.flows.figure.layout.title.text == f"{app.dataset.name}: {figures.sankey_title(app.result, 2)}"
    for view in app.views:
        assert view.state is app.state and view.step == 2, type(view).__name__
    member = next(m for m in range(len(app.result[2].population)) if m != app.result[2].knee)
    app.partition.show_member(member)
    assert app.state.member == member and app.pareto.selected == member


def test_views_made_alone_draw_their_own_state():
    data = datasets.load("syn2", seed=0, n_steps=4)
    from ercot_nb import ERCOT

    result = ERCOT(**FAST).fit(data).result_
    views = [AlphaView(result), ParetoView(result), FlowsView(result), PartitionView(data, result),
             ScoresView(data, {"ERCOT": result})]
    for view in views:
        view.show_step(3)
        assert view.state.step == 3 and view.step == 3, type(view).__name__
    alpha = views[0]
    alpha.state.set_step(1)  # the state alone says what is shown
    assert alpha.figure.data[-1].x == (result[1].time,)
    assert alpha.result is alpha.state.result is result


def test_state_off_the_model_lives_on_the_state(explorer):
    app, job = explorer
    assert job.run_name == "ERCOT #1" == app.state.run
    assert app.estimators is app.state.estimators and set(app.state.estimators) == {"ERCOT #1"}
    assert app.state.estimators["ERCOT #1"] is job.estimator
    assert not hasattr(app.runner, "names")


def test_step_of_is_the_one_clamp():
    data = datasets.load("syn1", seed=0, n_steps=4)
    state = AppState.of(data, step=9)
    assert state.step == 9 and state.step_of(None) == 3 and state.step_of([0, 1]) == 1
    state.step = -2
    assert state.step_of(None) == 0


class MarkedStepsView(View):
    """A view the Explorer has never heard of: one line, the current step marked."""

    key = "marked_steps"
    title = "Marked steps"

    def parts(self, data, t=0, member=None, **options):
        times = figures.plain_times(data.result.times)
        layout = dict(title=dict(text=f"step {t}"), shapes=[dict(
            type="line", name=CURRENT_STEP, x0=times[t], x1=times[t], y0=0, y1=1, yref="paper")])
        return Parts([go.Scatter(x=times, y=list(range(len(times))), name="steps")], layout)

    def step_change(self, data, t, **options):
        times = figures.plain_times(data.result.times)
        return Change(shapes={CURRENT_STEP: {"x0": times[t], "x1": times[t]}},
                      layout={"title.text": f"step {t}"})


def _shown_widgets(box):
    """Every widget in a box's tree (the views sit in a column beside the side panel)."""
    for child in getattr(box, "children", ()):
        yield child
        yield from _shown_widgets(child)


def test_a_registered_view_appears_in_the_explorer(monkeypatch):
    monkeypatch.setattr(figures, "VIEWS", (*figures.VIEWS, MarkedStepsView()))
    app = Explorer("syn3", params=FAST, data_params={"n_steps": 4})
    view = app.view("marked_steps")
    assert view is not None and view in app.views
    assert view in _shown_widgets(app)  # on screen, wherever the layout puts the views
    assert app.run(wait=True).state == "finished"
    app.step = 2
    assert view.figure.layout.title.text == "syn3: step 2"  # a new view's title names the dataset too
    assert view.figure.layout.shapes[0].x0 == figures.plain_times(app.result.times)[2]
    assert view.static().layout.title.text == "syn3: step 2"


class _StrictComm(BaseComm):
    """A comm that refuses what a kernel's socket refuses: a buffer that is not contiguous."""

    refused: list[str] = []

    def publish_msg(self, msg_type, data=None, metadata=None, buffers=None, **keys):
        for buffer in buffers or ():
            if not memoryview(buffer).contiguous:
                _StrictComm.refused.append(f"{msg_type}: {memoryview(buffer).shape}")


def test_every_update_a_view_sends_can_leave_the_kernel(monkeypatch):
    """Arrays sent to the page are contiguous: a column view of the data (traces built without
    plotly's checks) made the kernel refuse the partition's step updates, and the page kept step 0."""
    import comm

    from ercot_nb import ERCOT

    monkeypatch.setattr(comm, "create_comm", _StrictComm)
    _StrictComm.refused = []
    data = datasets.load("syn3", seed=0, n_steps=4)
    result = ERCOT(**FAST).fit(data).result_
    for axes in ("features", "pca"):
        view = PartitionView(data, result, axes=axes)
        for step in (1, 3, 0):
            view.show_step(step)
    app = Explorer(data, result=result)
    for step in (2, 1, 3):
        app.step = step
    assert _StrictComm.refused == []
    assert app.state.status.level != "error", app.state.status
