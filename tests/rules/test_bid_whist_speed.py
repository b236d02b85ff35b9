"""Bid Whist: the fast paths (the trick winner from a strength table) give exactly what the
plain computation gives. (The shuffle is ``server.rules.cards.shuffled``: tests/rules.)"""

from __future__ import annotations

import random

import pytest

from server.games import get_game
from server.rules.tricks import trick_winner

GAME = get_game("bid_whist")


@pytest.mark.parametrize("seed", range(5))
def test_every_trick_goes_to_the_shared_trick_winner(seed):
    rng = random.Random(seed)
    state = GAME.new_game(players=4, seed=seed)
    tricks = 0
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        if state.tricks and len(state.tricks) > tricks:
            trick, winner = state.tricks[-1]
            assert winner == trick_winner(trick, state.trump)
        tricks = len(state.tricks)
