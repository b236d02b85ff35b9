"""A game's options in players' words: for each option the heading of the rules-page section
that explains it, and per language its lobby label and the words for those of its values
that are neither switches nor plain numbers ("both jokers", "the usual"); and how a one-line
summary of a table's options reads them (the order it says them in, and the options it never
says on their own). Each game's folder declares its own (``server/games/<name>/words.py``);
the browser's catalogue (``web/js/locales/``) speaks with the same labels.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LANGUAGES = ("en", "pt")
# The words for a switch and for an option left at its usual value, per language.
SWITCH = {"en": {True: "on", False: "off"}, "pt": {True: "ligado", False: "desligado"}}
USUAL = {"en": "the usual", "pt": "o usual"}


@dataclass(frozen=True)
class Said:
    """An option as one language says it: its label and the words for its named values."""

    label: str
    values: Mapping[Any, str] = field(default_factory=dict)


@dataclass(frozen=True)
class OptionWords:
    """An option in every language, and the heading of the section that explains it."""

    section: str
    en: Said
    pt: Said

    def said(self, lang: str) -> Said:
        """The option in ``lang`` (English for a language not known)."""
        return self.pt if lang == "pt" else self.en


@dataclass(frozen=True)
class GameWords:
    """Every option of a game in players' words, and how a summary reads them."""

    options: Mapping[str, OptionWords]
    order: tuple[str, ...]  # the options in the order a one-line summary says them
    folded: frozenset[str] = frozenset()  # options a summary never says on their own

    def value(self, key: str, value: Any, lang: str = "en") -> str:
        """A value of option ``key`` in words: "both jokers", "on", "the usual", "9"."""
        named = self.options[key].said(lang).values
        if isinstance(value, bool):
            return SWITCH.get(lang, SWITCH["en"])[value]
        if value in named:
            return named[value]
        if value is None:
            return USUAL.get(lang, USUAL["en"])
        return str(value)
