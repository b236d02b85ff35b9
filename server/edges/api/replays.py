"""Replay bodies: built once per match, off the event loop, a few at a time, and cached.

A replay is the match's first state in full (the omniscient view: every hand, kitty and
face-down card shown, since the match is over), then one ``{"seat", "action", "ops"}`` per
action, ``ops`` being the RFC 6902 patch from the previous state to the next (the project's
own differ, ``server.rooms.diff``). Each step is encoded as soon as it is diffed and its
views are dropped, so a build holds two views and the encoded bytes: O(match length), not
the square of it.

Builds run in worker processes (``ReplayWorkers``), never in the server's own interpreter: a
build is seconds of pure Python, and in a thread of the server it would hold the interpreter
lock the event loop needs, slowing every live table while it runs. A worker loads the match
from the database itself and writes the encoded body to a file of the server's replay folder
(a ``StoredBody``), so the body never passes through the server's heap either: it is sent
from the file a slice at a time, and the file is removed once nothing holds its
``StoredBody`` (the cache let it go and no answer is still reading it). At most
``replay_builds`` run at once and at most ``replay_queue`` wait, any more get a 503 with
``Retry-After``. Finished bodies are kept in a small LRU, bounded in entries and in bytes;
two requests for one match share one build.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import secrets
import shutil
import tempfile
import weakref
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sized
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from server.edges.api.errors import ApiError
from server.games import get_game
from server.rooms.diff import diff
from server.rules.replay import replay_iter
from server.storage import store
from server.storage.db import Database
from server.workers import WorkerPool, ignore_stop_signals

RETRY_AFTER_S = 2
CHUNK_BYTES = 1 << 18  # a stored body is sent this much at a time
WORKER_NICENESS = 10  # added to the workers' niceness (see _start_worker)
Body = Sized  # an encoded replay: a StoredBody (the server) or bytes-like (tests); len() is its size
_HEADER_KEYS = ("id", "game", "options", "seed", "commitment", "dealer", "players")


def encode_replay(record: Mapping[str, Any]) -> memoryview:
    """The replay of a finished match as JSON (raises ``ReplayError`` if it does not replay).

    A read-only view of the buffer it was built in: a copy to ``bytes`` would double the peak.
    """
    game = get_game(record["game"])
    actions = record.get("actions") or []
    header = {key: record.get(key) for key in _HEADER_KEYS}
    header["count"] = len(actions)
    views = game.full_views(replay_iter(record))
    previous = next(views)
    # One growing buffer: orjson's results are small but each holds a page-sized allocation.
    out = bytearray(orjson.dumps(header)[:-1])
    out += b',"first":'
    out += orjson.dumps(previous)
    out += b',"steps":['
    for i, view in enumerate(views):
        entry = actions[i]
        if i:
            out += b","
        out += orjson.dumps({"seat": entry["seat"], "action": entry["action"], "ops": diff(previous, view)})
        previous = view
    out += b"]}"
    return memoryview(out).toreadonly()


_worker_databases: dict[str, Database] = {}


def build_in_worker(database_url: str, match_id: str, path: str) -> int | None:
    """Load a finished match and write its encoded replay to ``path`` (runs in a worker
    process); its size, or ``None`` if there is no such match. Raises ``ReplayError`` if it
    does not replay."""
    db = _worker_databases.get(database_url)
    if db is None:  # one pool per worker process, kept for its next builds
        db = _worker_databases[database_url] = Database(database_url, pool_size=1)
    with db.session() as session:
        record = store.get_match(session, match_id, viewer=store.ANYONE)
    if record is None:
        return None
    body = encode_replay(record)
    part = path + ".part"
    with open(part, "wb") as out:
        out.write(body)
    os.replace(part, path)  # whole or absent: never half a body under the final name
    return len(body)


def _start_worker() -> None:
    """A replay worker's initializer: stopped by the server only, and second to live play.

    Niced: on a machine with few cores a build competes with the server's event loop for
    the CPU, and a replay a little later is worth less than a table's every move on time.
    """
    ignore_stop_signals()
    os.nice(WORKER_NICENESS)


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


class StoredBody:
    """An encoded replay in a file; the file goes when this object does (an open file of it
    stays readable until closed)."""

    __slots__ = ("__weakref__", "path", "size")

    def __init__(self, path: Path, size: int) -> None:
        self.path = path
        self.size = size
        weakref.finalize(self, _remove, path)

    def __len__(self) -> int:
        return self.size

    def open(self) -> BinaryIO:
        return open(self.path, "rb")

    async def chunks(self) -> AsyncIterator[bytes]:
        """The body, a slice at a time, read off the event loop (``self`` is held meanwhile)."""
        with self.open() as f:
            while chunk := await asyncio.to_thread(f.read, CHUNK_BYTES):
                yield chunk


class ReplayWorkers:
    """The worker processes replays are built in and the folder they write to, both made on
    the first build and removed by ``close``."""

    def __init__(self, database_url: str, workers: int) -> None:
        self.database_url = database_url
        self.workers = workers
        self.folder: Path | None = None
        self._pool = WorkerPool(workers, initializer=_start_worker)

    async def build(self, match_id: str) -> StoredBody | None:
        """The encoded replay of ``match_id``, built in a worker; ``None`` if there is no such match."""
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="felt-replays-"))
        # A name of its own per build: a rebuilt body never replaces one still being sent.
        path = self.folder / f"{match_id}.{secrets.token_hex(4)}.json"
        size = await self._pool.run(build_in_worker, self.database_url, match_id, str(path))
        return None if size is None else StoredBody(path, size)

    def close(self) -> None:
        """Stop the workers (builds in progress are dropped: the server is stopping) and
        remove the folder."""
        self._pool.close()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


class BodyCache:
    """A least-recently-used map of match id to encoded body, bounded in entries and bytes."""

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.size = 0
        self._bodies: OrderedDict[str, Body] = OrderedDict()

    def get(self, key: str) -> Body | None:
        body = self._bodies.get(key)
        if body is not None:
            self._bodies.move_to_end(key)
        return body

    def put(self, key: str, body: Body) -> None:
        if len(body) > self.max_bytes or self.max_entries == 0:
            return
        old = self._bodies.pop(key, None)
        self.size -= len(old) if old is not None else 0
        self._bodies[key] = body
        self.size += len(body)
        while len(self._bodies) > self.max_entries or self.size > self.max_bytes:
            _, dropped = self._bodies.popitem(last=False)
            self.size -= len(dropped)

    def __len__(self) -> int:
        return len(self._bodies)


class Replays:
    """The replay bodies of one server: a cache, a bounded number of builds, shared builds.

    Other bodies built once per key out of the event loop's way (a night's recap image) use
    the same service, with a builder of their own per request and their own ``what``."""

    def __init__(
        self,
        build: Callable[[str], Awaitable[Body]],
        builds: int,
        queue: int,
        cache: BodyCache,
        what: str = "replays",
    ) -> None:
        self._build_body = build  # key (a match id) -> encoded body, built out of the event loop's way
        self._slots = asyncio.Semaphore(builds)
        self._queue = queue
        self._waiting = 0
        self.what = what
        self.cache = cache
        self._building: dict[str, asyncio.Task] = {}

    async def body(self, match_id: str, build: Callable[[], Awaitable[Body]] | None = None) -> Body:
        """The body of ``match_id`` (its access has been checked by the caller), from the cache,
        from a build of it already running, or built now (by ``build`` when given)."""
        cached = self.cache.get(match_id)
        if cached is not None:
            return cached
        task = self._building.get(match_id)
        if task is None:
            if self._slots.locked() and self._waiting >= self._queue:
                raise ApiError(
                    503,
                    "busy",
                    f"The server is building other {self.what}; try again in a moment.",
                    headers={"Retry-After": str(RETRY_AFTER_S)},
                )
            self._waiting += 1  # counted at once: requests in one loop turn see each other
            make = build or functools.partial(self._build_body, match_id)
            task = asyncio.get_running_loop().create_task(self._build(match_id, make))
            self._building[match_id] = task
            task.add_done_callback(lambda done: self._done(match_id, done))
        return await asyncio.shield(task)

    def _done(self, match_id: str, task: asyncio.Task) -> None:
        self._building.pop(match_id, None)
        if not task.cancelled():
            task.exception()  # retrieved here too: every waiter may have gone away

    async def _build(self, match_id: str, make: Callable[[], Awaitable[Body]]) -> Body:
        try:
            await self._slots.acquire()
        finally:
            self._waiting -= 1
        try:
            body = await make()
        except BrokenProcessPool:  # a worker died under it; the next ask gets a new pool
            raise ApiError(
                503,
                "busy",
                f"The server could not finish building {self.what}; try again in a moment.",
                headers={"Retry-After": str(RETRY_AFTER_S)},
            ) from None
        finally:
            self._slots.release()
        self.cache.put(match_id, body)
        return body
