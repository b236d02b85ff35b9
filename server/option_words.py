"""Every game's options in players' words, asked of the game (its folder's ``words.py``): the
lobby's label of each option, the words for its values, and the heading of the rules page
that explains it. The rules pages' box of a table's house options and the group's chat ("Bea
changed the house rules of Bid Whist: Jokers: both jokers") speak with them; the browser
client has the same words, in English and Portuguese, in its catalogue (``web/js/locales/``)
and, from ``GET /api/games``, the game's own.
"""

from __future__ import annotations

from typing import Any

from server.games import get_game
from server.rules.words import OptionWords, Said


def option_words(game: str, key: str) -> OptionWords:
    """How players name option ``key`` of ``game`` (every option has an entry: a test checks)."""
    words: OptionWords = get_game(game).words.options[key]
    return words


def option_said(game: str, key: str, lang: str = "en") -> Said:
    """Option ``key`` of ``game`` as ``lang`` says it."""
    return option_words(game, key).said(lang)


def value_words(game: str, key: str, value: Any, lang: str = "en") -> str:
    """A value of an option in the lobby's words: "both jokers", "on", "the usual", "9"."""
    said: str = get_game(game).words.value(key, value, lang)
    return said
