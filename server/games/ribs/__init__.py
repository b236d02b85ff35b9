"""Ribs in one folder: its engine (``rules.py``), its bots (``bots.py``), its options in
players' words (``words.py``) and its rules page (``rules.md``), put together as ``GAME``."""

from pathlib import Path

from server.games.ribs.bots import BOTS
from server.games.ribs.rules import Ribs
from server.games.ribs.words import WORDS

GAME = Ribs(words=WORDS, bots=BOTS, page=Path(__file__).with_name("rules.md"))
