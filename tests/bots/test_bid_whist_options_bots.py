"""Both bot levels at Bid Whist's house options (server/games/bid_whist/rules.md): whole matches with
legal choices only over a sample of option combinations, sensible choices where an option
changes what is sensible (a low hand bids downtown, a void no-trump hand throws its joker),
and a Strong bot that never peeks: its sampler deals the jokers it cannot see and replays a
downtown hand as downtown."""

from __future__ import annotations

import random

import pytest

from server.bots import get_bot
from server.bots.strong import StrongBot
from server.games import get_game
from server.games.bid_whist.bots import BidWhistBot
from server.rules.sampling import sample_state
from tests.rules.test_bid_whist import stack
from tests.rules.test_bid_whist_options import (
    ACES,
    DIRECTIONS,
    JOKERS_DEALT,
    MIRROR,
    p1_declares,
    start,
)

GAME = get_game("bid_whist")

COMBOS = [
    {"jokers": 2, "books": "thirteen", "directions": True, "no_trump": True, "game_to": 5},
    {
        "jokers": 1,
        "joker_no_trump": "must_play",
        "directions": True,
        "no_trump": True,
        "boston": "quadruple",
        "sport_kitty": True,
        "target": 7,
    },
    {"jokers": 2, "directions": True, "downtown_beats_uptown": False, "target": 5},
    {"books": "thirteen", "min_bid": 3, "directions": True, "no_trump": True, "no_trump_double": False, "game_to": 4},
]


def strong(seed, options, samples=2):
    return StrongBot("bid_whist", random.Random(seed), options=options, think_ms=1e9, max_samples=samples)


def play_match(bots, options, seed, compact=False):
    state = GAME.new_game(4, options=options, seed=seed, dealer=seed % 4)
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        full = GAME.legal_actions(state, seat)
        action = bots[seat].choose(view, view["legal"] if compact else full)
        if action["type"] == "discard":
            assert any(set(a["cards"]) == set(action["cards"]) for a in full)
        else:
            assert action in full, action
        state = GAME.apply(state, seat, action)
    return state


@pytest.mark.parametrize("options", COMBOS)
def test_easy_bots_finish_whole_matches_at_every_combination_with_legal_choices(options):
    for seed in range(4):
        bots = [get_bot("bid_whist", random.Random(seed * 4 + i)) for i in range(4)]
        state = play_match(bots, options, seed, compact=seed % 2 == 0)
        assert GAME.outcome(state)["winners"] in ([0, 2], [1, 3])


@pytest.mark.parametrize("options", COMBOS[:2])
def test_strong_bots_finish_a_whole_match_with_legal_choices(options):
    bots = [strong(s, options) for s in range(4)]
    state = play_match(bots, options, seed=3)
    assert GAME.outcome(state) is not None


def test_a_hand_of_low_cards_bids_downtown_and_of_high_cards_uptown():
    state = start({"directions": True})
    view = GAME.view(state, 0)
    action = BidWhistBot(random.Random(1)).choose(view, GAME.legal_actions(state, 0))
    assert action["type"] == "bid" and action["direction"] == "downtown"
    state = GAME.apply(state, 0, {"type": "pass"})
    action = BidWhistBot(random.Random(1)).choose(GAME.view(state, 1), GAME.legal_actions(state, 1))
    assert action["type"] == "bid" and action["direction"] == "uptown"


def test_a_no_trump_declarer_with_low_cards_plays_downtown_and_discards_its_jokers():
    options = {**DIRECTIONS, "jokers": 2}
    state = GAME.new_game(4, options=options, seed=1, dealer=3, decks=[stack_mirror(MIRROR, [*ACES, "BJ", "LJ"])])
    state = GAME.apply(state, 0, {"type": "bid", "value": 4, "direction": "no_trump"})
    for seat in (1, 2, 3):
        state = GAME.apply(state, seat, {"type": "pass"})
    bot = BidWhistBot(random.Random(2))
    discard = bot.choose(GAME.view(state, 0), GAME.view(state, 0)["legal"])
    assert {"BJ", "LJ"} <= set(discard["cards"]) and len(discard["cards"]) == 6
    state = GAME.apply(state, 0, discard)
    choice = bot.choose(GAME.view(state, 0), GAME.legal_actions(state, 0))
    assert choice == {"type": "direction", "direction": "downtown"}


def stack_mirror(hands, kitty, dealer=3):
    return stack(hands, kitty, dealer)


