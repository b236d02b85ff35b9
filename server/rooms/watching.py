"""Watchers the table chooses: who may watch without a seat, and how far behind they are kept.

Two room options, chosen when the table is opened (its ``created`` entry) and kept by "Play
again":

- ``watchers``: ``"everyone"`` (anyone with the link), ``"members"`` (a group's table: the
  group's members; any other table: only its players' own other tabs), ``"nobody"``. A socket
  with a seat, or a right to take one (``Table.may_sit``), is never refused; the edge asks
  the rest (``admits``) and refuses with ``no_watchers``; when the match starts, the sockets
  left without a seat that the option refuses outright are sent away the same way
  (``send_away``; a group's members were checked when they came in).
- ``watch_delay``: ``"none"``, ``"trick"`` or ``"hand"``. While the match is played, a
  socket without a seat is shown the game as it stood at the last point the game calls a
  trick (or hand) boundary (``Game.watch_point``): ``Watching`` keeps that one state,
  follows the table's state after every entry, and builds the watchers' view from it. The
  fan-out diffs each watcher against that delayed view, so no watcher's frame can carry a
  card of the unfinished trick (or hand) sooner. The room, seats and chat stay live, except
  the room's ``clock_played`` (the action the turn clock just played), which watchers are not
  shown while delayed. Once the match is over watchers see everything.

Memory: one more state reference per table (the states are immutable and share their parts)
and the public view built from it, kept while the state stays the same.
"""

from __future__ import annotations

import asyncio
from typing import Any

from server.rooms.errors import RoomError
from server.rooms.messages import error_frame

WATCHERS = ("everyone", "members", "nobody")
WATCH_DELAYS = ("none", "trick", "hand")
SENT_AWAY = "no watchers"  # the close reason of a watcher sent away at the start


def watch_options(watchers: object, watch_delay: object) -> dict:
    """The two options as the ``created`` entry keeps them, or the RoomError naming a bad one."""
    if watchers not in WATCHERS:
        raise RoomError("bad_options", f"watchers must be one of {', '.join(WATCHERS)}.", 400)
    if watch_delay not in WATCH_DELAYS:
        raise RoomError("bad_options", f"watch_delay must be one of {', '.join(WATCH_DELAYS)}.", 400)
    return {"watchers": watchers, "watch_delay": watch_delay}


class Watching:
    """A table's watcher options and, with a delay, the state its watchers are shown."""

    __slots__ = ("_built_from", "_clock_masked", "_room_from", "_view", "delay", "group", "state", "watchers")

    def __init__(self, watchers: str = "everyone", delay: str = "none", group: str | None = None) -> None:
        self.watchers = watchers
        self.delay = delay
        self.group = group  # the group whose table this is (its members may watch), or None
        self.state: Any = None  # the latest state at a boundary of ``delay``
        self._built_from: Any = None
        self._view: dict | None = None
        self._room_from: dict | None = None
        self._clock_masked: dict | None = None

    @classmethod
    def of(cls, created: dict) -> Watching:
        return cls(created.get("watchers", "everyone"), created.get("watch_delay", "none"), created.get("group"))

    def follow(self, game: Any, state: Any) -> None:
        """The table's state after an entry: kept for watchers when it stands at a boundary."""
        moved = self.delay != "none" and state is not None and state is not self.state
        if moved and game.watch_point(state, self.delay):
            self.state = state

    def delays(self, status: str) -> bool:
        """Whether watchers are kept behind now (only while a match is played)."""
        return self.delay != "none" and status == "playing" and self.state is not None

    def game_view(self, game: Any) -> dict:
        """The watchers' game view: the public view of the kept state, built once per state."""
        if self._built_from is not self.state:
            self._view = game.view(self.state, None)
            self._built_from = self.state
        assert self._view is not None
        return self._view

    def room_part(self, room: dict) -> dict:
        """The room part a delayed watcher is shown: the clock's last play left out (one
        object per room part, so the differ still skips it by identity)."""
        if room.get("clock_played") is None:
            return room
        if self._room_from is not room:
            self._clock_masked = {**room, "clock_played": None}
            self._room_from = room
        assert self._clock_masked is not None
        return self._clock_masked

    def admits(self, member: bool) -> bool:
        """Whether a socket with no seat and no right to sit may watch (``member``: its player
        belongs to the table's group)."""
        if self.watchers == "everyone":
            return True
        return self.watchers == "members" and self.group is not None and member

    def refusal(self) -> RoomError:
        if self.watchers == "nobody":
            return RoomError("no_watchers", "This table takes no watchers: only its players may open it.", 403)
        return RoomError("no_watchers", "Only this table's players (and its group's members) may watch it.", 403)


def send_away(table: Any, connections: list) -> None:
    """The match starts: close the sockets without a seat that the table's ``watchers`` refuse
    outright (``"nobody"``, or ``"members"`` at a table of no group), each told why first."""
    watching: Watching = table.watching
    if watching.admits(member=True):
        return
    refusal = watching.refusal()
    for conn in list(connections):
        if table.seat_of(conn.player_id) is None and not conn.closed:
            conn.push(error_frame(refusal.code, refusal.message))
            asyncio.get_running_loop().create_task(conn.closer(1008, SENT_AWAY))
