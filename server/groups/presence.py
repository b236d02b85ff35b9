"""Who of a group is online now: at a table, or on the group's page lately.

A member counts as online while one of their sockets is open at a table (and then we say
which table), or for ``PAGE_ONLINE_S`` after the group's page last asked for the group.
``Presence`` sees this process's rooms and remembers page visits in memory (one process);
``SharedPresence`` asks Redis, where every node of a cluster keeps who sits at its tables and
each page visit sets an expiring key (server/cluster/presence.py), so any node answers for all.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

PAGE_ONLINE_S = 45.0
_SEEN_MAX = 50_000


def _answer(members: Iterable[str], seated: dict[str, str], seen: set[str]) -> dict[str, dict[str, Any]]:
    return {pid: {"online": pid in seated or pid in seen, "table": seated.get(pid)} for pid in members}


class Presence:
    """Remembers when each player last had a group's page open (in memory, bounded)."""

    def __init__(self, rooms: Any = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.rooms = rooms  # the process's RoomManager (None: no tables)
        self.clock = clock
        self.seen: dict[str, float] = {}

    async def saw(self, player_id: str) -> None:
        if len(self.seen) >= _SEEN_MAX:
            self.seen.clear()
        self.seen[player_id] = self.clock()

    async def online(self, member_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        """``{player_id: {"online", "table"}}`` for every member."""
        members = list(member_ids)
        everyone = {} if self.rooms is None else self.rooms.seated()
        now = self.clock()
        seen = {p for p in members if now - self.seen.get(p, -PAGE_ONLINE_S * 2) < PAGE_ONLINE_S}
        return _answer(members, {p: everyone[p] for p in members if p in everyone}, seen)


class PresenceStore(Protocol):
    async def saw(self, player_id: str, for_ms: int) -> None: ...

    async def of(self, player_ids: list[str]) -> tuple[dict[str, str], set[str]]: ...


class SharedPresence:
    """The cluster's presence: page visits and seated players of every node, in Redis."""

    def __init__(self, store: PresenceStore) -> None:
        self.store = store

    async def saw(self, player_id: str) -> None:
        await self.store.saw(player_id, int(PAGE_ONLINE_S * 1000))

    async def online(self, member_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
        members = list(member_ids)
        seated, seen = await self.store.of(members)
        return _answer(members, seated, seen)


def presence_of(rooms: Any) -> Presence | SharedPresence:
    """The presence that sees every table: ``rooms``' alone in one process, every node's
    through Redis when ``rooms`` is one node of a cluster (``rooms`` None: no tables)."""
    shared = None if rooms is None else rooms.cluster
    return Presence(rooms) if shared is None else SharedPresence(shared.presence)
