"""``full_views``: the omniscient view of each of a match's states, built incrementally,
is exactly ``full_view`` of that state, for every game (replays are built from it)."""

from __future__ import annotations

import random

import pytest

from server.games import get_game

SHORT = {
    "oh_hell": {"max_cards": 3},
    "bid_whist": {"target": 7},
    "tarbish": {"target": 150},
    "ribs": {"target": 4},
    "spades": {"target": 150, "lose_at": -150},
}


def random_states(game_name: str, seed: int, players: int) -> list:
    game = get_game(game_name)
    rng = random.Random(seed)
    state = game.new_game(players=players, options=SHORT[game_name], seed=seed, dealer=0)
    states = [state]
    while acting := game.to_act(state):
        state = game.apply(state, acting[0], rng.choice(game.legal_actions(state, acting[0])))
        states.append(state)
    return states


@pytest.mark.parametrize(
    "game_name, players", [("oh_hell", 5), ("bid_whist", 4), ("tarbish", 4), ("ribs", 4), ("ribs", 10), ("spades", 4)]
)
@pytest.mark.parametrize("seed", [1, 2])
def test_full_views_equal_full_view_of_every_state(game_name, players, seed):
    game = get_game(game_name)
    states = random_states(game_name, seed, players)
    views = list(game.full_views(iter(states)))
    assert len(views) == len(states)
    for i, (view, state) in enumerate(zip(views, states, strict=True)):
        assert view == game.full_view(state), f"state {i}"
        assert view["hand"] is None and view["legal"] == []
        assert [len(h) for h in view["hands"]] == view["hand_counts"], f"state {i}: a hand is not shown whole"
        if game_name == "ribs":  # folded pairs and the face-down Ribs are face up too
            assert all(play["cards"] is not None for play in view["trick"])
            assert all(p["cards"] is not None for t in view["tricks"] for p in t["plays"])
