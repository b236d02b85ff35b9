"""The Database object: sessions, health checks, SQLite settings, safe descriptions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from server.storage.db import Database
from server.storage.models import Match, Player


def test_ping_answers_true_when_the_database_answers(db):
    assert db.ping() is True


def test_ping_answers_false_quickly_when_the_database_is_unreachable():
    db = Database("postgresql://nobody@127.0.0.1:1/nothing", connect_timeout_s=1)
    try:
        assert db.ping() is False
    finally:
        db.dispose()


def test_ping_answers_false_for_a_sqlite_file_that_cannot_be_opened(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'missing-dir' / 'x.db'}")
    assert db.ping() is False


async def test_an_unreachable_database_leaves_storage_as_store_unavailable(tmp_path):
    """Sessions, transactions and calls all raise the one typed error, the driver's its cause;
    a database timeout is one too."""
    from server.log_entry import StoreUnavailable
    from server.storage.db import DatabaseTimeout

    db = Database(f"sqlite:///{tmp_path / 'missing-dir' / 'x.db'}")
    try:
        with pytest.raises(StoreUnavailable, match="OperationalError") as raised, db.session() as session:
            session.execute(sa.text("SELECT 1"))
        assert isinstance(raised.value.__cause__, sa.exc.OperationalError)
        with pytest.raises(StoreUnavailable), db.transaction() as conn:
            conn.execute(sa.text("SELECT 1"))

        def raw() -> None:
            with db.engine.connect():
                pass

        with pytest.raises(StoreUnavailable) as raised:
            await db.call(raw)
        assert isinstance(raised.value.__cause__, sa.exc.OperationalError)
        assert issubclass(DatabaseTimeout, StoreUnavailable)
    finally:
        db.dispose()


def test_a_refused_statement_is_not_passed_off_as_an_outage(db):
    with pytest.raises(sa.exc.IntegrityError), db.session() as session:
        insert = "INSERT INTO players (id, name, created_at) VALUES ('p1', 'Ana', CURRENT_TIMESTAMP)"
        for _ in range(2):
            session.execute(sa.text(insert))


def test_describe_names_driver_and_database_but_never_the_password():
    db = Database("postgresql://felt:hunter2@db.example:5433/felt")
    text = db.describe()
    assert "hunter2" not in text
    assert text == "postgresql+psycopg db.example:5433/felt"
    db.dispose()


def test_sqlite_runs_with_wal_foreign_keys_and_a_busy_timeout(sqlite_db):
    with sqlite_db.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 300


def _player(pid: str) -> Player:
    return Player(id=pid, name="Ana", created_at=datetime.now(UTC))


def test_a_session_commits_when_its_block_succeeds(db):
    with db.session() as session:
        session.add(_player("a1"))
    with db.session() as session:
        assert session.get(Player, "a1") is not None


def test_a_session_rolls_back_when_its_block_raises(db):
    with pytest.raises(RuntimeError), db.session() as session:
        session.add(_player("b1"))
        session.flush()
        raise RuntimeError("boom")
    with db.session() as session:
        assert session.get(Player, "b1") is None


def test_foreign_keys_are_enforced(db):
    from server.storage.models import MatchSeat

    with pytest.raises(sa.exc.IntegrityError), db.session() as session:
        session.add(MatchSeat(match_id="nope", seat=0, player_id=None, name="x", bot=True, score=0, winner=False))


def test_timestamps_come_back_tz_aware_in_utc(db):
    paris = timezone(timedelta(hours=1))
    started = datetime(2026, 3, 1, 13, 0, 0, 123456, tzinfo=paris)
    with db.session() as session:
        session.add(
            Match(
                id="m1",
                game="oh_hell",
                options={},
                seed="1",
                commitment="c",
                dealer=0,
                room_code=None,
                scores=[1],
                winners=[0],
                player_count=1,
                started_at=started,
                finished_at=started,
            )
        )
    with db.session() as session:
        match = session.get(Match, "m1")
        assert match.started_at.tzinfo is not None
        assert match.started_at.utcoffset() == timedelta(0)
        assert match.started_at == started
        assert match.started_at.hour == 12


async def test_a_burst_of_calls_waits_for_the_database_threads_instead_of_failing(sqlite_db):
    """Three times as many calls as there are threads, each slower than nothing: a busy
    database is not a hung one, so every call is answered."""
    import asyncio
    import time

    def slow(i: int) -> int:
        time.sleep(0.02)
        return i

    count = 3 * sqlite_db._thread_count
    answers = await asyncio.gather(*(sqlite_db.call(slow, i, timeout_s=30) for i in range(count)))
    assert answers == list(range(count))


async def test_calls_that_outlive_their_deadline_make_the_next_call_fail_at_once(sqlite_db):
    """When every thread holds a call past its deadline the next one is refused without
    queueing behind them; once they end, calls are answered again."""
    import asyncio
    import threading

    from server.storage.db import DatabaseTimeout

    release = threading.Event()
    ran: list[str] = []

    def hung() -> None:
        release.wait(30)

    for _ in range(sqlite_db._thread_count):
        with pytest.raises(DatabaseTimeout):
            await sqlite_db.call(hung, timeout_s=0.01)
    with pytest.raises(DatabaseTimeout, match="every database thread"):
        await sqlite_db.call(ran.append, "refused")
    assert ran == []
    release.set()
    for _ in range(500):
        if sqlite_db._stuck == 0:
            break
        await asyncio.sleep(0.01)
    await sqlite_db.call(ran.append, "answered", timeout_s=30)
    assert ran == ["answered"]
