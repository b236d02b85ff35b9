"""Fixtures for the cluster tests: HAProxy + three Felt nodes + Redis + PostgreSQL as processes.

They need ``TEST_DATABASE_URL`` (PostgreSQL), a Redis at ``TEST_REDIS_URL`` (default the local
one) and Debian's ``haproxy``; without them the tests are skipped, unless
``FELT_REQUIRE_POSTGRES=1`` makes that a failure.
"""

from __future__ import annotations

import os

import pytest
from cluster_harness import Cluster, cluster_settings, require_services

from server.config import normalize_database_url


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
