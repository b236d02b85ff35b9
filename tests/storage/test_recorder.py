"""The recorder writes finished matches off the event loop, survives outages, loses nothing."""

from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest
import sqlalchemy as sa
from sqlalchemy import event

from server.storage import store
from server.storage.db import Database
from server.storage.recorder import MatchRecorder
from storage_helpers import GAMES, copy_record, table_counts


def stored_ids(db) -> list[str]:
    with db.engine.connect() as conn:
        return list(conn.execute(sa.text("SELECT id FROM matches")).scalars())


async def test_submitted_matches_are_written_by_a_worker_thread_not_the_event_loop(db, template_records):
    writer_threads: set[int] = set()

    def note_thread(*_args) -> None:
        writer_threads.add(threading.get_ident())

    event.listen(db.engine, "before_cursor_execute", note_thread)
    try:
        recorder = MatchRecorder(db)
        recorder.start()
        records = [copy_record(template_records[g]) for g in GAMES]
        for record in records:
            recorder.submit(record)
        await recorder.flush()
        await recorder.close()
    finally:
        event.remove(db.engine, "before_cursor_execute", note_thread)
    assert sorted(stored_ids(db)) == sorted(r["id"] for r in records)
    assert writer_threads and threading.get_ident() not in writer_threads
    assert recorder.pending == 0


async def test_submit_returns_at_once_and_the_loop_keeps_ticking_while_matches_are_written(db, template_records):
    recorder = MatchRecorder(db)
    recorder.start()
    stalls: list[float] = []
    done = asyncio.Event()

    async def ticker() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            stalls.append(now - last)
            last = now

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    submit_times = []
    for i in range(60):
        record = copy_record(template_records[GAMES[i % 4]])
        start = time.perf_counter()
        recorder.submit(record)
        submit_times.append(time.perf_counter() - start)
    await recorder.flush(timeout=60)
    done.set()
    await tick
    await recorder.close()
    assert len(stored_ids(db)) == 60
    assert sorted(submit_times)[30] < 0.001
    assert len(stalls) > 10  # the loop went on ticking while the matches were written


async def test_the_event_loop_runs_on_while_a_write_waits_for_a_locked_database(db, template_records, locked):
    recorder_db = Database(db.url, busy_timeout_s=60) if db.is_sqlite else db
    recorder = MatchRecorder(recorder_db)
    recorder.start()
    record = copy_record(template_records["oh_hell"])
    with locked(db):
        recorder.submit(record)

        async def ticks() -> None:
            for _ in range(100):
                await asyncio.sleep(0.001)

        # Were the write on the loop, the loop would hang here until the lock (held by
        # this very test) was released: a deadlock, caught by the timeout.
        await asyncio.wait_for(ticks(), timeout=20)
        await asyncio.sleep(0.2)
        assert recorder.pending == 1
    await recorder.flush(timeout=60)
    await recorder.close()
    assert stored_ids(db) == [record["id"]]
    if recorder_db is not db:
        recorder_db.dispose()


async def test_the_same_match_submitted_twice_is_stored_once(db, template_records):
    recorder = MatchRecorder(db)
    recorder.start()
    record = copy_record(template_records["ribs"])
    recorder.submit(record)
    recorder.submit(dict(record))
    await recorder.flush()
    await recorder.close()
    counts = table_counts(db)
    assert counts["matches"] == 1 and counts["actions"] == len(record["actions"])


async def test_on_saved_is_called_on_the_event_loop_with_each_match_id(db, template_records):
    saved: list[tuple[str, int]] = []
    recorder = MatchRecorder(db, on_saved=lambda mid: saved.append((mid, threading.get_ident())))
    recorder.start()
    records = [copy_record(template_records["oh_hell"]) for _ in range(3)]
    for record in records:
        recorder.submit(record)
    await recorder.flush()
    await asyncio.sleep(0.01)
    await recorder.close()
    assert sorted(mid for mid, _ in saved) == sorted(r["id"] for r in records)
    assert {tid for _, tid in saved} == {threading.get_ident()}


