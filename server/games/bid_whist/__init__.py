"""Bid Whist in one folder: its engine (``rules.py``), its bots (``bots.py``), its options in
players' words (``words.py``) and its rules page (``rules.md``), put together as ``GAME``."""

from pathlib import Path

from server.games.bid_whist.bots import BOTS
from server.games.bid_whist.rules import BidWhist
from server.games.bid_whist.words import WORDS

GAME = BidWhist(words=WORDS, bots=BOTS, page=Path(__file__).with_name("rules.md"))
