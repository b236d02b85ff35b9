"""``Game.watch_point``: where a watcher kept a trick (or a hand) behind may be shown the table.

For random matches of every game: a trick point has no card of a trick in progress on the
table, a hand point is a fresh deal, and each comes as soon as the trick (or hand) is over.
"""

from __future__ import annotations

import random

import pytest

from server.games import game_names, get_game


def cards_on_table(view: dict) -> int:
    """How many plays of the trick in progress are on the table (any game's ``trick``)."""
    return len(view["trick"] or [])


@pytest.mark.parametrize("name", sorted(game_names()))
@pytest.mark.parametrize("seed", [1, 2])
def test_watch_points_fall_between_tricks_and_between_hands(name, seed):
    game = get_game(name)
    state = game.new_game(players=game.default_players, seed=seed)
    rng = random.Random(seed)
    assert game.watch_point(state, "trick") and game.watch_point(state, "hand")  # the first deal
    tricks = hands = 0
    for _ in range(3000):
        if not game.to_act(state):
            break
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        view = game.view(state, None)
        done = bool(view["log"]) and "won" in view["log"][-1]
        if game.watch_point(state, "trick"):
            assert cards_on_table(view) == 0, view["trick"]
        else:
            assert cards_on_table(view) > 0 and not done
        tricks += done
        if game.watch_point(state, "hand"):
            assert not view["log"] or not game.to_act(state)
        else:
            assert view["log"]
        hands += not view["log"]
        if done:  # the trick just completed is a point at once
            assert game.watch_point(state, "trick")
    assert tricks > 3 and hands >= 1
