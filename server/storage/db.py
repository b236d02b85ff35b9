"""The database: one engine per process, sessions, health, and schema upgrades (Alembic).

SQLite (the default, a file in the working folder) and PostgreSQL are both first-class.
Every call here is blocking; the event loop runs them with ``Database.call``: in the database's
own threads, with a deadline. A database that hangs (accepts connections and never answers:
a stopped process, a black-holed network) is a database that is down, not a stalled server.

A database that is down, unreachable or overloaded leaves storage as one typed error,
``StoreUnavailable`` (its driver's error the ``__cause__``): ``session``, ``transaction`` and
``call`` translate at the boundary, so no caller outside storage knows SQLAlchemy's errors.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson
import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool

from server.config import normalize_database_url
from server.log_entry import StoreUnavailable

if TYPE_CHECKING:
    from alembic.config import Config

log = logging.getLogger("felt.db")

ROOT = Path(__file__).resolve().parents[2]
ALEMBIC_INI = ROOT / "alembic.ini"
MIGRATIONS = ROOT / "migrations"


T = TypeVar("T")


def insert_of(conn: sa.Connection) -> Callable[[sa.Table], postgresql.Insert | sqlite.Insert]:
    """The dialect's INSERT, the one that takes ``ON CONFLICT`` (PostgreSQL's or SQLite's)."""
    return postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert


# The default deadline of one database call (FELT_DB_TIMEOUT_S sets the server's).
DEFAULT_TIMEOUT_S = 5.0


class DatabaseTimeout(StoreUnavailable):
    """The database did not answer within its deadline (or every thread for it still waits)."""


# What a database that is down, unreachable or overloaded raises (a lost connection, a refused
# one, a full pool, a locked SQLite file): storage's own; callers outside see StoreUnavailable.
OUTAGE_ERRORS: tuple[type[Exception], ...] = (
    sa.exc.OperationalError,
    sa.exc.InterfaceError,
    sa.exc.DisconnectionError,
    sa.exc.TimeoutError,
    DatabaseTimeout,
)


@contextmanager
def outage_as_unavailable() -> Iterator[None]:
    """Storage's boundary: an outage error raised in the block leaves it as ``StoreUnavailable``."""
    try:
        yield
    except StoreUnavailable:
        raise
    except OUTAGE_ERRORS as exc:
        raise StoreUnavailable(type(exc).__name__) from exc


