"""AppState's followers: every view redraws on a change, the first-drawn ones before the others."""
from __future__ import annotations

from ercot_nb.widgets._state import VIEW_TRAITS, AppState


def test_followers_first_then_the_others_each_in_the_order_followed():
    state = AppState()
    heard: list[tuple[str, str]] = []

    def hears(name):
        return lambda change: heard.append((name, change["name"]))

    a, b, partition, c = hears("a"), hears("b"), hears("partition"), hears("c")
    state.follow(a)
    state.follow(b)
    state.follow(partition, first=True)  # made last (once the data came), heard first
    state.follow(c)
    state.step = 3
    assert heard == [("partition", "step"), ("a", "step"), ("b", "step"), ("c", "step")]
    heard.clear()
    state.unfollow(b)
    state.unfollow(b)  # twice: nothing happens
    state.follow(a)  # followed again: one call, now after c
    state.status = state.status  # not a view trait: nobody hears it
    state.member = 1
    assert heard == [("partition", "member"), ("c", "member"), ("a", "member")]


def test_every_view_trait_is_a_trait_of_the_state():
    assert set(VIEW_TRAITS) <= set(AppState.class_trait_names())
