"""Spades in one folder: its engine (``rules.py``), its bots (``bots.py``), its options in
players' words (``words.py``) and its rules page (``rules.md``), put together as ``GAME``."""

from pathlib import Path

from server.games.spades.bots import BOTS
from server.games.spades.rules import Spades
from server.games.spades.words import WORDS

GAME = Spades(words=WORDS, bots=BOTS, page=Path(__file__).with_name("rules.md"))
