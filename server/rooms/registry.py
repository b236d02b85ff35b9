"""The register of the rooms open in this process: by code, the ones retiring, the ones opening.

A room is open here while it is in ``rooms``; a room that logged its last entry (park or
close) leaves ``rooms`` at once and waits in ``retiring`` until that entry is durable; a table
being opened (restored from its log, or handed over) has a future in ``opening`` that a second
caller waits on. The lobby's rows, who is seated where, and a new table's code as this process
alone sees them are read from here. Nothing here changes a table or knows the mode (alone or a
node of a cluster): the room manager and the directory both use it, and it calls neither.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable

from server.config import Settings
from server.rooms.errors import RoomError
from server.rooms.room import Room
from server.rooms.seats import new_room_code

Cursor = tuple[float, str]  # a lobby page's key: (its last room's creation time, its code)


def too_many(hosted: int) -> RoomError:
    return RoomError("too_many_rooms", f"You already host {hosted} open rooms; finish or leave one first.", 429)


class OpenRooms:
    """The rooms in memory here, by code (see the module docstring)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.rooms: dict[str, Room] = {}
        self.retiring: dict[str, Room] = {}  # parked or closed, gone once their last entry is durable
        self.opening: dict[str, asyncio.Future] = {}
        self.stopping = False  # the server stops: no new table, no change

    def get(self, code: str) -> Room | None:
        """A room in memory, or None. Codes are taken exactly as they are written (see
        ``is_room_code``): the balancer routes a table by the code in the path, so a spelling
        the balancer would hash elsewhere must not find the table."""
        room = self.rooms.get(code) if isinstance(code, str) else None
        return room if room is not None and not room.closed else None

    def local_code(self, host_id: str) -> str:
        """A new table's code in this process, unless its host has all the open rooms they may."""
        hosted = sum(1 for r in self.rooms.values() if r.host_id == host_id and r.status != "finished" and not r.closed)
        if hosted >= self.settings.max_open_rooms_per_player:
            raise too_many(hosted)
        code = new_room_code()
        while code in self.rooms:
            code = new_room_code()
        return code

    async def open_once(self, code: str, opener: Callable[[str], Awaitable[Room | None]]) -> Room | None:
        """``opener(code)``, once at a time per table: a second caller waits for the first."""
        opening = self.opening.get(code)
        if opening is not None:
            return await asyncio.shield(opening)
        opening = self.opening[code] = asyncio.get_running_loop().create_future()
        try:
            room = await opener(code)
            opening.set_result(room)
            return room
        except BaseException as exc:
            opening.set_exception(exc)
            opening.exception()  # retrieved: waiters get it, nobody else needs it
            raise
        finally:
            self.opening.pop(code, None)

    def retire(self, room: Room) -> bool:
        """``room`` logged its last entry: out of the open rooms; True if that entry is durable
        already (else it waits in ``retiring`` until ``durable`` says so)."""
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
        durable = not room.logged or room.delivery.durable_version >= room.version
        if not durable:
            self.retiring[room.code] = room
        return durable

    def durable(self, code: str, version: int) -> bool:
        """Table ``code`` is durable up to ``version``: its frames go out; True if that was a
        retiring room's last entry (it is gone now)."""
        room = self.rooms.get(code) or self.retiring.get(code)
        if room is None:
            return False
        room.delivery.durable(version)
        retiring = self.retiring.get(code)
        if retiring is not None and version >= retiring.version:
            del self.retiring[code]
            return True
        return False

    def drop(self, code: str) -> Room | None:
        """Let go of table ``code`` at once (open or retiring): the room, to be closed."""
        return self.rooms.pop(code, None) or self.retiring.pop(code, None)

    def list_public(self, limit: int | None = None, after: Cursor | None = None) -> tuple[list[dict], Cursor | None]:
        """Public rooms that wait for players, newest first: one page of at most ``limit``
        after the room keyed ``after``, and the key to pass for the next page (None at the end)."""
        waiting = [r for r in self._lobby() if after is None or (r.created_at, r.code) < after]
        waiting.sort(key=lambda r: (r.created_at, r.code), reverse=True)
        page = waiting if limit is None else waiting[:limit]
        more = limit is not None and len(waiting) > limit
        return [r.summary() for r in page], ((page[-1].created_at, page[-1].code) if more else None)

    def lobby_rows(self) -> list[dict]:
        """This node's part of the shared lobby: ``list_public`` with each table's creation time."""
        now, wall = time.monotonic(), time.time()
        return [{**r.summary(), "created": wall - (now - r.created_at)} for r in self._lobby()]

    def _lobby(self) -> list[Room]:
        """The public rooms that wait for players and have a seat free."""
        return [
            r
            for r in self.rooms.values()
            if not r.private
            and r.status == "waiting"
            and not r.closed
            and any(s.player_id is None and not s.bot for s in r.seats)
        ]

    def seated(self) -> dict[str, str]:
        """Who has a socket open at one of this node's tables: ``{player_id: table code}``."""
        return seated_at(self.rooms.values())


def seated_at(rooms: Iterable[Room]) -> dict[str, str]:
    """``{player_id: table code}`` of everyone with a socket open at one of ``rooms`` (open ones)."""
    out: dict[str, str] = {}
    for room in rooms:
        if not room.closed:
            for seat in room.seats:
                if seat.player_id and seat.connections > 0:
                    out.setdefault(seat.player_id, room.code)
    return out
