"""The Easy bots' registry: each game's hand-written heuristics, one module per game.

Both the bot registry (``server.bots.get_bot``) and the Strong bot (whose rollouts play the
Easy bots) look them up here, so neither has to import the other.
"""

from __future__ import annotations

import importlib
import random

from server.bots.base import Bot

EASY_MODULES: dict[str, str] = {
    "oh_hell": "server.bots.oh_hell",
    "bid_whist": "server.bots.bid_whist",
    "tarbish": "server.bots.tarbish",
    "ribs": "server.bots.ribs",
    "spades": "server.games.spades.bots",
}


def easy_bot_class(game: str) -> type[Bot]:
    """The Easy bot's class for the game called ``game`` (ValueError if it has none)."""
    if game not in EASY_MODULES:
        raise ValueError(f"no bot for game {game!r}")
    return importlib.import_module(EASY_MODULES[game]).BOT_CLASS


def easy_bot(game: str, rng: random.Random | None = None) -> Bot:
    """A new Easy bot for the game called ``game``."""
    return easy_bot_class(game)(rng)
