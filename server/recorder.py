"""The match recorder: finished matches go to the database off the event loop, and none is lost.

Rooms call ``submit(record)`` (it never blocks and never raises, so it is safe inside a room
lock). One worker thread writes each match in its own transaction. A write that fails stays
in memory and is retried with exponential backoff (capped at ``retry_max_s``), each failure
logged on ``felt.recorder``; other matches are not held up behind it. Saving is idempotent
by match id, so a retry after a commit whose answer was lost cannot duplicate a match.

With ``process=True`` (what the server uses) the database work itself runs in one spawned
worker process, so building rows and driver work never compete with the event loop for the
interpreter. The record crosses to it over a pipe as JSON bytes made by ``submit`` (orjson,
in C, well under a millisecond even for a long match): the writer thread only writes bytes
and waits for the worker's answer, both with the GIL released, where pickling the record's
thousands of small objects (and a process pool's own two helper threads) would hold the GIL,
and so stall the event loop, for milliseconds at a time. A worker that dies is replaced on
the next attempt and the match it was writing is retried.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
import logging
import multiprocessing
import os
import pickle
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson

from server import store
from server.db import Database

log = logging.getLogger("felt.recorder")

FIRST_RETRY_S = 0.05

class WorkerDied(RuntimeError):
    """The worker process went away (killed, out of memory) before it answered."""


def _worker_main(conn: Any, url: str) -> None:
    """The worker process: answer b"ready", then save each match it is sent, one per transaction.

    A message is b"J" + the record's JSON, or b"P" + the record pickled (when JSON could not
    hold it). The answer is b"ok", or b"!" + the error's description.
    """
    try:  # background work: the server's event loop gets the CPU first when both want it
        os.nice(10)
    except OSError:
        pass
    db = Database(url)
    conn.send_bytes(b"ready")
    while True:
        try:
            message = conn.recv_bytes()
        except (EOFError, OSError):  # the server closed the pipe: stop
            break
        try:
            record = orjson.loads(message[1:]) if message[:1] == b"J" else pickle.loads(message[1:])
            with db.session() as session:
                store.save_match(session, record)
        except Exception as exc:
            conn.send_bytes(b"!" + f"{type(exc).__name__}: {exc}".encode("utf-8", "replace"))
        else:
            conn.send_bytes(b"ok")
    db.dispose()


class _Worker:
    """The spawned worker process and the server's end of its pipe (used by one thread)."""

    def __init__(self, url: str) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, url), name="felt-recorder-worker", daemon=True)
        self.process.start()
        child.close()
        if self._answer() != b"ready":
            raise WorkerDied("the recorder's worker process did not start")

    def _answer(self) -> bytes:
        try:
            return self.conn.recv_bytes()  # waits with the GIL released
        except (EOFError, OSError) as exc:
            raise WorkerDied(f"the recorder's worker process died (exit code {self.process.exitcode})") from exc

    def write(self, message: bytes) -> None:
        try:
            self.conn.send_bytes(message)
        except OSError as exc:
            raise WorkerDied("the recorder's worker process is gone") from exc
        answer = self._answer()
        if answer != b"ok":
            raise RuntimeError(answer[1:].decode("utf-8", "replace"))

    def close(self, timeout: float = 5.0) -> None:
        self.conn.close()  # the worker sees EOF and stops
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(1)


class _Entry:
    __slots__ = ("record", "payload", "attempts", "due")

    def __init__(self, record: dict, payload: bytes | None = None) -> None:
        self.record = record
        self.payload = payload  # the record as JSON, for the worker process
        self.attempts = 0
        self.due = 0.0


