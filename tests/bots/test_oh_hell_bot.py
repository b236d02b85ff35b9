"""The Oh Hell bot: whole matches between bots, only legal actions, and its main heuristics."""

from __future__ import annotations

import random

import pytest

from server.bots import get_bot
from server.bots.oh_hell import OhHellBot, estimate_tricks
from server.rules.cards import standard_deck
from server.rules.games import get_game

GAME = get_game("oh_hell")


def play_bots(players, options, seed):
    bots = [get_bot("oh_hell", random.Random(seed * 10 + s)) for s in range(players)]
    state = GAME.new_game(players, options, seed=seed, dealer=seed % players)
    for _ in range(10000):
        acting = GAME.to_act(state)
        if not acting:
            return state
        seat = acting[0]
        view = GAME.view(state, seat)
        legal = GAME.legal_actions(state, seat)
        action = bots[seat].choose(view, legal)
        assert action in legal
        state = GAME.apply(state, seat, action)
    raise AssertionError("the bots' match did not end")


def stacked(hands, turned, dealer, players):
    size = len(hands[0])
    deck = [hands[(dealer + 1 + i) % players][k] for k in range(size) for i in range(players)]
    deck.append(turned)
    return deck + [c for c in standard_deck() if c not in deck]


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_a_table_of_bots_finishes_short_matches_with_only_legal_actions(players):
    for seed in range(6):
        options = {"max_cards": 3, "scoring": ["standard", "basic", "penalty"][seed % 3]}
        state = play_bots(players, options, seed)
        assert GAME.outcome(state) is not None


def test_four_bots_finish_a_full_default_match():
    state = play_bots(4, {}, seed=7)
    result = GAME.outcome(state)
    assert len(GAME.view(state, None)["history"]) == 19
    assert result["winners"]


def test_bots_make_their_bids_far_more_often_than_random_players():
    made = total = 0
    for seed in range(4):
        state = play_bots(4, {"max_cards": 5}, seed)
        for entry in GAME.view(state, None)["history"]:
            made += sum(b == t for b, t in zip(entry["bids"], entry["tricks_won"]))
            total += len(entry["bids"])
    assert made / total > 0.45


def test_a_bot_with_top_trumps_and_side_aces_bids_high_and_a_weak_hand_bids_zero():
    strong = ["AS", "KS", "QS", "AH", "AD"]
    weak = ["2H", "3H", "4D", "5C", "3C"]
    assert round(estimate_tricks(strong, "S", 4)) >= 4
    assert round(estimate_tricks(weak, "S", 4)) == 0
    deck = stacked({1: strong, 2: ["JS", "10S", "9S", "KH", "KD"], 3: ["2S", "3S", "4S", "5S", "6S"],
                    0: weak}, "7S", dealer=0, players=4)
    state = GAME.new_game(4, {"max_cards": 5, "rebound": False}, decks=[deck])
    action = OhHellBot(random.Random(0)).choose(GAME.view(state, 1), GAME.legal_actions(state, 1))
    assert action["type"] == "bid" and action["value"] >= 4


def test_the_dealer_bot_takes_the_nearest_legal_bid_under_the_hook():
    bot = OhHellBot(random.Random(0))
    view = {"hand": ["AS"], "trump": "S", "hand_counts": [1, 1, 1, 1], "hand_size": 1}
    legal = [{"type": "bid", "value": 0}]  # 1 is forbidden
    assert bot.choose(view, legal) == {"type": "bid", "value": 0}


def test_a_bot_that_needs_a_trick_wins_it_with_its_lowest_winning_card_when_last():
    bot = OhHellBot(random.Random(0))
    view = {
        "to_act": [0], "bids": [1, 0, 0, 0], "tricks_won": [0, 0, 0, 0], "trump": "H",
        "hand_counts": [3, 2, 2, 2],
        "trick": [{"seat": 1, "card": "9D"}, {"seat": 2, "card": "JD"}, {"seat": 3, "card": "4D"}],
        "hand": ["AD", "QD", "3D"],
    }
    legal = [{"type": "play", "card": c} for c in view["hand"]]
    assert bot.choose(view, legal) == {"type": "play", "card": "QD"}


def test_a_bot_that_has_made_its_bid_ducks_with_its_highest_losing_card():
    bot = OhHellBot(random.Random(0))
    view = {
        "to_act": [0], "bids": [1, 0, 0, 0], "tricks_won": [1, 0, 0, 0], "trump": "H",
        "hand_counts": [3, 2, 2, 2],
        "trick": [{"seat": 1, "card": "JD"}],
        "hand": ["AD", "10D", "3D"],
    }
    legal = [{"type": "play", "card": c} for c in view["hand"]]
    assert bot.choose(view, legal) == {"type": "play", "card": "10D"}


def test_a_bot_that_needs_tricks_and_leads_plays_a_side_ace():
    bot = OhHellBot(random.Random(0))
    view = {"to_act": [2], "bids": [0, 0, 2, 0], "tricks_won": [0, 0, 0, 0], "trump": "C",
            "hand_counts": [3, 3, 3, 3], "trick": [], "hand": ["AH", "KC", "4D"]}
    legal = [{"type": "play", "card": c} for c in view["hand"]]
    assert bot.choose(view, legal) == {"type": "play", "card": "AH"}
