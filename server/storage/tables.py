"""Data access for tables that outlive processes: write a batch of log entries, read a log back.

A batch is what the writer group-commits in one transaction: ``log`` entries
``[code, version, kind, data, at, table]`` (``table``: the table's row when it changed, or
None) and finished ``matches``. Like store.py, these functions take the session explicitly.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc
from sqlalchemy.orm import Session

from server.log_entry import LogEntry
from server.storage import store
from server.storage.db import insert_of
from server.storage.models import Table, TableLogEntry, TablePlayer

SLOW_CLOCK_S = 3600  # a clock this long or longer is slow (server/rooms/timer.py)
OPEN_STATUSES = ("waiting", "playing", "finished")  # in memory while the server runs
RESUMABLE_STATUSES = ("waiting", "playing", "finished", "parked")


def _entries(log: Iterable[list]) -> list[LogEntry]:
    """A batch's log as entries: each travels as ``LogEntry.row()`` and is read back here."""
    return [LogEntry.of_row(row) for row in log]


def _table_rows(entries: list[LogEntry]) -> tuple[list[dict], dict[str, dict[str, tuple[bool, bool]]]]:
    """The newest row of each table that changed in ``entries``, and its players: for each
    seated one or one who left its match in play, (left, awaited by a slow clock)."""
    rows: dict[str, dict] = {}
    players: dict[str, dict[str, tuple[bool, bool]]] = {}
    for entry in entries:
        code, table = entry.code, entry.table
        if table is None:
            continue
        rows[code] = {
            "code": code,
            "game": table["game"],
            "status": table["status"],
            "private": bool(table["private"]),
            "host_id": table.get("host_id"),
            "version": entry.version,
            "updated_at": entry.at,
            "clock_s": int(table.get("clock_s") or 0),
            "deadline": table.get("deadline"),
        }
        seated = set(table.get("players") or ())
        left = set(table.get("left") or ()) - seated
        awaited = set(table.get("awaited") or ())
        players[code] = {p: (p in left, p in awaited) for p in sorted(seated | left)}
    return list(rows.values()), players


def _upsert_tables(conn: sa.Connection, entries: list[LogEntry]) -> None:
    rows, players = _table_rows(entries)
    if not rows:
        return
    insert = insert_of(conn)(Table.__table__)
    changing = ("game", "status", "private", "host_id", "version", "updated_at", "clock_s", "deadline")
    stmt = insert.on_conflict_do_update(
        index_elements=["code"], set_={c: getattr(insert.excluded, c) for c in changing}
    )
    for row in rows:
        conn.execute(stmt, row)
    conn.execute(sa.delete(TablePlayer.__table__).where(TablePlayer.code.in_(list(players))))
    seated = [
        {"code": code, "player_id": p, "left": left, "to_act": to_act}
        for code, ids in players.items()
        for p, (left, to_act) in ids.items()
    ]
    if seated:
        conn.execute(TablePlayer.__table__.insert(), seated)


def _log_rows(entries: list[LogEntry]) -> list[tuple]:
    """The log rows of ``entries``, in the column order of ``_LOG_COLUMNS``."""
    return [(e.code, int(e.version), e.kind, orjson.dumps(e.data).decode(), float(e.at)) for e in entries]


_LOG_COLUMNS = ("code", "version", "kind", "data", "at")
_log_inserts: dict[tuple[str, str, bool], tuple[str, bool]] = {}


