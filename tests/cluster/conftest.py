"""Fixtures for the cluster tests: HAProxy + three Felt nodes + Redis + PostgreSQL as processes.

They need ``TEST_DATABASE_URL`` (PostgreSQL), a Redis at ``TEST_REDIS_URL`` (default the local
one) and Debian's ``haproxy``; without them the tests are skipped, unless
``FELT_REQUIRE_POSTGRES=1`` makes that a failure.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
import redis

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))

from cluster_harness import LOOKUP_BURST, REDIS_URL, Cluster  # noqa: E402

from server.config import normalize_database_url  # noqa: E402


def _missing() -> str | None:
    if not os.environ.get("TEST_DATABASE_URL"):
        return "TEST_DATABASE_URL is not set"
    if shutil.which("haproxy") is None:
        return "haproxy is not installed (apt-get install haproxy)"
    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except redis.RedisError as exc:
        return f"Redis at {REDIS_URL} does not answer: {exc}"
    return None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    missing = _missing()
    if missing:
        if os.environ.get("FELT_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"FELT_REQUIRE_POSTGRES=1 but the cluster tests cannot run: {missing}")
        pytest.skip(f"cluster tests skipped: {missing}")
    url = normalize_database_url(os.environ["TEST_DATABASE_URL"])
    cluster = Cluster(
        tmp_path_factory.mktemp("cluster"), url,
        FELT_MAX_OPEN_ROOMS_PER_PLAYER="3",
        # Every test client comes from 127.0.0.1: only the limit under test is tight.
        FELT_RATE_PLAYERS_PER_MINUTE="100000", FELT_RATE_PLAYERS_BURST="100000",
        FELT_RATE_ROOMS_PER_MINUTE="100000", FELT_RATE_ROOMS_BURST="100000",
        FELT_RATE_LOOKUPS_PER_MINUTE="1", FELT_RATE_LOOKUPS_BURST=str(LOOKUP_BURST),
    )
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
