"""Cluster mode: this node's share of what Redis keeps for every node (docs/scaling.md).

With ``FELT_REDIS_URL`` set, several Felt nodes share one PostgreSQL and one Redis. ``Cluster``
is this node; each of its parts has one job:

- **Leases** (``leases.py``). A node runs a table only while it holds the table's lease,
  trusted by the node's own clock; the table log's unique (table, version) key fences a node
  that lost it.
- **Handover** (``bus.py``). The balancer sends every socket of a table to one node
  (consistent hashing of the code). A node asked for a table another live node holds
  publishes ``handover`` on that node's channel; the holder parks the table (logged,
  durable), closes its sockets with 1012 (the clients reconnect through the balancer) and
  releases the lease; the asking node then takes the lease and restores the table from its
  log. A dead holder's lease simply expires.
- **Players** (``bus.py``). Every node listens on ``<prefix>players``: a revoked device is
  forgotten and its sockets closed on every node, and a renamed player is looked up again
  (server/players.py).
- **Lobby** (``lobby.py``). Every node publishes its public waiting tables; any node lists all
  of them.
- **Presence** (``presence.py``). Who sits at a table on any node, and who had a group page
  open lately.
- **Limits.** A host's open tables, capped across nodes (``hosts.py``); a player's slow seats
  held until the store has them (``holds.py``); the per-address rate limits (``rates.py``).
- **Turns.** The node holding a fast table marks in ``<prefix>turns:<player>`` (table -> its
  lease value and the turn's deadline) the tables awaiting that player, written only when the
  turn changes hands; a mark counts while the lease holds that value, so "Your tables" asked
  through any node shows the turn (server/rooms/turn_marks.py).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Awaitable, Callable
from typing import Protocol

from redis import asyncio as aioredis
from redis.exceptions import RedisError

from server.cluster.bus import Bus
from server.cluster.holds import HOLD_SLOW, SlowSeatHolds
from server.cluster.hosts import HostReservations
from server.cluster.leases import RENEW_CHUNK, Leases
from server.cluster.link import Link, cancel_all
from server.cluster.lobby import Lobby
from server.cluster.presence import Presence
from server.cluster.rates import SharedRateLimiter
from server.config import Settings

__all__ = [
    "HOLD_SLOW",
    "RENEW_CHUNK",
    "Cluster",
    "ClusterMember",
    "HostReservations",
    "Leases",
    "Link",
    "Lobby",
    "Presence",
    "SharedRateLimiter",
    "SlowSeatHolds",
    "default_node_id",
]

log = logging.getLogger("felt.cluster")


def default_node_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


class ClusterMember(Protocol):
    """What the cluster tells this node's rooms (``server.rooms.directory.ClusterDirectory``)."""

    def lost(self, code: str) -> None:
        """This node lost the lease of table ``code``."""

    async def hand_over(self, code: str) -> None:
        """Another node was asked for table ``code``: let it go."""

    def lobby_rows(self) -> list[dict]:
        """This node's public waiting tables, with their creation's wall-clock time."""

    def seated(self) -> dict[str, str]:
        """Who has a socket open at one of this node's tables: ``{player_id: table code}``."""


class Cluster:
    """This node of a cluster: its parts (``leases``, ``bus``, ``lobby``, ``presence``,
    ``hosts``, ``slow``) on one Redis ``link`` (which counts the commands they send), started
    and stopped together."""

    def __init__(self, settings: Settings, client: aioredis.Redis | None = None) -> None:
        assert settings.redis_url, "cluster mode needs FELT_REDIS_URL"
        self.settings = settings
        self.node = settings.node_id or default_node_id()
        self.prefix = settings.redis_prefix
        # A burst (tables opened together, a reconnect storm) may want more connections than
        # the pool holds: the blocking pool makes a command wait for one, where redis-py's
        # default pool raises at once and the request behind it fails with 503.
        if client is None:
            pool = aioredis.BlockingConnectionPool.from_url(
                settings.redis_url, max_connections=settings.redis_connections, timeout=settings.redis_wait_s
            )
            client = aioredis.Redis.from_pool(pool)  # closing the client closes its pool
        self.redis = client
        self.link = Link(self.redis, self.node, self.prefix)
        self.bus = Bus(self.link)
        self.leases = Leases(self.link, settings.lease_ms, self.bus.ask_handover)
        self.lobby = Lobby(self.link, settings.lobby_publish_s)
        self.presence = Presence(self.link, settings.lobby_publish_s)
        self.hosts = HostReservations(self.link)
        self.slow = SlowSeatHolds(self.link)
        self._tasks: list[asyncio.Task] = []

    def spawn(self, coro: Awaitable) -> None:
        """Run ``coro`` in the background (cancelled when the node closes)."""
        self.link.spawn(coro)

    def attach(self, member: ClusterMember) -> None:
        """The rooms this node serves: told of lost leases and handovers, asked for the lobby
        and who sits at its tables."""
        self.leases.on_lost = member.lost
        self.bus.on_handover = member.hand_over
        self.lobby.rows = member.lobby_rows
        self.presence.seated_here = member.seated

    def attend_players(self, handler: Callable[[str, list[str]], Awaitable[None]]) -> None:
        """Who hears of a player's revoked device or new name (server/players.py)."""
        self.bus.on_players = handler

    async def start(self) -> None:
        await self.redis.ping()
        await self.leases.load_script()
        loop = asyncio.get_running_loop()
        await self.bus.subscribe()
        self._tasks = [
            loop.create_task(self.leases.renew_forever()),
            loop.create_task(self._publish_forever()),
            loop.create_task(self.bus.listen()),
        ]
        log.warning(
            "cluster node %s: leases of %d ms in Redis (prefix %r)", self.node, self.leases.lease_ms, self.prefix
        )

    async def _publish_forever(self) -> None:
        while not self.link.closing:
            try:
                await self.lobby.publish()
                await self.presence.publish_seated()
            except Exception as exc:  # noqa: BLE001 - the publisher never dies: it tries on the next round
                log.warning("could not publish this node's lobby: %s", exc)
            await asyncio.sleep(self.settings.lobby_publish_s)

    async def release_all(self) -> None:
        """A stopping node lets go of every table at once, so others need not wait for expiry."""
        await self.leases.release_all()
        await self.redis.delete(self.lobby.key(self.node), self.presence.key(self.node))

    async def close(self) -> None:
        self.link.closing = True
        await cancel_all([*self._tasks, *self.link.background()])
        try:
            async with asyncio.timeout(10):  # a stop never waits on Redis for longer
                await self.release_all()
                await self.bus.close()
        except (RedisError, OSError, TimeoutError):  # Redis gone or stuck: the leases expire by themselves
            log.warning("could not release this node's leases; they expire in %d ms", self.leases.lease_ms)
        await self.redis.aclose()
