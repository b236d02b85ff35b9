"""Durability tests: real servers killed and started again on the same database.

PostgreSQL comes from ``TEST_DATABASE_URL`` (a fresh database per test, dropped afterwards);
without it the PostgreSQL half is skipped unless ``FELT_REQUIRE_POSTGRES=1``.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).parent.parent / "server"))  # live_server, ws_client

from server.config import normalize_database_url  # noqa: E402


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class PgDatabase:
    """One fresh PostgreSQL database; it can be made to refuse connections for a while."""

    def __init__(self, server_url: str) -> None:
        self.admin = psycopg.connect(_libpq(server_url), autocommit=True)
        self.name = f"felt_dur_{secrets.token_hex(6)}"
        self.admin.execute(f'CREATE DATABASE "{self.name}"')
        self.url = make_url(server_url).set(database=self.name).render_as_string(hide_password=False)

    def refuse_connections(self, refuse: bool) -> None:
        self.admin.execute(f'ALTER DATABASE "{self.name}" WITH ALLOW_CONNECTIONS {str(not refuse).lower()}')
        if refuse:
            self.admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (self.name,),
            )

    def drop(self) -> None:
        self.admin.execute(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        self.admin.close()


@pytest.fixture
def pg_database():
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        if os.environ.get("FELT_REQUIRE_POSTGRES") == "1":
            pytest.fail("FELT_REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set")
        pytest.skip("TEST_DATABASE_URL is not set: PostgreSQL tests skipped")
    db = PgDatabase(normalize_database_url(url))
    yield db
    db.drop()


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request, tmp_path) -> str:
    """A database URL on either backend, fresh for the test."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'felt.db'}"
    return request.getfixturevalue("pg_database").url
