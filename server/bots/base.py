"""The one interface every bot implements: look at a seat's view, pick a legal action.

A bot sees exactly what a person in that seat would see (the seat's ``view``) plus the
seat's legal actions, and must return one of those actions. Bots are deterministic given
the view and their own random generator, and never choose uniformly at random: each game's
bot follows documented heuristics (bid from hand strength, win or duck as its contract needs).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from typing import Any

Action = dict[str, Any]


class Bot(ABC):
    """Chooses an action for one seat from that seat's view and legal actions."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    @abstractmethod
    def choose(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """One action out of ``legal``, chosen from what ``view`` shows."""
