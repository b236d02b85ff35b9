"""The directory of rooms in this process: create, open (restoring from the log), list, park.

Rooms in memory are a cache of the tables' logs. A room not in memory is looked up through the
``TableSource`` (the storage side: a table's status and log) and rebuilt through the engines;
on start every table that was waiting, playing or finished is rebuilt. A room nobody has been
connected to for ``room_idle_close_s`` is parked (a finished one closed): its last entry is
logged, then it leaves memory once that entry is durable.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Protocol

from server.bots.pool import BotPool
from server.config import Settings
from server.rooms.errors import RoomError
from server.rooms.room import Room
from server.rooms.seats import new_room_code, normalize_code
from server.rules.games import get_game
from server.storage.writer import Writer

log = logging.getLogger("felt.rooms")

RESTORE_CHUNK = 50  # tables rebuilt per trip to a worker thread, so the loop keeps serving


class TableSource(Protocol):
    """Where the rooms find tables that are not in memory (the database, off the event loop)."""

    async def load(self, code: str) -> tuple[str, list[tuple[int, str, dict, float]]] | None: ...

    async def open_codes(self) -> list[str]: ...

    async def purge(self, parked_before: float) -> int: ...


UNAVAILABLE = RoomError("unavailable", "The table store is not reachable right now; try again in a moment.", 503)


class RoomManager:
    """The directory of rooms in this process: create, find, list (a small interface, so a
    shared directory such as Redis can replace it without touching the rooms)."""

    def __init__(self, settings: Settings, writer: Writer, source: TableSource | None = None) -> None:
        self.settings = settings
        self.writer = writer
        self.source = source
        writer.on_durable = self._durable
        writer.on_conflict = self._conflict
        self.rooms: dict[str, Room] = {}
        self.bot_pool = BotPool(settings.bot_workers, settings.bot_think_ms)
        self.actions_applied = 0  # every room's, players' and bots' (read by the metrics)
        self._retiring: dict[str, Room] = {}
        self._opening: dict[str, asyncio.Future] = {}
        self._janitor: asyncio.Task | None = None
        self._last_purge = 0.0
        self.restored = source is None  # tables are looked up only once the restore is done
        self.stopping = False

    def start(self) -> None:
        self._janitor = asyncio.get_running_loop().create_task(self._sweep_forever())

    def create(
        self,
        game_name: str,
        options: dict | None,
        seats: int | None,
        private: bool,
        host_id: str,
        host_name: str,
        follow: Room | None = None,
    ) -> Room:
        """Open a room; the host is seated at seat 0.

        A room that ``follow``s a finished one ("Play again") seats each of that match's
        players who comes in at the seat they had, the host (its creator) at once.
        """
        if self.stopping:
            raise RoomError("unavailable", "The server is restarting; try again in a moment.", 503)
        try:
            game = get_game(game_name)
        except ValueError as err:
            raise RoomError("unknown_game", str(err), 422) from None
        seats = game.default_players if seats is None else seats
        try:
            game.check_players(seats)
            parsed = game.parse_options(options or {})
        except ValueError as err:
            raise RoomError("bad_options", str(err), 422) from None
        hosted = sum(
            1 for r in self.rooms.values() if r.host_id == host_id and r.status != "finished" and not r.closed
        )
        if hosted >= self.settings.max_open_rooms_per_player:
            raise RoomError(
                "too_many_rooms",
                f"You already host {hosted} open rooms; finish or leave one first.",
                429,
            )
        code = new_room_code()
        while code in self.rooms:
            code = new_room_code()
        created = {
            "game": game.name, "options": parsed.model_dump(mode="json"), "seats": seats,
            "private": private, "host_id": host_id, "host_name": host_name,
        }
        if follow is not None:
            created["follow_seats"] = {
                s.player_id: s.index for s in follow.seats if s.player_id and s.index < seats
            }
        room = Room.open(self, code, created)
        self.rooms[code] = room
        room._change("created", created)
        return room

    def get(self, code: str) -> Room | None:
        """A room in memory, or None."""
        room = self.rooms.get(normalize_code(code)) if isinstance(code, str) else None
        return room if room is not None and not room.closed else None

    async def open(self, code: str) -> Room | None:
        """The room, from memory or rebuilt from its log (a parked table resumes); None if none."""
        room = self.get(code)
        if room is not None or self.source is None or not isinstance(code, str):
            return room
        code = normalize_code(code)
        if not self.restored:
            raise UNAVAILABLE
        opening = self._opening.get(code)
        if opening is not None:
            return await asyncio.shield(opening)
        opening = self._opening[code] = asyncio.get_running_loop().create_future()
        try:
            room = await self._restore_one(code)
            opening.set_result(room)
            return room
        except BaseException as exc:
            opening.set_exception(exc)
            opening.exception()  # retrieved: waiters get it, nobody else needs it
            raise
        finally:
            self._opening.pop(code, None)

    async def _restore_one(self, code: str) -> Room | None:
        for _ in range(500):  # a room being parked leaves memory once its last entry is durable
            if code not in self._retiring:
                break
            await asyncio.sleep(0.01)
        if self.writer.spooled and not await self.writer.sync():
            raise UNAVAILABLE
        try:
            found = await self.source.load(code)
        except Exception:
            log.exception("could not load table %s", code)
            raise UNAVAILABLE from None
        if found is None or found[0] not in ("waiting", "playing", "finished", "parked"):
            return None
        status, entries = found
        room = await asyncio.to_thread(Room.rebuild, self, code, entries)
        existing = self.get(code)
        if existing is not None:
            return existing
        self.rooms[code] = room
        room.restored()
        if status == "parked":
            await room.unpark()
        return room

    async def restore_all(self) -> int:
        """Rebuild every table that was waiting, playing or finished (parked ones wait to be opened)."""
        assert self.source is not None
        if not await self.writer.sync():
            raise RuntimeError("the spool could not be written to the database yet")
        codes = await self.source.open_codes()
        loaded = 0
        for start in range(0, len(codes), RESTORE_CHUNK):
            logs = [(code, await self.source.load(code)) for code in codes[start : start + RESTORE_CHUNK]]
            rebuilt = await asyncio.to_thread(self._rebuild_many, logs)
            for room in rebuilt:
                if room.code not in self.rooms:
                    self.rooms[room.code] = room
                    room.restored()
                    loaded += 1
        self.restored = True
        log.warning("restored %d tables from their logs", loaded)
        return loaded

    def _rebuild_many(self, logs: list) -> list[Room]:
        rooms = []
        for code, found in logs:
            if found is None:
                continue
            try:
                rooms.append(Room.rebuild(self, code, found[1]))
            except Exception:  # one broken log must not keep every other table away
                log.exception("table %s could not be rebuilt from its log", code)
        return rooms

    def list_public(
        self, limit: int | None = None, after: tuple[float, str] | None = None
    ) -> tuple[list[dict], tuple[float, str] | None]:
        """Public rooms that wait for players, newest first: one page of at most ``limit``
        after the room keyed ``after``, and the key to pass for the next page (None at the end)."""
        waiting = [
            r for r in self.rooms.values()
            if not r.private and r.status == "waiting" and not r.closed
            and any(s.player_id is None and not s.bot for s in r.seats)
            and (after is None or (r.created_at, r.code) < after)
        ]
        waiting.sort(key=lambda r: (r.created_at, r.code), reverse=True)
        page = waiting if limit is None else waiting[:limit]
        more = limit is not None and len(waiting) > limit
        return [r.summary() for r in page], ((page[-1].created_at, page[-1].code) if more else None)

    # ---- the writer's reports ----------------------------------------------------------------

    def _durable(self, code: str, version: int) -> None:
        room = self.rooms.get(code) or self._retiring.get(code)
        if room is None:
            return
        room.durable(version)
        retiring = self._retiring.get(code)
        if retiring is not None and version >= retiring.version:
            del self._retiring[code]

    def _conflict(self, code: str) -> None:
        """Another writer logged a version of this table: this process must not serve it on."""
        room = self.rooms.pop(code, None) or self._retiring.pop(code, None)
        log.error("table %s: another writer holds its log; this process lets go of it", code)
        if room is not None:
            asyncio.get_running_loop().create_task(room.close(1012, "this table moved; reconnect"))

    def retiring(self, room: Room) -> None:
        """``room`` logged its last entry (park or close): out of the directory, gone once durable."""
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
        if room.logged and room.durable_version < room.version:
            self._retiring[room.code] = room

    # ---- sweeping ------------------------------------------------------------------------------

    async def sweep(self) -> int:
        """Park the rooms nobody has been connected to for a while (close finished ones)."""
        now = time.monotonic()
        stale = [r for r in self.rooms.values() if r.is_idle(now)]
        for room in stale:
            await room.retire("close" if room.status == "finished" else "park")
        if self.source is not None and self.restored and time.monotonic() - self._last_purge > 3600:
            self._last_purge = time.monotonic()
            cutoff = time.time() - self.settings.table_retention_days * 86400
            purged = await self.source.purge(cutoff)
            if purged:
                log.info("deleted %d parked or closed tables past their retention", purged)
        return len(stale)

    async def _sweep_forever(self) -> None:
        interval = max(0.05, min(60.0, self.settings.room_idle_close_s / 4))
        while True:
            await asyncio.sleep(interval)
            try:
                await self.sweep()
            except Exception:  # the janitor must never die
                log.exception("room sweep failed")

    async def stop(self) -> None:
        """The server is stopping: refuse new rooms; the rooms' logs are flushed by the caller."""
        self.stopping = True
        if self._janitor:
            self._janitor.cancel()

    async def close(self) -> None:
        if self._janitor:
            self._janitor.cancel()
        for room in list(self.rooms.values()):
            await room.close(1012, "server restarting")
        self.rooms.clear()
        self.bot_pool.close()
