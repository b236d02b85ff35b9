"""The public path to the game registry: ``from server.games import get_game``.

The games themselves live in the rules layer, ``server.rules.games``; this module only keeps
the documented import path working for outside clients and test suites.
"""

from server.rules.games import (
    Action,
    Game,
    GameError,
    GameOptions,
    IllegalAction,
    NotYourTurn,
    all_games,
    game_names,
    get_game,
)

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
