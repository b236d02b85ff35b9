"""The writer's worker against a database that hangs: PostgreSQL behind a proxy frozen by the
test (it accepts and answers nothing). Each answer comes within the deadline; a write that
runs past it and commits later is never written twice nor reported as a conflict; the spool
keeps every batch appended while a drain runs."""

from __future__ import annotations

import os
import signal
import time

import orjson
import pytest
from frozen_proxy import FrozenProxy
from storage_helpers import Told

from server.log_entry import LogEntry
from server.storage import tables
from server.storage.dbwriter import DatabaseWriter, Spool, _WorkerState

ROW = {"game": "oh_hell", "status": "waiting", "private": False, "host_id": "p0", "players": ["p0"]}


def _entries(code: str, first: int, count: int) -> list[LogEntry]:
    return [
        LogEntry(code, v, "created" if v == 1 else "chat", {"n": v}, time.time(), ROW if v == 1 else None)
        for v in range(first, first + count)
    ]


def _batch(code: str, first: int, count: int) -> bytes:
    return orjson.dumps({"op": "write", "log": [e.row() for e in _entries(code, first, count)], "matches": []})


def _versions(db, code: str) -> list[int]:
    with db.session() as session:
        return [e.version for e in tables.table_log(session, code)]


@pytest.fixture
def proxied(pg_db):
    """(the database, the URL of a proxy in front of it that the test can freeze)."""
    url = pg_db.url
    proxy = FrozenProxy(url.host or "127.0.0.1", url.port or 5432)
    try:
        yield pg_db, proxy, proxy.url_for(url.render_as_string(hide_password=False))
    finally:
        proxy.close()


def _settled(state: _WorkerState) -> None:
    """Wait until the database thread has finished the call that ran past its deadline."""
    deadline = time.monotonic() + 60
    while state._job is not None and not state._job.done():
        assert time.monotonic() < deadline, "the late write never ended"
        time.sleep(0.05)


def test_without_a_spool_a_write_past_its_deadline_is_an_outage_then_answered_once(proxied):
    db, proxy, url = proxied
    state = _WorkerState(url, None, timeout_s=1)
    try:
        assert state.write(_batch("H", 1, 2))["ok"]
        proxy.freeze()
        late = _batch("H", 3, 2)
        first = state.write(late)
        assert not first["ok"] and first["unreachable"], first
        again = state.write(late)  # the late write has not ended: still an outage
        assert not again["ok"] and again["unreachable"], again
        proxy.thaw()
        _settled(state)
        answer = state.write(late)  # that write's own answer: not written twice, no conflict
        assert answer["ok"] and answer["conflicts"] == [], answer
        assert state.write(_batch("H", 5, 1)) == {"ok": True, "spooled": False, "conflicts": []}
    finally:
        state.close()
    assert _versions(db, "H") == [1, 2, 3, 4, 5]


def test_with_a_spool_a_write_past_its_deadline_is_spooled_and_written_once(proxied, tmp_path):
    db, proxy, url = proxied
    state = _WorkerState(url, str(tmp_path / "spool.jsonl"), timeout_s=1)
    try:
        assert state.write(_batch("K", 1, 2))["ok"]
        proxy.freeze()
        assert state.write(_batch("K", 3, 2)) == {"ok": True, "spooled": True}  # past the deadline
        assert state.write(_batch("K", 5, 1)) == {"ok": True, "spooled": True}  # after it, in order
        assert state.write(b'{"op":"sync","wait":false}') == {"ok": True, "spooled": True}
        proxy.thaw()
        _settled(state)  # the late write commits versions 3 and 4; the spool has them too
        assert state.write(b'{"op":"sync"}') == {"ok": True, "spooled": False}
        assert state.write(_batch("K", 6, 1)) == {"ok": True, "spooled": False, "conflicts": []}
    finally:
        state.close()
    assert _versions(db, "K") == [1, 2, 3, 4, 5, 6]
    assert Spool(tmp_path / "spool.jsonl").is_empty()


def test_a_batch_appended_while_a_drain_runs_stays_in_the_spool(tmp_path):
    spool = Spool(tmp_path / "spool.jsonl")
    spool.append(_batch("D", 1, 1))
    spool.append(_batch("D", 2, 1))
    read = spool.read()  # what a drain writes to the database
    spool.append(_batch("D", 3, 1))  # meanwhile
    spool.remove(read)
    assert [b["log"][0][1] for b in spool.batches()] == [3]
    spool.remove(read)  # a second removal of the same bytes removes nothing else
    assert [b["log"][0][1] for b in spool.batches()] == [3]
    spool.remove(spool.read())
    assert spool.is_empty()


def test_a_torn_last_line_never_swallows_the_next_batch(tmp_path):
    spool = Spool(tmp_path / "spool.jsonl")
    spool.append(_batch("E", 1, 1))
    with open(spool.path, "ab") as f:
        f.write(b'{"op":"write","log":[["E",2')  # a crash in the middle of an append
    spool.append(_batch("E", 3, 1))
    assert [b["log"][0][1] for b in spool.batches()] == [1, 3]


async def test_a_worker_that_does_not_answer_at_all_is_replaced_and_its_batch_written_once(sqlite_db, tmp_path):
    url = sqlite_db.url.render_as_string(hide_password=False)
    writer = DatabaseWriter(url, tmp_path / "spool.jsonl", retry_max_s=0.2, timeout_s=0.5)
    durable: list[tuple[str, int]] = []
    writer.reports = Told(lambda code, v: durable.append((code, v)))
    await writer.start()
    try:
        for entry in _entries("W", 1, 2):
            writer.append(entry)
        await writer.flush(60)
        stuck = writer._worker
        assert stuck is not None
        os.kill(stuck.process.pid, signal.SIGSTOP)  # alive, never answering
        try:
            for entry in _entries("W", 3, 2):
                writer.append(entry)
            await writer.flush(120)
        finally:
            if stuck.process.is_alive():
                os.kill(stuck.process.pid, signal.SIGCONT)
        assert writer._worker is not stuck and not stuck.process.is_alive()
        assert ("W", 4) in durable
    finally:
        await writer.close()
    assert _versions(sqlite_db, "W") == [1, 2, 3, 4]
