"""The writer: the table log and finished matches, group-committed off the loop, refused twice,
spooled while the database is down and written from the spool when it is back."""

from __future__ import annotations

import asyncio
import collections
import time

import pytest
import sqlalchemy as sa
from storage_helpers import Told

from server.log_entry import LogEntry
from server.storage import tables
from server.storage.dbwriter import DatabaseWriter, Spool
from server.storage.models import Match, TableLogEntry
from server.storage.writer import MemoryWriter


def _row(status: str = "waiting") -> dict:
    return {"game": "oh_hell", "status": status, "private": False, "host_id": "p0", "players": ["p0"]}


def _entries(code: str, first: int, count: int) -> list[LogEntry]:
    return [
        LogEntry(code, v, "created" if v == 1 else "chat", {"n": v}, time.time(), _row() if v == 1 else None)
        for v in range(first, first + count)
    ]


def _versions(db, code: str) -> list[int]:
    with db.session() as session:
        return [e.version for e in tables.table_log(session, code)]


def _writer(db, tmp_path) -> DatabaseWriter:
    return DatabaseWriter(db.url.render_as_string(hide_password=False), tmp_path / "spool.jsonl", retry_max_s=0.2)


def test_the_log_refuses_a_second_writer_of_the_same_version(db):
    batch = {"log": [["T1", 1, "created", {}, 1.0, _row()], ["T1", 2, "chat", {"a": 1}, 2.0, None]]}
    with db.session() as session:
        tables.write_batch(session, batch)
    second = {"log": [["T1", 2, "chat", {"b": 2}, 3.0, None]]}
    with pytest.raises(sa.exc.IntegrityError), db.session() as session:
        tables.write_batch(session, second)
    with db.session() as session:
        assert tables.table_log(session, "T1")[1].row() == ["T1", 2, "chat", {"a": 1}, 2.0, None]
        tables.write_batch(session, second, replay=True)  # a replay skips what is stored
        assert tables.table_log(session, "T1")[1].row() == ["T1", 2, "chat", {"a": 1}, 2.0, None]


async def test_many_tables_entries_share_commits_and_each_version_is_reported_durable_in_order(db, tmp_path):
    writer = _writer(db, tmp_path)
    durable: dict[str, list[int]] = {}
    writer.reports = Told(lambda code, v: durable.setdefault(code, []).append(v))
    await writer.start()
    try:
        codes = [f"G{i}" for i in range(40)]
        for step in range(5):  # 40 tables, 5 versions each, queued faster than a commit
            for code in codes:
                for entry in _entries(code, 1 + step * 2, 2):
                    writer.append(entry)
            await asyncio.sleep(0)
        await writer.flush(30)
    finally:
        await writer.close()
    assert writer.batches < 40 * 5  # group commit: far fewer commits than entries
    for code in codes:
        assert _versions(db, code) == list(range(1, 11))
        assert durable[code] == sorted(durable[code]) and durable[code][-1] == 10


async def test_a_large_batch_is_reported_a_slice_per_loop_turn_each_table_once(db, tmp_path):
    """One commit of many tables tells them "durable" about half a millisecond per loop turn,
    so the frames it releases never hold the loop in one long callback; each table hears it
    once, with its newest version."""
    writer = _writer(db, tmp_path)
    turn = 0
    durable: list[tuple[str, int]] = []
    per_turn: collections.Counter = collections.Counter()  # loop turn -> tables told in it
    cost_s = 0.00005

    def told(code: str, version: int) -> None:  # a room queueing its frames: >= 50 us here
        started = time.perf_counter()
        durable.append((code, version))
        per_turn[turn] += 1
        while time.perf_counter() - started < cost_s:
            pass

    writer.reports = Told(told)
    await writer.start()
    try:
        await writer.flush(30)  # the worker is up: the next batch is the whole burst
        tables_count = 400
        for i in range(tables_count):  # queued in one go: one batch
            for entry in _entries(f"L{i}", 1, 2):
                writer.append(entry)
        while writer.pending:  # pending until every table is told; the writer and this
            turn += 1  # task take turns, so ``turn`` names the writer's loop turn
            await asyncio.sleep(0)
        assert len(durable) == tables_count
    finally:
        await writer.close()
    assert sorted(durable) == sorted((f"L{i}", 2) for i in range(tables_count))
    # Each table takes at least cost_s: a turn that told more than 1 ms / cost_s + 1 tables
    # held the loop over 1 ms. (The budget is wall time: a slow machine tells fewer, never more.)
    most = int(0.001 / cost_s) + 1
    assert max(per_turn.values()) <= most
    assert len(per_turn) >= tables_count // most


