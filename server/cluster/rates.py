"""The per-address rate limits, shared by every node."""

from __future__ import annotations

import logging

from redis.exceptions import RedisError

from server.cluster.link import Link
from server.limits import MemoryRateLimiter, Rate

log = logging.getLogger("felt.cluster")

# One token bucket shared by every node, on Redis's own clock: spend ARGV[3] tokens if there
# are that many; the tokens left.
BUCKET = """
local rate, burst, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local v = redis.call('HMGET', KEYS[1], 't', 's')
local tokens = tonumber(v[1]) or burst
local stamp = tonumber(v[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
if tokens >= cost then tokens = tokens - cost end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 's', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return tostring(tokens)
"""


class SharedRateLimiter:
    """The per-address rate limits of server/limits.py, shared by every node through Redis.

    The edges ask synchronously, so each node answers from its own copy of the buckets
    (a ``MemoryRateLimiter``) and every token it grants is also spent in the shared bucket
    in Redis, whose answer (the tokens left across the cluster) replaces the local level.
    A node therefore learns what the others spent with its next grant: across N nodes an
    address gets at most N-1 tokens more than its burst, never a higher sustained rate.
    """

    def __init__(self, link: Link, rates: dict[str, Rate]) -> None:
        self.link = link
        self.rates = rates
        self.local = MemoryRateLimiter(rates)
        self._bucket = link.redis.register_script(BUCKET)

    def wait(self, kind: str, key: str) -> float:
        return self.local.wait(kind, key)

    def take(self, kind: str, key: str) -> float:
        wait_s = self.local.take(kind, key)
        if wait_s == 0:
            self.link.spawn(self._share(kind, key))
        return wait_s

    async def _share(self, kind: str, key: str) -> None:
        rate = self.rates[kind]
        self.link.ops += 1
        try:
            left = await self._bucket(
                keys=[f"{self.link.prefix}rate:{kind}:{key}"], args=[rate.per_second, rate.burst, 1]
            )
        except (RedisError, OSError) as exc:  # Redis unreachable: this node's own buckets still hold
            log.warning("could not share a rate-limit token: %s", exc)
            return
        self.local._buckets[(kind, key)] = (float(left), self.local.clock())
