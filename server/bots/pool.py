"""Strong bots think in worker processes, so a search never blocks the server's event loop.

A Strong bot's ``choose`` runs for its whole time budget (``FELT_BOT_THINK_MS``) of pure
Python; run on the event loop it would stall every table of the process. ``BotPool`` sends
each decision (the seat's view and legal actions: what the bot may know, nothing more) to a
``ProcessPoolExecutor`` of ``FELT_BOT_WORKERS`` processes and awaits the answer, so the loop
keeps serving other tables while a bot thinks. The workers are started lazily on the first
decision and stopped with the server.

The workers ignore SIGTERM and SIGINT: a service manager or a terminal signals the server's
whole process group, and a worker that died of it would break the pool under decisions the
stopping server still awaits. The server stops them itself (``close``), after its tables. The
signals are blocked while a worker is started (``stop_signals_blocked``: a child inherits the
mask), so one that arrives before the worker's initializer has run waits and is then ignored.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import signal
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any

from server.bots import get_bot

STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}


def ignore_stop_signals() -> None:
    """A worker process's initializer: its parent, not a signal to the group, stops it."""
    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


@contextmanager
def stop_signals_blocked() -> Iterator[None]:
    """Around a submit to a pool (which may start a worker): the stop signals wait meanwhile."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


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
        self._executor: ProcessPoolExecutor | None = None

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
        if self._executor is None:
            # "spawn": a fresh interpreter, never a fork of a process that runs an event loop
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=context, initializer=ignore_stop_signals
            )
        loop = asyncio.get_running_loop()
        with stop_signals_blocked():
            decision = loop.run_in_executor(
                self._executor, choose_in_worker, game, options, self.think_ms, seed, view, legal, easy_seats
            )
        return await decision

    def close(self) -> None:
        """Stop the workers (pending decisions are dropped: their tables are closing too)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
