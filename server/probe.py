"""A loop-lag probe: a ticker that measures how late the event loop wakes it.

Off unless ``FELT_LOOP_PROBE_MS`` is set (tests and benchmarks). Every tick sleeps that long
and records how much later than asked it woke up; the largest lag since the last reading is
what ``/healthz`` reports, so a client can bracket an operation between two readings.
"""

from __future__ import annotations

import asyncio


class LoopProbe:
    """The event loop's worst lag since the last ``take``, measured every ``every_s``."""

    def __init__(self, every_s: float) -> None:
        self.every_s = every_s
        self.worst_s = 0.0

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(self.every_s)
            self.worst_s = max(self.worst_s, loop.time() - start - self.every_s)

    def take(self) -> float:
        """The worst lag in seconds since the last call, and start over."""
        worst, self.worst_s = self.worst_s, 0.0
        return worst
