"""The Spades bots: the Easy bot's bids and plays, whole matches of bots, and neither bot peeks
(two states that show a seat the same view get the same choice)."""

from __future__ import annotations

import random

import pytest

from server.bots import get_bot
from server.bots.strong import StrongBot
from server.games import get_game
from server.games.spades.bots import SpadesBot, count_tricks, nil_hand
from server.rules.sampling import HAND_KEYS, sample_state

GAME = get_game("spades")


def choose(view: dict, legal: list[dict]) -> dict:
    return SpadesBot(random.Random(0)).choose(view, legal)


def bidding_view(hand: str, seat: int = 1, bids=(None, None, None, None), scores=(0, 0, 0, 0)) -> dict:
    return {"to_act": [seat], "hand": hand.split(), "bids": list(bids), "scores": list(scores)}


BIDS = [{"type": "bid", "value": v} for v in range(14)]
BLIND_CHOICES = [{"type": "bid", "value": 0, "blind": True}, {"type": "look"}]


def test_bids_count_sure_tricks():
    strong = "AS KS QS 5S 4S AH KH 3H AD 7D 6C 4C 2C"
    assert count_tricks(strong.split()) == 3 + 2 + 2 + 1
    assert choose(bidding_view(strong), BIDS) == {"type": "bid", "value": 8}
    middling = "KS 4S QH 10H 5H KD 9D 6D AC 8C 7C 3C 2C"
    assert choose(bidding_view(middling), BIDS) == {"type": "bid", "value": 3}  # KS, KD, AC


def test_nil_on_a_very_weak_hand_unless_the_partner_bid_nil():
    weak = "9S 3S 2S JH 7H 4H 2H 8D 5D 3D 9C 6C 4C"
    assert nil_hand(weak.split())
    assert choose(bidding_view(weak), BIDS) == {"type": "bid", "value": 0}
    assert choose(bidding_view(weak, bids=(None, None, None, 0)), BIDS) == {"type": "bid", "value": 1}
    assert not nil_hand(
        ["QS", "3S", "2S", "JH", "7H", "4H", "2H", "8D", "5D", "3D", "9C", "6C", "4C"]
    )  # a spade above the ten


def test_blind_nil_only_far_behind_and_never_beside_a_nil_partner():
    far = bidding_view("", seat=0, scores=(-150, 60, -150, 60))
    assert choose(far, BLIND_CHOICES) == BLIND_CHOICES[0]
    assert choose({**far, "bids": [None, None, 0, None]}, BLIND_CHOICES) == {"type": "look"}
    near = bidding_view("", seat=0, scores=(-50, 60, -50, 60))
    assert choose(near, BLIND_CHOICES) == {"type": "look"}


def playing_view(hand: str, trick, seat: int, bids, won=(0, 0, 0, 0)) -> dict:
    return {
        "to_act": [seat],
        "hand": hand.split(),
        "trick": [{"seat": s, "card": c} for s, c in trick],
        "bids": list(bids),
        "tricks_won": list(won),
    }


def play(hand: str, legal: str, trick, seat: int, bids, won=(0, 0, 0, 0)) -> str:
    actions = [{"type": "play", "card": c} for c in legal.split()]
    return choose(playing_view(hand, trick, seat, bids, won), actions)["card"]


def test_a_nil_bidder_ducks_under_the_trick():
    hand = "AH 9H 5H 2H KD"
    assert play(hand, "AH 9H 5H 2H", [(0, "10H")], seat=1, bids=(3, 0, 3, 4)) == "9H"
    assert (
        play(hand, "AH 9H 5H 2H", [(3, "3S"), (0, "10H")], seat=1, bids=(3, 0, 3, 4)) == "AH"
    )  # spades led: all lose, shed the ace
    # void in the suit led: throw the highest side card, never a spade
    assert play("AS AD 4C", "AS AD 4C", [(0, "10H")], seat=1, bids=(3, 0, 3, 4)) == "AD"
    # leading: the lowest side card
    assert play("KS 9H 3D QC", "9H 3D QC", [], seat=1, bids=(3, 0, 3, 4)) == "3D"


def test_the_partner_of_a_nil_covers_it():
    # partner (seat 0) bid nil and plays after: win with the highest card
    assert play("AH QH 4H", "AH QH 4H", [(1, "10H")], seat=2, bids=(0, 3, 5, 4)) == "AH"
    # partner played and is winning: overtake with the lowest card that beats it
    trick = [(0, "5H"), (1, "JH")]
    assert play("AH QH 4H", "AH QH 4H", trick, seat=3, bids=(4, 0, 5, 3)) == "QH"
    # partner played and is beaten: the nil is safe, play low
    trick = [(0, "5H"), (1, "2H"), (2, "KH")]
    assert play("AH QH 4H", "AH QH 4H", trick, seat=3, bids=(4, 0, 5, 3)) == "4H"


def test_needing_tricks_it_wins_cheaply_and_trusts_a_winning_partner():
    bids = (3, 4, 3, 3)
    assert play("AH QH 4H", "AH QH 4H", [(0, "JH")], seat=1, bids=bids) == "QH"
    assert play("AH QH 4H", "AH QH 4H", [(0, "5H"), (1, "KH"), (2, "9H")], seat=3, bids=bids) == "4H"
    assert play("2S 7D", "2S 7D", [(0, "5H"), (1, "9H")], seat=2, bids=bids) == "2S"  # ruff to win
    # contract made: avoid bags with the highest card that loses
    assert play("AH QH 4H", "AH QH 4H", [(0, "KH")], seat=1, bids=bids, won=(3, 4, 3, 3)) == "QH"


