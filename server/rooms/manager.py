"""The rooms in this process: create, open, list, park; the manager composes their homes.

The rooms open here are registered in ``OpenRooms`` (server/rooms/registry.py); a room not in
memory is folded back from its log by ``Restore`` (server/rooms/restore.py: every open table
at start, alone; one on demand); what depends on running alone or as one node of a cluster
(leases, handing a table over, the shared lobby) is the directory's. The manager uses the
directory and the directory never calls the manager: it is given the open rooms, the restore
and one callback, ``open``. A room nobody has been
connected to for ``room_idle_close_s`` is parked (a finished one closed): its last entry is
logged, then it leaves memory once that entry is durable. What depends on running alone or
as one node of a cluster is the directory's (server/rooms/directory.py).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from server.bots.pool import BotPool
from server.budget import LoopBudget
from server.config import Settings
from server.games import get_game
from server.log_entry import LogWriter, WriterReports
from server.notify import Notifier
from server.notify.events import Event, TableOpened
from server.rooms.directory import BUSY, ClusterDirectory, Directory, Here, LocalDirectory
from server.rooms.errors import RoomError
from server.rooms.registry import Cursor, OpenRooms
from server.rooms.restore import UNAVAILABLE, Restore, TableSource
from server.rooms.room import Room
from server.rooms.seats import is_room_code
from server.rooms.slow_clocks import SlowClocks, slow_seats_of
from server.rooms.take_backs import undo_rule
from server.rooms.timer import TURN_TIMER_CHOICES, is_slow
from server.rooms.watching import watch_options

if TYPE_CHECKING:
    from server.cluster import Cluster

log = logging.getLogger("felt.rooms")


RESTARTING = RoomError("restarting", "The server is restarting; nothing changed. Try again in a moment.", 503)


def follow_seats(follow: Room, seats: int) -> dict[str, int]:
    """Who sits where at the "Play again" table after ``follow``: each of its players in the
    seat they had, and each spectator who asked to join the next game in a bot's seat, in turn
    (the other bots sit again)."""
    placed = {s.player_id: s.index for s in follow.seats if s.player_id and s.index < seats}
    free = (s.index for s in follow.seats if s.bot and s.index < seats)
    for player_id, index in zip(follow.table.joining, free, strict=False):
        placed.setdefault(player_id, index)
    return placed


def created_entry(
    game_name: str,
    options: dict | None,
    seats: int | None,
    private: bool,
    host_id: str,
    host_name: str,
    turn_timer: int = 0,
    follow: Room | None = None,
    watch: dict | None = None,
    open_bot_seats: bool = False,
    undo: str | None = None,
) -> dict:
    """A new table's ``created`` entry, or the RoomError that refuses it. A ``follow`` with
    ``hold_s`` has its partners rotated: each player's seat is kept for them that long
    (``Table.held_for``) while their page brings them over. ``watch``: ``watchers``,
    ``watch_delay`` and the table's ``group`` (server/rooms/watching.py); ``undo``: ``undo_rule``."""
    watch = watch or {}
    chosen = watch_options(watch.get("watchers", "everyone"), watch.get("watch_delay", "none"))
    if turn_timer not in TURN_TIMER_CHOICES:
        choices = ", ".join(map(str, TURN_TIMER_CHOICES))
        raise RoomError("bad_options", f"The turn timer is one of {choices} seconds (0: off).", 422)
    undo = undo_rule(undo, follow)
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
        "game": game.name,
        "options": parsed.model_dump(mode="json"),
        "seats": seats,
        "private": private,
        "host_id": host_id,
        "host_name": host_name,
        "turn_timer": turn_timer,
        "undo": undo,
        "open_bot_seats": open_bot_seats,
        **chosen,
    }
    if watch.get("group") is not None:
        created["group"] = watch["group"]
    if follow is not None:
        created["follow_seats"] = placed = follow_seats(follow, seats)
        hold_s = getattr(follow, "hold_s", None)
        if hold_s is not None:
            names = {s.player_id: s.name for s in follow.seats if s.player_id}
            created["partners"] = {
                "seats": [
                    {"seat": index, "player_id": player_id, "name": names.get(player_id)}
                    for player_id, index in sorted(placed.items(), key=lambda item: item[1])
                ],
                "hold_s": hold_s,
            }
    return created


