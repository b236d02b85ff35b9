"""What a good card room gives a player at the table: taking their last action back, choosing
their next card before their turn, and having a forced card played for them.

- ``undo``: the seat whose action was the table's last asks to take it back (the checks and the
  fold are the table's: server/rooms/take_backs.py). With the room's ``undo`` option ``"free"``,
  or when the next seat to act is a bot (bots agree) or the asker, it is taken back at once (an
  ``undo`` entry); with ``"ask"`` the next seat to act is asked (``undo_ask``) and answers with
  ``undo_answer``: yes takes it back, no (or any action) ends the request.
- ``preselect``: a seat's card chosen ahead (a ``preselect`` entry). After every change that
  may move the turn, a seat to act whose chosen card may be played plays it at once, as its own
  action through ``play``; nobody is told it is their turn for a turn played so.
- ``prefs``: the player's own settings, kept with the player by the edge that stores them
  (``autoplay_forced``); the room puts them on the player's connections and shows them in the
  next version. A seat to act whose player has ``autoplay_forced`` and exactly one legal card
  has it played by the room's ``Autoplay`` after a random pause (``FORCED_PAUSE_S``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from server.rooms.connection import Connection

if TYPE_CHECKING:
    from server.rooms.table import Table

Force = Callable[[int, Any, dict], None]
"""Play a seat's only legal card for its player after a pause (``Autoplay.force`` for the room)."""


@dataclass(slots=True)
class Courtesies:
    """A room's take-backs, chosen cards and forced cards: made under the room's lock through
    the room's ``submit`` and ``play``, forced cards handed to the room's autoplay (``force``);
    it reads the room's table and connections."""

    lock: asyncio.Lock
    table: Table
    connections: list[Connection]
    submit: Callable[[str, dict], None]
    play: Callable[[int, dict], None]
    force: Force

    async def undo(self, conn: Connection) -> None:
        async with self.lock:
            table = self.table
            seat = table.check_undo(conn.player_id)
            asked = table.undo_answerer(seat)
            if asked is None:
                self.submit("undo", {"seat": seat})
            else:
                self.submit("undo_ask", {"seat": asked, "by": seat})

    async def undo_answer(self, conn: Connection, accept: bool) -> None:
        async with self.lock:
            asked = self.table.check_undo_answer(conn.player_id)
            if accept:
                self.submit("undo", {"seat": asked["by"]})
            else:
                self.submit("undo_ask", {})

    async def preselect(self, conn: Connection, card: str | None) -> None:
        async with self.lock:
            seat = self.table.check_preselect(conn.player_id, card)
            self.submit("preselect", {"seat": seat, "card": card})
            self.play_preselected()

    async def set_prefs(self, player_id: str, prefs: dict) -> None:
        """The player's settings changed (already stored): their connections show them now."""
        async with self.lock:
            shown = dict(prefs)
            for conn in self.connections:
                if conn.player_id == player_id:
                    conn.prefs = shown
            self.submit("seen", {})
            self.forced_plays()  # switched on at a forced turn: it is played too

    def play_preselected(self) -> bool:
        """Play the chosen card of a seat to act that may play it (under the lock); True if
        one was played (its own entry then told whoever is to act next)."""
        due = self.table.preselect_due()
        if due is None:
            return False
        seat, action = due
        self.play(seat, action)
        return True

    def forced_plays(self) -> None:
        """Each person to act whose player has ``autoplay_forced`` and one legal card: the
        room's autoplay plays it after its pause (under the lock, after a change)."""
        table = self.table
        for seat in table.people_to_act():
            player_id = table.seats[seat].player_id
            if not any(c.player_id == player_id and (c.prefs or {}).get("autoplay_forced") for c in self.connections):
                continue
            legal = table.game.legal_actions(table.state, seat)
            if len(legal) == 1 and legal[0].get("type") == "play":
                self.force(seat, table.state, legal[0])