def test_a_void_player_in_no_trump_throws_its_joker_when_free_to_keep_it():
    options = {**DIRECTIONS, "jokers": 2}
    kitty = ["AS", "AH", "AD", "AC", "7S", "7C"]
    state = p1_declares(options, (4, "no_trump"), ["AD", "AC", "7C", "7S", "8S", "8H"], JOKERS_DEALT, kitty)
    state = GAME.apply(state, 1, {"type": "direction", "direction": "uptown"})
    state = GAME.apply(state, 1, {"type": "play", "card": "AS"})
    legal = GAME.legal_actions(state, 2)
    assert len(legal) == 12  # free: P2 may keep the joker
    assert BidWhistBot(random.Random(3)).choose(GAME.view(state, 2), legal) == {"type": "play", "card": "LJ"}


def advance(options, seed, moves):
    state = GAME.new_game(4, options=options, seed=seed, dealer=seed % 4)
    easy = [get_bot("bid_whist", random.Random(seed + i)) for i in range(4)]
    for _ in range(moves):
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        state = GAME.apply(state, seat, easy[seat].choose(view, GAME.legal_actions(state, seat)))
        if state.history:
            break
    return state


@pytest.mark.parametrize(("options", "moves"), [(COMBOS[0], 14), (COMBOS[1], 22), (COMBOS[2], 30), (COMBOS[3], 11)])
def test_the_strong_bot_never_peeks_at_house_options(options, moves):
    """A sampled state shows the seat the same view as the real one; the Strong bot chooses the
    same in both."""
    state = advance(options, 8, moves)
    seat = GAME.to_act(state)[0]
    view = GAME.view(state, seat)
    other = sample_state(get_game("bid_whist"), options, view, seat, random.Random(5))
    match = ("history", "scores", "team_scores", "hand_number")  # the sample is a fresh match
    sampled = GAME.view(other, seat)
    assert {k: v for k, v in sampled.items() if k not in match} == {k: v for k, v in view.items() if k not in match}
    assert any(GAME.view(other, s)["hand"] != GAME.view(state, s)["hand"] for s in range(4) if s != seat)
    legal = GAME.legal_actions(state, seat)
    choices = [
        strong(7, options, samples=3).choose(GAME.view(s, seat), GAME.legal_actions(s, seat)) for s in (state, other)
    ]
    assert choices[0] == choices[1] and choices[0] in legal


def test_the_sampler_deals_the_unseen_jokers_and_replays_downtown_as_downtown():
    options = {"jokers": 2, "directions": True}
    found = None
    for seed in range(40):
        state = advance(options, seed, 20)
        view = GAME.view(state, GAME.to_act(state)[0]) if GAME.to_act(state) else None
        if (
            view
            and view["play_direction"] == "downtown"
            and view["phase"] == "playing"
            and not ({"BJ", "LJ"} & set(view["hand"]))
        ):
            found = (state, view)
            break
    assert found, "a downtown hand where the seat to act holds no joker"
    state, view = found
    seat = view["to_act"][0]
    places = set()
    for k in range(30):
        other = sample_state(get_game("bid_whist"), options, view, seat, random.Random(k))
        assert other.play_direction == "downtown" and GAME.view(other, seat)["hand"] == view["hand"]
        full = GAME.full_view(other)
        for s, hand in enumerate(full["hands"]):
            if "BJ" in hand:
                places.add(s)
        assert "BJ" not in full["hands"][seat]
    played = {e["action"].get("card") for e in view["log"]}
    assert "BJ" in played or len(places) >= 2, "the big joker is dealt to the unseen places"


@pytest.mark.parametrize("options", [COMBOS[0], COMBOS[2]])
def test_an_easy_bot_team_beats_random_players_at_house_options(options):
    wins = 0
    for seed in range(10):
        bots = [get_bot("bid_whist", random.Random(seed)) for _ in range(4)]
        rng = random.Random(seed)
        state = GAME.new_game(4, options=options, seed=seed, dealer=seed % 4)
        while GAME.outcome(state) is None:
            seat = GAME.to_act(state)[0]
            legal = GAME.legal_actions(state, seat)
            action = bots[seat].choose(GAME.view(state, seat), legal) if seat % 2 == 0 else rng.choice(legal)
            state = GAME.apply(state, seat, action)
        wins += GAME.outcome(state)["winners"] == [0, 2]
    assert wins >= 8


def test_easy_bots_make_their_own_bids_more_often_than_not_at_house_options():
    made = total = 0
    options = {"jokers": 2, "directions": True, "no_trump": True, "target": 21}
    for seed in range(30, 40):
        bots = [get_bot("bid_whist", random.Random(seed * 4 + i)) for i in range(4)]
        history = GAME.view(play_match(bots, options, seed), None)["history"]
        for entry in history:
            if not entry["forced"]:
                total += 1
                made += entry["made"]
    assert total >= 10 and made / total > 0.55
