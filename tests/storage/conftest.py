"""Fixtures for the storage tests: a fresh SQLite file, a fresh PostgreSQL database, both;
for the durability tests (real servers killed and started again on the same database), a
database of their own on either backend.

PostgreSQL comes from ``TEST_DATABASE_URL`` (e.g. postgresql+psycopg://postgres@127.0.0.1:5432/test).
Each test session creates its own uniquely named databases on that server and drops them at
the end, so runs never see each other's rows. Without the variable the PostgreSQL half is
skipped, unless ``FELT_REQUIRE_POSTGRES=1`` makes that a failure.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url
from storage_helpers import GAMES, make_record

from server.config import normalize_database_url
from server.storage.db import Database
from server.storage.models import Base

# ---- PostgreSQL ------------------------------------------------------------------------


def _libpq(url: str) -> str:
    """A SQLAlchemy URL as a plain libpq URL for psycopg."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def pg_server_url() -> str:
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        if os.environ.get("FELT_REQUIRE_POSTGRES") == "1":
            pytest.fail("FELT_REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set")
        pytest.skip("TEST_DATABASE_URL is not set: PostgreSQL tests skipped")
    return normalize_database_url(url)


class PgDatabases:
    """Creates fresh, uniquely named databases on the test server and drops them all at the end."""

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self.admin = psycopg.connect(_libpq(server_url), autocommit=True)
        self.created: list[str] = []

    def create(self) -> str:
        name = f"felt_test_{secrets.token_hex(6)}"
        self.admin.execute(f'CREATE DATABASE "{name}"')
        self.created.append(name)
        return make_url(self.server_url).set(database=name).render_as_string(hide_password=False)

    @contextmanager
    def refusing_connections(self, url: str) -> Iterator[None]:
        """The database refuses every connection (its open ones are cut) until the block ends."""
        name = make_url(url).database
        self.admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS false')
        try:
            self.admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )
            yield
        finally:
            self.admin.execute(f'ALTER DATABASE "{name}" WITH ALLOW_CONNECTIONS true')

    def drop_all(self) -> None:
        for name in self.created:
            self.admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.admin.close()


@pytest.fixture(scope="session")
def pg_databases(pg_server_url: str) -> Iterator[PgDatabases]:
    databases = PgDatabases(pg_server_url)
    try:
        yield databases
    finally:
        databases.drop_all()


@pytest.fixture(scope="session")
def _pg_session_db(pg_databases: PgDatabases) -> Iterator[Database]:
    db = Database(pg_databases.create(), connect_timeout_s=2)
    db.upgrade()
    yield db
    db.dispose()


def _empty_tables(db: Database) -> None:
    with db.engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(table.delete())


@pytest.fixture
def pg_db(_pg_session_db: Database) -> Iterator[Database]:
    """A migrated PostgreSQL database with empty tables."""
    _empty_tables(_pg_session_db)
    yield _pg_session_db


# ---- SQLite ------------------------------------------------------------------------------


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Iterator[Database]:
    """A migrated SQLite file of its own."""
    db = Database(f"sqlite:///{tmp_path / 'felt.db'}", busy_timeout_s=0.3)
    db.upgrade()
    yield db
    db.dispose()


# ---- both ----------------------------------------------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest) -> Database:
    """The same test on SQLite and on PostgreSQL."""
    return request.getfixturevalue("sqlite_db" if request.param == "sqlite" else "pg_db")


@pytest.fixture(params=["sqlite", "postgres"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a brand-new, empty database on either backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.db'}"
    return request.getfixturevalue("pg_databases").create()


@contextmanager
def _sqlite_exclusive(db: Database) -> Iterator[None]:
    """Another connection holds an exclusive transaction on ``db`` while the block runs."""
    holder = sqlite3.connect(db.url.database, isolation_level=None, timeout=5)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        yield
        holder.execute("COMMIT")
    finally:
        holder.close()


@pytest.fixture
def locked(request: pytest.FixtureRequest) -> Callable[[Database], object]:
    """``with locked(db):`` another connection holds a lock that makes writes to ``db`` wait.

    SQLite: an exclusive transaction. PostgreSQL: ``LOCK TABLE matches IN ACCESS EXCLUSIVE MODE``.
    """

    @contextmanager
    def hold(db: Database) -> Iterator[None]:
        if db.is_sqlite:
            with _sqlite_exclusive(db):
                yield
        else:
            with psycopg.connect(_libpq(db.url.render_as_string(hide_password=False))) as holder:
                holder.execute("LOCK TABLE matches IN ACCESS EXCLUSIVE MODE")
                try:
                    yield
                finally:
                    holder.rollback()

    return hold


@pytest.fixture
def outage(request: pytest.FixtureRequest) -> Callable[[Database], object]:
    """``with outage(db):`` makes writes to ``db`` fail until the block ends.

    SQLite: another connection holds an exclusive lock. PostgreSQL: the database refuses
    connections and its open ones are terminated (the server itself keeps running).
    """

    @contextmanager
    def cut(db: Database) -> Iterator[None]:
        if db.is_sqlite:
            with _sqlite_exclusive(db):
                yield
        else:
            pgs: PgDatabases = request.getfixturevalue("pg_databases")
            with pgs.refusing_connections(db.url.render_as_string(hide_password=False)):
                yield

    return cut


@pytest.fixture(scope="session")
def template_records() -> dict[str, dict]:
    """One real finished match per game (played once per session), to copy with new ids."""
    return {name: make_record(name, seed=1000 + i) for i, name in enumerate(GAMES)}


# ---- durability: one database per test, for servers killed and started again ------------


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
def pg_database(pg_server_url: str) -> Iterator[PgDatabase]:
    """A fresh PostgreSQL database of the test's own, dropped after it."""
    db = PgDatabase(pg_server_url)
    yield db
    db.drop()


@pytest.fixture(params=["sqlite", "postgres"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database URL on either backend, fresh for the test."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'felt.db'}"
    return request.getfixturevalue("pg_database").url
