"""Who of a group is online now: at a table of this process, or on the group's page lately.

A member counts as online while one of their sockets is open at a table in this process's
rooms (and then we say which table), or for ``PAGE_ONLINE_S`` after the group's page last
asked for the group. In cluster mode this sees the tables and page visits of this node only.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

PAGE_ONLINE_S = 45.0
_SEEN_MAX = 50_000


class Presence:
    """Remembers when each player last had a group's page open (in memory, bounded)."""

    def __init__(self, clock=time.monotonic) -> None:
        self.clock = clock
        self.seen: dict[str, float] = {}

    def saw(self, player_id: str) -> None:
        if len(self.seen) >= _SEEN_MAX:
            self.seen.clear()
        self.seen[player_id] = self.clock()

    def online(self, rooms: Iterable[Any], member_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """``{player_id: {"online", "table"}}`` for every member."""
        members = set(member_ids)
        at_table: dict[str, str] = {}
        for room in rooms:
            for seat in room.seats:
                if seat.player_id in members and seat.connections > 0 and not getattr(room, "closed", False):
                    at_table.setdefault(seat.player_id, room.code)
        now = self.clock()
        return {
            pid: {
                "online": pid in at_table or now - self.seen.get(pid, -PAGE_ONLINE_S * 2) < PAGE_ONLINE_S,
                "table": at_table.get(pid),
            }
            for pid in members
        }
