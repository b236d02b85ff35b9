"""Long loops on the event loop, cut into short turns.

A loop over every room (the janitor's sweep) or over every table of one commit (the writer
telling them "durable") does tens of microseconds per item; over thousands of items that
holds the event loop for milliseconds, and every other table's move waits behind it.
``LoopBudget`` lets such a loop hand the loop back once it has run for its budget::

    budget = LoopBudget()
    for room in rooms:
        await budget.spend()   # yields (asyncio.sleep(0)) once 0.5 ms have passed
        ...

The budget is wall time: on a loaded machine a turn does less work, never more.
"""

from __future__ import annotations

import asyncio
import time

TURN_S = 0.0005


class LoopBudget:
    """How long the current turn of a long loop may still run before it yields."""

    __slots__ = ("_ends", "seconds")

    def __init__(self, seconds: float = TURN_S) -> None:
        self.seconds = seconds
        self._ends = time.perf_counter() + seconds

    async def spend(self) -> None:
        """Yield to the event loop if this turn's time is up, then start a new turn."""
        if time.perf_counter() > self._ends:
            await asyncio.sleep(0)
            self._ends = time.perf_counter() + self.seconds
