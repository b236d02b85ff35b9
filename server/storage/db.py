"""The database: one engine per process, sessions, health, and schema upgrades (Alembic).

SQLite (the default, a file in the working folder) and PostgreSQL are both first-class.
Every call here is blocking; the async edges run them with ``asyncio.to_thread``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import orjson
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from server.config import normalize_database_url

log = logging.getLogger("felt.db")

ROOT = Path(__file__).resolve().parents[2]
ALEMBIC_INI = ROOT / "alembic.ini"
MIGRATIONS = ROOT / "migrations"


# What a database that is down, unreachable or overloaded raises (a lost connection, a refused
# one, a full pool, a locked SQLite file): callers answer "try again later", not "bug".
OUTAGE_ERRORS: tuple[type[Exception], ...] = (
    sa.exc.OperationalError,
    sa.exc.InterfaceError,
    sa.exc.DisconnectionError,
    sa.exc.TimeoutError,
)


def _json_dumps(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


class Database:
    """A connection pool to one database, with the few operations the server needs."""

    def __init__(
        self,
        url: str,
        *,
        busy_timeout_s: float = 5.0,
        connect_timeout_s: int = 5,
        pool_size: int = 5,
        echo: bool = False,
    ) -> None:
        self.url: URL = make_url(normalize_database_url(str(url)))
        self.is_sqlite = self.url.get_backend_name() == "sqlite"
        common = dict(echo=echo, json_serializer=_json_dumps, json_deserializer=orjson.loads)
        if self.is_sqlite:
            in_memory = self.url.database in (None, "", ":memory:")
            kwargs: dict = dict(
                connect_args={"check_same_thread": False, "timeout": busy_timeout_s},
            )
            if in_memory:  # one shared connection, or every thread would see its own empty db
                kwargs["poolclass"] = StaticPool
            self.engine: Engine = sa.create_engine(self.url, **kwargs, **common)
            busy_ms = int(busy_timeout_s * 1000)

            @event.listens_for(self.engine, "connect")
            def _sqlite_pragmas(dbapi_connection, _record) -> None:
                cursor = dbapi_connection.cursor()
                try:
                    cursor.execute("PRAGMA journal_mode=WAL")
                    cursor.execute("PRAGMA synchronous=NORMAL")  # safe with WAL, far fewer fsyncs
                    cursor.execute("PRAGMA foreign_keys=ON")
                    cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
                finally:
                    cursor.close()

        else:
            connect_args = {}
            if self.url.get_backend_name() == "postgresql" and self.url.get_driver_name() == "psycopg":
                connect_args["connect_timeout"] = connect_timeout_s
            self.engine = sa.create_engine(
                self.url,
                pool_pre_ping=True,
                pool_size=pool_size,
                max_overflow=pool_size,
                pool_timeout=10,
                connect_args=connect_args,
                **common,
            )
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that commits when the block succeeds and rolls back when it raises."""
        session = self._sessions()
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    @contextmanager
    def transaction(self) -> Iterator[sa.Connection]:
        """A plain Connection in a transaction (committed when the block succeeds): no ORM."""
        with self.engine.begin() as conn:
            yield conn

    def ping(self) -> bool:
        """True when the database answers a real query quickly; False on any error."""
        try:
            with self.engine.connect() as conn:
                if self.url.get_backend_name() == "postgresql":
                    conn.execute(sa.text("SET LOCAL statement_timeout = 2000"))
                return conn.execute(sa.text("SELECT 1")).scalar() == 1
        except Exception as exc:  # the health check answers, it never raises
            log.warning("database ping failed: %s", exc)
            return False

    def upgrade(self, revision: str = "head") -> None:
        """Bring the schema up to ``revision`` with Alembic (run on every start)."""
        from alembic import command

        with self.engine.begin() as conn:
            command.upgrade(self.alembic_config(conn), revision)

    def downgrade(self, revision: str = "base") -> None:
        """Take the schema down to ``revision`` (tests and manual repair)."""
        from alembic import command

        with self.engine.begin() as conn:
            command.downgrade(self.alembic_config(conn), revision)

    def alembic_config(self, connection: sa.Connection | None = None):
        """Alembic's config for this database, found beside the package, not in the CWD."""
        from alembic.config import Config

        config = Config(str(ALEMBIC_INI))
        config.set_main_option("script_location", str(MIGRATIONS))
        # The app owns logging: env.py must not load alembic.ini's logging sections.
        config.attributes["configure_logger"] = False
        config.attributes["connection"] = connection
        config.attributes["url"] = self.url
        return config

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

    def describe(self) -> str:
        """Backend, driver and database, never the password: 'postgresql+psycopg 127.0.0.1:5432/felt'."""
        url = self.url
        driver = f"{url.get_backend_name()}+{url.get_driver_name()}"
        if self.is_sqlite:
            return f"{driver} {url.database or ':memory:'}"
        where = url.host or "localhost"
        if url.port:
            where += f":{url.port}"
        return f"{driver} {where}/{url.database or ''}"

    def __repr__(self) -> str:
        return f"<Database {self.describe()}>"
