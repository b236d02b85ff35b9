"""Tarabish in one folder: its engine (``rules.py``), its bots (``bots.py``), its options in
players' words (``words.py``) and its rules page (``rules.md``), put together as ``GAME``."""

from pathlib import Path

from server.games.tarbish.bots import BOTS
from server.games.tarbish.rules import Tarbish
from server.games.tarbish.words import WORDS

GAME = Tarbish(words=WORDS, bots=BOTS, page=Path(__file__).with_name("rules.md"))
