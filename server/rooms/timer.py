"""A table's turn clock: how long a person may think before a bot plays that turn for them.

Off by default; a table chooses 30, 60 or 120 seconds when it is opened, or a slow clock of
1, 12 or 24 hours or 3 days a decision. The clock is armed after every change with the people
who must act now; the deadline is part of the room's view so that clients can draw it. When it
runs out a bot plays that one turn (``server.rooms.autoplay`` waits for it).

A fast clock is the room's: a seat that misses two turns in a row is marked away and the bot
plays on until its player acts again; its deadline is not logged, so a table restored from its
log (a restart, a parked table opened) starts a fresh turn on the clock, and so does a table
whose clock ran out while nobody was connected, when someone comes back.

A slow clock is the table's history: it is armed by the fold itself, from the time of the
entry that moved the turn (so a table rebuilt from its log has the very deadline it had), the
turns it played and a seat's return are log entries, and three misses in a row mark the seat
away. Its deadline is stored with the table's row, so a parked table's clock still runs out
(``server.rooms.manager``), and it runs whether anyone is connected or not.

This is the clock's bookkeeping only (the table keeps it): the time is given, never read.
"""

from __future__ import annotations

SLOW_CLOCK_CHOICES = (3600, 43200, 86400, 259200)  # 1 hour, 12 hours, 1 day, 3 days a decision
TURN_TIMER_CHOICES = (0, 30, 60, 120, *SLOW_CLOCK_CHOICES)
MISSES_BEFORE_AWAY = 2
SLOW_MISSES_BEFORE_AWAY = 3


def is_slow(seconds: int) -> bool:
    """Whether a table's clock of ``seconds`` is a slow one (durable, hours or days a decision)."""
    return seconds >= SLOW_CLOCK_CHOICES[0]


class TurnClock:
    """One table's clock: a deadline (Unix milliseconds) for the seats to act, and missed turns."""

    __slots__ = ("_misses", "deadline", "scale", "seconds")

    def __init__(self, seconds: int, scale: float = 1.0) -> None:
        self.seconds = seconds
        self.scale = scale  # settings.turn_timer_scale: tests shrink every timer
        self.deadline: int | None = None
        self._misses: dict[int, int] = {}

    @property
    def slow(self) -> bool:
        """A slow clock: armed by the table's fold, stored, running with nobody connected."""
        return is_slow(self.seconds)

    @property
    def delay(self) -> float:
        """Seconds a turn lasts on this table's clock."""
        return self.seconds * self.scale

    def arm(self, seats: list[int], now: float) -> bool:
        """A fresh turn from ``now`` (Unix seconds) for ``seats``, or no deadline when there are
        none (or the table has no clock); True if the deadline changed."""
        if not self.seconds or not seats:
            changed = self.deadline is not None
            self.deadline = None
            return changed
        self.deadline = int((now + self.delay) * 1000)
        return True

    def missed(self, seat: int) -> bool:
        """Count a turn the clock played for ``seat``; True when the seat should now be marked away."""
        self._misses[seat] = self._misses.get(seat, 0) + 1
        return self._misses[seat] >= (SLOW_MISSES_BEFORE_AWAY if self.slow else MISSES_BEFORE_AWAY)

    def acted(self, seat: int) -> None:
        """The player of ``seat`` acted themselves: their run of missed turns is over."""
        self._misses.pop(seat, None)
