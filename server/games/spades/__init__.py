"""Spades, one folder: the engine (``rules``), its bots (``bots``) and its rules page (``rules.md``)."""

from server.games.spades.rules import GAME

__all__ = ["GAME"]
