"""Oh Hell in one folder: its engine (``rules.py``), its bots (``bots.py``), its options in
players' words (``words.py``) and its rules page (``rules.md``), put together as ``GAME``."""

from pathlib import Path

from server.games.oh_hell.bots import BOTS
from server.games.oh_hell.rules import OhHell
from server.games.oh_hell.words import WORDS

GAME = OhHell(words=WORDS, bots=BOTS, page=Path(__file__).with_name("rules.md"))
