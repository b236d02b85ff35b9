"""Worker processes: the pools that do the CPU-heavy work the event loop must never do itself
(Strong bots' searches, replays, a night's recap card).

A ``WorkerPool`` starts its ``ProcessPoolExecutor`` on the first call, with "spawn" (a fresh
interpreter, never a fork of a process that runs an event loop). A worker that dies (killed,
out of memory) breaks a ``ProcessPoolExecutor`` for good: every later call would fail. So a
broken pool is dropped, the calls it held fail with ``BrokenProcessPool``, and the next call
starts a new one: one lost worker costs the calls it held, never the feature until a restart.

The workers ignore SIGTERM and SIGINT: a service manager or a terminal signals the server's
whole process group, and a worker that died of it would break the pool under work the
stopping server still awaits. The server stops them itself (``close``), after its tables. The
signals are blocked while a worker is started (``stop_signals_blocked``: a child inherits the
mask), so one that arrives before the worker's initializer has run waits and is then ignored.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, TypeVar

STOP_SIGNALS = {signal.SIGTERM, signal.SIGINT}

T = TypeVar("T")


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


class WorkerPool:
    """``workers`` processes, each started with ``initializer`` (which must call
    ``ignore_stop_signals``), on the first call; replaced when a worker's death broke them."""

    def __init__(self, workers: int, initializer: Callable[[], None] = ignore_stop_signals) -> None:
        self.workers = workers
        self.initializer = initializer
        self.replaced = 0  # pools dropped because a worker died
        self._executor: ProcessPoolExecutor | None = None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker; ``BrokenProcessPool`` if a worker died meanwhile (the next
        call gets a new pool)."""
        if self._executor is None:
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=context, initializer=self.initializer
            )
        executor = self._executor
        try:
            with stop_signals_blocked():  # a worker may start here
                future = asyncio.get_running_loop().run_in_executor(executor, fn, *args)
            return await future
        except BrokenProcessPool:  # at the submit, when the pool broke while idle, or while awaited
            if self._executor is executor:
                self._executor = None
                self.replaced += 1
                executor.shutdown(wait=False, cancel_futures=True)
            raise

    def close(self) -> None:
        """Stop the workers (work in progress is dropped: the server is stopping)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
