"""The shared lobby: every node's public waiting tables, listed by any node."""

from __future__ import annotations

from collections.abc import Callable

import orjson

from server.cluster.link import Link


def published_ttl_ms(publish_s: float) -> int:
    """How long what a node publishes every ``publish_s`` lives (its lobby, its seated players)."""
    return max(1000, int(publish_s * 4000))


class Lobby:
    """This node publishes its public waiting tables under ``<prefix>lobby:<node>`` (expiring,
    refreshed every ``lobby_publish_s``) and its id in ``<prefix>nodes``; any node lists all of
    them."""

    def __init__(self, link: Link, publish_s: float) -> None:
        self.link = link
        self.publish_s = publish_s
        self.rows: Callable[[], list[dict]] | None = None  # the rooms' ``lobby_rows``

    def key(self, node: str) -> str:
        return f"{self.link.prefix}lobby:{node}"

    def _local(self) -> list[dict]:
        return [] if self.rows is None else list(self.rows())

    async def publish(self) -> None:
        link = self.link
        payload = orjson.dumps({"node": link.node, "rooms": self._local()})
        link.ops += 1
        async with link.redis.pipeline(transaction=False) as pipe:
            pipe.set(self.key(link.node), payload, px=published_ttl_ms(self.publish_s))
            pipe.sadd(f"{link.prefix}nodes", link.node)
            await pipe.execute()

    async def rooms(self) -> list[dict]:
        """Every node's public waiting tables (this node's as they are now), newest first."""
        link = self.link
        nodes = sorted(
            n.decode()  # type: ignore[union-attr]  # bytes: the client never decodes responses
            for n in await link.redis.smembers(f"{link.prefix}nodes")
        )
        others = [n for n in nodes if n != link.node]
        rooms = self._local()
        if others:
            blobs = await link.redis.mget([self.key(n) for n in others])
            gone = [n for n, blob in zip(others, blobs, strict=True) if blob is None]
            if gone:
                await link.redis.srem(f"{link.prefix}nodes", *gone)
            seen = {r["code"] for r in rooms}
            for blob in blobs:
                for room in orjson.loads(blob)["rooms"] if blob else ():
                    if room["code"] not in seen:  # a table moving between nodes: listed once
                        seen.add(room["code"])
                        rooms.append(room)
        rooms.sort(key=lambda r: r.get("created", 0), reverse=True)
        return rooms
