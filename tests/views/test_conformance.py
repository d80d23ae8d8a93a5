"""The view conformance suite: every registered view, for every kind of data, shows the same in every front end.

As tests/test_common.py checks every estimator against one contract, this checks every
view of :data:`ercot_nb.figures.VIEWS` against the view protocol (ercot_nb/figures/protocol.py),
on every kind of data of tests/views/conftest.py (2-D, 3-D, video, one step, a consensus run,
a run without a population):

* the static figure (``view.figure``), the offline page (``page_data``, applied as
  explorer.js applies it) and the live widget users see (the one an ``Explorer`` on the data
  displays for the view, a ``RegistryView`` of it, moved by the app's state) show the same traces and layout at the first, a middle and the last step, and
  for a front member other than the knee; a live front end may reach a step from any other;
* a view with a choice (``view.choice``, the scores' ``metric``) is one view on every front end:
  the page stores, and the widget users see draws, each value of ``view.choices(data)``, and each
  shows the static figure with that option;
* the front ends list the same views: those that apply (``view.applies``), in the
  registry's order; a view that does not apply to a kind is absent from the page and the
  report, and its widget says "not shown for this data or run"; the views apply to the
  kinds the registry's table says.
"""
from __future__ import annotations

import pytest

from ercot_nb.figures import VIEWS, report_figures, views_for
from ercot_nb.page import page_data

from .conftest import KINDS
from .front_ends import (
    APPS, ExplorerJs, app_for, assert_same, displayed, figure_json, page_entry, page_json, shown_data, static_json,
    stored_members, widget_for, widget_json, without_size,
)

KEYS = [view.key for view in VIEWS]

# Which of the registry's views apply to each kind (its table, ercot_nb/figures/views/__init__.py);
# a view added later is checked by the front ends without a row here.
EVERY_RUN = {"alpha", "n_clusters", "sizes", "flows"}
APPLIES = {
    "2d": EVERY_RUN | {"partition", "pareto", "scores"},
    "3d": EVERY_RUN | {"partition", "partition3d", "pareto", "scores"},
    "video": EVERY_RUN | {"video", "pareto", "scores"},
    "one_step": EVERY_RUN | {"partition", "pareto", "scores"},
    "consensus": EVERY_RUN | {"partition", "scores"},
    "baseline": EVERY_RUN | {"partition", "scores"},
}


@pytest.fixture(scope="module")
def js():
    """The offline page's explorer.js, running in node (one process for the module)."""
    reader = ExplorerJs()
    yield reader
    reader.close()


@pytest.fixture(scope="module")
def page_of(view_data):
    """``page_of(kind)``: the offline page's data of that kind's run, made once."""
    made: dict[str, dict] = {}

    def get(kind: str) -> dict:
        if kind not in made:
            data = view_data(kind)
            made[kind] = page_data(data.result, data.dataset)
        return made[kind]

    return get


