"""This node's messages: handovers asked of it on its own channel, and the players channel
every node listens on."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from server.cluster.link import Link

log = logging.getLogger("felt.cluster")


class Bus:
    """The node's channels in Redis. Another node asking for a table this node holds publishes
    ``handover <code>`` on ``<prefix>node:<node>``; a revoked device (``revoke <device> <token
    hash>``) or a renamed player (``renamed <player>``) goes to every node on ``<prefix>players``
    (server/players.py)."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self.pubsub = link.redis.pubsub(ignore_subscribe_messages=True)
        self.on_handover: Callable[[str], Awaitable[None]] | None = None  # the rooms' ``hand_over``
        self.on_players: Callable[[str, list[str]], Awaitable[None]] | None = None  # server/players.py

    def channel(self, node: str) -> str:
        return f"{self.link.prefix}node:{node}"

    def players_channel(self) -> str:
        return f"{self.link.prefix}players"

    async def subscribe(self) -> None:
        await self.pubsub.subscribe(self.channel(self.link.node), self.players_channel())

    async def ask_handover(self, node: str, code: str) -> None:
        """Ask ``node``, which holds table ``code``, to let it go."""
        self.link.ops += 1
        await self.link.redis.publish(self.channel(node), b"handover " + code.encode())

    async def publish_players(self, verb: str, *args: str) -> None:
        """Tell every node (this one too) about a player's device or name (server/players.py)."""
        self.link.ops += 1
        await self.link.redis.publish(self.players_channel(), " ".join((verb, *args)).encode())

    async def listen(self) -> None:
        while not self.link.closing:
            try:
                message = await self.pubsub.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - the listener never dies: it listens again
                log.warning("the cluster channel failed (%s); listening again", exc)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            channel = message.get("channel")
            if channel is not None and channel.decode() == self.players_channel():
                verb, *args = message["data"].decode().split(" ")
                if self.on_players is not None:
                    self.link.spawn(self.on_players(verb, args))
                continue
            verb, _, code = message["data"].decode().partition(" ")
            if verb == "handover" and code and self.on_handover is not None:
                self.link.spawn(self.on_handover(code))

    async def close(self) -> None:
        await self.pubsub.aclose()
