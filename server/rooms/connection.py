"""A connection to a room: its outbound queue, drained by the transport's sender task."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from server.rooms.fanout import Kept


class SendQueue:
    """A connection's outbound frames: a list and at most one waiting sender.

    ``asyncio.Queue`` carries two waiter deques, a counter and an Event per instance; a room
    server holds thousands of these, each with exactly one consumer, so this keeps only what
    that needs (and costs less per frame). A list, not a deque: an idle queue is empty almost
    always and a deque's first block alone is about 600 bytes; the queue is bounded by the
    connection's limit, so taking from the front stays cheap.
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list = []
        self._waiter: asyncio.Future | None = None

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def get_nowait(self) -> Any:
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.pop(0)

    async def get(self) -> Any:
        while not self._items:
            await self.arrival()
        return self._items.pop(0)

    def take_all(self) -> list:
        """Every frame queued now, in order (an empty list when there is none)."""
        items = self._items
        if items:
            self._items = []
        return items

    def arrival(self) -> asyncio.Future:
        """A future done when the next frame is put: a sender awaits it directly, no coroutine."""
        waiter = self._waiter = asyncio.get_running_loop().create_future()
        return waiter


class Connection:
    """One socket's side of a room: an outbound queue, drained by the transport's sender."""

    __slots__ = ("closed", "closer", "limit", "me", "name", "player_id", "prefs", "queue", "view")

    def __init__(
        self,
        player_id: str | None,
        name: str | None,
        closer: Callable[[int, str], Awaitable[None]],
        limit: int = 256,
        prefs: dict | None = None,
    ) -> None:
        self.player_id = player_id
        # The player's own settings (``autoplay_forced``), as their view shows them: one object
        # per change, shared by the player's tabs, so the differ compares it by identity.
        self.prefs = prefs if prefs is not None or player_id is None else {"autoplay_forced": False}
        self.name = name
        # Who this connection is, as its view says: one object, so the differ skips it by identity.
        self.me = {"id": player_id, "name": name} if player_id else None
        self.queue = SendQueue()
        self.view: Kept | None = None  # what it keeps of the last view it was sent
        self.closer = closer
        self.closed = False
        self.limit = limit

    def push(self, frame: str) -> bool:
        """Queue a frame; False (and the connection is to be closed) when it is too far behind."""
        if self.closed:
            return False
        if self.queue.qsize() >= self.limit:
            return False
        self.queue.put_nowait(frame)
        return True