def steps_of(data) -> list[int]:
    """The first, a middle and the last step."""
    return sorted({0, data.n_steps // 2, data.n_steps - 1})


def choices_of(view, data) -> list[dict]:
    """The options of each value of the view's choice that applies to ``data`` ([{}]: no choice)."""
    return [{view.choice: value} for value in view.choices(data)] if view.choice else [{}]


def member_of(entry: dict, data) -> tuple[int, int] | None:
    """A step and a front member other than the knee whose view the page stores (None: there is none)."""
    members = stored_members(entry) or [{}] * data.n_steps
    for t in reversed(range(data.n_steps)):
        stored = sorted(int(m) for m in members[t])
        others = [m for m in stored if m != int(data.result[t].knee)]
        if others:
            return t, others[0]
    return None


@pytest.mark.parametrize("kind", KINDS)
def test_views_apply_to_the_kinds_the_registry_says(kind, view_data):
    data = view_data(kind)
    applying = {view.key for view in views_for(data)}
    assert applying & set(APPLIES[kind]) == APPLIES[kind], (
        f"{kind}: views missing {sorted(APPLIES[kind] - applying)}")
    known = {key for rows in APPLIES.values() for key in rows}
    assert not (applying & known) - APPLIES[kind], f"{kind}: views shown that do not apply: " \
        f"{sorted((applying & known) - APPLIES[kind])}"


@pytest.mark.parametrize("kind", KINDS)
def test_every_front_end_lists_the_views_that_apply_in_registry_order(kind, view_data, page_of):
    data = view_data(kind)
    expected = [view.key for view in VIEWS if view.applies(data)]
    assert [entry["key"] for entry in page_of(kind)["views"]] == expected
    report = [figure_json(list(f.data), f.layout) for f in report_figures(data.result, data.dataset)]
    from_views = [figure_json(list(f.data), f.layout)
                  for view in VIEWS if view.applies(data) for f in view.report(data)]
    assert len(report) == len(from_views), (
        f"{kind}: report_figures gives {len(report)} figures, the views' reports {len(from_views)}")
    for i, (shown, made) in enumerate(zip(report, from_views)):
        assert_same(shown, made, f"report figure {i}")


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("kind", KINDS)
def test_static_figure_and_offline_page_show_the_same(kind, key, view_data, page_of, js):
    data = view_data(kind)
    view = next(view for view in VIEWS if view.key == key)
    page = page_of(kind)
    if not view.applies(data):
        assert key not in [entry["key"] for entry in page["views"]], f"{kind}: the page shows {key!r}"
        return
    for options in choices_of(view, data):
        entry = page_entry(page, key, **options)
        for t in steps_of(data):
            assert_same(page_json(js, entry, t), static_json(view, data, t, options=options),
                        f"{kind}/{key} {options} at step {t}")
        if view.member and data.has_population:
            found = member_of(entry, data)
            assert found is not None, f"{kind}: no front member besides the knee is on the page"
            t, member = found
            assert_same(page_json(js, entry, t, member), static_json(view, data, t, member, options=options),
                        f"{kind}/{key} {options} at step {t}, member {member}")


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("kind", ["2d", "video"])
def test_a_step_change_applies_to_any_step_not_only_the_base(kind, key, view_data, page_of, js):
    """A live front end moves from the step shown to the next: the change holds absolute values."""
    data = view_data(kind)
    view = next(view for view in VIEWS if view.key == key)
    if not view.applies(data):
        assert key not in [entry["key"] for entry in page_of(kind)["views"]]
        return
    for options in choices_of(view, data):
        entry = page_entry(page_of(kind), key, **options)
        back = page_json(js, entry, 0, after=[(data.n_steps - 1, None)])
        assert_same(back, static_json(view, data, 0, options=options), f"{kind}/{key} {options}: last -> 0")


@pytest.mark.parametrize("app", APPS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_figure_an_app_displays_is_a_registry_view_the_suite_runs(kind, app, view_data):
    """Each figure the Explorer and Compare display (found in their widget trees) is a RegistryView of
    a registered view, which :func:`widget_for` finds for that view's key, so the test below runs it."""
    from ercot_nb.widgets import RegistryView

    data = view_data(kind)
    shown = displayed(app_for(data, app))
    assert shown, f"{app} on {kind}: no figure displayed"
    for widget in shown:
        assert isinstance(widget, RegistryView) and widget.view in VIEWS, (
            f"{app} on {kind} displays a {type(widget).__name__} not drawn from a registered view")
        assert widget_for(widget.view, data, app) is widget, (
            f"{app} on {kind}: its {widget.view.key!r} widget is not the one the suite runs")


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("app", APPS)
def test_the_widget_users_see_shows_the_static_figure(app, kind, key, view_data, page_of):
    """The widget an app (the Explorer, Compare) on the data displays for the view is the registry's
    live front end (a RegistryView of that very view, whatever controls it has) and shows the static
    figure; the Explorer displays every view that applies, Compare its partitions and scores."""
    from ercot_nb.widgets import RegistryView

    data = view_data(kind)
    view = next(view for view in VIEWS if view.key == key)
    widget = widget_for(view, data, app)
    if widget is None and app != "explorer":
        return  # not a view this app shows
    if not view.applies(data):
        if widget is not None:  # displayed, saying why it is empty
            notes = [a.text for a in widget.figure.layout.annotations or ()]
            assert not widget.figure.data and notes == [f"{view.title}: not shown for this data or run."], notes
        return
    assert widget is not None, f"{kind}: the {app} displays no widget showing {key!r}"
    assert isinstance(widget, RegistryView) and widget.view is view, (
        f"{kind}: the {app} shows {key!r} with a {type(widget).__name__} not drawn from the registry's view")
    selections = [(t, None) for t in [*steps_of(data), 0]]  # forth and back again
    if view.member and data.has_population and widget.state.run is not None:  # Compare picks no member
        found = member_of(page_entry(page_of(kind), key), data)
        assert found is not None, f"{kind}: no front member besides the knee is on the page"
        selections += [found, (found[0], None)]  # the member, then the knee again
    for options in choices_of(view, data):  # each value of its choice, through the widget's control
        widget.set_options(**options)
        assert options.items() <= widget.options.items(), f"{kind}/{key}: the widget shows {widget.options}"
        for t, member in selections:
            expected = static_json(view, shown_data(widget, data), t, member, validate=True, options=widget.options)
            assert_same(widget_json(widget, t, member), without_size(expected),
                        f"{kind}/{key} {options} widget at step {t}" + ("" if member is None else f", member {member}"))