def play_match(state, bots):
    """Play the match out with ``bots`` (one per seat), checking every action is legal."""
    steps = 0
    while GAME.to_act(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        action = bots[seat].choose(view, view["legal"])
        assert action in GAME.legal_actions(state, seat)
        state = GAME.apply(state, seat, action)
        steps += 1
        assert steps < 5000
    assert GAME.outcome(state) is not None
    return state


@pytest.mark.parametrize("options", [{}, {"blind_nil": True, "target": 300}, {"bag_limit": 5, "lose_at": -200}])
def test_easy_bots_finish_whole_matches_with_legal_actions_only(options):
    for match in range(8):
        bots = [get_bot("spades", random.Random(match * 4 + s)) for s in range(4)]
        play_match(GAME.new_game(options=options, seed=match, dealer=match % 4), bots)


def test_easy_bots_make_most_of_their_nils():
    made = bid = 0
    for match in range(6):
        bots = [get_bot("spades", random.Random(s)) for s in range(4)]
        state = play_match(GAME.new_game(seed=100 + match, dealer=0), bots)
        for entry in GAME.view(state, None)["history"]:
            for s in range(4):
                if entry["bids"][s] == 0:
                    bid += 1
                    made += entry["tricks"][s] == 0
    assert bid >= 5 and made / bid > 0.6


def moments(options: dict, seed: int, hands: int = 1):
    """States of an Easy-bot match where the seat to act has a choice (the first ``hands``
    hands), with the seat."""
    state = GAME.new_game(options=options, seed=seed, dealer=seed % 4)
    bots = [get_bot("spades", random.Random(seed + s)) for s in range(4)]
    found = []
    while GAME.to_act(state) and GAME.view(state, None)["hand_number"] <= hands:
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        if len(view["legal"]) > 1:
            found.append((state, seat))
        state = GAME.apply(state, seat, bots[seat].choose(view, view["legal"]))
    return found


def strong(seed: int, options: dict) -> StrongBot:
    return StrongBot("spades", random.Random(seed), options=options, think_ms=1e9, max_samples=3)


@pytest.mark.parametrize("seed", range(4))
def test_neither_bot_peeks(seed):
    """The sampler deals every card the seat cannot see anew: the seat's view is the same in
    both states, so both bots choose the same there."""
    options = {"blind_nil": True}
    rng = random.Random(seed)
    found = moments(options, seed)
    for state, seat in rng.sample(found, 4):
        view = GAME.view(state, seat)
        other = sample_state(GAME, options, view, seat, random.Random(seed))
        assert GAME.view(other, seat) == view
        assert any(GAME.view(other, s)["hand"] != GAME.view(state, s)["hand"] for s in range(4) if s != seat)
        legal = GAME.legal_actions(state, seat)
        easy = [SpadesBot(random.Random(1)).choose(GAME.view(s, seat), legal) for s in (state, other)]
        assert easy[0] == easy[1] and easy[0] in legal
        picks = [strong(7, options).choose(GAME.view(s, seat), legal) for s in (state, other)]
        assert picks[0] == picks[1] and picks[0] in legal


def test_a_seat_that_may_bid_blind_nil_is_sampled_without_its_own_cards():
    """Team 0 far behind: seat 0 and seat 2 see no cards before they look. The sample deals
    the seat's own cards anew too, and the bots choose the same in both states."""
    options = {"blind_nil": True}
    state = GAME.new_game(options=options, seed=3, dealer=3)
    state = GAME.resumed(state, (-250, 100), (0, 0))
    seat = GAME.to_act(state)[0]
    assert seat == 0
    view = GAME.view(state, seat)
    assert view["hand"] == [] and view["legal"] == [{"type": "bid", "value": 0, "blind": True}, {"type": "look"}]
    other = sample_state(GAME, options, view, seat, random.Random(4))
    assert GAME.view(other, seat) == view
    assert other.hands[0] != state.hands[0]  # its own unseen cards were dealt anew
    for s in (state, other):
        assert SpadesBot(random.Random(0)).choose(GAME.view(s, seat), view["legal"])["blind"] is True
    picks = [strong(2, options).choose(GAME.view(s, seat), view["legal"]) for s in (state, other)]
    assert picks[0] == picks[1]


def test_a_later_hand_is_sampled_at_the_match_scores():
    options = {"blind_nil": True, "bag_limit": 5}
    for state, seat in moments(options, 5, hands=3)[-6:]:
        view = GAME.view(state, seat)
        other = sample_state(GAME, options, view, seat, random.Random(1))
        mine = GAME.view(other, seat)
        for key in (*HAND_KEYS, "scores", "bags", "blind_nil_seats", "dealer", "phase"):
            assert mine.get(key) == view.get(key), key


@pytest.mark.parametrize("level", ["easy", "strong"])
def test_a_whole_match_of_bots_finishes(level):
    options = {"target": 150, "blind_nil": True, "lose_at": -150}
    bots = [get_bot("spades", random.Random(s), level=level, options=options, samples=2) for s in range(4)]
    play_match(GAME.new_game(options=options, seed=21, dealer=2), bots)
