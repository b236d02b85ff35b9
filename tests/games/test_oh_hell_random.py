"""Oh Hell: random whole matches for every player count and a spread of options, checking
the invariants at every step (cards conserved, scores add up, replay, no leaks, purity,
refusals, legal in the view, the hook) and that every match ends with the top scorers winning."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rules.cards import standard_deck
from server.rules.games import GameError, IllegalAction, NotYourTurn, get_game
from server.rules.games.oh_hell import MAX_EXTRA_HANDS, hand_sizes

GAME = get_game("oh_hell")
DECK = frozenset(standard_deck())
PUBLIC_KEYS = (
    "phase", "dealer", "to_act", "hand_counts", "trick", "led_suit", "trump", "turned", "bids",
    "forbidden_bid", "tricks_won", "last_trick", "hand_size", "hand_number", "hands_total",
    "scores", "history", "revealed",
)

SHORT_MIXES = [
    {"max_cards": 2, "rebound": False},
    {"max_cards": 2},
    {"max_cards": 3, "start": "low", "rebound": False},
    {"max_cards": 2, "hook": False, "scoring": "basic"},
    {"max_cards": 2, "scoring": "penalty", "vienna": True},
    {"max_cards": 3, "scoring": "anderson", "rebound": False},
    {"max_cards": 2, "vienna": True, "start": "low"},
    {"max_cards": 1, "until_clear_winner": True},
    {"max_cards": 2, "rebound": False, "until_clear_winner": True, "scoring": "basic"},
    {"min_cards": 3, "max_cards": 3, "hook": False},
]


def strings_in(value, out):
    """Every string anywhere inside a JSON value."""
    if isinstance(value, str):
        out.add(value)
    elif isinstance(value, dict):
        for v in value.values():
            strings_in(v, out)
    elif isinstance(value, list):
        for v in value:
            strings_in(v, out)
    return out


def check_cards_conserved(full):
    cards = [c for hand in full["hands"] for c in hand]
    cards += [p["card"] for p in full["trick"]]
    cards += [p["card"] for t in full["tricks_played"] for p in t["cards"]]
    cards += [full["turned"], *full["stock"]]
    assert len(cards) == 52 and set(cards) == DECK


def check_views(state, full, n):
    views = [GAME.view(state, seat) for seat in range(n)]
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["legal"] == []
    for key in PUBLIC_KEYS:
        assert all(v[key] == spectator[key] for v in views), key
    acting = GAME.to_act(state)
    for seat, v in enumerate(views):
        assert v["hand"] == full["hands"][seat]
        assert v["legal"] == (GAME.legal_actions(state, seat) if seat in acting else [])
        # nothing of another seat's hand or of the stock outside history
        hidden = {c for s, h in enumerate(full["hands"]) if s != seat for c in h}
        hidden |= set(full["stock"])
        current = {k: val for k, val in v.items() if k != "history"}
        assert not strings_in(current, set()) & hidden
    hidden_all = {c for h in full["hands"] for c in h} | set(full["stock"])
    assert not strings_in({k: v for k, v in spectator.items() if k != "history"}, set()) & hidden_all
    assert json.loads(json.dumps(spectator)) == spectator
    return views


def check_refusals(state, seat, legal, rng, n):
    """Some actions off the legal list: each raises with a message and changes nothing."""
    before = GAME.full_view(state)
    hand = before["hands"][seat]
    legal_set = {json.dumps(a, sort_keys=True) for a in legal}
    candidates = [{"type": "play", "card": c} for c in rng.sample(sorted(DECK), 4)]
    candidates += [{"type": "play", "card": c} for c in hand]
    candidates += [{"type": "bid", "value": v} for v in (-1, 0, 1, 2, before["hand_size"] + 1)]
    candidates += [None, "play", {"type": "pass"}, {"type": "bid", "value": "1"},
                   {"type": "play", "card": 7}, {"type": "take"}]
    for action in candidates:
        if action is not None and isinstance(action, dict) and (
                json.dumps(action, sort_keys=True) in legal_set):
            continue
        with pytest.raises(IllegalAction) as err:
            GAME.apply(state, seat, action)
        assert str(err.value)
    other = rng.choice([s for s in range(n) if s != seat])
    with pytest.raises(NotYourTurn) as err:
        GAME.apply(state, other, legal[0])
    assert str(err.value)
    assert GAME.full_view(state) == before


def play_match(players, options, seed, rng, heavy=True, max_steps=5000):
    """Play one random match, checking invariants; return the final state and action log."""
    dealer = rng.randrange(players)
    state = GAME.new_game(players, options, seed=seed, dealer=dealer)
    hook = options.get("hook", True)
    log = []
    for _ in range(max_steps):
        acting = GAME.to_act(state)
        if not acting:
            break
        assert GAME.outcome(state) is None
        assert len(acting) == 1
        seat = acting[0]
        legal = GAME.legal_actions(state, seat)
        assert legal
        if heavy:
            assert len({json.dumps(a, sort_keys=True) for a in legal}) == len(legal)
            full = GAME.full_view(state)
            check_cards_conserved(full)
            check_views(state, full, players)
            if rng.random() < 0.2:
                check_refusals(state, seat, legal, rng, players)
        else:
            full = GAME.view(state, seat)
            assert full["legal"] == legal
        if full["phase"] == "bidding" and seat == full["dealer"]:
            f = full["hand_size"] - sum(b for b in full["bids"] if b is not None)
            values = [a["value"] for a in legal]
            if hook and 0 <= f <= full["hand_size"]:
                assert f not in values and full["forbidden_bid"] == f
            else:
                assert values == list(range(full["hand_size"] + 1))
        action = rng.choice(legal)
        snapshot = copy.deepcopy(state) if heavy and rng.random() < 0.25 else None
        new = GAME.apply(state, seat, action)
        if heavy:
            assert GAME.full_view(state) == full
        if snapshot is not None:
            assert snapshot == state
        log.append((seat, action))
        state = new
    else:
        raise AssertionError("the match did not end")
    return state, dealer, log


def check_final(state, players, options, seed, dealer, log):
    result = GAME.outcome(state)
    assert result is not None and GAME.to_act(state) == []
    view = GAME.view(state, None)
    assert view["phase"] == "over"
    totals = [sum(entry["scores"][s] for entry in view["history"]) for s in range(players)]
    assert totals == view["scores"] == result["scores"]
    best = max(result["scores"])
    assert result["winners"] == [s for s in range(players) if result["scores"][s] == best]
    records = GAME.hand_records(state)
    assert len(records) == len(view["history"])
    assert [r["scores"] for r in records] == [e["scores"] for e in view["history"]]
    assert [r["dealer"] for r in records] == [(dealer + i) % players for i in range(len(records))]
    sizes = [e["hand_size"] for e in view["history"]]
    assert all(sum(e["tricks_won"]) == e["hand_size"] for e in view["history"])
    if options.get("hook", True):
        assert all(sum(e["bids"]) != e["hand_size"] for e in view["history"])
    plain = GAME.parse_options(options)
    expected = list(hand_sizes(players, plain))
    if options.get("until_clear_winner"):
        assert sizes[: len(expected)] == expected
        assert all(s == expected[-1] for s in sizes[len(expected):])
        extra = len(sizes) - len(expected)
        if extra < MAX_EXTRA_HANDS:
            assert len(result["winners"]) == 1
    else:
        assert sizes == expected
    # replay from seed, dealer, options and the action log gives identical states
    again = GAME.new_game(players, options, seed=seed, dealer=dealer)
    for seat, action in log:
        again = GAME.apply(again, seat, dict(action))
    assert GAME.full_view(again) == GAME.full_view(state)
    for seat in [None, *range(players)]:
        assert GAME.view(again, seat) == GAME.view(state, seat)
    assert GAME.hand_records(again) == records
    assert json.loads(json.dumps(records)) == records


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("mix", range(len(SHORT_MIXES)))
def test_random_short_matches_keep_every_invariant(players, mix):
    options = SHORT_MIXES[mix]
    rng = random.Random(players * 100 + mix)
    for game in range(10):
        seed = rng.randrange(10**9)
        state, dealer, log = play_match(players, options, seed, rng, heavy=True)
        check_final(state, players, options, seed, dealer, log)


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_thousands_of_random_short_matches_end_with_the_top_scorers_winning(players):
    rng = random.Random(players)
    for game in range(300):
        options = SHORT_MIXES[game % len(SHORT_MIXES)]
        seed = rng.randrange(10**9)
        state, dealer, log = play_match(players, options, seed, rng, heavy=False)
        check_final(state, players, options, seed, dealer, log)


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_random_full_default_matches_keep_every_invariant(players):
    rng = random.Random(1000 + players)
    seed = rng.randrange(10**9)
    state, dealer, log = play_match(players, {}, seed, rng, heavy=True)
    check_final(state, players, {}, seed, dealer, log)


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_random_full_matches_with_other_settings_end_properly(players):
    rng = random.Random(2000 + players)
    mixes = [
        {"min_cards": 3, "scoring": "penalty", "vienna": True},
        {"start": "low", "rebound": False, "scoring": "anderson", "hook": False},
        {"max_cards": 51 // players, "rebound": False, "scoring": "basic"},
    ]
    for options in mixes:
        seed = rng.randrange(10**9)
        state, dealer, log = play_match(players, options, seed, rng, heavy=False)
        check_final(state, players, options, seed, dealer, log)


@settings(max_examples=40, deadline=None)
@given(
    players=st.integers(3, 7),
    seed=st.integers(0, 2**32),
    max_cards=st.integers(1, 4),
    start=st.sampled_from(["high", "low"]),
    rebound=st.booleans(),
    hook=st.booleans(),
    scoring=st.sampled_from(["standard", "basic", "penalty", "anderson"]),
    vienna=st.booleans(),
    until_clear_winner=st.booleans(),
)
def test_any_seed_and_option_mix_plays_a_sound_match(players, seed, max_cards, start, rebound,
                                                     hook, scoring, vienna, until_clear_winner):
    options = {"max_cards": max_cards, "start": start, "rebound": rebound, "hook": hook,
               "scoring": scoring, "vienna": vienna and scoring != "anderson",
               "until_clear_winner": until_clear_winner}
    rng = random.Random(seed)
    state, dealer, log = play_match(players, options, seed, rng, heavy=True)
    check_final(state, players, options, seed, dealer, log)


def test_errors_are_game_errors_with_sentences():
    state = GAME.new_game(4, {"max_cards": 2}, seed=1)
    for seat, action in ((0, {"type": "bid", "value": 0}), (1, {"type": "bid", "value": 9})):
        with pytest.raises(GameError) as err:
            GAME.apply(state, seat, action)
        assert str(err.value)[0].isupper() and str(err.value).endswith(".")
