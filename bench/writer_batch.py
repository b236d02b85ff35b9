"""``python -m bench.writer_batch``: the writer worker's CPU for one commit, as the server writes it.

A batch of table-log entries (one, or ten, as group commit makes them at human pace) is
written to a fresh SQLite file the way the worker writes a batch without matches (a plain
Connection, ``_WorkerState._write``) and, as the baseline measured in the same run, through
an ORM Session (``tables.write_batch``, the path a batch with a finished match takes). The
two alternate in blocks of 40 batches, 20 rounds each; figures are the medians, in this
thread's CPU time.
"""

from __future__ import annotations

import statistics
import tempfile
import time

import orjson

from server.storage import tables
from server.storage.db import Database
from server.storage.dbwriter import _WorkerState


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
        lines.append(f"writer batch of {size}: {ours:.0f} us CPU (baseline, an ORM Session: {base:.0f} us) ratio {ours / base:.2f}")
    return lines


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
