"""Slow clocks that run out while their table is out of memory: found in the store, fired once.

A slow table's deadline is the table's history (server/rooms/timer.py: its fold arms it) and is
stored with the table's row, parked tables included (server/storage/tables.py). Every
``slow_clock_poll_s`` the store is asked for the deadlines past due, and each such table not in
memory here is brought in through the directory: alone, restored from its log; in cluster mode
only a table nobody holds the lease of is taken here (a table another node holds is that
node's to fire), so two nodes never both fire one. The room restored waits for its deadline as
any room does: it is past, so the clock plays at once, through the room like every clock.

The clock's turn is a log entry that moves the deadline on, and a room fires only the deadline
its table still has: a second look (this poll again before the row is written, another node,
a restart) finds the table at a later deadline and plays nothing. A table in memory here whose
clock is due but not waited for (its turn was refused while the database was down, say) is
armed again. A slow table where a bot is to play is stored as due at once, so that one parked
meanwhile, or whose node died, is brought back to play on as well.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Protocol

from server.log_entry import StoreUnavailable
from server.rooms.errors import RoomError

if TYPE_CHECKING:
    from server.config import Settings
    from server.rooms.directory import Directory
    from server.rooms.room import Room

log = logging.getLogger("felt.rooms")


class DueSource(Protocol):
    """The store's side (``server.storage.source.DatabaseTables``)."""

    async def due_clocks(self, now_ms: int) -> list[str]: ...

    async def slow_seats(self, player_id: str) -> list[str]: ...


class Rooms(Protocol):
    """What the clocks ask of the rooms (``server.rooms.manager.RoomManager``)."""

    restored: bool
    stopping: bool
    directory: Directory
    rooms: dict[str, Room]

    @property
    def settings(self) -> Settings: ...

    def get(self, code: str) -> Room | None: ...


async def slow_seats_of(rooms: Rooms, player_id: str, source: DueSource | None = None) -> set[str]:
    """The codes of the slow tables ``player_id`` sits at, counted against their cap
    (``max_slow_tables_per_player``): in the store (parked tables, other nodes' tables) and in
    memory here; a table held here is counted as it stands now, since the store hears of a
    seat only once its entry is written. Raises the 503 RoomError while the store is down."""
    seated = {
        code
        for code, r in rooms.rooms.items()
        if r.table.clock.slow and not r.closed and r.status != "finished" and r.seat_of(player_id) is not None
    }
    if source is not None:
        try:
            stored = await source.slow_seats(player_id)
        except StoreUnavailable:
            raise RoomError("unavailable", "The table store is not reachable right now; try again.", 503) from None
        seated.update(code for code in stored if code not in rooms.rooms)
    return seated


class SlowClocks:
    """The task that fires the slow clocks of tables out of memory (see the module docstring)."""

    def __init__(self, rooms: Rooms, source: DueSource, poll_s: float) -> None:
        self.rooms = rooms
        self.source = source
        self.poll_s = poll_s
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._forever())

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def fire_due(self) -> list[str]:
        """Bring into memory every table here whose slow clock ran out (its room plays the turn
        at once); the codes brought in."""
        rooms = self.rooms
        if not rooms.restored or rooms.stopping:
            return []
        taken = []
        for code in await self.source.due_clocks(int(time.time() * 1000)):
            if rooms.stopping:
                break
            room = rooms.get(code)
            if room is not None:
                self._rearm(room)
                continue
            try:
                room = await rooms.directory.take_due(code)
            except RoomError as err:  # the database or Redis unreachable, the table busy: next time
                log.warning("could not open table %s for its clock: %s", code, err.message)
                continue
            if room is not None:
                taken.append(code)
        return taken

    def _rearm(self, room: Room) -> None:
        """A room in memory whose slow clock is due: it waits for it, unless it does already."""
        autoplay = room.autoplay
        if room.closed or autoplay.clock_running or room.host.letting_go(room.code):
            return
        if not room.lock.locked():  # under the lock or not at all: the next poll looks again
            autoplay.arm_clock(room)
            autoplay.schedule(room)  # a bot to play: due at once (see ``table_row``)

    async def _forever(self) -> None:
        while True:
            await asyncio.sleep(self.poll_s)
            try:
                await self.fire_due()
            except Exception as exc:  # noqa: BLE001 - the clocks never die: the store unreachable, next time
                log.warning("could not look for slow clocks due: %s", exc)
