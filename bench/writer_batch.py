"""``python -m bench.writer_batch``: the writer worker's CPU for one commit, as the server writes it.

A batch of table-log entries (one, or ten, as group commit makes them at human pace) is
written to a fresh SQLite file the way the worker writes a batch without matches (a plain
Connection, ``_WorkerState._write``) and, as the baseline measured in the same run, through
an ORM Session (``tables.write_batch``, the path a batch with a finished match takes). The
two alternate in blocks of 40 batches, 20 rounds each; figures are the medians, in this
thread's CPU time.

Then the whole round trip at human pace, where every move is a batch of its own: the real
``DatabaseWriter`` (server side and worker process, pinned to one core as the bench pins the
server) is handed one entry, and the next only once that one is reported durable; CPU per
batch of the server's process and of the worker, medians of five blocks.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time

import orjson
import psutil

from server.log_entry import LogEntry
from server.storage import tables
from server.storage.db import Database
from server.storage.dbwriter import DatabaseWriter, _WorkerState


def run(rounds: int = 20, per_block: int = 40) -> list[str]:
    folder = tempfile.mkdtemp(prefix="felt-bench-writer-")
    url = f"sqlite:///{folder}/felt.db"
    Database(url).upgrade()
    worker = _WorkerState(url, f"{folder}/spool.jsonl")
    table = {"game": "oh_hell", "status": "playing", "private": False, "host_id": "p", "players": ["p"]}
    worker.write(orjson.dumps({"op": "write", "log": [["T0", 1, "created", {}, time.time(), table]], "matches": []}))
    version = 1

    def batch(size: int) -> dict:
        nonlocal version
        log = []
        for _ in range(size):
            version += 1
            log.append(["T0", version, "act", {"seat": 1, "action": {"type": "play", "card": "QH"}}, time.time(), None])
        return {"op": "write", "log": log, "matches": []}

    def session(b: dict) -> None:
        with worker.db.session() as s:
            tables.write_batch(s, b)

    def connection(b: dict) -> None:
        worker._write(b, False)

    lines = []
    for size in (1, 10):
        times: dict = {session: [], connection: []}
        for _ in range(rounds):
            for path in (session, connection):
                batches = [batch(size) for _ in range(per_block)]
                t0 = time.thread_time()
                for b in batches:
                    path(b)
                times[path].append((time.thread_time() - t0) / per_block * 1e6)
        base, ours = statistics.median(times[session]), statistics.median(times[connection])
        lines.append(
            f"writer batch of {size}: {ours:.0f} us CPU (baseline, an ORM Session: {base:.0f} us) "
            f"ratio {ours / base:.2f}"
        )
    return lines


class _Durable:
    """Reports that wake the round trip when its entry is durable."""

    def __init__(self) -> None:
        self.event = asyncio.Event()

    def durable(self, code: str, version: int) -> None:
        self.event.set()

    def conflict(self, code: str) -> None:
        raise AssertionError(code)


async def round_trip(batches: int = 2000, blocks: int = 5) -> str:
    folder = tempfile.mkdtemp(prefix="felt-bench-writer-")
    url = f"sqlite:///{folder}/felt.db"
    Database(url).upgrade()
    reports = _Durable()
    writer = DatabaseWriter(url, f"{folder}/spool.jsonl", reports=reports)
    await writer.start()
    table = {"game": "oh_hell", "status": "playing", "private": False, "host_id": "p", "players": ["p"]}
    writer.append(LogEntry("T0", 1, "created", {}, time.time(), table))
    await writer.flush()
    assert writer._worker is not None
    worker = psutil.Process(writer._worker.process.pid)
    version = 1

    async def play(count: int) -> None:
        nonlocal version
        for _ in range(count):
            version += 1
            reports.event.clear()
            writer.append(
                LogEntry("T0", version, "act", {"seat": 1, "action": {"type": "play", "card": "QH"}}, time.time())
            )
            await reports.event.wait()

    def worker_cpu() -> float:
        t = worker.cpu_times()
        return t.user + t.system

    await play(200)
    server, work = [], []
    for _ in range(blocks):
        c0, w0 = time.process_time(), worker_cpu()
        await play(batches // blocks)
        server.append((time.process_time() - c0) / (batches // blocks) * 1e6)
        work.append((worker_cpu() - w0) / (batches // blocks) * 1e6)
    await writer.close()
    s, w = statistics.median(server), statistics.median(work)
    return f"writer round trip, one entry a batch: server {s:.0f} us CPU, worker {w:.0f} us CPU, total {s + w:.0f} us"


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})  # the worker is forked from here: it shares the core
    print(asyncio.run(round_trip()), flush=True)
