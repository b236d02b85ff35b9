"""The registry of games: ``from server.games import get_game``.

Each game is one folder, ``server/games/<name>/``: its engine (``rules.py``, pure, importing
only ``server.rules``), its bots' parts (``bots.py``), its options in players' words
(``words.py``) and its rules page (``rules.md``); the folder's ``GAME`` puts them together.
Everything above the rules (rooms, bots, ledger, recap, push, rules pages) asks that object
for what it needs and names no game. Adding a game is one folder and one line in ``GAMES``.
"""

from __future__ import annotations

from server.games import bid_whist, oh_hell, ribs, spades, tarbish
from server.rules.game import (
    Action,
    Game,
    GameError,
    GameOptions,
    IllegalAction,
    NotYourTurn,
)

GAMES: list[Game] = [
    oh_hell.GAME,
    bid_whist.GAME,
    tarbish.GAME,
    ribs.GAME,
    spades.GAME,
]

_BY_NAME: dict[str, Game] = {game.name: game for game in GAMES}


def game_names() -> list[str]:
    """The ids of every registered game."""
    return list(_BY_NAME)


def get_game(name: str) -> Game:
    """The game called ``name``; ValueError naming the known games otherwise."""
    game = _BY_NAME.get(name) if isinstance(name, str) else None
    if game is None:
        known = ", ".join(sorted(_BY_NAME))
        raise ValueError(f"unknown game {name!r}; the games are: {known}")
    return game


def all_games() -> list[Game]:
    """Every registered game."""
    return list(GAMES)


__all__ = [
    "GAMES",
    "Action",
    "Game",
    "GameError",
    "GameOptions",
    "IllegalAction",
    "NotYourTurn",
    "all_games",
    "game_names",
    "get_game",
]
