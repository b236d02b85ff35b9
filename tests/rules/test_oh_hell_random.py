"""Oh Hell: random whole matches for every player count and a spread of options, checking
what is Oh Hell's own (the hook, the sequence of hand sizes, scores that add up, replay with
these options) and that every match ends with the top scorers winning. What every game
keeps (cards conserved, no leaks, refusals, purity, the views) is tests/rules/test_contract.py."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.games import GameError, get_game
from server.games.oh_hell.rules import MAX_EXTRA_HANDS, ROTATION, hand_sizes

GAME = get_game("oh_hell")
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
    # house options (server/games/oh_hell/rules.md)
    {"max_cards": 2, "trump": "no_trump_largest"},
    {"max_cards": 3, "trump": "rotation", "blind_one": True},
    {"max_cards": 2, "trump": "no_trump", "scoring": "squared", "hook_last_hand": False},
    {"max_cards": 2, "trump": "S", "scoring": "exact", "vienna": True, "blind_one": True},
    {"max_cards": 1, "blind_one": True, "hook_last_hand": False, "until_clear_winner": True},
]
TRUMPS = ["turn", "no_trump_largest", "rotation", "no_trump", "S", "H", "D", "C"]


def hook_applies(options, size):
    """Whether the hook binds the dealer in a hand of ``size`` cards under ``options``."""
    return options.get("hook", True) and (size != 1 or options.get("hook_last_hand", True))


def check_blind_view(full, seat, state):
    """blind_one: in a 1-card hand the seat sees every other seat's card, never its own while it
    bids; a spectator sees none; other hands show no blind_cards."""
    spectator = GAME.view(state, None)
    assert "blind_cards" not in spectator
    held = GAME.full_view(state)["hands"]
    if full["hand_size"] != 1 or "blind_cards" not in full:
        assert "blind_cards" not in full
        return
    assert full["blind_cards"] == [None if s == seat or not h else h[0] for s, h in enumerate(held)]
    if full["phase"] == "bidding":
        assert full["hand"] == [] and full["hand_counts"][seat] == 1
        assert held[seat][0] not in words(full)
    else:
        assert full["hand"] == held[seat]
    assert not {h[0] for h in held if h} & words(spectator)


def words(view):
    """Every word of a view but its history (earlier hands' cards may be this hand's too)."""
    current = {k: v for k, v in view.items() if k != "history"}
    return set(json.dumps(current).replace('"', " ").replace(",", " ").split())


def play_match(players, options, seed, rng, heavy=True, max_steps=5000):
    """Play one random match, checking invariants; return the final state and action log."""
    dealer = rng.randrange(players)
    state = GAME.new_game(players, options, seed=seed, dealer=dealer)
    blind = options.get("blind_one", False)
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
        full = GAME.view(state, seat)
        if heavy:
            assert len({json.dumps(a, sort_keys=True) for a in legal}) == len(legal)
            assert full["legal"] == legal
        if blind and full["hand_size"] == 1:
            check_blind_view(full, seat, state)
        else:
            assert "blind_cards" not in full
        if full["phase"] == "bidding" and seat == full["dealer"]:
            f = full["hand_size"] - sum(b for b in full["bids"] if b is not None)
            values = [a["value"] for a in legal]
            if hook_applies(options, full["hand_size"]) and 0 <= f <= full["hand_size"]:
                assert f not in values and full["forbidden_bid"] == f
            else:
                assert values == list(range(full["hand_size"] + 1))
        action = rng.choice(legal)
        log.append((seat, action))
        state = GAME.apply(state, seat, action)
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
    assert all(sum(e["bids"]) != e["hand_size"] for e in view["history"] if hook_applies(options, e["hand_size"]))
    plain = GAME.parse_options(options)
    expected = list(hand_sizes(players, plain))
    check_trumps(view["history"], options, max(expected))
    if options.get("until_clear_winner"):
        assert sizes[: len(expected)] == expected
        assert all(s == expected[-1] for s in sizes[len(expected) :])
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


def check_trumps(history, options, largest):
    """Each hand's turned card and trump follow the table's trump mode."""
    mode = options.get("trump", "turn")
    for k, entry in enumerate(history):
        turned, trump = entry["turned"], entry["trump"]
        if mode == "turn" or (mode == "no_trump_largest" and entry["hand_size"] != largest):
            assert turned is not None and trump == turned[-1]
        elif mode == "rotation":
            assert turned is None and trump == ROTATION[k % 5]
        elif mode in ("no_trump", "no_trump_largest"):
            assert turned is None and trump is None
        else:
            assert turned is None and trump == mode


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("mix", range(len(SHORT_MIXES)))
def test_random_short_matches_keep_every_invariant(players, mix):
    options = SHORT_MIXES[mix]
    rng = random.Random(players * 100 + mix)
    for _ in range(10):
        seed = rng.randrange(10**9)
        state, dealer, log = play_match(players, options, seed, rng, heavy=True)
        check_final(state, players, options, seed, dealer, log)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_thousands_of_random_short_matches_end_with_the_top_scorers_winning(players):
    rng = random.Random(players)
    for game in range(300):
        options = SHORT_MIXES[game % len(SHORT_MIXES)]
        seed = rng.randrange(10**9)
        state, dealer, log = play_match(players, options, seed, rng, heavy=False)
        check_final(state, players, options, seed, dealer, log)


@pytest.mark.slow
@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_random_full_default_matches_keep_every_invariant(players):
    rng = random.Random(1000 + players)
    seed = rng.randrange(10**9)
    state, dealer, log = play_match(players, {}, seed, rng, heavy=True)
    check_final(state, players, {}, seed, dealer, log)


@pytest.mark.slow
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
    scoring=st.sampled_from(["standard", "basic", "penalty", "anderson", "squared", "exact"]),
    vienna=st.booleans(),
    until_clear_winner=st.booleans(),
    trump=st.sampled_from(TRUMPS),
    hook_last_hand=st.booleans(),
    blind_one=st.booleans(),
)
def test_any_seed_and_option_mix_plays_a_sound_match(
    players,
    seed,
    max_cards,
    start,
    rebound,
    hook,
    scoring,
    vienna,
    until_clear_winner,
    trump,
    hook_last_hand,
    blind_one,
):
    options = {
        "max_cards": max_cards,
        "start": start,
        "rebound": rebound,
        "hook": hook,
        "scoring": scoring,
        "vienna": vienna and scoring != "anderson",
        "until_clear_winner": until_clear_winner,
        "trump": trump,
        "hook_last_hand": hook_last_hand,
        "blind_one": blind_one,
    }
    rng = random.Random(seed)
    state, dealer, log = play_match(players, options, seed, rng, heavy=True)
    check_final(state, players, options, seed, dealer, log)


def test_errors_are_game_errors_with_sentences():
    state = GAME.new_game(4, {"max_cards": 2}, seed=1)
    for seat, action in ((0, {"type": "bid", "value": 0}), (1, {"type": "bid", "value": 9})):
        with pytest.raises(GameError) as err:
            GAME.apply(state, seat, action)
        assert str(err.value)[0].isupper() and str(err.value).endswith(".")
