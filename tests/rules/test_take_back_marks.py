"""Every game's ``take_back_marks`` agrees with reading them from the seat's whole view.

A game may read the marks a take-back is judged by from its state (the room asks for them on
every person's action); the judgement must stay exactly the one the seat's views give:
``TAKE_BACK_FIXED`` of its own view unchanged, its hand only lost cards (PROTOCOL §9).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from test_contract import ENDING_OPTIONS, OPTION_MIXES

from server.games import game_names, get_game
from server.rules.game import Game


def _two_views(game: Game, before: Any, after: Any, seat: int) -> bool:
    """The judgement read from the seat's two whole views."""
    if game.outcome(after) is not None:
        return False
    was, now = game.view(before, seat), game.view(after, seat)
    if any(was.get(key) != now.get(key) for key in game.TAKE_BACK_FIXED):
        return False
    return not Counter(now.get("hand") or ()) - Counter(was.get("hand") or ())


def _play(name: str, options: dict[str, Any], seed: int, max_actions: int = 3000) -> Counter:
    """A random match: at every state every seat's marks are the view's, and every action
    is judged as its two views judge it. The judgements made, counted."""
    game = get_game(name)
    rng = random.Random(seed)
    players = game.default_players
    state = game.new_game(players=players, options=options, seed=seed, dealer=seed % players)
    judged: Counter = Counter()
    for _ in range(max_actions):
        for seat in range(players):
            fixed, hand = game.take_back_marks(state, seat)
            view_fixed, view_hand = Game.take_back_marks(game, state, seat)
            assert fixed == view_fixed
            assert Counter(hand) == Counter(view_hand)
        to_act = game.to_act(state)
        if not to_act:
            break
        seat = rng.choice(to_act)
        after = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        allowed = game.may_take_back(state, after, seat)
        assert allowed == _two_views(game, state, after, seat)
        judged[allowed] += 1
        state = after
    return judged


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("seed", range(3))
def test_a_games_take_back_marks_are_its_views(name, seed):
    judged = _play(name, ENDING_OPTIONS.get(name, {}), seed)
    assert judged[True] and judged[False], "both judgements were made"


@pytest.mark.parametrize(("name", "options"), [(name, mix) for name, mixes in OPTION_MIXES.items() for mix in mixes])
def test_take_back_marks_are_the_views_with_house_options(name, options):
    judged = _play(name, options, 7)
    assert judged[True] and judged[False], "both judgements were made"
