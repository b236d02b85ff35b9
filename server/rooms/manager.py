"""The directory of rooms in this process: create, open (restoring from the log), list, park.

Rooms in memory are a cache of the tables' logs. A room not in memory is looked up through the
``TableSource`` (the storage side: a table's status and log) and rebuilt through the engines;
on start every table that was waiting, playing or finished is rebuilt. A room nobody has been
connected to for ``room_idle_close_s`` is parked (a finished one closed): its last entry is
logged, then it leaves memory once that entry is durable. In cluster mode (server/cluster.py)
a table is opened here only under this node's lease, none is restored at start, a waiting
table whose node went away is adopted by whichever live node finds it first, and no change
is made while the database is unreachable (there is no local spool to hold it).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from server.bots.pool import BotPool
from server.budget import LoopBudget
from server.config import Settings
from server.rooms.errors import RoomError
from server.rooms.room import Room
from server.rooms.seats import is_room_code, new_room_code
from server.rooms.timer import TURN_TIMER_CHOICES
from server.rules.games import get_game
from server.storage.db import OUTAGE_ERRORS
from server.storage.writer import Writer

if TYPE_CHECKING:
    from server.cluster import Cluster

log = logging.getLogger("felt.rooms")



class TableSource(Protocol):
    """Where the rooms find tables that are not in memory (the database, off the event loop)."""

    async def load(self, code: str) -> tuple[str, list[tuple[int, str, dict, float]]] | None: ...

    async def open_codes(self) -> list[str]: ...

    async def waiting_codes(self) -> list[str]: ...

    async def purge(self, parked_before: float) -> int: ...


UNAVAILABLE = RoomError("unavailable", "The table store is not reachable right now; try again in a moment.", 503)
SHARED_DOWN = RoomError("unavailable", "The cluster's shared store is not reachable; try again in a moment.", 503)
BUSY = RoomError("unavailable", "This table is moving between servers; try again in a moment.", 503)
RESTARTING = RoomError("restarting", "The server is restarting; nothing changed. Try again in a moment.", 503)
LEASE_GONE = RoomError("moved", "This table is moving to another server; nothing changed. Reconnecting.", 503)
DATABASE_DOWN = RoomError("unavailable", "The database is unavailable; nothing changed. Try again shortly.", 503)
MOVED = (1012, "this table moved to another server; reconnect")


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
        self._parting: dict[str, str] = {}  # cluster mode: a retiring table's lease token, released once durable
        self._opening: dict[str, asyncio.Future] = {}
        self._janitor: asyncio.Task | None = None
        self._adopter: asyncio.Task | None = None
        self._unheld: set[str] = set()  # waiting tables nobody held at the last look
        self._last_purge = 0.0
        self.restored = source is None  # tables are looked up only once the restore is done
        self.stopping = False
        self.cluster: Cluster | None = None

    def join_cluster(self, cluster: Cluster) -> None:
        """Cluster mode: tables are run here only under this node's Redis lease (server/cluster.py)."""
        self.cluster = cluster
        cluster.on_lost = self._lost
        cluster.on_handover = self._hand_over
        cluster.local_lobby = self._lobby_rows

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._janitor = loop.create_task(self._sweep_forever())
        if self.cluster is not None and self.source is not None:
            self._adopter = loop.create_task(self._adopt_forever())

    def create(
        self,
        game_name: str,
        options: dict | None,
        seats: int | None,
        private: bool,
        host_id: str,
        host_name: str,
        turn_timer: int = 0,
        follow: Room | None = None,
    ) -> Room:
        """Open a room; the host is seated at seat 0.

        A room that ``follow``s a finished one ("Play again") seats each of that match's
        players who comes in at the seat they had, the host (its creator) at once.
        """
        created = self._check_new(
            game_name, options, seats, private, host_id, host_name, turn_timer=turn_timer, follow=follow
        )
        hosted = sum(
            1 for r in self.rooms.values() if r.host_id == host_id and r.status != "finished" and not r.closed
        )
        if hosted >= self.settings.max_open_rooms_per_player:
            raise self._too_many(hosted)
        code = new_room_code()
        while code in self.rooms:
            code = new_room_code()
        return self._open_new(code, created)

    async def create_shared(
        self, game_name: str, options: dict | None, seats: int | None, private: bool, host_id: str, host_name: str,
        turn_timer: int = 0, follow: Room | None = None,
    ) -> Room:
        """``create``, in either mode; in cluster mode the code is unique and the host's cap
        counted across every node, and this node takes the new table's lease."""
        cluster = self.cluster
        if cluster is None:
            return self.create(
                game_name, options, seats, private, host_id, host_name, turn_timer=turn_timer, follow=follow
            )
        created = self._check_new(
            game_name, options, seats, private, host_id, host_name, turn_timer=turn_timer, follow=follow
        )
        cap = self.settings.max_open_rooms_per_player
        try:
            code = new_room_code()
            while code in self.rooms or not await cluster.claim(code):
                code = new_room_code()
            if not await cluster.reserve_host(host_id, code, cap):
                await cluster.release(code)
                raise self._too_many(cap)
        except RoomError:
            raise
        except Exception as exc:  # Redis unreachable: no table can be placed safely
            log.warning("could not place a new table in the cluster: %s", exc)
            raise SHARED_DOWN from None
        return self._open_new(code, created)

    @staticmethod
    def _too_many(hosted: int) -> RoomError:
        return RoomError("too_many_rooms", f"You already host {hosted} open rooms; finish or leave one first.", 429)

    def _check_new(
        self, game_name: str, options: dict | None, seats: int | None, private: bool, host_id: str, host_name: str,
        turn_timer: int = 0, follow: Room | None = None,
    ) -> dict:
        """A new table's ``created`` entry, or the RoomError that refuses it."""
        if self.stopping:
            raise RoomError("unavailable", "The server is restarting; try again in a moment.", 503)
        if turn_timer not in TURN_TIMER_CHOICES:
            choices = ", ".join(map(str, TURN_TIMER_CHOICES))
            raise RoomError("bad_options", f"The turn timer is one of {choices} seconds (0: off).", 422)
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
        created = {
            "game": game.name, "options": parsed.model_dump(mode="json"), "seats": seats,
            "private": private, "host_id": host_id, "host_name": host_name, "turn_timer": turn_timer,
        }
        if follow is not None:
            created["follow_seats"] = {
                s.player_id: s.index for s in follow.seats if s.player_id and s.index < seats
            }
        return created

    def _open_new(self, code: str, created: dict) -> Room:
        room = Room.open(self, code, created)
        self.rooms[code] = room
        room._change("created", created)
        return room

    def get(self, code: str) -> Room | None:
        """A room in memory, or None. Codes are taken exactly as they are written (see
        ``is_room_code``): the balancer routes a table by the code in the path, so a spelling
        the balancer would hash elsewhere must not find the table."""
        room = self.rooms.get(code) if isinstance(code, str) else None
        return room if room is not None and not room.closed else None

    async def open(self, code: str) -> Room | None:
        """The room, from memory or rebuilt from its log (a parked table resumes); None if none.
        In cluster mode this takes the table's lease: only a player's or spectator's socket,
        or a change a player asks for, opens a table (a read uses ``read``)."""
        room = self.get(code)
        if room is not None and self.letting_go(room.code):
            if self.stopping or not self._unleased(room.code):
                raise BUSY  # the client tries again and finds the table's next node
            self._lost(room.code)  # its lease is gone for good: let it go, take the table anew
            room = None
        if room is not None or self.source is None or not isinstance(code, str):
            return room
        if not is_room_code(code):
            return None  # no table has it: the store is not asked
        if not self.restored:
            raise UNAVAILABLE
        return await self._open_once(code, self._restore_one if self.cluster is None else self._take_over)

    async def read(self, code: str) -> Room | None:
        """The room for reading only (its summary): in cluster mode, from memory where this
        node holds the table, otherwise rebuilt from its log without entering memory and
        without touching its lease, so a read never moves a table between nodes. A parked
        table stays parked. Elsewhere the same as ``open``."""
        if self.cluster is None:
            return await self.open(code)
        room = self.get(code)
        if room is not None and not self.letting_go(room.code):
            return room
        if room is not None and not self.stopping and self._unleased(room.code):
            self._lost(room.code)
        if self.source is None or not isinstance(code, str) or not is_room_code(code):
            return None
        try:
            found = await self.source.load(code)
        except Exception:
            log.exception("could not load table %s", code)
            raise UNAVAILABLE from None
        if found is None or found[0] not in ("waiting", "playing", "finished", "parked"):
            return None
        return await Room.rebuild_in_turns(self, code, found[1])

    def _unleased(self, code: str) -> bool:
        """Cluster mode: this node keeps table ``code`` in memory without any lease of it (not
        even one whose trust ran out): it must let the table go, never serve it on."""
        return self.cluster is not None and code not in self.cluster.trusted and code not in self._opening

    def drop_unleased(self) -> list[str]:
        """Let go of every table in memory whose lease this node no longer holds."""
        dropped = [code for code in list(self.rooms) if self._unleased(code)]
        for code in dropped:
            log.error("table %s: in memory without its lease; this node lets go of it", code)
            self._lost(code)
        return dropped

    async def _open_once(self, code: str, opener: Callable[[str], Awaitable[Room | None]]) -> Room | None:
        """``opener(code)``, once at a time per table: a second caller waits for the first."""
        opening = self._opening.get(code)
        if opening is not None:
            return await asyncio.shield(opening)
        opening = self._opening[code] = asyncio.get_running_loop().create_future()
        try:
            room = await opener(code)
            opening.set_result(room)
            return room
        except BaseException as exc:
            opening.set_exception(exc)
            opening.exception()  # retrieved: waiters get it, nobody else needs it
            raise
        finally:
            self._opening.pop(code, None)

    async def _take_over(self, code: str, ask: bool = True) -> Room | None:
        """Cluster mode: take the table's lease (its holder hands it over; with ``ask`` false
        only a lease nobody holds: None otherwise), restore it, and log an ``owner`` entry
        first: the fence that refuses any later write of the old owner."""
        cluster = self.cluster
        assert cluster is not None
        try:
            if not await (cluster.acquire(code) if ask else cluster.claim(code)):
                if not ask:
                    return None
                raise BUSY
        except RoomError:
            raise
        except Exception as exc:
            log.warning("could not take the lease of table %s: %s", code, exc)
            raise SHARED_DOWN from None
        try:
            room = await self._restore_one(code)
        except BaseException:
            await cluster.release(code)
            raise
        if room is None:
            await cluster.release(code)
            return None
        async with room.lock:
            room._broadcast("owner", {"node": cluster.node})
        return room

    async def _restore_one(self, code: str) -> Room | None:
        for _ in range(500):  # a room being parked leaves memory once its last entry is durable
            if code not in self._retiring:
                break
            await asyncio.sleep(0.01)
        # Not waiting for a database call still running: the writer's batches wait meanwhile.
        if self.writer.spooled and not await self.writer.sync(wait=False):
            raise UNAVAILABLE
        try:
            found = await self.source.load(code)
        except OUTAGE_ERRORS as exc:  # the database is down or does not answer: no bug to trace
            log.warning("could not load table %s: the database is unavailable: %s", code, type(exc).__name__)
            raise UNAVAILABLE from None
        except Exception:
            log.exception("could not load table %s", code)
            raise UNAVAILABLE from None
        if found is None or found[0] not in ("waiting", "playing", "finished", "parked"):
            return None
        status, entries = found
        room = await Room.rebuild_in_turns(self, code, entries)
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
        if self.cluster is not None:  # every node restores a table when a client asks for it
            self.restored = True
            return 0
        loaded = 0
        for code in await self.source.open_codes():
            found = await self.source.load(code)
            if found is None:
                continue
            try:
                room = await Room.rebuild_in_turns(self, code, found[1])
            except Exception:  # one broken log must not keep every other table away
                log.exception("table %s could not be rebuilt from its log", code)
                continue
            if room.code not in self.rooms:
                self.rooms[room.code] = room
                room.restored()
                loaded += 1
        self.restored = True
        log.warning("restored %d tables from their logs", loaded)
        return loaded

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

    def _lobby_rows(self) -> list[dict]:
        """This node's part of the shared lobby: ``list_public`` with each table's creation time."""
        now, wall = time.monotonic(), time.time()
        return [
            {**r.summary(), "created": wall - (now - r.created_at)}
            for r in self.rooms.values()
            if not r.private and r.status == "waiting" and not r.closed
            and any(s.player_id is None and not s.bot for s in r.seats)
        ]

    async def list_lobby(
        self, limit: int | None = None, after: tuple[float, str] | None = None
    ) -> tuple[list[dict], tuple[float, str] | None]:
        """``list_public``, of this node or (cluster mode) of every node: then a room's key is
        its creation's wall-clock time, which every node reads alike."""
        if self.cluster is None:
            return self.list_public(limit=limit, after=after)
        try:
            every = await self.cluster.lobby()
        except Exception as exc:  # Redis unreachable: this node's own tables at least
            log.warning("the shared lobby is not reachable (%s); listing this node's tables", exc)
            every = self._lobby_rows()
        rows = [r for r in every if after is None or (r["created"], r["code"]) < after]
        rows.sort(key=lambda r: (r["created"], r["code"]), reverse=True)
        page = rows if limit is None else rows[:limit]
        more = limit is not None and len(rows) > limit
        return page, ((page[-1]["created"], page[-1]["code"]) if more else None)

    # ---- cluster mode --------------------------------------------------------------------------

    def letting_go(self, code: str) -> bool:
        """Cluster mode: this node is stopping or its lease on ``code`` may have run out, so the
        table must log nothing more here (not even who left): another node may own it now."""
        return self.cluster is not None and (self.stopping or not self.cluster.owns(code))

    def change_refused(self, code: str) -> RoomError | None:
        """Why table ``code`` may not change now, or None: the server is stopping, or (cluster
        mode) this node's lease may have run out, or the database is unreachable (no spool in
        cluster mode: a change could not be made durable, so none is made)."""
        if self.stopping:
            return RESTARTING
        if self.cluster is None:
            return None
        if not self.cluster.owns(code):
            return LEASE_GONE
        return DATABASE_DOWN if self.writer.outage else None

    def table_changed(self, code: str, row: dict) -> None:
        """A table's lobby row changed (status or seats): the shared limits follow it."""
        if self.cluster is not None:
            self.cluster.table_changed(code, row.get("host_id"), row["status"])

    def _lost(self, code: str) -> None:
        """This node lost the table's lease: drop it without writing; its clients reconnect."""
        room = self.rooms.pop(code, None) or self._retiring.pop(code, None)
        self._parting.pop(code, None)
        if room is not None:
            asyncio.get_running_loop().create_task(room.close(*MOVED))

    async def adopt_orphans(self) -> list[str]:
        """Take the waiting tables whose node died (nobody holds their lease): restored here,
        they are back in the shared lobby, as a playing table is back when a client returns."""
        cluster = self.cluster
        if cluster is None or self.source is None or not self.restored or self.stopping:
            return []
        waiting = [c for c in await self.source.waiting_codes() if c not in self.rooms]
        unheld = set(await cluster.unheld(waiting))
        # Only codes nobody held at the last look either: a table between two nodes (handed
        # over, released a moment ago) is not an orphan; a dead node's table stays unheld.
        orphans, self._unheld = sorted(unheld & self._unheld), unheld
        adopted = []
        for code in orphans:
            try:
                room = await self._open_once(code, functools.partial(self._take_over, ask=False))
            except RoomError as err:
                log.warning("could not adopt table %s: %s", code, err.message)
                continue
            if room is not None:
                adopted.append(code)
        if adopted:
            log.warning("adopted %d waiting tables whose node went away: %s", len(adopted), " ".join(adopted))
        return adopted

    async def _adopt_forever(self) -> None:
        assert self.cluster is not None
        every = self.cluster.lease_ms / 1000
        while True:
            await asyncio.sleep(every * random.uniform(0.75, 1.25))  # nodes out of step
            self.drop_unleased()
            try:
                await self.adopt_orphans()
            except Exception as exc:  # the database or Redis unreachable: next time
                log.warning("could not look for orphaned tables: %s", exc)

    async def _hand_over(self, code: str) -> None:
        """Another node was asked for this table: park it here, then release the lease."""
        cluster = self.cluster
        assert cluster is not None
        opening = self._opening.get(code)
        if opening is not None:
            await asyncio.wait({opening}, timeout=10)
        room = self.rooms.get(code)
        if room is not None:
            await room.retire("park", *MOVED)
            for _ in range(500):
                if code not in self._retiring:
                    break
                await asyncio.sleep(0.01)
        if code in cluster.trusted and code not in self.rooms:
            await cluster.release(code)

    # ---- the writer's reports ----------------------------------------------------------------

    def _durable(self, code: str, version: int) -> None:
        room = self.rooms.get(code) or self._retiring.get(code)
        if room is None:
            return
        room.durable(version)
        retiring = self._retiring.get(code)
        if retiring is not None and version >= retiring.version:
            del self._retiring[code]
            if self.cluster is not None:
                self.cluster.let_go(code, self._parting.pop(code, None))

    def _conflict(self, code: str) -> None:
        """Another writer logged a version of this table: this process must not serve it on."""
        room = self.rooms.pop(code, None) or self._retiring.pop(code, None)
        self._parting.pop(code, None)
        log.error("table %s: another writer holds its log; this process lets go of it", code)
        if self.cluster is not None:
            self.cluster.forget(code)
        if room is not None:
            asyncio.get_running_loop().create_task(room.close(1012, "this table moved; reconnect"))

    def retiring(self, room: Room) -> None:
        """``room`` logged its last entry (park or close): out of the directory, gone once durable."""
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
        if room.logged and room.durable_version < room.version:
            self._retiring[room.code] = room
            if self.cluster is not None:  # this acquisition's, whatever acquisition follows
                self._parting[room.code] = self.cluster.token(room.code)
        elif self.cluster is not None:
            self.cluster.let_go(room.code, self.cluster.token(room.code))

    # ---- sweeping ------------------------------------------------------------------------------

    async def sweep(self) -> int:
        """Park the rooms nobody has been connected to for a while (close finished ones)."""
        budget, retired = LoopBudget(), 0
        for room in list(self.rooms.values()):  # thousands of rooms: in short turns
            await budget.spend()
            if not room.closed and room.is_idle(time.monotonic()):  # checked after the yield
                await room.retire("close" if room.status == "finished" else "park")
                retired += 1
        if self.source is not None and self.restored and time.monotonic() - self._last_purge > 3600:
            self._last_purge = time.monotonic()
            cutoff = time.time() - self.settings.table_retention_days * 86400
            purged = await self.source.purge(cutoff)
            if purged:
                log.info("deleted %d parked or closed tables past their retention", purged)
        return retired

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
        for task in (self._janitor, self._adopter):
            if task:
                task.cancel()

    async def close(self) -> None:
        for task in (self._janitor, self._adopter):
            if task:
                task.cancel()
        for room in list(self.rooms.values()):
            await room.close(1012, "server restarting")
        self.rooms.clear()
        self.bot_pool.close()
