"""A person in a bot's seat during play: a player who left takes their seat back, a late
friend takes a bot's seat (at once where the table says anyone may, else as a request the host
answers), and a spectator asks to sit at "Play again". Each is one log entry (``take``,
``ask_seat``, ``join_next``) that ``Table.apply`` folds, checked first by ``TableChecks``.
A player whose seat a bot plays while they are away sits in it again ("I'm back"); one who
followed "Play again" here sits, as they come, in the seat they had if it is free. A seat at
a slow table counts against the player's cap of slow tables (``max_slow_tables_per_player``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from server.rooms.connection import Connection
from server.rooms.errors import RoomError
from server.rooms.host import Host

if TYPE_CHECKING:
    from server.rooms.table import Table


@dataclass(slots=True)
class SeatTakeover:
    """A room's requests for a bot's seat: made under the room's lock through the room's
    ``submit``; a slow seat counted by the room's ``Host``; a player back in their seat shown
    by the room's ``seen``, their turn given afresh by the room's clock (``arm_clock``)."""

    code: str
    lock: asyncio.Lock
    table: Table
    host: Host
    submit: Callable[[str, dict], None]
    seen: Callable[[int], None]
    arm_clock: Callable[[], None]

    @asynccontextmanager
    async def slow_seat(self, player_id: str | None) -> AsyncIterator[None]:
        """At a slow table, a player not seated here yet must have a slow seat to spare,
        counted until the body (which seats them) is done (``Host.slow_seat``): two requests
        of theirs at once, on this node or on two, cannot both pass. Taken before the room's
        lock, never inside it."""
        if not (self.table.clock.slow and player_id is not None and self.table.seat_of(player_id) is None):
            yield
            return
        async with self.host.slow_seat(player_id, self.code):
            yield

    @asynccontextmanager
    async def following(self, player_id: str | None) -> AsyncIterator[bool]:
        """Whether a player who followed "Play again" to this table is seated as they come (the
        body seats them): at a slow table only with a slow seat to spare, counted as
        ``slow_seat`` counts (else they watch, and may sit later)."""
        if player_id is None or self.table.status != "waiting" or player_id not in self.table.follow_seats:
            yield False
            return
        if not self.table.clock.slow or self.table.seat_of(player_id) is not None:
            yield True
            return
        async with AsyncExitStack() as held:
            try:
                await held.enter_async_context(self.host.slow_seat(player_id, self.code))
            except RoomError:
                spare = False
            else:
                spare = True
            yield spare

    def seat_follower(self, conn: Connection) -> None:
        """Seat a player who followed "Play again" in the seat they had, if it is still free."""
        assert conn.player_id is not None  # a follower is a player (the room's ``join`` asks only then)
        index = self.table.follow_seats[conn.player_id]
        seat = self.table.seats[index]
        if self.table.seat_of(conn.player_id) is None and seat.player_id is None and not seat.bot:
            self.submit("sit", {"seat": index, "player_id": conn.player_id, "name": conn.name})

    def back_in_seat(self, conn: Connection, seat_index: object) -> bool:
        """A player whose seat a bot plays (missed turns) sits in it again: "I'm back"."""
        table = self.table
        current = table.seat_of(conn.player_id)
        if table.status != "playing" or current is None or seat_index != current:
            return False
        seat = table.seats[current]
        if not seat.away:
            raise RoomError("seat_taken", "You are already playing in that seat.")
        table.set_away(seat.index, False)
        table.person_acted(seat.index)
        self.arm_clock()
        self.seen(seat.index)
        return True

    async def reclaim(self, conn: Connection) -> None:
        """A player who left this match takes their seat back from the bot that kept it (at a
        slow table, with a slow seat to spare: the seat they left was no longer counted)."""
        async with self.slow_seat(conn.player_id), self.lock:
            seat = self.table.check_reclaim(conn.player_id)
            self.submit("take", {"seat": seat, "player_id": conn.player_id, "name": conn.name})

    async def take_seat(self, conn: Connection, seat_index: int) -> None:
        """A spectator takes a bot's seat for the rest of the match: at once where the table
        says anyone may (``open_bot_seats``), else as a request the host answers."""
        async with self.slow_seat(conn.player_id), self.lock:
            self.table.check_take(conn.player_id, seat_index)
            kind = "take" if self.table.open_bot_seats else "ask_seat"
            self.submit(kind, {"seat": seat_index, "player_id": conn.player_id, "name": conn.name})

    async def allow_seat(self, conn: Connection, asker: str, allow: bool) -> None:
        """The host answers a request for a bot's seat: yes seats the asker there, no drops it."""
        async with self.slow_seat(asker if allow else None), self.lock:
            request = self.table.check_allow(conn.player_id, asker)
            if allow:
                self.table.check_take(asker, request["seat"])
                self.submit("take", {"seat": request["seat"], "player_id": asker, "name": request["name"]})
            else:
                self.submit("ask_seat", {"player_id": asker, "remove": True})

    async def join_next(self, conn: Connection) -> None:
        """A spectator asks to be seated at this table's "Play again" (in a bot's seat)."""
        async with self.lock:
            self.table.check_join_next(conn.player_id)
            if conn.player_id not in self.table.joining:
                self.submit("join_next", {"player_id": conn.player_id, "name": conn.name})
