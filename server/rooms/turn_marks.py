"""Whose turn it is at the fast tables of a cluster, for "Your tables" asked through any node
(docs/decisions/0028-fast-turns-across-nodes.md).

A slow table's turn is in its stored row (decision 0020); a fast table's (no clock, or a clock
of seconds) only in the memory of the node that holds it. ``TurnMarks`` lets that node tell the
others: a hash ``<prefix>turns:<player>`` (table -> the table's lease value and the turn's
deadline), a field set when the turn reaches the player and removed when it leaves them, the
match ends or the table leaves this node.

- Written only when a table's awaited people (or their deadline) change, never per move
  otherwise, one writer a node so the changes reach Redis in the order they were made.
- A mark counts only while the table's lease still holds the value it names: a node that died
  or handed the table over leaves marks that no reader believes (the lease ran out or was
  taken anew), and the next holder writes the table's marks afresh when it restores it.
- Redis unreachable: the change is logged and dropped; the table never waits on it. The flag is
  then missing, until the next change of the turn writes the whole of the table's marks again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from server.rooms.table import awaits
from server.rooms.timer import is_slow

if TYPE_CHECKING:
    from server.cluster import Cluster
    from server.rooms.room import Room

log = logging.getLogger("felt.rooms")

Awaited = dict[str, int | None]  # player -> the turn's deadline (Unix ms), None without a clock
KEEP_MS = 30 * 86_400_000  # a player's hash outlives its last change this long (garbage, not truth)
# Remove the mark of table ARGV[1] from a player's hash only if it is still ARGV[2].
UNMARK = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return redis.call('HDEL', KEYS[1], ARGV[1]) end
return 0
"""


def awaited(room: Room) -> Awaited:
    """The people the fast table in ``room`` waits for now (never a bot's seat nor an away
    one: as "Your tables" reads a table held here), with the turn's deadline."""
    table = room.table
    if is_slow(table.clock.seconds):
        return {}
    deadline = table.clock.deadline
    return {
        seat.player_id: deadline
        for seat in table.seats
        if seat.player_id is not None and not seat.bot and not seat.away and awaits(table, seat.player_id)
    }


def everyone(room: Room) -> set[str]:
    return {s.player_id for s in room.table.seats if s.player_id is not None}


class TurnMarks:
    """This node's marks of the turns at the fast tables it holds, and every node's read."""

    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster
        self._want: dict[str, Awaited] = {}  # table -> what Redis should say
        self._written: dict[str, dict[str, str | None]] = {}  # table -> the marks this node wrote (None: unknown)
        self._unmark = cluster.redis.register_script(UNMARK)
        self._dirty: set[str] = set()
        self._writing = False

    @property
    def writing(self) -> bool:
        """Changes are on their way to Redis."""
        return self._writing

    def key(self, player_id: str) -> str:
        return f"{self.cluster.prefix}turns:{player_id}"

    def follow(self, code: str, now: Awaited) -> None:
        """The turn at table ``code`` may have moved (``now``: who it awaits): its marks follow
        if it did."""
        self._set(code, now)

    def taken(self, code: str, seated: set[str], now: Awaited) -> None:
        """This node took table ``code`` anew: whatever Redis holds of its ``seated`` players is
        written over (an earlier holder's marks, or this node's own of an earlier acquisition)."""
        self._written[code] = dict.fromkeys(seated)
        self._set(code, now, force=True)

    def gone(self, code: str) -> None:
        """The match ended or the table left this node: nobody is awaited here any more."""
        self._set(code, {})

    def _set(self, code: str, want: Awaited, force: bool = False) -> None:
        if self._want.get(code, {}) == want and not force:
            return
        if want:
            self._want[code] = want
        else:
            self._want.pop(code, None)
        self._dirty.add(code)
        if not self._writing:
            self._writing = True
            self.cluster.spawn(self._write())

    async def _write(self) -> None:
        try:
            await self._write_dirty()
        finally:
            self._writing = False

    async def _write_dirty(self) -> None:
        while self._dirty:
            code = self._dirty.pop()
            want, had = dict(self._want.get(code, {})), self._written.get(code, {})
            lease = self.cluster.leases.lease_value(code)
            values = {p: f"{lease}|{'' if d is None else d}" for p, d in want.items()} if lease else {}
            if values == had:
                continue
            try:
                await self._send(code, values, had)
            except Exception as exc:  # noqa: BLE001 - Redis unreachable (whatever it raises): never a table's concern
                log.warning("could not mark the turn at table %s in the cluster: %s", code, exc)
                continue
            if values:
                self._written[code] = {**values}
            else:
                self._written.pop(code, None)

    async def _send(self, code: str, values: dict[str, str], had: dict[str, str | None]) -> None:
        """Set the marks ``values``, remove the others this node wrote (only if still its own:
        a later holder's mark stays) or may have (``None``: whatever is there)."""
        async with self.cluster.redis.pipeline(transaction=False) as pipe:
            for player, value in had.items():
                if player in values:
                    continue
                if value is None:
                    pipe.hdel(self.key(player), code)
                else:
                    await self._unmark(keys=[self.key(player)], args=[code, value], client=pipe)
            for player, value in values.items():
                if had.get(player) != value:
                    pipe.hset(self.key(player), code, value)
                    pipe.pexpire(self.key(player), KEEP_MS)
            self.cluster.link.ops += len(pipe)
            await pipe.execute()

    async def of(self, player_id: str) -> Awaited:
        """The fast tables whose turn awaits ``player_id`` on any node (marks whose lease still
        holds), with the turn's deadline. Raises what Redis raises."""
        marks = await self.cluster.redis.hgetall(self.key(player_id))
        if not marks:
            return {}
        pairs = [(_text(c), _text(v)) for c, v in marks.items()]
        leases = await self.cluster.redis.mget([self.cluster.leases.key(c) for c, _ in pairs])
        found: Awaited = {}
        for (code, mark), lease in zip(pairs, leases, strict=True):
            held, _, deadline = mark.rpartition("|")
            if lease is not None and _text(lease) == held:
                found[code] = int(deadline) if deadline else None
        return found


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
