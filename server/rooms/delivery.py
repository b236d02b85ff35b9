"""A room's frames on their way out: held until the writer makes their version durable, then
put on each connection's own queue, in version order.

No frame of a version leaves the room before that version is durable (a crash cannot take
back what a player saw). A connection that has fallen ``limit`` frames behind is closed
instead of being queued more: a slow or dead client never delays the table or grows without end.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from server.rooms.connection import Connection

log = logging.getLogger("felt.rooms")

Frames = list[tuple[Connection, str]]


class Delivery:
    """The held frames of one room, and who waits for a version to be durable."""

    __slots__ = ("_held", "_waiters", "code", "durable_version", "logged")

    def __init__(self, code: str, version: int, logged: bool) -> None:
        self.code = code
        self.logged = logged  # False only to measure the log's cost: nothing is held then
        self.durable_version = version
        # Frames of versions the writer has not yet made durable: [(version, [(conn, frame)])].
        self._held: deque[tuple[int, Frames]] = deque()
        self._waiters: list[tuple[int, asyncio.Future]] = []  # see ``until_durable``

    def send(self, version: int, frames: Frames) -> None:
        """The frames of a new version: held until it is durable (delivered at once, unlogged)."""
        if self.logged:
            self._held.append((version, frames))
        else:
            self.deliver(frames)

    def snapshot(self, conn: Connection, frame: str) -> None:
        """A snapshot at the current version: it waits with that version if it is held."""
        if self._held:  # the newest held version is the current one
            self._held[-1][1].append((conn, frame))
        elif not conn.push(frame):
            self.drop_slow(conn)

    def durable(self, version: int) -> None:
        """The writer made every version up to ``version`` durable: send their frames, in order."""
        if version > self.durable_version:
            self.durable_version = version
        held = self._held
        released: Frames = []
        while held and held[0][0] <= version:
            released += held.popleft()[1]
        self.deliver(released)
        if self._waiters:
            for v, waiter in self._waiters:
                if v <= version and not waiter.done():
                    waiter.set_result(None)
            self._waiters = [(v, w) for v, w in self._waiters if not w.done()]

    async def until_durable(self, version: int, timeout: float) -> bool:
        """Wait until ``version`` is durable; False after ``timeout`` s."""
        if not self.logged or self.durable_version >= version:
            return True
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append((version, waiter))
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            self._waiters = [(v, w) for v, w in self._waiters if w is not waiter]
            return False
        return True

    def deliver(self, frames: Frames) -> None:
        """Queue ``frames``; a connection already ``limit`` frames behind is closed instead.

        The limit is checked once per delivery, not per frame: one commit may release many
        versions at once, which says nothing about how fast the client reads.
        """
        behind = {id(conn) for conn, _ in frames if conn.queue.qsize() >= conn.limit}
        for conn, frame in frames:
            if id(conn) in behind:
                self.drop_slow(conn)
            elif not conn.closed:
                conn.queue.put_nowait(frame)

    def drop_slow(self, conn: Connection) -> None:
        if conn.closed:
            return
        log.warning("room %s: closing a connection that fell %d frames behind", self.code, conn.limit)
        conn.closed = True
        asyncio.get_running_loop().create_task(_close_slow(conn))


async def _close_slow(conn: Connection) -> None:
    await conn.closer(1008, "too slow: frames not read")