def _log_insert(conn: sa.Connection, replay: bool) -> tuple[str, bool]:
    """The log's INSERT as the driver takes it (compiled once per dialect), and whether its
    parameters are positional.

    Run through ``exec_driver_sql`` it skips SQLAlchemy's statement building, cache key and
    parameter steps on every batch: with the connection the worker holds, a one-entry commit
    costs a third of the CPU of a Core ``insert`` through a pooled connection (``python -m
    bench.writer_batch``). Errors still arrive wrapped (IntegrityError for a second writer).
    """
    dialect = conn.dialect
    key = (dialect.name, str(dialect.paramstyle), replay)
    known = _log_inserts.get(key)
    if known is None:
        stmt = insert_of(conn)(TableLogEntry.__table__)
        if replay:
            stmt = stmt.on_conflict_do_nothing()
        compiled = stmt.compile(dialect=dialect, column_keys=list(_LOG_COLUMNS))
        order = compiled.positiontup
        if order is not None and tuple(order) != _LOG_COLUMNS:
            raise RuntimeError(f"unexpected column order in the table log's INSERT: {order}")
        known = _log_inserts[key] = (compiled.string, order is not None)
    return known


def write_batch(session: Session, batch: Mapping[str, Any], *, replay: bool = False) -> None:
    """Store one batch in the session's transaction.

    A (code, version) already stored raises IntegrityError: a second writer of that version.
    With ``replay`` (a batch written again after its answer was lost, or the spool on start)
    the entries already stored are skipped instead.
    """
    write_entries(session.connection(), batch.get("log") or (), replay=replay)
    for record in batch.get("matches") or ():
        store.save_match(session, record)


def write_entries(conn: sa.Connection, log: Iterable[list], *, replay: bool = False) -> None:
    """Store a batch's log entries (and the lobby rows they change) in ``conn``'s transaction.

    The writer's worker calls this with the Connection it holds for a batch without matches
    (almost every batch). A (code, version) already stored raises IntegrityError on both
    backends: a second writer of that version (skipped instead with ``replay``).
    """
    entries = _entries(log)
    _upsert_tables(conn, entries)
    rows = _log_rows(entries)
    if rows:
        sql, positional = _log_insert(conn, replay)
        params = rows if positional else [dict(zip(_LOG_COLUMNS, row, strict=True)) for row in rows]
        conn.exec_driver_sql(sql, params)


def log_only(log: Iterable[list]) -> bool:
    """Whether no entry of ``log`` changes its table's lobby row (every move of a game in play)."""
    return all(entry.table is None for entry in _entries(log))


def write_log_sqlite(conn: sa.Connection, log: list, *, replay: bool = False) -> None:
    """Store and commit log entries that change no lobby row, through SQLite's own connection.

    This is ``write_entries`` plus the commit for almost every batch the writer's worker
    sends to SQLite, where the database's own work is ~20 us: SQLAlchemy's transaction and
    execution steps around it (``conn.begin``, ``exec_driver_sql``, the commit) cost as much
    again in the worker (``python -m bench.writer_batch``). ``conn`` must not be in a
    transaction; the driver begins one implicitly, as under SQLAlchemy. Errors arrive as
    SQLAlchemy's (IntegrityError: a second writer; OperationalError: a locked or failing
    file), after the transaction is rolled back.
    """
    sql, _positional = _log_insert(conn, replay)  # SQLite's paramstyle is positional
    rows = _log_rows(_entries(log))
    driver = conn.connection.driver_connection
    assert isinstance(driver, sqlite3.Connection)
    try:
        driver.executemany(sql, rows)
        driver.commit()
    except sqlite3.Error as exc:
        driver.rollback()
        raise sa_exc.DBAPIError.instance(sql, rows, exc, sqlite3.Error, dialect=conn.dialect) from exc


def codes_of(batch: Mapping[str, Any]) -> list[str]:
    """The tables a batch writes to, each once, in order."""
    return list(dict.fromkeys(entry.code for entry in _entries(batch.get("log") or ())))


def only_code(batch: Mapping[str, Any], code: str) -> dict:
    """The part of ``batch`` that writes table ``code`` (no matches)."""
    return {"log": [row for row in batch.get("log") or () if LogEntry.of_row(row).code == code]}


def without_codes(batch: Mapping[str, Any], codes: Iterable[str]) -> dict:
    """``batch`` without the entries of ``codes``."""
    skip = set(codes)
    log = [row for row in batch.get("log") or () if LogEntry.of_row(row).code not in skip]
    return {"log": log, "matches": batch.get("matches") or []}


