"""The writer's worker keeps one database connection from batch to batch: a connection the
database dropped (a restart, an administrator ending it) costs no batch, a batch the database
refuses leaves the next one unharmed, and a replay through the held connection skips what is
stored."""

from __future__ import annotations

import time

import orjson
import sqlalchemy as sa

from server.storage import tables
from server.storage.dbwriter import _WorkerState

ROW = {"game": "oh_hell", "status": "playing", "private": False, "host_id": "p0", "players": ["p0"]}


def _batch(code: str, first: int, count: int, replay: bool = False) -> bytes:
    log = [
        [code, v, "created" if v == 1 else "act", {"n": v}, time.time(), ROW if v == 1 else None]
        for v in range(first, first + count)
    ]
    return orjson.dumps({"op": "write", "replay": replay, "log": log, "matches": []})


def _log(db, code: str) -> list[tuple[int, dict]]:
    with db.session() as session:
        return [(e.version, e.data) for e in tables.table_log(session, code)]


def _state(db, tmp_path) -> _WorkerState:
    return _WorkerState(db.url.render_as_string(hide_password=False), str(tmp_path / "spool.jsonl"))


def test_one_connection_serves_batch_after_batch(db, tmp_path):
    state = _state(db, tmp_path)
    try:
        assert state.write(_batch("H1", 1, 2)) == {"ok": True, "spooled": False, "conflicts": []}
        held = state._conn
        assert held is not None
        assert state.write(_batch("H1", 3, 1))["ok"]
        assert state._conn is held
        assert [v for v, _ in _log(db, "H1")] == [1, 2, 3]
    finally:
        state.close()


def test_a_refused_batch_drops_the_connection_and_the_next_batch_is_written(db, tmp_path):
    state = _state(db, tmp_path)
    try:
        assert state.write(_batch("H2", 1, 2))["ok"]
        held = state._conn
        answer = state.write(_batch("H2", 2, 1))  # a second writer of version 2
        assert answer["ok"] and answer["conflicts"] == ["H2"] and not answer["spooled"]
        assert state._conn is not held
        assert state.write(_batch("H2", 3, 1)) == {"ok": True, "spooled": False, "conflicts": []}
        assert state.write(_batch("H2", 2, 2, replay=True))["conflicts"] == []  # stored ones skipped
        assert [v for v, _ in _log(db, "H2")] == [1, 2, 3]
        assert _log(db, "H2")[1] == (2, {"n": 2})
    finally:
        state.close()


def test_a_connection_the_database_ended_is_replaced_and_the_batch_written_at_once(pg_db, tmp_path):
    state = _state(pg_db, tmp_path)
    try:
        assert state.write(_batch("H3", 1, 1))["ok"]
        assert state._conn is not None
        with pg_db.engine.connect() as admin:
            ended = admin.execute(
                sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            ).all()
        assert ended  # the worker's held connection was among them
        answer = state.write(_batch("H3", 2, 1))
        assert answer == {"ok": True, "spooled": False, "conflicts": []}  # neither spooled nor failed
        assert state.spool is not None and state.spool.is_empty()
        assert [v for v, _ in _log(pg_db, "H3")] == [1, 2]
    finally:
        state.close()


def test_sqlite_is_written_in_the_workers_own_thread_and_postgresql_in_its_database_thread(db, tmp_path):
    state = _state(db, tmp_path)
    try:
        assert state.write(_batch("H4", 1, 1))["ok"]
        # SQLite (a local file, nothing to hang on): no hand-off; PostgreSQL keeps the thread
        # whose deadline answers for a database that never does.
        assert (state._job is None) == db.is_sqlite
        assert [v for v, _ in _log(db, "H4")] == [1]
    finally:
        state.close()


def test_moves_a_locked_sqlite_file_refuses_are_spooled_then_written_in_order(sqlite_db, tmp_path, outage):
    # Moves (no lobby row) go to SQLite through its own connection: a lock held elsewhere
    # still reads as "unreachable" (spooled), never as a second writer, and costs no move.
    state = _WorkerState(sqlite_db.url.render_as_string(), str(tmp_path / "spool.jsonl"), timeout_s=0.3)
    try:
        assert state.write(_batch("H5", 1, 2))["ok"]
        with outage(sqlite_db):
            assert state.write(_batch("H5", 3, 2)) == {"ok": True, "spooled": True}
        assert state.drain(wait=True)
        assert state.write(_batch("H5", 5, 1)) == {"ok": True, "spooled": False, "conflicts": []}
        assert _log(sqlite_db, "H5") == [(v, {"n": v}) for v in range(1, 6)]
    finally:
        state.close()
