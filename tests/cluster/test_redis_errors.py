"""What a node does when Redis fails it: an unreachable Redis is an outage it rides out (its own
rate buckets hold, its leases expire by themselves at a stop); any other error is a defect and
is raised, not logged as an outage. No Redis is needed: the node's Redis is a port nobody
listens on."""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket

import pytest
import redis
from cluster_harness import REDIS_URL

from server.cluster import Cluster, SharedRateLimiter
from server.config import Settings
from server.limits import LOOKUPS, Rate


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
async def node():
    url = f"redis://127.0.0.1:{closed_port()}/0"
    node = Cluster(Settings(redis_url=url, node_id="a", lease_ms=60_000))
    yield node
    await node.redis.aclose()


async def test_an_unreachable_redis_leaves_the_nodes_own_rate_bucket_as_it_was(node, caplog):
    limiter = SharedRateLimiter(node.link, {LOOKUPS: Rate(per_second=0.001, burst=3)})
    assert limiter.take(LOOKUPS, "1.2.3.4") == 0
    await limiter._share(LOOKUPS, "1.2.3.4")
    assert limiter.take(LOOKUPS, "1.2.3.4") == 0 and limiter.take(LOOKUPS, "1.2.3.4") == 0
    assert limiter.take(LOOKUPS, "1.2.3.4") > 0, "the local burst of 3 is spent, nothing more"
    assert "could not share a rate-limit token" in caplog.text


async def test_a_defect_while_sharing_a_rate_token_is_raised(node):
    limiter = SharedRateLimiter(node.link, {LOOKUPS: Rate(per_second=0.001, burst=3)})

    async def broken(**_: object) -> int:
        raise KeyError("left")

    limiter._bucket = broken
    with pytest.raises(KeyError):
        await limiter._share(LOOKUPS, "1.2.3.4")


async def test_a_stop_with_redis_unreachable_ends_and_says_the_leases_will_expire(node, caplog):
    node.leases.tokens["ABCD"] = "token"
    node.leases.trusted["ABCD"] = 0.0
    with caplog.at_level(logging.WARNING, logger="felt.cluster"):
        await node.close()
    assert "could not release this node's leases" in caplog.text


async def test_a_burst_past_the_nodes_redis_connections_waits_for_one_and_fails_nothing():
    """More commands at once than the node's pool holds: each waits for a free connection
    (redis-py's default pool raised at once, and the request behind it answered 503)."""
    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at {REDIS_URL} does not answer: {exc}")
    prefix = f"felt-test-{secrets.token_hex(4)}:"
    node = Cluster(Settings(redis_url=REDIS_URL, redis_prefix=prefix, node_id="a", redis_connections=3))
    await node.start()
    try:
        codes = [f"B{i:03d}" for i in range(60)]
        claimed = await asyncio.gather(*(node.leases.claim(code) for code in codes))
        assert all(claimed) and all(node.leases.owns(code) for code in codes)
    finally:
        await node.close()
        plain = redis.Redis.from_url(REDIS_URL)
        keys = list(plain.scan_iter(match=prefix + "*"))
        if keys:
            plain.delete(*keys)
