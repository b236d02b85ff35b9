"""Who is online on any node: who sits at a table, who had a group page open lately."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from redis.exceptions import RedisError

from server.cluster.link import Link
from server.cluster.lobby import published_ttl_ms

log = logging.getLogger("felt.cluster")


class Presence:
    """Every node keeps who has a socket open at one of its tables in a hash
    ``<prefix>seated:<node>`` (player -> table; expiring, its changes written with the lobby),
    and a group page's visit sets ``<prefix>seen:<player>`` for the page's online window, so a
    group page asked through any node shows who is online on every node."""

    def __init__(self, link: Link, publish_s: float) -> None:
        self.link = link
        self.publish_s = publish_s
        self.seated_here: Callable[[], dict[str, str]] | None = None  # the rooms' ``seated``
        self._seated: dict[str, str] = {}  # this node's seated players as last written to Redis
        self._seated_lock = asyncio.Lock()

    def key(self, node: str) -> str:
        return f"{self.link.prefix}seated:{node}"

    async def publish_seated(self) -> None:
        """Write what changed in this node's seated players since the last time (all of them
        again when the hash had expired, e.g. after a pause longer than its life). One write
        at a time: each one goes by what the one before it wrote."""
        async with self._seated_lock:
            now = {} if self.seated_here is None else dict(self.seated_here())
            key, had = self.key(self.link.node), self._seated
            gone = [p for p in had if p not in now]
            changed = {p: c for p, c in now.items() if had.get(p) != c}
            ttl_ms = published_ttl_ms(self.publish_s)
            self.link.ops += 1
            async with self.link.redis.pipeline(transaction=False) as pipe:
                pipe.pexpire(key, ttl_ms)
                if gone:
                    pipe.hdel(key, *gone)
                if changed:
                    pipe.hset(key, mapping=changed)  # type: ignore[arg-type]  # str keys and values
                    pipe.pexpire(key, ttl_ms)
                kept = (await pipe.execute())[0]
            self._seated = now if kept or not had else {}  # an expired hash: all of it again next time

    async def saw(self, player_id: str, for_ms: int) -> None:
        """``player_id`` has a group page open: they count as online for ``for_ms``."""
        self.link.ops += 1
        try:
            await self.link.redis.set(f"{self.link.prefix}seen:{player_id}", b"1", px=for_ms)
        except RedisError as exc:  # the page still answers; the visit is simply not shared
            log.warning("could not record a group page visit: %s", exc)

    async def of(self, player_ids: list[str]) -> tuple[dict[str, str], set[str]]:
        """Of ``player_ids``: who sits at a table on any node (``{player: table}``, this node's
        as they are now) and who had a group page open lately."""
        if not player_ids:
            return {}, set()
        try:
            return await self._of(player_ids)
        except RedisError as exc:  # the page still answers, with nobody shown online
            log.warning("could not read who is online: %s", exc)
            return {}, set()

    async def _of(self, player_ids: list[str]) -> tuple[dict[str, str], set[str]]:
        link = self.link
        nodes = sorted(n.decode() for n in await link.redis.smembers(f"{link.prefix}nodes"))  # type: ignore[union-attr]
        others = [n for n in nodes if n != link.node]
        link.ops += 1
        async with link.redis.pipeline(transaction=False) as pipe:
            pipe.mget([f"{link.prefix}seen:{p}" for p in player_ids])
            for node in others:
                pipe.hmget(self.key(node), player_ids)
            seen, *tables = await pipe.execute()
        mine = {} if self.seated_here is None else self.seated_here()
        seated = {p: mine[p] for p in player_ids if p in mine}
        for found in tables:
            for player_id, code in zip(player_ids, found, strict=True):
                if code is not None:
                    seated.setdefault(player_id, code.decode())
        return seated, {p for p, v in zip(player_ids, seen, strict=True) if v is not None}
