"""The public move log (`log` in every game's view): every move of the hand in order, in the
form the whole table saw it, with the trick's taker on the play that completed it."""

from __future__ import annotations

import random

import pytest

from server.games import game_names, get_game

# What the table sees of an action: hidden cards left out or null.
HIDDEN = {
    "discard": lambda a: {"type": "discard"},
    "ribs": lambda a: {"type": "ribs", "cards": None},
    "pair": lambda a: {**a, "cards": None} if a.get("fold") else a,
}


def public_form(action: dict) -> dict:
    return HIDDEN.get(action["type"], lambda a: a)(action)


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("seed", range(3))
def test_every_move_is_logged_in_order_and_cleared_with_each_deal(name, seed):
    game = get_game(name)
    rng = random.Random(seed)
    state = game.new_game(players=4, seed=seed)
    expected: list[dict] = []
    tricks_won = 0
    for _ in range(400):
        acting = game.to_act(state)
        if not acting:
            break
        seat = acting[0]
        action = rng.choice(game.legal_actions(state, seat))
        hands_before = len(game.hand_records(state))
        state = game.apply(state, seat, action)
        expected.append({"seat": seat, "action": public_form(action)})
        views = [game.view(state, s) for s in (None, 0, 1, 2, 3)]
        log = views[0]["log"]
        assert all(v["log"] == log for v in views), "the log is the same for everyone"
        if len(game.hand_records(state)) > hands_before:
            assert log == [], "a new deal empties the log"
            expected = []
            continue
        won = log[-1].pop("won", "none")
        assert log == expected
        if won != "none":
            tricks_won += 1
            last = views[0]["last_trick"]
            if name != "ribs":
                assert won == last["winner"]
            elif last["double_match"] is not None and last["double_match"] >= 0:
                assert won == last["double_match"]
    assert tricks_won > 0


def test_a_bid_whist_discard_keeps_its_cards_out_of_the_log():
    game = get_game("bid_whist")
    state = game.new_game(players=4, seed=1)
    while game.view(state, None)["phase"] != "discarding":
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, game.legal_actions(state, seat)[-1])
    seat = game.to_act(state)[0]
    state = game.apply(state, seat, game.legal_actions(state, seat)[0])
    assert game.view(state, 1)["log"][-1] == {"seat": seat, "action": {"type": "discard"}}