class RoomManager:
    """The rooms in this process: create, find, list, park; what depends on the mode (alone,
    or a node of a cluster) is asked of ``directory``."""

    def __init__(
        self, settings: Settings, make_writer: Callable[[WriterReports], LogWriter], source: TableSource | None = None
    ) -> None:
        """``make_writer``: the table log's writer, made to report to this manager."""
        self.settings = settings
        self.writer = make_writer(self)
        self.source = source
        self.open_rooms = OpenRooms(settings)
        self.rooms = self.open_rooms.rooms  # the same dicts, read as they are by the edges and metrics
        self.retiring_rooms = self.open_rooms.retiring
        self.restore = Restore(self, self.open_rooms, self.writer, source)
        self.bot_pool = BotPool(settings.bot_workers, settings.bot_think_ms)
        self.actions_applied = 0  # every room's, players' and bots' (read by the metrics)
        self._janitor: asyncio.Task | None = None
        self._last_purge = 0.0
        self.directory: Directory = LocalDirectory(self._here())
        self.notifier = Notifier()  # its channels are added by the app (server/app.py)
        self._slow_seat_locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self.slow_clocks = None if source is None else SlowClocks(self, source, settings.slow_clock_poll_s)

    def _here(self) -> Here:
        """What the directory is given of the rooms here (it calls back only ``open``)."""
        return Here(self.open_rooms, self.restore, self.writer, self.source, self.open)

    @property
    def stopping(self) -> bool:
        """The server stops: no new table, no change (the open rooms' flag)."""
        return self.open_rooms.stopping

    @stopping.setter
    def stopping(self, stopping: bool) -> None:
        self.open_rooms.stopping = stopping

    @property
    def restored(self) -> bool:
        """The restore at start is done: tables not in memory may be looked up."""
        return self.restore.done

    @restored.setter
    def restored(self, done: bool) -> None:
        self.restore.done = done

    @property
    def cluster(self) -> Cluster | None:
        """The cluster this process is a node of, or None."""
        return self.directory.cluster

    def join_cluster(self, cluster: Cluster) -> None:
        """Cluster mode: tables are run here only under this node's Redis lease (server/cluster/leases.py)."""
        self.directory = ClusterDirectory(self._here(), cluster)

    def start(self) -> None:
        self._janitor = asyncio.get_running_loop().create_task(self._sweep_forever())
        self.directory.start()
        if self.slow_clocks is not None:
            self.slow_clocks.start()

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
        **table: Any,
    ) -> Room:
        """Open a room in this process alone; the host is seated at seat 0.

        A room that ``follow``s a finished one ("Play again") seats each of that match's
        players who comes in at the seat they had, the host (its creator) at once.
        """
        created = self._check_new(game_name, options, seats, private, host_id, host_name, turn_timer, follow, **table)
        return self._open_new(self.local_code(host_id), created, follow)

    def local_code(self, host_id: str) -> str:
        return self.open_rooms.local_code(host_id)

    async def create_shared(
        self,
        game_name: str,
        options: dict | None,
        seats: int | None,
        private: bool,
        host_id: str,
        host_name: str,
        turn_timer: int = 0,
        follow: Room | None = None,
        **table: Any,
    ) -> Room:
        """``create``, in either mode; in cluster mode the code is unique and the host's cap
        counted across every node, and this node takes the new table's lease. ``table``: the
        room's own options beside the game's (``watch``, ``open_bot_seats``, ``undo``: see
        ``created_entry``)."""
        created = self._check_new(game_name, options, seats, private, host_id, host_name, turn_timer, follow, **table)
        if not is_slow(turn_timer):
            return self._open_new(await self.directory.new_code(host_id), created, follow)
        async with self.slow_seat_lock(host_id):  # counted and seated before another request of theirs
            count = functools.partial(slow_seats_of, self, host_id, self.source)
            async with self.directory.new_slow_code(host_id, count) as code:
                return self._open_new(code, created, follow)

    def _check_new(self, *args: Any, **kwargs: Any) -> dict:
        """A new table's ``created`` entry, or the RoomError that refuses it."""
        if self.stopping:
            raise RoomError("unavailable", "The server is restarting; try again in a moment.", 503)
        return created_entry(*args, **kwargs)

    def _open_new(self, code: str, created: dict, follow: Room | None = None) -> Room:
        """The new room, its ``created`` entry submitted; at a "Play again" table the bots of
        the match before sit again at their seats and levels, one ``bot`` entry each."""
        room = Room.open(self, code, created)
        self.rooms[code] = room
        room.submit("created", created)
        if follow is not None:
            seats, followers = room.table.seats, set(created["follow_seats"].values())
            for s in follow.seats:
                if s.bot and s.index < len(seats) and s.index not in followers and seats[s.index].player_id is None:
                    room.submit("bot", {"seat": s.index, "remove": False, "level": s.level or "easy"})
        self.notify(TableOpened(code, room.table.game.name, room.table.host_name))
        return room

    def get(self, code: str) -> Room | None:
        """A room in memory, or None (see ``OpenRooms.get``)."""
        return self.open_rooms.get(code)

    async def open(self, code: str) -> Room | None:
        """The room, from memory or rebuilt from its log (a parked table resumes); None if none.
        In cluster mode this takes the table's lease: only a player's or spectator's socket,
        or a change a player asks for, opens a table (a read uses ``read``)."""
        room = self.get(code)
        if room is not None and self.directory.letting_go(room.code):
            if self.stopping or not self.directory.unleased(room.code):
                raise BUSY  # the client tries again and finds the table's next node
            self.directory.lost(room.code)  # its lease is gone for good: let it go, take the table anew
            room = None
        if room is not None or self.source is None or not isinstance(code, str):
            return room
        if not is_room_code(code):
            return None  # no table has it: the store is not asked
        if not self.restore.done:
            raise UNAVAILABLE
        return await self.open_rooms.open_once(code, self.directory.restore)

    async def read(self, code: str) -> Room | None:
        """The room for reading only (its summary): in cluster mode a read never moves a table
        between nodes (see ``ClusterDirectory.read``); elsewhere the same as ``open``."""
        return await self.directory.read(code)

    def drop_unleased(self) -> list[str]:
        """Cluster mode: let go of every table in memory whose lease this node no longer holds."""
        return self.directory.drop_unleased()

    async def adopt_orphans(self) -> list[str]:
        """Cluster mode: take the waiting tables whose node died (see ``ClusterDirectory``)."""
        return await self.directory.adopt_orphans()

    async def restore_all(self) -> int:
        """Rebuild every open table at start (alone; a cluster node restores on demand)."""
        return await self.restore.all(self.directory.restores_at_start)

    def list_public(self, limit: int | None = None, after: Cursor | None = None) -> tuple[list[dict], Cursor | None]:
        return self.open_rooms.list_public(limit, after)

    def seated(self) -> dict[str, str]:
        return self.open_rooms.seated()

    async def list_lobby(
        self, limit: int | None = None, after: tuple[float, str] | None = None
    ) -> tuple[list[dict], tuple[float, str] | None]:
        """``list_public``, of this node or (cluster mode) of every node."""
        return await self.directory.lobby(limit, after)

    # ---- what the rooms ask (``server.rooms.host.Host``) -------------------------------------

    def letting_go(self, code: str) -> bool:
        """Table ``code`` must log nothing more here (not even who left): cluster mode, this
        node stops or its lease may have run out, and another node may own the table now."""
        return self.directory.letting_go(code)

    def change_refused(self, code: str) -> RoomError | None:
        """Why table ``code`` may not change now, or None: the server is stopping, or the
        directory says so (cluster mode: the lease, the database)."""
        if self.stopping:
            return RESTARTING
        return self.directory.refusal(code)

    def action_applied(self) -> None:
        self.actions_applied += 1

    @asynccontextmanager
    async def slow_seat(self, player_id: str, code: str) -> AsyncIterator[None]:
        """Refuse one more slow table to a player who sits at the most they may; else their
        seat at ``code`` counts until the body seats them: their requests on this node one after
        the other (a lock per player), and the directory's hold for the other nodes."""
        async with self.slow_seat_lock(player_id):
            count = functools.partial(slow_seats_of, self, player_id, self.source)
            async with self.directory.hold_slow_seat(player_id, code, count):
                yield

    def slow_seat_lock(self, player_id: str) -> asyncio.Lock:
        """One lock a player while any of their requests holds it (see ``slow_seat``)."""
        lock = self._slow_seat_locks.get(player_id)
        if lock is None:
            lock = self._slow_seat_locks[player_id] = asyncio.Lock()
        return lock

    def notify(self, event: Event) -> None:
        self.directory.told(event)  # "Your tables" on other nodes follow the turn
        self.notifier.publish(event)

    def table_changed(self, code: str, row: dict) -> None:
        """A table's lobby row changed (status or seats): the shared limits follow it."""
        self.directory.table_changed(code, row)

    def retiring(self, room: Room) -> None:
        """``room`` logged its last entry (park or close): out of the directory, gone once durable."""
        self.notifier.forget(room.code)
        self.directory.parting(room, self.open_rooms.retire(room))

    # ---- the writer's reports (``server.log_entry.WriterReports``) -------------------------------

    def durable(self, code: str, version: int) -> None:
        """Table ``code`` is durable up to ``version``: its frames go out."""
        if self.open_rooms.durable(code, version):
            self.directory.parted(code)

    def conflict(self, code: str) -> None:
        """Another writer logged a version of this table: this process must not serve it on."""
        room = self.open_rooms.drop(code)
        log.error("table %s: another writer holds its log; this process lets go of it", code)
        self.directory.forget(code)
        if room is not None:
            asyncio.get_running_loop().create_task(room.close(1012, "this table moved; reconnect"))

    # ---- sweeping ------------------------------------------------------------------------------

    async def sweep(self) -> int:
        """Park the rooms nobody has been connected to for a while (close finished ones)."""
        budget, retired = LoopBudget(), 0
        for room in list(self.rooms.values()):  # thousands of rooms: in short turns
            await budget.spend()
            if not room.closed and self._idle(room, time.monotonic()):  # checked after the yield
                await room.retire("close" if room.status == "finished" else "park")
                retired += 1
        if self.source is not None and self.restored and time.monotonic() - self._last_purge > 3600:
            self._last_purge = time.monotonic()
            cutoff = time.time() - self.settings.table_retention_days * 86400
            purged = await self.source.purge(cutoff)
            if purged:
                log.info("deleted %d parked or closed tables past their retention", purged)
        return retired

    def _idle(self, room: Room, now: float) -> bool:
        """Nobody has been connected to ``room`` for a while (a finished one: a shorter while)."""
        if room.connections:
            return False
        s = self.settings
        if room.status == "finished":
            return now - room.last_seen > min(s.room_idle_close_s, s.finished_room_close_s)
        return now - room.last_seen > s.room_idle_close_s

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
        if self.slow_clocks is not None:
            self.slow_clocks.stop()
        self.directory.stop()

    async def close(self) -> None:
        if self._janitor:
            self._janitor.cancel()
        if self.slow_clocks is not None:
            self.slow_clocks.stop()
        self.directory.stop()
        for room in list(self.rooms.values()):
            await room.close(1012, "server restarting")
        self.rooms.clear()
        self.bot_pool.close()
        await self.notifier.close()
