"""The registry of bots: one per game, all behind ``Bot.choose(view, legal) -> action``."""

from __future__ import annotations

import importlib
import random

from server.bots.base import Bot

_REGISTRY: dict[str, str] = {
    "oh_hell": "server.bots.oh_hell",
    "bid_whist": "server.bots.bid_whist",
    "tarbish": "server.bots.tarbish",
    "ribs": "server.bots.ribs",
}


def get_bot(game: str, rng: random.Random | None = None) -> Bot:
    """A new bot for the game called ``game``."""
    if game not in _REGISTRY:
        raise ValueError(f"no bot for game {game!r}")
    return importlib.import_module(_REGISTRY[game]).BOT_CLASS(rng)


__all__ = ["Bot", "get_bot"]
