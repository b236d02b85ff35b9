"""This node's link to the cluster's Redis: what every part of cluster mode shares."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from redis import asyncio as aioredis


class Link:
    """This node's Redis client, its id and the cluster's key prefix; counts the commands the
    parts send (``ops``, for the benchmark: operations per move) and runs their background
    tasks, cancelled when the node closes (``closing`` ends their loops)."""

    def __init__(self, redis: aioredis.Redis, node: str, prefix: str) -> None:
        self.redis = redis
        self.node = node
        self.prefix = prefix
        self.ops = 0
        self.closing = False
        self._background: set[asyncio.Task] = set()

    def spawn(self, coro: Awaitable) -> None:
        """Run ``coro`` in the background (cancelled when the node closes)."""
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def background(self) -> list[asyncio.Task]:
        return list(self._background)


async def cancel_all(tasks: list[asyncio.Task]) -> None:
    """Cancel ``tasks`` and wait until every one has ended, cancelling again while any runs
    on: redis-py's ``get_message(timeout=...)`` can take a cancellation that comes as its own
    timeout runs out for that timeout, and return None as if no message had come (a stop then
    waited for the listener forever, seen once in CI)."""
    while pending := [task for task in tasks if not task.done()]:
        for task in pending:
            task.cancel()
        await asyncio.wait(pending, timeout=1.0)
