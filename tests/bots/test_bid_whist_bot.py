"""The Bid Whist bot: whole matches at a table of bots, legal choices only, and its heuristics."""

from __future__ import annotations

import random

from server.bots import get_bot
from server.games import get_game
from server.games.bid_whist.bots import BidWhistBot, best_trump, hand_strength

GAME = get_game("bid_whist")

SPADES = [r + "S" for r in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"]]


def stacked(hands, kitty, dealer=3):
    deck = []
    for i in range(12):
        for k in range(4):
            deck.append(hands[(dealer + 1 + k) % 4][i])
    return GAME.new_game(4, seed=1, dealer=dealer, decks=[deck + kitty])


def rest_of_deck(*taken):
    used = {c for cards in taken for c in cards}
    return [
        r + s
        for s in "HDCS"
        for r in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
        if r + s not in used
    ]


def play_bot_match(seed, target, compact):
    """Four bots play a whole match; every choice must be legal."""
    bots = [get_bot("bid_whist", random.Random(seed * 4 + i)) for i in range(4)]
    state = GAME.new_game(4, options={"target": target}, seed=seed, dealer=seed % 4)
    while GAME.outcome(state) is None:
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, seat)
        full = GAME.legal_actions(state, seat)
        legal = view["legal"] if compact else full
        action = bots[seat].choose(view, legal)
        if action["type"] == "discard" and compact:
            assert any(set(a["cards"]) == set(action["cards"]) for a in full)
        else:
            assert action in legal, action
        state = GAME.apply(state, seat, action)
    return state


def test_a_table_of_bots_finishes_whole_matches_with_legal_actions_only():
    for seed in range(12):
        state = play_bot_match(seed, 21 if seed % 3 == 0 else 7, compact=seed % 2 == 0)
        outcome = GAME.outcome(state)
        assert outcome["winners"] in ([0, 2], [1, 3])


def test_the_registry_gives_the_bid_whist_bot():
    assert isinstance(get_bot("bid_whist", random.Random(0)), BidWhistBot)


def test_bots_make_their_own_bids_more_often_than_not():
    made = total = 0
    for seed in range(30, 45):
        history = GAME.view(play_bot_match(seed, 21, compact=True), None)["history"]
        for entry in history:
            if not entry["forced"]:
                total += 1
                made += entry["made"]
    assert total >= 10 and made / total > 0.55


def test_a_bot_team_beats_random_players():
    wins = 0
    for seed in range(10):
        bots = [get_bot("bid_whist", random.Random(seed)) for _ in range(4)]
        rng = random.Random(seed)
        state = GAME.new_game(4, options={"target": 11}, seed=seed, dealer=seed % 4)
        while GAME.outcome(state) is None:
            seat = GAME.to_act(state)[0]
            if seat % 2 == 0:
                view = GAME.view(state, seat)
                action = bots[seat].choose(view, GAME.legal_actions(state, seat))
            else:
                action = rng.choice(GAME.legal_actions(state, seat))
            state = GAME.apply(state, seat, action)
        wins += GAME.outcome(state)["winners"] == [0, 2]
    assert wins >= 8


def test_a_bot_with_twelve_spades_bids_seven_and_a_weak_hand_passes():
    weak = ["7H", "5H", "3H", "2H", "7D", "5D", "3D", "2D", "7C", "5C", "3C", "2C"]
    others = rest_of_deck(SPADES, weak)
    state = stacked([SPADES, weak, others[:12], others[12:24]], others[24:28])
    bot = BidWhistBot(random.Random(0))
    view = GAME.view(state, 0)
    assert bot.choose(view, view["legal"]) == {"type": "bid", "value": 7}
    state = GAME.apply(state, 0, {"type": "pass"})
    view = GAME.view(state, 1)
    assert bot.choose(view, view["legal"]) == {"type": "pass"}


def test_the_strength_estimate_prefers_the_long_strong_suit():
    hand = ["AH", "KH", "QH", "JH", "9H", "4H", "AS", "3S", "8D", "5D", "6C", "2C"]
    assert best_trump(hand)[0] == "H"
    assert hand_strength(hand, "H") > hand_strength(hand, "C")


def test_the_declaring_bot_keeps_its_trumps_names_them_and_leads_them():
    hand0 = ["AS", "KS", "QS", "JS", "10S", "9S", "AH", "5H", "4D", "3D", "3C", "2C"]
    others = rest_of_deck(hand0)
    state = stacked([hand0, others[:12], others[12:24], others[24:36]], others[36:40])
    for seat, action in (
        (0, {"type": "bid", "value": 5}),
        (1, {"type": "pass"}),
        (2, {"type": "pass"}),
        (3, {"type": "pass"}),
    ):
        state = GAME.apply(state, seat, action)
    bot = BidWhistBot(random.Random(0))
    view = GAME.view(state, 0)
    discard = bot.choose(view, view["legal"])
    assert discard["type"] == "discard" and len(set(discard["cards"])) == 4
    assert not any(c.endswith("S") for c in discard["cards"])
    assert bot.choose(view, GAME.legal_actions(state, 0)) in GAME.legal_actions(state, 0)
    state = GAME.apply(state, 0, discard)
    view = GAME.view(state, 0)
    assert bot.choose(view, view["legal"]) == {"type": "trump", "suit": "S"}
    state = GAME.apply(state, 0, {"type": "trump", "suit": "S"})
    view = GAME.view(state, 0)
    assert bot.choose(view, view["legal"]) == {"type": "play", "card": "AS"}


def test_the_bot_wins_with_its_cheapest_winning_card_and_ducks_under_a_winning_partner():
    bot = BidWhistBot(random.Random(0))
    view = {
        "phase": "playing",
        "to_act": [3],
        "hand": ["KH", "9H", "4H", "2S"],
        "trump": "S",
        "declarer": 3,
        "trick": [{"seat": 0, "card": "5H"}, {"seat": 1, "card": "10H"}, {"seat": 2, "card": "8H"}],
        "last_trick": None,
        "hand_number": 1,
        "dealer": 0,
        "scores": [0, 0, 0, 0],
    }
    legal = [{"type": "play", "card": c} for c in ("KH", "9H", "4H")]
    # Partner (seat 1) is winning with 10H and the bot plays last: throw the lowest heart.
    assert bot.choose(view, legal) == {"type": "play", "card": "4H"}
    view["trick"][1] = {"seat": 1, "card": "3H"}
    # The opponents are winning with 8H: the cheapest heart that wins is 9H.
    assert bot.choose(view, legal) == {"type": "play", "card": "9H"}
    # Void in the suit led: ruff with the trump rather than throw it away.
    view["hand"] = ["2S", "3D"]
    legal = [{"type": "play", "card": c} for c in ("2S", "3D")]
    assert bot.choose(view, legal) == {"type": "play", "card": "2S"}
