"""Slow seats held across nodes, so a player's cap on slow tables holds in a cluster."""

from __future__ import annotations

from server.cluster.link import Link

# A player's slow seats held until the store has them (KEYS[1]: table -> expiry in ms on
# Redis's clock) and the count of the holds given back (KEYS[2]). Hold ARGV[1] for ARGV[3] ms
# unless the tables the store and the asking node count (ARGV[5]...) and the live holds
# together make ARGV[2]: 1 held, 0 full, -1 a hold was given back since the caller read the
# count ARGV[4] (its reading of the store may predate that seat's row: count again).
HOLD_SLOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if (redis.call('GET', KEYS[2]) or '0') ~= ARGV[4] then return -1 end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local ttl = tonumber(ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
  return 1
end
local seen, n = {}, 0
for i = 5, #ARGV do
  if not seen[ARGV[i]] then seen[ARGV[i]] = true; n = n + 1 end
end
for _, code in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if not seen[code] then seen[code] = true; n = n + 1 end
end
if n >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
"""
# Keep a hold ARGV[1] for ARGV[2] ms more (only if it is still there).
KEEP_SLOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local kept = redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return kept
"""
# Give a hold back, and count it given back (``HOLD_SLOW`` then asks for a fresh count).
UNHOLD_SLOW = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return 1
"""


class SlowSeatHolds:
    """A player's slow seats held across nodes until the store has them (the scripts above;
    server/rooms/slow_seats.py holds and gives them back): a seat asked for at a slow table is
    held in ``<prefix>slow:<player>`` (a sorted set: table -> expiry on Redis's clock) from the
    count until the seat is in the store, counted with the store's rows in one script
    (docs/decisions/0026-slow-cap-held-in-redis.md)."""

    def __init__(self, link: Link) -> None:
        self.link = link
        self._hold = link.redis.register_script(HOLD_SLOW)
        self._keep = link.redis.register_script(KEEP_SLOW)
        self._unhold = link.redis.register_script(UNHOLD_SLOW)

    def keys(self, player_id: str) -> list[str]:
        """The player's holds (a sorted set) and the count of those given back."""
        prefix = self.link.prefix
        return [f"{prefix}slow:{player_id}", f"{prefix}slow-given:{player_id}"]

    async def given_back(self, player_id: str) -> str:
        """How many of ``player_id``'s holds were given back: read before counting their seats
        in the store, and handed to ``hold``."""
        self.link.ops += 1
        count = await self.link.redis.get(self.keys(player_id)[1])
        return "0" if count is None else count.decode()  # type: ignore[union-attr]  # bytes: never decoded

    async def hold(self, player_id: str, code: str, cap: int, counted: set[str], given_back: str, ttl_ms: int) -> int:
        """Hold a slow seat of ``player_id`` at ``code`` for ``ttl_ms`` unless ``counted`` (their
        slow tables as the store and this node see them) and their live holds make ``cap``
        already: 1 held, 0 full, -1 count again (a hold was given back since ``given_back``)."""
        self.link.ops += 1
        args: list[str | int] = [code, cap, ttl_ms, given_back, *sorted(counted)]
        return int(await self._hold(keys=self.keys(player_id), args=args))

    async def keep(self, player_id: str, code: str, ttl_ms: int) -> bool:
        """Keep the hold at ``code`` ``ttl_ms`` more; False if it is gone (it ran out)."""
        self.link.ops += 1
        return bool(await self._keep(keys=self.keys(player_id)[:1], args=[code, ttl_ms]))

    async def give_back(self, player_id: str, code: str, ttl_ms: int) -> None:
        """Give back the hold at ``code`` (the seat is in the store, or was not taken)."""
        self.link.ops += 1
        await self._unhold(keys=self.keys(player_id), args=[code, ttl_ms])
