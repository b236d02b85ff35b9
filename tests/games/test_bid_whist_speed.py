"""Bid Whist: the fast paths (bulk shuffle, inlined trick winner) give exactly what the plain
computation gives."""

from __future__ import annotations

import random

import pytest

from server.cards import hand_rng, shuffled, standard_deck
from server.games import get_game
from server.games.bid_whist import _fast_shuffled_deck
from server.tricks import trick_winner

GAME = get_game("bid_whist")


@pytest.mark.parametrize("seed", range(100))
def test_the_fast_shuffle_is_random_shuffle(seed):
    rng_a, rng_b = hand_rng(seed * 7919, seed), hand_rng(seed * 7919, seed)
    assert _fast_shuffled_deck(rng_a) == shuffled(standard_deck(), rng_b)


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
