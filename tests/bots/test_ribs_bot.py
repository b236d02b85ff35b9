"""The Ribs bot: whole tables of bots finish sessions with legal moves, and its heuristics."""

from __future__ import annotations

import random

import pytest

from server.bots import get_bot
from server.games import get_game
from server.games.ribs.bots import RibsBot

GAME = get_game("ribs")


def stack(hands: list[str], dealer: int) -> list[str]:
    """The deck (top first) that deals ``hands`` two at a time from the dealer's left."""
    split = [h.split() for h in hands]
    n = len(split)
    deck: list[str] = []
    for packet in range(4):
        for k in range(1, n + 1):
            deck += split[(dealer + k) % n][2 * packet : 2 * packet + 2]
    return deck


def play_bots(state, bots):
    actions = 0
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        action = bots[seat].choose(GAME.view(state, seat), legal)
        assert action in legal
        state = GAME.apply(state, seat, action)
        actions += 1
        assert actions < 20_000
    return state


@pytest.mark.parametrize("n", [4, 5, 7, 10])
def test_a_table_of_bots_finishes_whole_sessions_with_legal_actions_only(n):
    for seed in range(3):
        bots = [get_bot("ribs", random.Random(seed * 10 + s)) for s in range(n)]
        state = GAME.new_game(n, options={"target": 2}, seed=seed, dealer=seed % n)
        state = play_bots(state, bots)
        result = GAME.outcome(state)
        assert max(result["scores"]) == 2 and result["winners"]


def test_the_registry_gives_the_ribs_bot():
    assert isinstance(get_bot("ribs", random.Random(0)), RibsBot)


def test_bots_beat_random_players_over_a_few_sessions():
    wins = {"bot": 0.0, "random": 0.0}
    for seed in range(10):
        picker = random.Random(seed)
        bots = [get_bot("ribs", random.Random(seed)) if s % 2 == 0 else None for s in range(4)]
        state = GAME.new_game(4, options={"target": 2}, seed=100 + seed)
        while GAME.to_act(state):
            seat = GAME.to_act(state)[0]
            legal = GAME.legal_actions(state, seat)
            bot = bots[seat]
            action = bot.choose(GAME.view(state, seat), legal) if bot else picker.choice(legal)
            state = GAME.apply(state, seat, action)
        for w in GAME.outcome(state)["winners"]:
            wins["bot" if w % 2 == 0 else "random"] += 1 / len(GAME.outcome(state)["winners"])
    assert wins["bot"] > wins["random"]


# P1 holds all four aces; P2 holds nothing above a jack.
STRONG_P1 = ["K Q J 10 9 8 8 7", "A A A A K K Q Q", "J 10 9 8 7 7 10 9", "K Q J J 10 9 8 7"]


def test_the_forced_opener_opens_at_the_minimum():
    state = GAME.new_game(4, seed=4, dealer=0)
    action = RibsBot(random.Random(0)).choose(GAME.view(state, 0), GAME.legal_actions(state, 0))
    assert action == {"type": "bid", "value": 2}


def test_a_bot_holding_every_ace_raises_and_a_bot_with_no_high_card_passes():
    deck = stack(STRONG_P1, 0)
    state = GAME.new_game(4, seed=0, dealer=0, decks=[deck])
    state = GAME.apply(state, 0, {"type": "bid", "value": 2})
    strong = RibsBot(random.Random(0)).choose(GAME.view(state, 1), GAME.legal_actions(state, 1))
    assert strong == {"type": "bid", "value": 3}
    state = GAME.apply(state, 1, strong)
    weak = RibsBot(random.Random(0)).choose(GAME.view(state, 2), GAME.legal_actions(state, 2))
    assert weak == {"type": "pass"}


def test_a_leader_with_a_single_ace_lays_it_in_the_ribs():
    hands = ["A A K Q J 10 9 8", "A Q J 10 9 8 7 7", "A K K Q J 10 9 7", "K Q J 10 9 8 8 7"]
    deck = stack(hands, 0)
    state = GAME.new_game(4, seed=0, dealer=0, decks=[deck])
    for seat, action in [
        (0, {"type": "bid", "value": 2}),
        (1, {"type": "bid", "value": 3}),
        (2, {"type": "pass"}),
        (3, {"type": "pass"}),
        (0, {"type": "pass"}),
    ]:
        state = GAME.apply(state, seat, action)
    action = RibsBot(random.Random(0)).choose(GAME.view(state, 1), GAME.legal_actions(state, 1))
    assert action["type"] == "ribs" and "A" in action["cards"]


def test_a_player_holding_every_ace_plays_high_cards_to_beat_ribs_that_cannot_hold_an_ace():
    deck = stack(STRONG_P1, 0)
    state = GAME.new_game(4, seed=0, dealer=0, decks=[deck])
    for seat, action in [
        (0, {"type": "bid", "value": 2}),
        (1, {"type": "pass"}),
        (2, {"type": "pass"}),
        (3, {"type": "pass"}),
        (0, {"type": "ribs", "cards": ["J", "10"]}),
    ]:
        state = GAME.apply(state, seat, action)
    action = RibsBot(random.Random(0)).choose(GAME.view(state, 1), GAME.legal_actions(state, 1))
    assert action["type"] == "pair" and action["fold"] is False
    assert set(action["cards"]) <= {"A", "K", "Q"}
    assert action["cards"] != ["A", "A"]  # aces score nothing: pair them with points
