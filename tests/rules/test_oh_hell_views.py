"""Oh Hell views: the cached public part gives exactly the view built from scratch, every call
returns a new top-level dict, and unchanged public parts are the very same objects from state
to state and seat to seat (so the room's differ skips them by identity)."""

from __future__ import annotations

import copy
import itertools
import json
import random

import pytest

from server.games import get_game
from server.games.oh_hell.rules import OhHellState
from server.rules.state import log_entries

GAME = get_game("oh_hell")

PUBLIC_KEYS = (
    "phase",
    "dealer",
    "to_act",
    "hand_counts",
    "trick",
    "led_suit",
    "trump",
    "turned",
    "bids",
    "forbidden_bid",
    "tricks_won",
    "last_trick",
    "hand_size",
    "hand_number",
    "hands_total",
    "scores",
    "history",
    "revealed",
    "log",
)
ORDER = (
    "phase",
    "dealer",
    "to_act",
    "hand",
    "hand_counts",
    "trick",
    "led_suit",
    "trump",
    "turned",
    "bids",
    "forbidden_bid",
    "tricks_won",
    "last_trick",
    "hand_size",
    "hand_number",
    "hands_total",
    "scores",
    "history",
    "legal",
    "revealed",
    "log",
)


def _trick(trick):
    return [{"seat": seat, "card": card} for seat, card in trick]


def _last(last):
    return None if last is None else {"cards": _trick(last[0]), "winner": last[1]}


def reference_view(state: OhHellState, seat):
    """The view built from the state's fields alone, with no cache (the contract)."""
    deal = state.deal
    turn = state.turn
    hand, legal = None, []
    if seat is not None and type(seat) is int and 0 <= seat < state.rules.players:
        hand = list(state.hands[seat])
        if seat == turn:
            legal = GAME.legal_actions(state, seat)
    history = [
        {
            "hand_number": r.deal.index + 1,
            "dealer": r.deal.dealer,
            "hand_size": r.deal.size,
            "turned": r.deal.turned,
            "trump": r.deal.trump,
            "bids": list(r.bids),
            "tricks_won": list(r.tricks_won),
            "scores": list(r.scores),
            "last_trick": _last(r.last_trick),
        }
        for r in state.results
    ]
    return {
        "phase": state.phase.value,
        "dealer": deal.dealer,
        "to_act": [] if turn is None else [turn],
        "hand": hand,
        "hand_counts": [len(h) for h in state.hands],
        "trick": _trick(state.trick),
        "led_suit": state.led,
        "trump": deal.trump,
        "turned": deal.turned,
        "bids": list(state.bids),
        "forbidden_bid": GAME.forbidden_bid(state),
        "tricks_won": list(state.tricks_won),
        "last_trick": _last(state.last_trick),
        "hand_size": deal.size,
        "hand_number": deal.index + 1,
        "hands_total": max(len(state.rules.sizes), deal.index + 1),
        "scores": list(state.scores),
        "history": history,
        "legal": legal,
        "revealed": [],
        "log": [
            {"seat": e[1], "action": dict(e[2]), **({"won": e[3]} if len(e) == 4 else {})}
            for e in log_entries(state.log)
        ],
    }


def random_states(players, options, seed):
    rng = random.Random(seed)
    state = GAME.new_game(players=players, options=options, seed=seed, dealer=seed % players)
    states = [state]
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        states.append(state)
    return states


@pytest.mark.parametrize(
    "players, options",
    [
        (3, {"max_cards": 4}),
        (4, {}),
        (5, {"max_cards": 3, "hook": False, "scoring": "basic"}),
        (7, {"max_cards": 2, "until_clear_winner": True, "start": "low"}),
    ],
)
def test_every_view_equals_the_view_built_from_scratch(players, options):
    for seed in range(3):
        states = random_states(players, options, seed)
        for state in states:
            for seat in [*range(players), None, players, -1, True]:
                view = GAME.view(state, seat)
                assert view == reference_view(state, seat)
                assert tuple(view) == ORDER
            assert json.loads(json.dumps(view)) == view


def test_views_of_branches_and_revisited_states_stay_right():
    """The match-wide memo is keyed by identity: branching and going back never mix states."""
    rng = random.Random(11)
    states = random_states(4, {"max_cards": 3}, 4)
    for _ in range(600):
        state = rng.choice(states)
        acting = GAME.to_act(state)
        if acting and rng.random() < 0.5:
            child = GAME.apply(state, acting[0], rng.choice(GAME.legal_actions(state, acting[0])))
            states.append(child)
            state = child
        seat = rng.choice([0, 1, 2, 3, None])
        assert GAME.view(state, seat) == reference_view(state, seat)
    # Copies (deep copies carry the cache) view the same.
    for state in rng.sample(states, 20):
        twin = copy.deepcopy(state)
        assert twin == state
        for seat in (0, 1, 2, 3, None):
            assert GAME.view(twin, seat) == reference_view(state, seat)


def test_each_call_returns_a_new_top_level_dict():
    state = random_states(4, {}, 1)[30]
    seat = GAME.to_act(state)[0]
    first = GAME.view(state, seat)
    expected = copy.deepcopy(first)
    for key in list(first):
        first[key] = "replaced"
    first["extra"] = 1
    assert GAME.view(state, seat) == expected
    assert GAME.view(state, seat) is not GAME.view(state, seat)
    assert GAME.view(state, None) is not GAME.view(state, None)
    full = GAME.full_view(state)
    assert "hands" in full and "hands" not in GAME.view(state, None)


def test_public_parts_are_shared_between_seats_and_unchanged_states():
    states = random_states(4, {}, 2)
    for before, after in itertools.pairwise(states):
        views = [GAME.view(after, seat) for seat in (0, 1, 2, 3, None)]
        for key in PUBLIC_KEYS:
            assert all(v[key] is views[0][key] for v in views), key
        old = GAME.view(before, None)
        for key in (
            "bids",
            "tricks_won",
            "scores",
            "last_trick",
            "history",
            "hand_counts",
            "trick",
            "to_act",
            "revealed",
        ):
            if old[key] == views[4][key] and isinstance(old[key], list):
                assert old[key] is views[4][key], key
        old_hands = [GAME.view(before, seat)["hand"] for seat in range(4)]
        for seat in range(4):
            if before.hands[seat] is after.hands[seat]:
                assert views[seat]["hand"] is old_hands[seat]
