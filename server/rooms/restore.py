"""Tables folded back from their logs into rooms: every open table at start, one on demand.

Rooms in memory are a cache of the tables' logs. A table not in memory is loaded through the
``TableSource`` (the storage side: its status and its log) and rebuilt through the engines
(``Room.rebuild_in_turns``, handing the event loop back as it goes); the rebuilt room joins the
open rooms (server/rooms/registry.py), its seats' grace and its clock start again, and a parked
table is unparked. A process alone restores every waiting, playing or finished table at start;
a cluster node restores a table only when a client asks for it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Protocol

from server.log_entry import LogEntry, LogWriter, StoreUnavailable
from server.rooms.errors import RoomError
from server.rooms.host import Host
from server.rooms.registry import OpenRooms
from server.rooms.room import Room

log = logging.getLogger("felt.rooms")

UNAVAILABLE = RoomError("unavailable", "The table store is not reachable right now; try again in a moment.", 503)
OPEN_STATUSES = ("waiting", "playing", "finished", "parked")


class TableSource(Protocol):
    """Where the rooms find tables that are not in memory (the database, off the event loop);
    ``load`` raises ``StoreUnavailable`` while the store cannot be reached."""

    async def load(self, code: str) -> tuple[str, list[LogEntry]] | None: ...

    async def open_codes(self) -> list[str]: ...

    async def waiting_codes(self) -> list[str]: ...

    async def purge(self, parked_before: float) -> int: ...

    async def due_clocks(self, now_ms: int) -> list[str]: ...

    async def slow_seats(self, player_id: str) -> list[str]: ...


class Restore:
    """Folds tables back from ``source`` into ``open_rooms``, as rooms of ``host``."""

    def __init__(self, host: Host, open_rooms: OpenRooms, writer: LogWriter, source: TableSource | None) -> None:
        self.host = host
        self.open_rooms = open_rooms
        self.writer = writer
        self.source = source
        self.done = source is None  # tables are looked up only once the restore at start is done

    async def one(self, code: str) -> Room | None:
        """Rebuild table ``code`` from its log into memory (None: no such table open or parked)."""
        assert self.source is not None
        for _ in range(500):  # a room being parked leaves memory once its last entry is durable
            if code not in self.open_rooms.retiring:
                break
            await asyncio.sleep(0.01)
        # Not waiting for a database call still running: the writer's batches wait meanwhile.
        if self.writer.spooled and not await self.writer.sync(wait=False):
            raise UNAVAILABLE
        try:
            found = await self.source.load(code)
        except StoreUnavailable as exc:  # the database is down or does not answer: no bug to trace
            log.warning("could not load table %s: the database is unavailable: %s", code, exc)
            raise UNAVAILABLE from None
        except Exception:
            log.exception("could not load table %s", code)
            raise UNAVAILABLE from None
        if found is None or found[0] not in OPEN_STATUSES:
            return None
        status, entries = found
        room = await self.rebuild(code, entries)
        existing = self.open_rooms.get(code)
        if existing is not None:
            return existing
        self.open_rooms.rooms[code] = room
        room.restored()
        if status == "parked":
            await room.unpark()
        return room

    async def rebuild(self, code: str, entries: list[LogEntry]) -> Room:
        """The room ``entries`` leave (not registered: a read may look and let it go)."""
        return await Room.rebuild_in_turns(self.host, code, entries)

    async def all(self, at_start: bool) -> int:
        """Rebuild every table that was waiting, playing or finished (parked ones wait to be
        opened); ``at_start`` False: none (every node restores a table when a client asks)."""
        assert self.source is not None
        if not await self.writer.sync():
            raise RuntimeError("the spool could not be written to the database yet")
        if not at_start:
            self.done = True
            return 0
        loaded = 0
        for code in await self.source.open_codes():
            found = await self.source.load(code)
            if found is None:
                continue
            try:
                room = await self.rebuild(code, found[1])
            except Exception:  # one broken log must not keep every other table away
                log.exception("table %s could not be rebuilt from its log", code)
                continue
            if room.code not in self.open_rooms.rooms:
                self.open_rooms.rooms[room.code] = room
                room.restored()
                loaded += 1
        self.done = True
        log.warning("restored %d tables from their logs", loaded)
        return loaded
