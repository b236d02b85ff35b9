"""The Oh Hell bot: whole matches between bots, only legal actions, and its main heuristics."""

from __future__ import annotations

import random

import pytest

from server.bots import get_bot
from server.games import get_game
from server.games.oh_hell.bots import OhHellBot, estimate_tricks, shown_lacks
from server.rules.cards import standard_deck

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
            made += sum(b == t for b, t in zip(entry["bids"], entry["tricks_won"], strict=True))
            total += len(entry["bids"])
    assert made / total > 0.45


def test_a_bot_with_top_trumps_and_side_aces_bids_high_and_a_weak_hand_bids_zero():
    strong = ["AS", "KS", "QS", "AH", "AD"]
    weak = ["2H", "3H", "4D", "5C", "3C"]
    assert round(estimate_tricks(strong, "S", 4)) >= 4
    assert round(estimate_tricks(weak, "S", 4)) == 0
    deck = stacked(
        {1: strong, 2: ["JS", "10S", "9S", "KH", "KD"], 3: ["2S", "3S", "4S", "5S", "6S"], 0: weak},
        "7S",
        dealer=0,
        players=4,
    )
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
        "to_act": [0],
        "bids": [1, 0, 0, 0],
        "tricks_won": [0, 0, 0, 0],
        "trump": "H",
        "hand_counts": [3, 2, 2, 2],
        "trick": [{"seat": 1, "card": "9D"}, {"seat": 2, "card": "JD"}, {"seat": 3, "card": "4D"}],
        "hand": ["AD", "QD", "3D"],
    }
    legal = [{"type": "play", "card": c} for c in view["hand"]]
    assert bot.choose(view, legal) == {"type": "play", "card": "QD"}


def test_a_bot_that_has_made_its_bid_ducks_with_its_highest_losing_card():
    bot = OhHellBot(random.Random(0))
    view = {
        "to_act": [0],
        "bids": [1, 0, 0, 0],
        "tricks_won": [1, 0, 0, 0],
        "trump": "H",
        "hand_counts": [3, 2, 2, 2],
        "trick": [{"seat": 1, "card": "JD"}],
        "hand": ["AD", "10D", "3D"],
    }
    legal = [{"type": "play", "card": c} for c in view["hand"]]
    assert bot.choose(view, legal) == {"type": "play", "card": "10D"}


def test_a_bot_that_needs_tricks_and_leads_plays_a_side_ace():
    bot = OhHellBot(random.Random(0))
    view = {
        "to_act": [2],
        "bids": [0, 0, 2, 0],
        "tricks_won": [0, 0, 0, 0],
        "trump": "C",
        "hand_counts": [3, 3, 3, 3],
        "trick": [],
        "hand": ["AH", "KC", "4D"],
    }
    legal = [{"type": "play", "card": c} for c in view["hand"]]
    assert bot.choose(view, legal) == {"type": "play", "card": "AH"}


def _log(bids, plays):
    """A view's log: the bids from seat 1 on (the dealer is 0), then ``(seat, card, won)`` plays."""
    log = [
        {"seat": (1 + i) % len(bids), "action": {"type": "bid", "value": bids[(1 + i) % len(bids)]}}
        for i in range(len(bids))
    ]
    for seat, card, won in plays:
        entry = {"seat": seat, "action": {"type": "play", "card": card}}
        if won is not None:
            entry["won"] = won
        log.append(entry)
    return log


def test_a_seat_that_needed_a_trick_and_won_last_with_a_king_held_no_lower_winner():
    # Seat 0 needs a trick and plays last: the rule wins with its lowest winner, so KD over JD
    # says it did not hold QD (the one lower card that also beat JD).
    view = {
        "trump": "H",
        "hand_counts": [2, 2, 2, 2],
        "log": _log([1, 0, 0, 0], [(1, "9D", None), (2, "JD", None), (3, "4D", None), (0, "KD", 0)]),
    }
    lacks = shown_lacks(view, 2)
    assert lacks[0] == {"QD"}
    # Seat 1 led 9D needing nothing: the rule leads its lowest card, so it held no card below 9
    # of a side suit and no trump below it (trumps rank above every side card).
    assert {"8S", "2C", "5D"} <= lacks[1] and not {"10S", "2H", "AH"} & lacks[1]
    # Seat 3 ducked with 4D having made its bid (0): the rule ducks with its highest loser, so
    # it held no diamond from 5 to 10 (JD was winning; QD and up would have won).
    assert {"5D", "10D"} <= lacks[3] and not {"QD", "3D", "AS"} & lacks[3]
    assert 2 not in lacks  # nothing is inferred about the seat that reads the log


def test_a_lead_made_needing_tricks_is_not_read():
    # Seat 1 bid 1 and leads 9D: people lead low to keep their winners as often as they cash an
    # ace, so nothing is ruled out by it (the rule itself would have led a side ace or a trump).
    view = {"trump": "H", "hand_counts": [2, 1, 2, 2], "log": _log([0, 1, 0, 0], [(1, "9D", None)])}
    assert shown_lacks(view, 2) == {1: set()}


def test_a_seat_whose_plays_contradict_the_rule_is_not_read_at_all():
    # Seat 1 leads 9D needing nothing (so it lacks every lower side card), then plays 2C: it does
    # not play by the rule (a person), and nothing is inferred about it.
    view = {
        "trump": "H",
        "hand_counts": [1, 1, 1, 1],
        "log": _log(
            [1, 0, 0, 0],
            [(1, "9D", None), (2, "JD", None), (3, "4D", None), (0, "KD", 0), (0, "AS", None), (1, "2C", None)],
        ),
    }
    lacks = shown_lacks(view, 2)
    assert 1 not in lacks and 0 in lacks


def test_what_a_rule_playing_seat_is_said_to_lack_is_never_in_its_hand():
    # Four Easy bots: at every decision, each other seat's real hand holds none of the cards its
    # plays ruled out, and the reading rules out many.
    ruled_out = checked = 0
    for seed in range(60):
        players = 3 + seed % 3
        state = GAME.new_game(players, {"max_cards": 1 + seed % 8, "rebound": False}, seed=seed, dealer=seed % players)
        bots = [get_bot("oh_hell", random.Random(seed * 10 + s)) for s in range(players)]
        while GAME.to_act(state) and not GAME.view(state, None)["history"]:
            seat = GAME.to_act(state)[0]
            view = GAME.view(state, seat)
            for other, cards in shown_lacks(view, seat).items():
                assert other != seat
                assert not cards & set(GAME.view(state, other)["hand"]), (seed, other, cards)
                ruled_out += len(cards)
                checked += 1
            state = GAME.apply(state, seat, bots[seat].choose(view, view["legal"]))
    assert checked > 500 and ruled_out > 3 * checked
