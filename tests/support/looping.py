"""A task that counts the event loop's turns, for tests of code that must hand the loop back."""

from __future__ import annotations

import asyncio


class TurnCounter:
    """``count`` goes up by one each time the loop gets back to this task (``async with``)."""

    def __init__(self) -> None:
        self.count = 0
        self._task: asyncio.Task | None = None

    async def _tick(self) -> None:
        while True:
            self.count += 1
            await asyncio.sleep(0)

    async def __aenter__(self) -> TurnCounter:
        self._task = asyncio.get_running_loop().create_task(self._tick())
        await asyncio.sleep(0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
