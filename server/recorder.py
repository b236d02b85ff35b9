"""The match recorder: finished matches go to the database off the event loop, and none is lost.

Rooms call ``submit(record)`` (it never blocks and never raises, so it is safe inside a room
lock). One worker thread writes each match in its own transaction. A write that fails stays
in memory and is retried with exponential backoff (capped at ``retry_max_s``), each failure
logged on ``felt.recorder``; other matches are not held up behind it. Saving is idempotent
by match id, so a retry after a commit whose answer was lost cannot duplicate a match.

With ``process=True`` (what the server uses) the database work itself runs in one spawned
worker process: the writer thread only pickles the record and waits with the GIL released,
so building rows and driver work never compete with the event loop for the interpreter.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import heapq
import itertools
import json
import logging
import multiprocessing
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from server import store
from server.db import Database

log = logging.getLogger("felt.recorder")

FIRST_RETRY_S = 0.05

_child_db: Database | None = None


def _child_init(url: str) -> None:
    global _child_db
    _child_db = Database(url)


def _child_ready() -> bool:
    """Answer once the worker has imported everything and opened its engine."""
    return _child_db is not None


def _child_write(record: dict) -> None:
    """Save one match in the worker process (one transaction)."""
    assert _child_db is not None
    with _child_db.session() as session:
        store.save_match(session, record)


class _Entry:
    __slots__ = ("record", "attempts", "due")

    def __init__(self, record: dict) -> None:
        self.record = record
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
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
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
            entry = _Entry(dict(record))
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
        if self._pool is not None:
            await asyncio.to_thread(self._pool.shutdown, True, cancel_futures=True)
            self._pool = None

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
                self._ensure_pool().submit(_child_ready).result()
            except Exception:
                log.exception("the recorder's worker process did not start; will retry on the first write")
                self._pool = None
        while True:
            entry = self._next()
            if entry is None:
                return
            match_id = entry.record.get("id")
            try:
                self._write(entry.record)
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

    def _ensure_pool(self) -> concurrent.futures.ProcessPoolExecutor:
        if self._pool is None:
            self._pool = concurrent.futures.ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_child_init,
                initargs=(self.db.url.render_as_string(hide_password=False),),
            )
        return self._pool

    def _write(self, record: dict) -> None:
        if not self._uses_process():
            with self.db.session() as session:
                store.save_match(session, record)
            return
        pool = self._ensure_pool()
        try:
            pool.submit(_child_write, record).result()
        except concurrent.futures.process.BrokenProcessPool:
            # The worker died (killed, out of memory): start a new one on the next attempt.
            pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
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
