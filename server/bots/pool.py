"""Strong bots think in worker processes, so a search never blocks the server's event loop.

A Strong bot's ``choose`` runs for its whole time budget (``FELT_BOT_THINK_MS``) of pure
Python; run on the event loop it would stall every table of the process. ``BotPool`` sends
each decision (the seat's view and legal actions: what the bot may know, nothing more) to a
``WorkerPool`` (server/workers.py) of ``FELT_BOT_WORKERS`` processes and awaits the answer,
so the loop keeps serving other tables while a bot thinks. The workers are started lazily on
the first decision, replaced if one dies, ignore the stop signals sent to the server's
process group, and are stopped with the server.
"""

from __future__ import annotations

import random
from typing import Any

from server.bots import get_bot
from server.workers import WorkerPool


def choose_in_worker(
    game: str,
    options: dict[str, Any],
    think_ms: float,
    seed: str,
    view: dict[str, Any],
    legal: list[dict],
    easy_seats: list[int] | None = None,
) -> dict[str, Any]:
    """One Strong decision (runs in a worker process)."""
    bot = get_bot(game, random.Random(seed), level="strong", options=options, think_ms=think_ms, easy_seats=easy_seats)
    return bot.choose(view, legal)


class BotPool:
    """The worker processes that run Strong bots' searches."""

    def __init__(self, workers: int, think_ms: float) -> None:
        self.workers = workers
        self.think_ms = think_ms
        self._pool = WorkerPool(workers)

    async def choose(
        self,
        game: str,
        options: dict[str, Any],
        seed: str,
        view: dict[str, Any],
        legal: list[dict],
        easy_seats: list[int] | None = None,
    ) -> dict[str, Any]:
        """A Strong bot's action for this view, decided in a worker process (``easy_seats``: the
        seats the table lists as Easy bots, see ``server.bots.get_bot``)."""
        return await self._pool.run(choose_in_worker, game, options, self.think_ms, seed, view, legal, easy_seats)

    def close(self) -> None:
        """Stop the workers (pending decisions are dropped: their tables are closing too)."""
        self._pool.close()
