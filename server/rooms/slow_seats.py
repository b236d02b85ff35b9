"""The cap of slow seats a player may have (``max_slow_tables_per_player``), counted alone or
across the nodes of a cluster (docs/decisions/0026-slow-cap-held-in-redis.md).

A player's slow tables are counted in the store and in memory here
(``server.rooms.slow_clocks.slow_seats_of``). The room manager counts a player's requests one
after the other (a lock per player) and holds the lock until the body has seated them, so in
one process the count and the seat are one step: ``held_alone`` needs nothing more.

In a cluster two nodes may count the same seats at the same moment and both seat the player.
``ClusterSlowSeats`` therefore holds every slow seat asked for in Redis, from the count until
the store has the seat: a script (``server.cluster.holds.HOLD_SLOW``) counts the seats the store and
this node see together with every node's live holds, and adds the new hold only under the cap,
in one step that Redis runs alone. Of two nodes asking at once the second finds the first's
hold and refuses.

- A hold is given back when the body seats nobody at its table (refused, a request the host
  answers later, a seat taken meanwhile), and once the seat's entry is durable: the store
  counts the seat from then on, and a count read before then is sent back by the script to
  count again (the holds given back are counted, and each caller names the count it read
  before it asked the store).
- Nothing drifts: while the write waits the hold is renewed; a hold its node no longer renews
  (the node died, Redis was unreachable, the table moved away) runs out after
  ``slow_seat_hold_ms``, and by then whatever the dead node wrote is in the store.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Protocol

from server.rooms.errors import RoomError

if TYPE_CHECKING:
    from server.cluster import Cluster
    from server.config import Settings
    from server.rooms.room import Room

log = logging.getLogger("felt.rooms")

SlowCount = Callable[[], Awaitable[set[str]]]  # a player's slow tables, from the store and memory here
SHARED_DOWN = RoomError("unavailable", "The cluster's shared store is not reachable; try again in a moment.", 503)
RECOUNTS = 20  # counts again after a hold was given back, before the client is told to try again


def too_many_slow(cap: int) -> RoomError:
    return RoomError(
        "too_many_slow_tables", f"You already sit at {cap} slow tables, the most a player may; leave one first.", 409
    )


@asynccontextmanager
async def held_alone(cap: int, count: SlowCount) -> AsyncIterator[None]:
    """One process: counted under the player's lock, which is held until the body is done."""
    if len(await count()) >= cap:
        raise too_many_slow(cap)
    yield


class Rooms(Protocol):
    """The rooms in memory here (``server.rooms.manager.RoomManager``)."""

    @property
    def settings(self) -> Settings: ...

    def get(self, code: str) -> Room | None: ...


class ClusterSlowSeats:
    """A node's slow-seat holds in Redis (see the module docstring)."""

    def __init__(self, rooms: Rooms, cluster: Cluster, letting_go: Callable[[str], bool]) -> None:
        self.rooms = rooms
        self.cluster = cluster
        self.letting_go = letting_go  # the directory's: the table must log nothing more here

    @asynccontextmanager
    async def hold(self, player_id: str, code: str, count: SlowCount) -> AsyncIterator[None]:
        """Hold a seat of ``player_id`` at ``code`` (else raise ``too_many_slow_tables``) while
        the body seats them, then until the store has the seat; given back at once if the body
        seated nobody there."""
        settings = self.rooms.settings
        ttl = settings.slow_seat_hold_ms
        await self._take(player_id, code, count, settings.max_slow_tables_per_player, ttl)
        try:
            yield
        finally:
            room = self.rooms.get(code)
            if room is not None and room.seat_of(player_id) is not None:
                self.cluster.spawn(self._keep_until_durable(player_id, room, room.version, ttl))
            else:
                self.cluster.spawn(self._give_back(player_id, code, ttl))

    async def _take(self, player_id: str, code: str, count: SlowCount, cap: int, ttl: int) -> None:
        """Count the player's slow seats and hold one at ``code``: the count of holds given back
        is read before the store is asked, and a hold given back after that reading (its seat
        may be in the store now, after the reading) makes the script ask for a fresh count."""
        holds = self.cluster.slow
        for _ in range(RECOUNTS):
            try:
                given_back = await holds.given_back(player_id)
                counted = await count()
                if len(counted) >= cap:
                    raise too_many_slow(cap)
                held = await holds.hold(player_id, code, cap, counted, given_back, ttl)
            except RoomError:
                raise
            except Exception as exc:  # noqa: BLE001 - Redis unreachable (whatever it raises): no seat is given
                log.warning("could not count the slow seats of a player in the cluster: %s", exc)
                raise SHARED_DOWN from None
            if held == 1:
                return
            if held == 0:
                raise too_many_slow(cap)
        raise SHARED_DOWN  # given back again and again meanwhile: the client tries again in a moment

    async def _give_back(self, player_id: str, code: str, ttl: int) -> None:
        try:
            await self.cluster.slow.give_back(player_id, code, ttl)
        except Exception as exc:  # noqa: BLE001 - Redis unreachable: the hold runs out by itself
            log.warning("could not give back a slow-seat hold of table %s: %s", code, exc)

    async def _keep_until_durable(self, player_id: str, room: Any, version: int, ttl: int) -> None:
        """Give the hold back once the seat's entry is durable, renewing it while the write
        waits. A table let go meanwhile keeps its hold until it runs out: whether the entry was
        written is then for the store to say."""
        try:
            while not await room.delivery.until_durable(version, ttl / 3000):
                if room.closed or self.letting_go(room.code):
                    return
                if not await self.cluster.slow.keep(player_id, room.code, ttl):
                    return
        except Exception as exc:  # noqa: BLE001 - Redis unreachable: the hold runs out by itself
            log.warning("could not renew a slow-seat hold of table %s: %s", room.code, exc)
            return
        await self._give_back(player_id, room.code, ttl)