async def test_a_database_outage_keeps_matches_pending_and_logged_and_they_are_written_once_after(
    db, template_records, outage, caplog
):
    caplog.set_level(logging.WARNING, logger="felt.recorder")
    recorder = MatchRecorder(db, retry_max_s=0.2)
    recorder.start()
    first = copy_record(template_records["tarbish"])
    recorder.submit(first)
    await recorder.flush()
    records = [copy_record(template_records[GAMES[i % 4]]) for i in range(6)]
    with outage(db):
        for record in records:
            start = time.perf_counter()
            recorder.submit(record)
            assert time.perf_counter() - start < 0.01  # the database is not touched here
        deadline = time.monotonic() + 20
        while len([r for r in caplog.records if r.name == "felt.recorder"]) < 6 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert recorder.pending == 6
        assert sorted(recorder.pending_ids()) == sorted(r["id"] for r in records)
        warnings = [r for r in caplog.records if r.name == "felt.recorder" and r.levelno == logging.WARNING]
        assert len(warnings) >= 6
        assert any(records[0]["id"] in r.getMessage() for r in warnings)
        # A match submitted during the outage again must not be duplicated later.
        recorder.submit(dict(records[0]))
    await recorder.flush(timeout=30)
    await recorder.close()
    ids = stored_ids(db)
    assert sorted(ids) == sorted([first["id"]] + [r["id"] for r in records])
    assert len(ids) == len(set(ids)) == 7
    assert table_counts(db)["actions"] == len(first["actions"]) + sum(len(r["actions"]) for r in records)


async def test_a_record_the_database_refuses_does_not_hold_up_the_others(sqlite_db, template_records, caplog):
    caplog.set_level(logging.WARNING, logger="felt.recorder")
    recorder = MatchRecorder(sqlite_db, retry_max_s=0.1)
    recorder.start()
    broken = copy_record(template_records["oh_hell"])
    del broken["seed"]
    good = [copy_record(template_records["bid_whist"]) for _ in range(3)]
    recorder.submit(broken)
    for record in good:
        recorder.submit(record)
    deadline = time.monotonic() + 10
    while recorder.pending > 1 and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert sorted(stored_ids(sqlite_db)) == sorted(r["id"] for r in good)
    assert recorder.pending_ids() == [broken["id"]]  # kept, not dropped
    assert any("seed" in r.getMessage() for r in caplog.records if r.name == "felt.recorder")
    await recorder.close(timeout=0.3)


def test_submit_never_raises_even_for_junk(sqlite_db, caplog):
    recorder = MatchRecorder(sqlite_db)
    recorder.submit(None)  # type: ignore[arg-type]
    recorder.submit(42)  # type: ignore[arg-type]
    assert recorder.pending == 0
    assert any(r.name == "felt.recorder" and r.levelno >= logging.ERROR for r in caplog.records)


async def test_close_drains_the_queue_before_it_returns(db, template_records):
    recorder = MatchRecorder(db)
    recorder.start()
    records = [copy_record(template_records[GAMES[i % 4]]) for i in range(10)]
    for record in records:
        recorder.submit(record)
    await recorder.close(timeout=30)
    assert recorder.pending == 0
    assert sorted(stored_ids(db)) == sorted(r["id"] for r in records)


async def test_close_during_an_outage_gives_up_in_time_and_logs_every_unwritten_record(
    db, template_records, outage, caplog
):
    caplog.set_level(logging.WARNING, logger="felt.recorder")
    recorder = MatchRecorder(db, retry_max_s=0.2)
    recorder.start()
    records = [copy_record(template_records["ribs"]) for _ in range(2)]
    with outage(db):
        for record in records:
            recorder.submit(record)
        start = time.monotonic()
        await recorder.close(timeout=1.0)
        assert time.monotonic() - start < 8
    errors = [r.getMessage() for r in caplog.records if r.name == "felt.recorder" and r.levelno == logging.ERROR]
    assert any("2 matches not written" in m for m in errors)
    for record in records:
        assert any(record["id"] in m and record["seed"] in m for m in errors)


async def test_flush_gives_up_with_a_timeout_while_the_database_is_down(db, template_records, outage):
    recorder = MatchRecorder(db, retry_max_s=0.1)
    recorder.start()
    with outage(db):
        recorder.submit(copy_record(template_records["oh_hell"]))
        with pytest.raises(TimeoutError):
            await recorder.flush(timeout=0.5)
        assert recorder.pending == 1
    await recorder.flush(timeout=30)
    await recorder.close()
    with db.session() as session:
        assert len(store.list_matches(session)[0]) == 1


async def test_the_server_writes_from_a_worker_process_and_replaces_it_if_it_dies(db, template_records):
    import os
    import signal

    recorder = MatchRecorder(db, retry_max_s=0.2, process=True)
    recorder.start()
    first = copy_record(template_records[GAMES[0]])
    recorder.submit(first)
    await recorder.flush(30)
    assert first["id"] in stored_ids(db)
    worker = recorder._worker.process.pid
    assert worker and worker != os.getpid()
    os.kill(worker, signal.SIGKILL)  # the worker is killed between two matches
    await asyncio.sleep(0.2)
    second = copy_record(template_records[GAMES[1]])
    recorder.submit(second)
    await recorder.flush(30)
    assert recorder._worker.process.pid != worker  # a new worker wrote the second match
    await recorder.close()
    assert sorted(stored_ids(db)) == sorted([first["id"], second["id"]])