async def test_a_second_writer_is_reported_as_a_conflict_and_the_other_tables_are_written(db, tmp_path):
    writer = _writer(db, tmp_path)
    durable, conflicts = [], []
    writer.reports = Told(lambda code, v: durable.append((code, v)), conflicts.append)
    await writer.start()
    try:
        for entry in _entries("A", 1, 3):
            writer.append(entry)
        await writer.flush(30)
        # Another process wrote A's version 4 first; this writer then writes A 4 and B 1.
        with db.session() as session:
            tables.write_batch(session, {"log": [["A", 4, "chat", {"other": True}, 1.0, None]]})
        writer.append(LogEntry("A", 4, "chat", {"mine": True}, time.time()))
        writer.append(_entries("B", 1, 1)[0])
        await writer.flush(30)
    finally:
        await writer.close()
    assert conflicts == ["A"]
    assert ("B", 1) in durable and ("A", 4) not in durable
    with db.session() as session:
        assert tables.table_log(session, "A")[3].data == {"other": True}
    assert _versions(db, "B") == [1]


async def test_a_match_record_is_written_with_the_log(db, tmp_path, template_records):
    writer = _writer(db, tmp_path)
    await writer.start()
    record = dict(template_records["ribs"], id="match-with-log")
    try:
        for entry in _entries("M", 1, 2):
            writer.append(entry)
        writer.record(record)
        writer.record(dict(record))  # twice: stored once
        await writer.flush(30)
    finally:
        await writer.close()
    with db.session() as session:
        assert session.scalar(sa.select(sa.func.count()).select_from(Match)) == 1


async def test_while_the_database_is_down_entries_are_spooled_and_written_when_it_is_back(
    db, tmp_path, outage, template_records
):
    writer = _writer(db, tmp_path)
    durable = []
    writer.reports = Told(lambda code, v: durable.append((code, v)))
    await writer.start()
    try:
        with outage(db):
            for entry in _entries("S", 1, 4):
                writer.append(entry)
            writer.record(dict(template_records["oh_hell"], id="spooled-match"))
            await writer.flush(30)  # durable in the spool: the rooms may show it
            assert ("S", 4) in durable
            assert writer.spooled and not Spool(tmp_path / "spool.jsonl").is_empty()
        assert await writer.sync()
    finally:
        await writer.close()
    assert _versions(db, "S") == [1, 2, 3, 4]
    with db.session() as session:
        assert session.get(Match, "spooled-match") is not None
    assert Spool(tmp_path / "spool.jsonl").is_empty()


async def test_a_stop_during_an_outage_leaves_everything_in_the_spool_for_the_next_start(
    db, tmp_path, outage, template_records
):
    with outage(db):
        writer = _writer(db, tmp_path)
        await writer.start()
        for entry in _entries("Z", 1, 3):
            writer.append(entry)
        writer.record(dict(template_records["tarbish"], id="stopped-match"))
        await writer.close(timeout=20)
    with db.session() as session:
        assert session.scalar(sa.select(sa.func.count()).select_from(TableLogEntry)) == 0
    later = _writer(db, tmp_path)  # the next start, the database back
    await later.start()
    try:
        assert later.spooled and await later.sync()
    finally:
        await later.close()
    assert _versions(db, "Z") == [1, 2, 3]
    with db.session() as session:
        assert session.get(Match, "stopped-match") is not None


async def test_without_a_spool_an_outage_leaves_entries_unshown_until_the_database_is_back(db, tmp_path, outage):
    """Cluster mode: nothing is acknowledged from a local file; the writer reports an outage."""
    writer = DatabaseWriter(db.url.render_as_string(hide_password=False), None, retry_max_s=0.2)
    durable = []
    writer.reports = Told(lambda code, v: durable.append((code, v)))
    await writer.start()
    try:
        assert not writer.outage
        with outage(db):
            for entry in _entries("N", 1, 3):
                writer.append(entry)
            for _ in range(600):  # the worker's first attempt fails (SQLite: after its busy timeout)
                if writer.outage:
                    break
                await asyncio.sleep(0.05)
            assert writer.outage and writer.pending == 3
            assert durable == [] and not writer.spooled
        await writer.flush(30)
        assert not writer.outage and durable[-1] == ("N", 3)
    finally:
        await writer.close()
    assert _versions(db, "N") == [1, 2, 3]
    assert not [p for p in tmp_path.iterdir() if "spool" in p.name], "no spool file"


async def test_without_a_spool_a_stop_during_an_outage_drops_what_was_never_shown(db, tmp_path, outage):
    with outage(db):
        writer = DatabaseWriter(db.url.render_as_string(hide_password=False), None, retry_max_s=0.2)
        durable = []
        writer.reports = Told(lambda code, v: durable.append((code, v)))
        await writer.start()
        for entry in _entries("D", 1, 3):
            writer.append(entry)
        await writer.close(timeout=5)
    assert durable == [] and _versions(db, "D") == []
    assert not [p for p in tmp_path.iterdir() if "spool" in p.name], "no spool file"


