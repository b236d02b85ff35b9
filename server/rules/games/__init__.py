"""The registry of games: one line per game. ``get_game(name)`` is the only way in."""

from __future__ import annotations

import importlib

from server.rules.games.base import (
    Action,
    Game,
    GameError,
    GameOptions,
    IllegalAction,
    NotYourTurn,
)

# name -> module; each module exposes its Game instance as ``GAME``.
_REGISTRY: dict[str, str] = {
    "oh_hell": "server.rules.games.oh_hell",
    "bid_whist": "server.rules.games.bid_whist",
    "tarbish": "server.rules.games.tarbish",
    "ribs": "server.rules.games.ribs",
    "spades": "server.games.spades.rules",
}

_loaded: dict[str, Game] = {}


def game_names() -> list[str]:
    """The ids of every registered game."""
    return list(_REGISTRY)


def get_game(name: str) -> Game:
    """The game called ``name``; ValueError naming the known games otherwise."""
    game = _loaded.get(name) if isinstance(name, str) else None
    if game is not None:
        return game
    if not isinstance(name, str) or name not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY))
        raise ValueError(f"unknown game {name!r}; the games are: {known}")
    game = importlib.import_module(_REGISTRY[name]).GAME
    _loaded[name] = game
    return game


def all_games() -> list[Game]:
    """Every registered game."""
    return [get_game(name) for name in _REGISTRY]


__all__ = [
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
