"""A claim at the table: a seated player claims every remaining trick of the hand for their
side, and the room plays the hand out at once when the claim is certain.

The rules (server/rules/claims.py) prove it with every hand open; the room only asks, under
its lock: in a game without claims the answer is ``not_supported``; outside trick play, or
when the claim is not certain, ``claim_refused`` with the same sentence whatever the hands
hold, and nothing changes. A certain claim is told to the table as a chat line of its own
(``event: "claim"``, "Ana claimed the rest"), then the hand is finished along the winning
line, one ordinary ``act`` entry per card by the seat that plays it, through ``play``: the
log, the replay and the score sheet show every card as if it had been played by hand.
Bots never claim.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from server.rooms.connection import Connection
from server.rooms.errors import RoomError
from server.rooms.seats import utcnow
from server.rules.claims import winning_line

if TYPE_CHECKING:
    from server.rooms.table import Table

REFUSED = "Not every remaining trick is certain to be yours: play on."
NOT_NOW = "A claim is made while the tricks are being played."


@dataclass(slots=True)
class TableClaims:
    """A room's ``claim``: made under the room's lock, its chat line through the room's
    ``submit``, its cards through the room's ``play`` (the room's lock, table and both
    functions are all it is given)."""

    lock: asyncio.Lock
    table: Table
    submit: Callable[[str, dict], None]
    play: Callable[[int, dict], None]

    async def claim(self, conn: Connection) -> None:
        """``conn``'s player claims the rest of the hand's tricks for their side."""
        async with self.lock:
            table = self.table
            seat = table.check_act(conn.player_id)
            game = table.game
            if not game.claims:
                raise RoomError("not_supported", f"{game.title} has no tricks to claim.")
            if game.trick_play(table.state) is None:
                raise RoomError("claim_refused", NOT_NOW)
            line = winning_line(game, table.state, seat)
            if line is None:
                raise RoomError("claim_refused", REFUSED)
            name = table.seats[seat].name or f"Seat {seat + 1}"
            at = utcnow().isoformat(timespec="seconds")
            self.submit(
                "chat", {"seat": seat, "name": name, "text": f"{name} claimed the rest", "at": at, "event": "claim"}
            )
            for player, action in line:
                self.play(player, action)
