"""Where a table may live: in this process alone, or on one node of a cluster.

The room manager keeps the rooms in memory and asks its directory everything that depends on
the mode, never which mode it runs in. ``LocalDirectory``: one process owns every table; all
tables are restored at start. ``ClusterDirectory`` (server/cluster/, Redis): a table is
opened here only under this node's lease, none is restored at start, a waiting table whose
node went away is adopted by whichever live node finds it first, another node asking for a
table gets it handed over, and no change is made while the database is unreachable (there is
no local spool to hold it).

The cap of slow seats a player may have (``max_slow_tables_per_player``) is counted in the
store and in memory here; alone that is the whole truth, since one event loop runs every
request of a player one after the other (the room manager's per-player lock). In a cluster
two nodes could each count the same seats at the same moment, so a seat is also held in Redis,
counted and taken in one script (server/rooms/slow_seats.py).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from server.log_entry import LogWriter
from server.notify.events import Event, MatchFinished, YourTurn
from server.rooms.errors import RoomError
from server.rooms.registry import Cursor, OpenRooms, too_many
from server.rooms.restore import OPEN_STATUSES, UNAVAILABLE, Restore, TableSource
from server.rooms.room import Room
from server.rooms.seats import is_room_code, new_room_code
from server.rooms.slow_seats import ClusterSlowSeats, SlowCount, held_alone
from server.rooms.turn_marks import Awaited, TurnMarks, awaited, everyone

if TYPE_CHECKING:
    from server.cluster import Cluster

log = logging.getLogger("felt.rooms")

SHARED_DOWN = RoomError("unavailable", "The cluster's shared store is not reachable; try again in a moment.", 503)
BUSY = RoomError("unavailable", "This table is moving between servers; try again in a moment.", 503)
LEASE_GONE = RoomError("moved", "This table is moving to another server; nothing changed. Reconnecting.", 503)
DATABASE_DOWN = RoomError("unavailable", "The database is unavailable; nothing changed. Try again shortly.", 503)
MOVED = (1012, "this table moved to another server; reconnect")


@dataclass(frozen=True, slots=True)
class Here:
    """What a directory is given of the rooms in this process: it uses them and calls nothing
    back but ``open`` (the room manager's: a room from memory, or folded back from its log)."""

    open_rooms: OpenRooms
    restore: Restore
    writer: LogWriter
    source: TableSource | None
    open: Callable[[str], Awaitable[Room | None]]


# Lets a caller at a table in, or raises to refuse them (the room is None: there is no table).
Admits = Callable[[Room | None], object]


class Directory(Protocol):
    """What the room manager asks of the mode it runs in (see the module docstring)."""

    @property
    def cluster(self) -> Cluster | None:
        """The cluster, for the edges that ask a table's node (None: this process alone)."""

    @property
    def restores_at_start(self) -> bool: ...

    def start(self) -> None: ...

    def stop(self) -> None: ...

    async def new_code(self, host_id: str) -> str: ...

    def new_slow_code(self, host_id: str, count: SlowCount) -> AbstractAsyncContextManager[str]:
        """``new_code`` for a slow table, whose host's seat is counted as ``hold_slow_seat``
        counts it while the body opens the table."""

    def hold_slow_seat(self, player_id: str, code: str, count: SlowCount) -> AbstractAsyncContextManager[None]:
        """Raise ``too_many_slow_tables`` if the player has the most slow seats they may, else
        count a seat for them at ``code`` until the body (which seats them) is done and the store
        has the seat (server/rooms/slow_seats.py). Called under the player's lock on this node."""

    async def restore(self, code: str) -> Room | None: ...

    async def read(self, code: str) -> Room | None: ...

    async def open_for(self, code: str, admits: Admits) -> Room | None:
        """Table ``code``'s room, open here, for a caller ``admits`` lets in (it raises to
        refuse). Where another node may hold the table, ``admits`` first sees it as ``read``
        (which moves nothing): only a caller it lets in brings the table to this node."""

    async def finished_for(self, code: str, admits: Admits) -> Room | None:
        """Table ``code``'s room to follow with a new table: ``open_for`` where another node
        may hold it; in one process only the room in memory."""

    async def take_due(self, code: str) -> Room | None:
        """Bring a table whose slow clock ran out into memory here, if it is this node's to
        fire (server/rooms/slow_clocks.py); None when it is not (or there is no such table)."""

    async def lobby(self, limit: int | None, after: Cursor | None) -> tuple[list[dict], Cursor | None]: ...

    def unleased(self, code: str) -> bool: ...

    def letting_go(self, code: str) -> bool: ...

    def refusal(self, code: str) -> RoomError | None: ...

    def table_changed(self, code: str, row: dict) -> None: ...

    def told(self, event: Event) -> None:
        """A room told its host ``event`` (under the room's lock: cheap); the turn may have
        passed on, or the match ended."""

    async def turns_of(self, player_id: str) -> Awaited | None:
        """The fast tables held on other nodes whose turn awaits ``player_id`` (table -> the
        turn's deadline); None where every table is in this process's memory."""

    def parting(self, room: Room, durable: bool) -> None: ...

    def parted(self, code: str) -> None: ...

    def forget(self, code: str) -> None: ...

    def lost(self, code: str) -> None: ...

    def drop_unleased(self) -> list[str]: ...

    async def adopt_orphans(self) -> list[str]: ...


class LocalDirectory:
    """One process owns every table."""

    cluster = None
    restores_at_start = True

    def __init__(self, here: Here) -> None:
        self.here = here
        self.open_rooms = here.open_rooms

    def start(self) -> None:
        return None

    def stop(self) -> None:
        return None

    async def new_code(self, host_id: str) -> str:
        return self.open_rooms.local_code(host_id)

    @asynccontextmanager
    async def new_slow_code(self, host_id: str, count: SlowCount) -> AsyncIterator[str]:
        """Counted first, then the code: nothing between it and the body that opens the table."""
        async with self.hold_slow_seat(host_id, "", count):
            yield await self.new_code(host_id)

    def hold_slow_seat(self, player_id: str, code: str, count: SlowCount) -> AbstractAsyncContextManager[None]:
        """Counted and seated under the player's lock, in one process: nothing more to hold."""
        return held_alone(self.open_rooms.settings.max_slow_tables_per_player, count)

    async def restore(self, code: str) -> Room | None:
        return await self.here.restore.one(code)

    async def read(self, code: str) -> Room | None:
        return await self.here.open(code)

    async def open_for(self, code: str, admits: Admits) -> Room | None:
        return await self.here.open(code)

    async def finished_for(self, code: str, admits: Admits) -> Room | None:
        return self.open_rooms.get(code)

    async def take_due(self, code: str) -> Room | None:
        return await self.open_rooms.open_once(code, self.restore)

    async def lobby(self, limit: int | None, after: Cursor | None) -> tuple[list[dict], Cursor | None]:
        return self.open_rooms.list_public(limit=limit, after=after)

    def unleased(self, code: str) -> bool:
        return False

    def letting_go(self, code: str) -> bool:
        return False

    def refusal(self, code: str) -> RoomError | None:
        return None

    def table_changed(self, code: str, row: dict) -> None:
        return None

    def told(self, event: Event) -> None:
        return None

    async def turns_of(self, player_id: str) -> Awaited | None:
        return None

    def parting(self, room: Room, durable: bool) -> None:
        return None

    def parted(self, code: str) -> None:
        return None

    def forget(self, code: str) -> None:
        return None

    def lost(self, code: str) -> None:
        return None

    def drop_unleased(self) -> list[str]:
        return []

    async def adopt_orphans(self) -> list[str]:
        return []


class ClusterDirectory:
    """This node's share of a cluster's tables, under its Redis leases."""

    restores_at_start = False

    def __init__(self, here: Here, cluster: Cluster) -> None:
        self.here = here
        self.open_rooms = here.open_rooms
        self.cluster = cluster
        self._parting: dict[str, str | None] = {}  # a retiring table's lease token, released once durable
        self._unheld: set[str] = set()  # waiting tables nobody held at the last look
        self._adopter: asyncio.Task | None = None
        self._slow_seats = ClusterSlowSeats(here.open_rooms, cluster, self.letting_go)
        self.turns = TurnMarks(cluster)
        cluster.attach(self)

    def start(self) -> None:
        if self.here.source is not None:
            self._adopter = asyncio.get_running_loop().create_task(self._adopt_forever())

    def stop(self) -> None:
        if self._adopter is not None:
            self._adopter.cancel()

    async def new_code(self, host_id: str) -> str:
        """A code unique across the cluster, its lease taken here and counted against the
        host's cap on every node."""
        cluster, cap = self.cluster, self.open_rooms.settings.max_open_rooms_per_player
        try:
            code = new_room_code()
            while code in self.open_rooms.rooms or not await cluster.leases.claim(code):
                code = new_room_code()
            if not await cluster.hosts.reserve(host_id, code, cap):
                await cluster.leases.release(code)
                raise too_many(cap)
        except RoomError:
            raise
        except Exception as exc:  # noqa: BLE001 - Redis unreachable (whatever it raises): no table can be placed safely
            log.warning("could not place a new table in the cluster: %s", exc)
            raise SHARED_DOWN from None
        return code

    @asynccontextmanager
    async def new_slow_code(self, host_id: str, count: SlowCount) -> AsyncIterator[str]:
        """The code first (the hold names it); if no table is opened with it after all (the cap
        refused), the lease ``new_code`` took and the host's count of the table are let go."""
        code = await self.new_code(host_id)
        try:
            async with self.hold_slow_seat(host_id, code, count):
                yield code
        except BaseException:
            if self.open_rooms.get(code) is None:
                try:
                    await self.cluster.leases.release(code)
                finally:
                    self.cluster.hosts.table_changed(code, host_id, "closed")
            raise

    def hold_slow_seat(self, player_id: str, code: str, count: SlowCount) -> AbstractAsyncContextManager[None]:
        """Held in Redis too, counted and taken in one script (server/rooms/slow_seats.py)."""
        return self._slow_seats.hold(player_id, code, count)

    async def restore(self, code: str, ask: bool = True) -> Room | None:
        """Take the table's lease (its holder hands it over; with ``ask`` false only a lease
        nobody holds: None otherwise), restore it, and log an ``owner`` entry first: the fence
        that refuses any later write of the old owner."""
        cluster = self.cluster
        try:
            if not await (cluster.leases.acquire(code) if ask else cluster.leases.claim(code)):
                if not ask:
                    return None
                raise BUSY
        except RoomError:
            raise
        except Exception as exc:  # noqa: BLE001 - Redis unreachable (whatever it raises): the client tries again
            log.warning("could not take the lease of table %s: %s", code, exc)
            raise SHARED_DOWN from None
        try:
            room = await self.here.restore.one(code)
        except BaseException:
            await cluster.leases.release(code)
            raise
        if room is None:
            await cluster.leases.release(code)
            return None
        async with room.lock:
            room.enter("owner", {"node": cluster.node})
        self.turns.taken(room.code, everyone(room), awaited(room))
        return room

    async def take_due(self, code: str) -> Room | None:
        """Only a table nobody holds the lease of is taken (a node that died, a parked table):
        a table another node holds is that node's to fire, so two nodes never both fire it."""
        return await self.open_rooms.open_once(code, functools.partial(self.restore, ask=False))

    async def open_for(self, code: str, admits: Admits) -> Room | None:
        admits(await self.read(code))
        return await self.here.open(code)

    async def finished_for(self, code: str, admits: Admits) -> Room | None:
        return await self.open_for(code, admits)

    async def read(self, code: str) -> Room | None:
        """The room for reading only: from memory where this node holds the table, otherwise
        rebuilt from its log without entering memory and without touching its lease, so a read
        never moves a table between nodes. A parked table stays parked."""
        source = self.here.source
        room = self.open_rooms.get(code)
        if room is not None and not self.letting_go(room.code):
            return room
        if room is not None and not self.open_rooms.stopping and self.unleased(room.code):
            self.lost(room.code)
        if source is None or not isinstance(code, str) or not is_room_code(code):
            return None
        try:
            found = await source.load(code)
        except Exception:
            log.exception("could not load table %s", code)
            raise UNAVAILABLE from None
        if found is None or found[0] not in OPEN_STATUSES:
            return None
        return await self.here.restore.rebuild(code, found[1])

    async def lobby(self, limit: int | None, after: Cursor | None) -> tuple[list[dict], Cursor | None]:
        """Every node's public waiting tables, a page at a time: a room's key is its creation's
        wall-clock time, which every node reads alike."""
        try:
            every = await self.cluster.lobby.rooms()
        except Exception as exc:  # noqa: BLE001 - Redis unreachable: this node's own tables at least
            log.warning("the shared lobby is not reachable (%s); listing this node's tables", exc)
            every = self.open_rooms.lobby_rows()
        rows = [r for r in every if after is None or (r["created"], r["code"]) < after]
        rows.sort(key=lambda r: (r["created"], r["code"]), reverse=True)
        page = rows if limit is None else rows[:limit]
        more = limit is not None and len(rows) > limit
        return page, ((page[-1]["created"], page[-1]["code"]) if more else None)

    def unleased(self, code: str) -> bool:
        """This node keeps table ``code`` in memory without any lease of it (not even one whose
        trust ran out): it must let the table go, never serve it on."""
        return code not in self.cluster.leases.trusted and code not in self.open_rooms.opening

    def letting_go(self, code: str) -> bool:
        """This node is stopping or its lease on ``code`` may have run out, so the table must
        log nothing more here (not even who left): another node may own it now."""
        return self.open_rooms.stopping or not self.cluster.leases.owns(code)

    def refusal(self, code: str) -> RoomError | None:
        """The lease may have run out, or the database is unreachable (no spool in cluster
        mode: a change could not be made durable, so none is made)."""
        if not self.cluster.leases.owns(code):
            return LEASE_GONE
        return DATABASE_DOWN if self.here.writer.outage else None

    def table_changed(self, code: str, row: dict) -> None:
        """The shared limits follow a table's lobby row."""
        self.cluster.hosts.table_changed(code, row.get("host_id"), row["status"])

    def told(self, event: Event) -> None:
        """The turn passed on or the match ended: marked in Redis for the players whose turn it
        now is, if the people awaited changed."""
        if isinstance(event, (YourTurn, MatchFinished)):
            room = self.open_rooms.get(event.table)
            if room is not None:
                self.turns.follow(room.code, awaited(room))

    async def turns_of(self, player_id: str) -> Awaited | None:
        """Every node's marks that still hold (an empty answer if Redis is unreachable: the flag
        is missing, never wrong)."""
        try:
            return await self.turns.of(player_id)
        except Exception as exc:  # noqa: BLE001 - Redis unreachable (whatever it raises): the tables still list
            log.warning("could not read the turns of player %s in the cluster: %s", player_id, exc)
            return {}

    def parting(self, room: Room, durable: bool) -> None:
        """``room`` logged its last entry: its lease goes once that is durable (at once if it is)."""
        self.turns.gone(room.code)
        token = self.cluster.leases.token(room.code)  # this acquisition's, whatever acquisition follows
        if durable:
            self.cluster.leases.let_go(room.code, token)
        else:
            self._parting[room.code] = token

    def parted(self, code: str) -> None:
        """A retiring table's last entry is durable: its lease goes."""
        self.cluster.leases.let_go(code, self._parting.pop(code, None))

    def forget(self, code: str) -> None:
        """Another writer holds the table's log: this node stops renewing its lease."""
        self._parting.pop(code, None)
        self.turns.gone(code)
        self.cluster.leases.forget(code)

    # ---- what the cluster tells this node (``server.cluster.ClusterMember``) -----------------

    def lost(self, code: str) -> None:
        """This node lost the table's lease: drop it without writing; its clients reconnect."""
        room = self.open_rooms.rooms.pop(code, None) or self.open_rooms.retiring.pop(code, None)
        self._parting.pop(code, None)
        self.turns.gone(code)
        if room is not None:
            asyncio.get_running_loop().create_task(room.close(*MOVED))

    async def hand_over(self, code: str) -> None:
        """Another node was asked for this table: park it here, then release the lease."""
        rooms, cluster = self.open_rooms, self.cluster
        opening = rooms.opening.get(code)
        if opening is not None:
            await asyncio.wait({opening}, timeout=10)
        room = rooms.rooms.get(code)
        if room is not None:
            await room.retire("park", *MOVED)
            for _ in range(500):
                if code not in rooms.retiring:
                    break
                await asyncio.sleep(0.01)
        if code in cluster.leases.trusted and code not in rooms.rooms:
            await cluster.leases.release(code)

    def lobby_rows(self) -> list[dict]:
        return self.open_rooms.lobby_rows()

    def seated(self) -> dict[str, str]:
        return self.open_rooms.seated()

    # ---- orphans -------------------------------------------------------------------------------

    def drop_unleased(self) -> list[str]:
        """Let go of every table in memory whose lease this node no longer holds."""
        dropped = [code for code in list(self.open_rooms.rooms) if self.unleased(code)]
        for code in dropped:
            log.error("table %s: in memory without its lease; this node lets go of it", code)
            self.lost(code)
        return dropped

    async def adopt_orphans(self) -> list[str]:
        """Take the waiting tables whose node died (nobody holds their lease): restored here,
        they are back in the shared lobby, as a playing table is back when a client returns."""
        rooms, source = self.open_rooms, self.here.source
        if source is None or not self.here.restore.done or rooms.stopping:
            return []
        waiting = [c for c in await source.waiting_codes() if c not in rooms.rooms]
        unheld = set(await self.cluster.leases.unheld(waiting))
        # Only codes nobody held at the last look either: a table between two nodes (handed
        # over, released a moment ago) is not an orphan; a dead node's table stays unheld.
        orphans, self._unheld = sorted(unheld & self._unheld), unheld
        adopted = []
        for code in orphans:
            try:
                room = await rooms.open_once(code, functools.partial(self.restore, ask=False))
            except RoomError as err:
                log.warning("could not adopt table %s: %s", code, err.message)
                continue
            if room is not None:
                adopted.append(code)
        if adopted:
            log.warning("adopted %d waiting tables whose node went away: %s", len(adopted), " ".join(adopted))
        return adopted

    async def _adopt_forever(self) -> None:
        every = self.cluster.leases.lease_ms / 1000
        while True:
            await asyncio.sleep(every * random.uniform(0.75, 1.25))  # nodes out of step
            self.drop_unleased()
            try:
                await self.adopt_orphans()
            except Exception as exc:  # noqa: BLE001 - the adopter never dies: the database or Redis unreachable, next time
                log.warning("could not look for orphaned tables: %s", exc)