async def test_a_worker_that_dies_is_replaced_and_its_batch_written_once(db, tmp_path):
    writer = _writer(db, tmp_path)
    await writer.start()
    try:
        for entry in _entries("W", 1, 2):
            writer.append(entry)
        await writer.flush(30)
        writer._worker.process.kill()
        for entry in _entries("W", 3, 2):
            writer.append(entry)
        await writer.flush(30)
    finally:
        await writer.close()
    assert _versions(db, "W") == [1, 2, 3, 4]


async def test_the_worker_never_preempts_the_event_loop_when_a_batch_wakes_it(sqlite_db, tmp_path):
    """SCHED_BATCH: the worker keeps its share of the CPU but, woken by a batch, does not take
    the event loop's core in the middle of its write (server/storage/dbwriter.py)."""
    import os

    writer = _writer(sqlite_db, tmp_path)
    await writer.start()
    try:
        writer.append(_entries("B", 1, 1)[0])
        await writer.flush(30)
        worker = writer._worker.process.pid
        assert os.sched_getscheduler(worker) == os.SCHED_BATCH
        assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the server itself is left alone
        assert os.getpriority(os.PRIO_PROCESS, worker) == os.getpriority(os.PRIO_PROCESS, 0)
    finally:
        await writer.close()
    assert _versions(sqlite_db, "B") == [1]


def test_the_memory_writer_refuses_a_second_writer_and_reports_only_when_committed():
    writer = MemoryWriter(manual=True)
    durable, conflicts = [], []
    writer.reports = Told(lambda code, v: durable.append((code, v)), conflicts.append)
    writer.append(LogEntry("X", 1, "created", {}, time.time()))
    assert durable == [] and writer.pending == 1
    writer.commit()
    assert durable == [("X", 1)]
    writer.append(LogEntry("X", 1, "chat", {}, time.time()))
    writer.commit()
    assert conflicts == ["X"] and [e.kind for e in writer.log["X"]] == ["created"]


def test_a_player_who_left_a_match_in_play_keeps_the_table_in_their_list_until_it_ends(db):
    def row(status: str, players: list[str], left: list[str]) -> dict:
        return {
            "game": "oh_hell",
            "status": status,
            "private": False,
            "host_id": "p0",
            "players": players,
            "left": left,
        }

    def listed(player_id: str) -> list[tuple[str, str, bool]]:
        with db.session() as session:
            return [(t["code"], t["status"], t["left"]) for t in tables.tables_of(session, player_id)]

    with db.session() as session:
        tables.write_batch(session, {"log": [["L", 1, "created", {}, 1.0, row("playing", ["p0", "p1"], [])]]})
        tables.write_batch(session, {"log": [["L", 2, "leave", {}, 2.0, row("playing", ["p0"], ["p1"])]]})
    assert listed("p1") == [("L", "playing", True)]
    assert listed("p0") == [("L", "playing", False)]
    with db.session() as session:  # taken back from the bot: seated again
        tables.write_batch(session, {"log": [["L", 3, "take", {}, 3.0, row("playing", ["p0", "p1"], [])]]})
    assert listed("p1") == [("L", "playing", False)]
    with db.session() as session:  # left again, then the match ends: the seat is no longer theirs
        tables.write_batch(session, {"log": [["L", 4, "leave", {}, 4.0, row("playing", ["p0"], ["p1"])]]})
        tables.write_batch(session, {"log": [["L", 5, "act", {}, 5.0, row("finished", ["p0"], [])]]})
    assert listed("p1") == []


def test_an_entry_goes_to_the_database_as_its_row_and_comes_back_as_the_same_entry(db):
    """The write path reads the batch's rows with ``LogEntry.of_row`` and the restore reads the
    stored rows back the same way: every field but the lobby row (not logged) survives."""
    sent = [
        LogEntry("RT", 1, "created", {"game": "oh_hell", "n": [1, 2]}, 10.5, _row()),
        LogEntry("RT", 2, "chat", {"text": "olá"}, 11.25),
    ]
    with db.session() as session:
        tables.write_batch(session, {"log": [entry.row() for entry in sent]})
    with db.session() as session:
        back = tables.table_log(session, "RT")
        assert tables.table_status(session, "RT") == "waiting"
    assert [entry.row() for entry in back] == [[*entry.row()[:5], None] for entry in sent]
    assert all(isinstance(entry, LogEntry) for entry in back)
