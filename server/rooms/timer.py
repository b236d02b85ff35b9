"""A table's turn timer: how long a person may think before a bot plays that turn for them.

Off by default; a table chooses 30, 60 or 120 seconds when it is opened. The room arms the
timer after every change (under its lock) with the people who must act now; the deadline is
part of the room's view so that clients can draw it. When it runs out the room has a bot play
that one turn; a seat that misses two turns in a row is marked away and the bot plays on
until its player acts again. The deadline is not logged: a table restored from its log (a
restart, a parked table opened) starts a fresh turn on the clock, and so does a table whose
clock ran out while nobody was connected, when someone comes back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

TURN_TIMER_CHOICES = (0, 30, 60, 120)
MISSES_BEFORE_AWAY = 2


class TurnTimer:
    """One table's clock: a deadline (Unix milliseconds) for the seats to act, and missed turns."""

    __slots__ = ("seconds", "scale", "deadline", "_misses", "_task")

    def __init__(self, seconds: int, scale: float = 1.0) -> None:
        self.seconds = seconds
        self.scale = scale  # settings.turn_timer_scale: tests shrink every timer
        self.deadline: int | None = None
        self._misses: dict[int, int] = {}
        self._task: asyncio.Task | None = None

    def arm(self, seats: list[int], on_expiry: Callable[[int], Awaitable[None]]) -> bool:
        """Start a fresh turn for ``seats`` (or stop the clock when none); True if the deadline changed."""
        self.cancel()
        if not self.seconds or not seats:
            changed = self.deadline is not None
            self.deadline = None
            return changed
        delay = self.seconds * self.scale
        self.deadline = int((time.time() + delay) * 1000)
        self._task = asyncio.get_running_loop().create_task(self._wait(delay, self.deadline, on_expiry))
        return True

    @staticmethod
    async def _wait(delay: float, deadline: int, on_expiry: Callable[[int], Awaitable[None]]) -> None:
        await asyncio.sleep(delay)
        await on_expiry(deadline)

    @property
    def running(self) -> bool:
        """True while a deadline is being waited for (it has not run out, nor been cancelled)."""
        return self._task is not None and not self._task.done()

    def missed(self, seat: int) -> bool:
        """Count a turn the timer played for ``seat``; True when the seat should now be marked away."""
        self._misses[seat] = self._misses.get(seat, 0) + 1
        return self._misses[seat] >= MISSES_BEFORE_AWAY

    def acted(self, seat: int) -> None:
        """The player of ``seat`` acted themselves: their run of missed turns is over."""
        self._misses.pop(seat, None)

    def cancel(self) -> None:
        task = self._task
        self._task = None
        # The expiry's own task re-arms the clock through the room: it must not cancel itself.
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()
