"""The per-player cap on open tables, held across nodes."""

from __future__ import annotations

from server.cluster.link import Link

# Add a table to a host's open tables unless the host already has ``cap`` of them.
RESERVE = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
"""

ACTIVE = ("waiting", "playing")


class HostReservations:
    """A host's open tables are a hash ``<prefix>hosting:<player>`` (table -> node), checked and
    added to in one script, so the per-player cap holds across nodes."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self._reserve = link.redis.register_script(RESERVE)

    def key(self, player_id: str) -> str:
        return f"{self.link.prefix}hosting:{player_id}"

    async def reserve(self, player_id: str, code: str, cap: int) -> bool:
        """Count ``code`` among ``player_id``'s open tables unless they have ``cap`` already."""
        self.link.ops += 1
        return bool(await self._reserve(keys=[self.key(player_id)], args=[code, self.link.node, cap]))

    async def hosted(self, player_id: str) -> int:
        return int(await self.link.redis.hlen(self.key(player_id)))

    def table_changed(self, code: str, host_id: str | None, status: str) -> None:
        """A table's status changed: it counts against its host's cap while waiting or playing."""
        if not host_id:
            return
        self.link.ops += 1
        if status in ACTIVE:
            self.link.spawn(self.link.redis.hset(self.key(host_id), code, self.link.node))
        else:
            self.link.spawn(self.link.redis.hdel(self.key(host_id), code))
