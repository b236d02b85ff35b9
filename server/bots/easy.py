"""The Easy bots: each game's hand-written heuristics, declared in its folder (``bots.py``).

Both the bot registry (``server.bots.get_bot``) and the Strong bot (whose rollouts play the
Easy bots) look them up here, through the game's bot kit, so neither imports the other.
"""

from __future__ import annotations

import random

from server.bots.base import Bot
from server.bots.kit import BotKit
from server.games import get_game


def bot_kit(game: str) -> BotKit:
    """What the bots need of the game called ``game`` (ValueError if it has no bots)."""
    try:
        kit = get_game(game).bots
    except ValueError:
        kit = None
    if not isinstance(kit, BotKit):
        raise ValueError(f"no bot for game {game!r}")
    return kit


def easy_bot_class(game: str) -> type[Bot]:
    """The Easy bot's class for the game called ``game`` (ValueError if it has none)."""
    return bot_kit(game).easy


def easy_bot(game: str, rng: random.Random | None = None) -> Bot:
    """A new Easy bot for the game called ``game``."""
    return easy_bot_class(game)(rng)
