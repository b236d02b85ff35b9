"""The notify tests' database (the loopback push receiver and the live server are helpers in
tests/support)."""

from __future__ import annotations

import os
import secrets

import pytest


@pytest.fixture(params=["sqlite", "postgres"])
def database(request, tmp_path):
    """A migrated database of the test's own: a SQLite file, or a PostgreSQL database made in
    TEST_DATABASE_URL's server and dropped after (skipped without one, unless
    FELT_REQUIRE_POSTGRES=1 makes that a failure)."""
    import psycopg
    from sqlalchemy.engine import make_url

    from server.config import normalize_database_url
    from server.storage.db import Database

    admin = dropped = None
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'push.db'}"
    else:
        given = os.environ.get("TEST_DATABASE_URL")
        if not given:
            if os.environ.get("FELT_REQUIRE_POSTGRES") == "1":
                pytest.fail("FELT_REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set")
            pytest.skip("TEST_DATABASE_URL is not set: PostgreSQL tests skipped")
        server = make_url(normalize_database_url(given))
        admin = server.set(drivername="postgresql").render_as_string(hide_password=False)
        dropped = f"felt_test_push_{secrets.token_hex(5)}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{dropped}"')
        url = server.set(database=dropped).render_as_string(hide_password=False)
    db = Database(url)
    db.upgrade()
    yield db
    db.dispose()
    if dropped:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{dropped}" WITH (FORCE)')
