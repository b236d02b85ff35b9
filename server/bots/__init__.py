"""The registry of bots: one per game and level, all behind ``Bot.choose(view, legal) -> action``.

Two levels: ``"easy"``, each game's hand-written heuristics (``server/games/<game>/bots.py``), and
``"strong"``, the search bot of ``server.bots.strong``, which samples the cards it cannot see
and plays each candidate out with the Easy bots within a time budget per decision.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from typing import Any

from server.bots.base import Bot

LEVELS = ("easy", "strong")


def get_bot(
    game: str,
    rng: random.Random | None = None,
    level: str = "easy",
    *,
    options: dict[str, Any] | None = None,
    think_ms: float | None = None,
    samples: int | None = None,
    easy_seats: Iterable[int] | None = None,
) -> Bot:
    """A new bot for the game called ``game`` at ``level``.

    A Strong bot plays best knowing the table's ``options`` (the game's defaults otherwise)
    and thinks ``think_ms`` per decision (``FELT_BOT_THINK_MS`` when not given). ``samples``
    fixes its search instead: exactly that many sampled deals per decision, whatever the
    clock says (benchmarks use it, so a loaded machine does not weaken the bot).
    ``easy_seats`` are the seats the table lists as Easy bots (what every player sees): a
    Strong bot reads only those seats' plays by the Easy bot's rule (None: the table did
    not say, and every seat is read until its plays break the rule).
    """
    from server.bots.easy import bot_kit, easy_bot  # the games' folders import this package

    bot_kit(game)
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; the levels are: {', '.join(LEVELS)}")
    if level == "strong":
        from server.bots.strong import StrongBot

        if samples is not None:
            return StrongBot(
                game,
                rng,
                options=options,
                think_ms=math.inf,
                max_samples=samples,
                min_samples=samples,
                easy_seats=easy_seats,
            )
        if think_ms is None:
            from server.config import get_settings

            think_ms = get_settings().bot_think_ms
        return StrongBot(game, rng, options=options, think_ms=think_ms, easy_seats=easy_seats)
    return easy_bot(game, rng)


__all__ = ["LEVELS", "Bot", "get_bot"]
