"""A group's night recap image: drawn in a worker process, once per night's version.

Drawing the card (server/groups/recap_image.py) is a tenth of a second or more of Pillow,
partly pure Python: in the server's interpreter it would hold the lock the event loop
needs, and every live table would wait behind it. So the server never draws: a pool of
``recap_renders`` worker processes ("spawn"ed, niced, started on the first card asked for,
replaced if one dies: server/workers.py; they import only the drawing,
server/groups/recap_worker.py) does, and the server only awaits the PNG's bytes.

The cards go through the same service as replays (``Replays`` in replays.py): kept in an
LRU bounded in entries and bytes under the key ``{group}:{night's version}`` (see
``server.storage.groups.night_version``), so asking again for an unchanged night draws
nothing; one drawing per key at a time, shared by everyone who asks meanwhile; at most
``recap_renders`` drawings at once and ``recap_queue`` waiting, any more get 503 with
``Retry-After``. Each player may ask for a few a minute (``RECAP_IMAGES`` in
server/limits.py), cached or not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.config import Settings
from server.edges.api.replays import BodyCache, Replays
from server.groups.recap_worker import draw, start_painter
from server.workers import WorkerPool


class RecapPainters:
    """The worker processes recap cards are drawn in, and how many they have drawn."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.drawn = 0
        self._pool = WorkerPool(workers, initializer=start_painter)

    async def draw(self, group_name: str, night: Mapping[str, Any], titles: Mapping[str, str]) -> bytes:
        png = await self._pool.run(draw, group_name, dict(night), dict(titles))
        self.drawn += 1
        return png

    def close(self) -> None:
        """Stop the workers (drawings in progress are dropped: the server is stopping)."""
        self._pool.close()


async def _asked_with_its_drawing(key: str) -> bytes:
    raise LookupError(f"a recap image is asked for with the drawing that makes it: {key}")


def recap_images(settings: Settings) -> Replays:
    """The server's recap images: kept, drawn a few at a time, one drawing per key."""
    return Replays(
        _asked_with_its_drawing,
        builds=settings.recap_renders,
        queue=settings.recap_queue,
        cache=BodyCache(settings.recap_cache_entries, settings.recap_cache_mb * 2**20),
        what="recap images",
    )