def _json_dumps(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _sqlite_engine(url: URL, busy_timeout_s: float, common: dict) -> Engine:
    """A SQLite engine: WAL, and a writer waits ``busy_timeout_s`` for another's lock."""
    in_memory = url.database in (None, "", ":memory:")
    kwargs: dict = dict(connect_args={"check_same_thread": False, "timeout": busy_timeout_s})
    if in_memory:  # one shared connection, or every thread would see its own empty db
        kwargs["poolclass"] = StaticPool
    engine = sa.create_engine(url, **kwargs, **common)
    busy_ms = int(busy_timeout_s * 1000)

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")  # safe with WAL, far fewer fsyncs
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
        finally:
            cursor.close()

    return engine


def _call_threads(count: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=count, thread_name_prefix="felt-db")


class Database:
    """A connection pool to one database, with the few operations the server needs."""

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        busy_timeout_s: float | None = None,
        connect_timeout_s: int | None = None,
        pool_size: int = 5,
        echo: bool = False,
    ) -> None:
        """``timeout_s`` bounds every call: SQLite's busy timeout, PostgreSQL's connect and
        statement timeouts, the wait for a pooled connection, and ``call``'s deadline."""
        self.url: URL = make_url(normalize_database_url(str(url)))
        self.is_sqlite = self.url.get_backend_name() == "sqlite"
        self.timeout_s = float(timeout_s)
        busy_timeout_s = self.timeout_s if busy_timeout_s is None else busy_timeout_s
        connect_timeout_s = max(1, math.ceil(self.timeout_s)) if connect_timeout_s is None else connect_timeout_s
        common = dict(echo=echo, json_serializer=_json_dumps, json_deserializer=orjson.loads)
        if self.is_sqlite:
            self.engine: Engine = _sqlite_engine(self.url, busy_timeout_s, common)
        else:
            connect_args: dict[str, Any] = {}
            if self.url.get_backend_name() == "postgresql" and self.url.get_driver_name() in ("psycopg", "psycopg2"):
                connect_args["connect_timeout"] = connect_timeout_s
                # The server ends a statement (a lock wait included) that outlasts the deadline.
                connect_args["options"] = f"-c statement_timeout={int(self.timeout_s * 1000)}"
            self.engine = sa.create_engine(
                self.url,
                pool_pre_ping=True,
                pool_size=pool_size,
                max_overflow=pool_size,
                pool_timeout=self.timeout_s,
                connect_args=connect_args,
                **common,
            )
        # The event loop's calls run in threads of their own, one per pooled connection: calls
        # that hang on the database can hold all of them, never the loop's default threads.
        self._thread_count = 2 * pool_size
        self._threads = _call_threads(self._thread_count)
        self._stuck = 0  # calls past their deadline still running (or queued) in a thread
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that commits when the block succeeds and rolls back when it raises
        (``StoreUnavailable`` when the database is away)."""
        session = self._sessions()
        try:
            with outage_as_unavailable():
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
        """A plain Connection in a transaction (committed when the block succeeds): no ORM
        (``StoreUnavailable`` when the database is away)."""
        with outage_as_unavailable(), self.engine.begin() as conn:
            yield conn

    async def call(self, fn: Callable[..., T], *args: Any, timeout_s: float | None = None) -> T:
        """``fn(*args)`` in one of the database's threads; ``DatabaseTimeout`` past the deadline
        (the call itself goes on in its thread, its result unused) or at once when as many
        calls as there are threads outlived their deadlines and still wait for the database.
        Both are ``StoreUnavailable``, and so is any outage error ``fn`` raises.

        A burst of calls queues for the threads (within the deadline): only calls that
        outlived their deadline count as stuck, so a busy database is not taken for a hung one.
        """
        if self._stuck >= self._thread_count:
            raise DatabaseTimeout("every database thread is still waiting for the database")
        deadline = self.timeout_s if timeout_s is None else timeout_s
        future = asyncio.get_running_loop().run_in_executor(self._threads, fn, *args)
        try:
            # Not ``asyncio.wait_for``: on Python 3.11 it returns the result of a call that ended
            # just as the caller was cancelled and drops the cancellation, so a task stopped at
            # that moment ran on (a webhook sweep kept its server's stop waiting forever).
            with outage_as_unavailable():
                async with asyncio.timeout(deadline):
                    return await asyncio.shield(future)
        except TimeoutError:
            self._stuck += 1
            future.add_done_callback(self._unstuck)
            raise DatabaseTimeout(f"the database did not answer within {deadline:g} s") from None

    def _unstuck(self, future: asyncio.Future) -> None:
        self._stuck -= 1
        if not future.cancelled():
            future.exception()  # retrieved: a call past its deadline has nobody waiting for it

    def ping(self) -> bool:
        """True when the database answers a real query quickly; False on any error."""
        try:
            with self.engine.connect() as conn:
                if self.url.get_backend_name() == "postgresql":
                    conn.execute(sa.text("SET LOCAL statement_timeout = 2000"))
                return conn.execute(sa.text("SELECT 1")).scalar() == 1
        except Exception as exc:  # noqa: BLE001 - the health check answers, it never raises
            log.warning("database ping failed: %s", exc)
            return False

    def upgrade(self, revision: str = "head") -> None:
        """Bring the schema up to ``revision`` with Alembic (run on every start)."""
        from alembic import command

        with self._migrating() as conn:
            if self.url.get_backend_name() == "postgresql":  # a migration may take its time
                conn.execute(sa.text("SET LOCAL statement_timeout = 0"))
            command.upgrade(self.alembic_config(conn), revision)

    def downgrade(self, revision: str = "base") -> None:
        """Take the schema down to ``revision`` (tests and manual repair)."""
        from alembic import command

        with self._migrating() as conn:
            command.downgrade(self.alembic_config(conn), revision)

    @contextmanager
    def _migrating(self) -> Iterator[sa.Connection]:
        """A connection in a transaction for migrations. On SQLite, foreign keys are off while
        they run (SQLite's own procedure for altering a table): a migration that rebuilds a
        table by copying it drops the old one, and with them on that drop would run every
        ``ON DELETE`` of the rows pointing at it (``match_seats`` would lose its players)."""
        with self.engine.connect() as conn:
            if not self.is_sqlite:
                with conn.begin():
                    yield conn
                return
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")  # only takes effect outside a transaction
            conn.commit()
            try:
                with conn.begin():
                    yield conn
                    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").first()
                    if broken is not None:
                        raise RuntimeError(f"a migration broke a foreign key: {tuple(broken)}")
            finally:
                conn.exec_driver_sql("PRAGMA foreign_keys=ON")
                conn.commit()

    def alembic_config(self, connection: sa.Connection | None = None) -> Config:
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
        """Close every pooled connection (and let the idle call threads go; new ones start as needed)."""
        self.engine.dispose()
        threads, self._threads = self._threads, _call_threads(self._thread_count)
        threads.shutdown(wait=False)

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
