"""The differ against the jsonpatch library as the oracle, over arbitrary JSON and over
thousands of consecutive views of real games."""

from __future__ import annotations

import copy
import json
import random

import jsonpatch
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.games import all_games
from server.rooms.diff import diff, diff_except, diff_keys

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["AS", "10H", "a/b", "c~d", ""]),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.sampled_from(["x", "y", "a/b", "~", ""]), inner, max_size=4)
    ),
    max_leaves=25,
)


def applies(old, new) -> None:
    ops = diff(old, new)
    assert jsonpatch.apply_patch(copy.deepcopy(old), ops) == new
    assert all(op["op"] in ("add", "remove", "replace") for op in ops)


@settings(max_examples=600, deadline=None)
@given(json_values, json_values)
def test_the_patch_turns_any_json_value_into_any_other(old, new):
    applies(old, new)


# Views whose values are often the very same objects (as a room's successive views are).
SHARED_VALUES = [None, 0, 1, "AS", [], ["AS", "KS"], {"seat": 0}, [{"seat": 0}, {"seat": 1}]]
views = st.dictionaries(
    st.sampled_from(["hand", "legal", "log", "to_act", "a/b", "~"]),
    st.sampled_from(SHARED_VALUES) | json_values,
    max_size=6,
)


@settings(max_examples=600, deadline=None)
@given(views, views, st.booleans())
def test_the_shared_and_the_own_keys_together_turn_one_view_into_the_other(old, new, same_order):
    # The shared operations (every key but the seat keys) and a seat's own (only those) add up
    # to the whole patch, whether the two views list their keys in the same order or not.
    old, new = copy.deepcopy((old, new))  # shared within the pair, never with another example
    if same_order:  # the fast path: the keys picked out by position
        new = {k: new.get(k, old[k]) for k in old}
    skip = frozenset({"hand", "legal"})
    ops: list = []
    diff_except(old, new, skip, "", ops)
    diff_keys(old, new, tuple(skip), "", ops)
    # Applied as a client does, to the view as it came off the wire: two keys of one view may
    # hold the very same object here, which no JSON document can (a patch to one would
    # change the other).
    assert jsonpatch.apply_patch(json.loads(json.dumps(old)), ops) == new


def test_a_log_appended_to_is_one_add_per_new_entry():
    first = {"seat": 0, "action": {"type": "play", "card": "AS"}}
    old = {"log": [first]}
    new = {"log": [first, {"seat": 1, "action": {"type": "play", "card": "KS"}}]}
    assert diff(old, new) == [{"op": "add", "path": "/log/1", "value": new["log"][1]}]
    applies({"log": [1, 2]}, {"log": [1, 2, 1, 2]})


def test_equal_views_give_an_empty_patch_and_unchanged_parts_are_skipped():
    view = {"hand": ["AS", "KS"], "trick": []}
    assert diff(view, copy.deepcopy(view)) == []
    assert diff(view, view) == []


def test_a_card_played_from_the_middle_of_a_hand_is_one_remove():
    assert diff({"hand": ["AS", "KS", "QS"]}, {"hand": ["AS", "QS"]}) == [{"op": "remove", "path": "/hand/1"}]


def test_a_card_added_to_a_trick_is_one_add():
    assert diff({"trick": [1]}, {"trick": [1, 2]}) == [{"op": "add", "path": "/trick/1", "value": 2}]


def test_a_full_chat_log_that_scrolls_by_one_line_is_two_operations():
    old = {"chat": list(range(50))}
    new = {"chat": list(range(1, 51))}
    assert len(diff(old, new)) == 2
    applies(old, new)


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(3, 10))
def test_the_patch_rebuilds_every_seats_view_through_a_random_game(game, seed, players):
    """Thousands of consecutive view pairs per game, each checked with jsonpatch."""
    rng = random.Random(seed)
    players = min(max(players, game.min_players), game.max_players)
    state = game.new_game(players=players, options=None, seed=seed, dealer=seed % players)
    seats = [None, *range(players)]
    views = {s: game.view(state, s) for s in seats}
    for _ in range(80):
        acting = game.to_act(state)
        if not acting:
            break
        state = game.apply(state, acting[0], rng.choice(game.legal_actions(state, acting[0])))
        for s in seats:
            new = game.view(state, s)
            applies(views[s], new)
            views[s] = new