class MatchRecorder:
    """A write-behind queue of finished matches with one writer thread."""

    def __init__(
        self,
        db: Database,
        retry_max_s: float = 30,
        on_saved: Callable[[str], Any] | None = None,
        process: bool = False,
    ) -> None:
        self.db = db
        self.process = process
        self._worker: _Worker | None = None
        self.retry_max_s = max(float(retry_max_s), FIRST_RETRY_S)
        self.on_saved = on_saved
        self._fresh: deque[_Entry] = deque()
        self._retry: list[tuple[float, int, _Entry]] = []  # heap by due time
        self._order = itertools.count()
        self._busy = 0
        self._writing: _Entry | None = None
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing = False
        self._deadline: float | None = None
        self.written = 0

    # ---- the event-loop side ------------------------------------------------------------

    def start(self) -> None:
        """Start the writer thread (call inside the running event loop)."""
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None
        if self._thread is not None and self._thread.is_alive():
            return
        self._closing = False
        self._deadline = None
        # While the writer thread holds the GIL (building rows, driver work), the event loop
        # waits up to the switch interval, 5 ms by default: make it hand back within 1 ms.
        if sys.getswitchinterval() > 0.001:
            sys.setswitchinterval(0.001)
        self._thread = threading.Thread(target=self._run, name="felt-recorder", daemon=True)
        self._thread.start()

    def submit(self, record: dict) -> None:
        """Queue a finished match for writing; returns at once and never raises."""
        try:
            payload = None
            if self.process:
                try:
                    payload = b"J" + orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS)
                except TypeError:  # something JSON cannot hold: the worker gets it pickled
                    payload = None
            entry = _Entry(dict(record), payload)
            with self._cond:
                self._fresh.append(entry)
                self._cond.notify()
            if self._closing:
                log.error("match %s submitted while the recorder is closing", record.get("id"))
        except Exception:  # a bad record must never break the room that finished it
            log.exception("could not queue a finished match: %r", record)

    @property
    def pending(self) -> int:
        """Matches not yet written (queued, waiting to retry, or being written)."""
        with self._cond:
            return len(self._fresh) + len(self._retry) + self._busy

    def pending_ids(self) -> list[str]:
        """The ids of the matches not yet written."""
        with self._cond:
            entries = list(self._fresh) + [e for _, _, e in self._retry]
            if self._writing is not None:
                entries.append(self._writing)
        return [str(e.record.get("id")) for e in entries]

    async def flush(self, timeout: float = 10.0) -> None:
        """Wait until every submitted match is written; TimeoutError after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self.pending:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.pending} matches still not written after {timeout} s")
            await asyncio.sleep(0.005)

    async def close(self, timeout: float = 10) -> None:
        """Write what can be written within ``timeout`` seconds, then log whatever is left."""
        thread = self._thread
        with self._cond:
            self._closing = True
            self._deadline = time.monotonic() + timeout
            # Retries waiting for their backoff get one more try now, not after the deadline.
            self._retry = [(0.0, order, entry) for _, order, entry in self._retry]
            heapq.heapify(self._retry)
            self._cond.notify_all()
        if thread is not None:
            await asyncio.to_thread(thread.join, timeout + 1)
        with self._cond:
            left = list(self._fresh) + [e for _, _, e in sorted(self._retry, key=lambda t: t[:2])]
            if self._writing is not None:  # the writer is stuck inside the database call
                left.append(self._writing)
        if left:
            log.error(
                "recorder closed with %d matches not written: %s",
                len(left),
                ", ".join(str(e.record.get("id")) for e in left),
            )
            for entry in left:  # the log is the last place these records exist
                log.error("unwritten match record: %s", json.dumps(entry.record, default=str))
        self._thread = None
        if self._worker is not None:
            await asyncio.to_thread(self._worker.close)
            self._worker = None

    # ---- the writer thread ------------------------------------------------------------

    def _next(self) -> _Entry | None:
        """The next entry to write, waiting as needed; None when it is time to stop."""
        with self._cond:
            while True:
                now = time.monotonic()
                if self._closing:
                    if not self._fresh and not self._retry:
                        return None
                    if self._deadline is not None and now >= self._deadline:
                        return None
                if self._retry and self._retry[0][0] <= now:
                    entry = heapq.heappop(self._retry)[2]
                elif self._fresh:
                    entry = self._fresh.popleft()
                else:
                    wait = self._retry[0][0] - now if self._retry else None
                    if self._closing and self._deadline is not None:
                        left = self._deadline - now
                        wait = left if wait is None else min(wait, left)
                    self._cond.wait(wait)
                    continue
                self._busy += 1
                self._writing = entry
                return entry

    def _run(self) -> None:
        if self._uses_process():
            try:  # start the worker now, not in the middle of the first finished match
                self._ensure_worker()
            except Exception:
                log.exception("the recorder's worker process did not start; will retry on the first write")
        while True:
            entry = self._next()
            if entry is None:
                return
            match_id = entry.record.get("id")
            try:
                self._write(entry)
            except Exception as exc:
                entry.attempts += 1
                delay = min(self.retry_max_s, FIRST_RETRY_S * 2 ** (entry.attempts - 1))
                log.warning(
                    "could not write match %s (attempt %d), retrying in %.2f s: %s",
                    match_id, entry.attempts, delay, exc,
                )
                with self._cond:
                    if self._closing:  # the deadline is near: keep trying, a little more often
                        delay = min(delay, 1.0)
                    entry.due = time.monotonic() + delay
                    heapq.heappush(self._retry, (entry.due, next(self._order), entry))
                    self._busy -= 1
                    self._writing = None
                continue
            with self._cond:
                self._busy -= 1
                self._writing = None
                self.written += 1
                self._cond.notify_all()
            if entry.attempts:
                log.info("wrote match %s after %d failed attempts", match_id, entry.attempts)
            self._saved(str(match_id))

    def _uses_process(self) -> bool:
        return self.process and self.db.url.database not in (None, "", ":memory:")

    def _ensure_worker(self) -> _Worker:
        if self._worker is None:
            self._worker = _Worker(self.db.url.render_as_string(hide_password=False))
        return self._worker

    def _write(self, entry: _Entry) -> None:
        if not self._uses_process():
            with self.db.session() as session:
                store.save_match(session, entry.record)
            return
        worker = self._ensure_worker()
        message = entry.payload
        if message is None:
            message = b"P" + pickle.dumps(entry.record)
        try:
            worker.write(message)
        except WorkerDied:
            # Start a new worker on the next attempt; this match is retried like any failure.
            self._worker = None
            worker.close(timeout=1)
            raise

    def _saved(self, match_id: str) -> None:
        if self.on_saved is None:
            return
        loop = self._loop
        try:
            if loop is not None and not loop.is_closed():
                loop.call_soon_threadsafe(self.on_saved, match_id)
            else:
                self.on_saved(match_id)
        except Exception:
            log.exception("on_saved hook failed for match %s", match_id)
