"""Fixtures for the cluster tests: HAProxy + three Felt nodes + Redis + PostgreSQL as processes.

They need ``TEST_DATABASE_URL`` (PostgreSQL), a Redis at ``TEST_REDIS_URL`` (default the local
one) and Debian's ``haproxy``; without them the tests are skipped, unless
``FELT_REQUIRE_POSTGRES=1`` makes that a failure.
"""

from __future__ import annotations

import os
import secrets

import pytest
import redis
from cluster_harness import REDIS_URL, Cluster, cluster_settings, require_services

from server.cluster import Cluster as ClusterNode
from server.config import Settings, normalize_database_url


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    require_services()
    url = normalize_database_url(os.environ["TEST_DATABASE_URL"])
    cluster = Cluster(tmp_path_factory.mktemp("cluster"), url, **cluster_settings())
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture(autouse=True)
def _every_running_node_routed(request):
    """A test on a module's cluster starts with HAProxy routing to every running node: the test
    before may end (its database back, a node started again) a moment before the balancer's
    checks see that node up, and a request then finds no server."""
    if "cluster" in request.fixturenames:
        request.getfixturevalue("cluster").wait_all_up(timeout=60)


@pytest.fixture
async def pair():
    """Two cluster nodes ("a", "b") on the real local Redis under a fresh key prefix, started
    and closed around the test, their keys removed after it; no node serves anything."""
    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at {REDIS_URL} does not answer: {exc}")
    prefix = f"felt-test-{secrets.token_hex(4)}:"
    nodes = [
        ClusterNode(Settings(redis_url=REDIS_URL, redis_prefix=prefix, node_id=name, lease_ms=60_000)) for name in "ab"
    ]
    for node in nodes:
        await node.start()
    yield nodes
    for node in nodes:
        await node.close()
    plain = redis.Redis.from_url(REDIS_URL)
    keys = list(plain.scan_iter(match=prefix + "*"))
    if keys:
        plain.delete(*keys)