# ---- reading --------------------------------------------------------------------------------


def table_codes(session: Session, statuses: Iterable[str]) -> list[str]:
    """The codes of the tables in ``statuses``, oldest change first."""
    query = sa.select(Table.code).where(Table.status.in_(list(statuses))).order_by(Table.updated_at)
    return list(session.scalars(query))


def table_status(session: Session, code: str) -> str | None:
    return session.scalar(sa.select(Table.status).where(Table.code == code))


def table_log(session: Session, code: str) -> list[LogEntry]:
    """A table's whole log, in version order (each entry without its lobby row), each row
    read back as the entry it was written from (``LogEntry.of_row``)."""
    query = (
        sa.select(TableLogEntry.version, TableLogEntry.kind, TableLogEntry.data, TableLogEntry.at)
        .where(TableLogEntry.code == code)
        .order_by(TableLogEntry.version)
    )
    rows = session.execute(query)
    return [LogEntry.of_row((code, version, kind, orjson.loads(data), at, None)) for version, kind, data, at in rows]


def tables_of(session: Session, player_id: str, limit: int = 50) -> list[dict]:
    """The unfinished tables where ``player_id`` sits (waiting, playing or parked), newest first,
    and those whose match in play they left (``left``: a bot plays their seat); at a slow table
    whose clock awaits them, ``your_turn`` and its ``deadline`` (Unix ms) as stored."""
    query = (
        sa.select(Table, TablePlayer.left, TablePlayer.to_act)
        .join(TablePlayer, TablePlayer.code == Table.code)
        .where(TablePlayer.player_id == player_id, Table.status.in_(("waiting", "playing", "parked")))
        .order_by(Table.updated_at.desc())
        .limit(limit)
    )
    return [
        {
            "code": t.code,
            "game": t.game,
            "status": t.status,
            "private": t.private,
            "is_host": t.host_id == player_id,
            "updated_at": t.updated_at,
            "left": left,
            "turn_timer": t.clock_s,
            "your_turn": bool(to_act and t.deadline is not None and t.status in ("playing", "parked")),
            "deadline": t.deadline if to_act and t.status in ("playing", "parked") else None,
        }
        for t, left, to_act in session.execute(query)
    ]


def slow_seats(session: Session, player_id: str) -> list[str]:
    """The codes of the slow tables ``player_id`` sits at (waiting, playing or parked; not one
    they left)."""
    query = (
        sa.select(Table.code)
        .select_from(Table)
        .join(TablePlayer, TablePlayer.code == Table.code)
        .where(
            TablePlayer.player_id == player_id,
            sa.not_(TablePlayer.left),
            Table.clock_s >= SLOW_CLOCK_S,
            Table.status.in_(("waiting", "playing", "parked")),
        )
    )
    return list(session.scalars(query))


def due_clocks(session: Session, now_ms: int, limit: int = 100) -> list[str]:
    """The tables in play (in memory or parked) whose slow clock ran out by ``now_ms``, the
    longest overdue first."""
    query = (
        sa.select(Table.code)
        .where(Table.deadline <= now_ms, Table.status.in_(("playing", "parked")))
        .order_by(Table.deadline)
        .limit(limit)
    )
    return list(session.scalars(query))


def purge(session: Session, parked_before: float) -> int:
    """Delete closed tables, and parked ones not changed since ``parked_before`` (their logs go too)."""
    doomed = sa.or_(Table.status == "closed", sa.and_(Table.status == "parked", Table.updated_at < parked_before))
    codes = list(session.scalars(sa.select(Table.code).where(doomed).limit(1000)))
    if codes:  # the children first: SQLite enforces the foreign keys, not every build cascades
        session.execute(sa.delete(TableLogEntry).where(TableLogEntry.code.in_(codes)))
        session.execute(sa.delete(TablePlayer).where(TablePlayer.code.in_(codes)))
        session.execute(sa.delete(Table).where(Table.code.in_(codes)))
    return len(codes)
