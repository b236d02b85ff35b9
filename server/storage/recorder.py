"""The match recorder: finished matches go to the database off the event loop, and none is lost.

Rooms call ``submit(record)`` (it never blocks and never raises, so it is safe inside a room
lock). One writer writes each match in its own transaction. A write that fails stays
in memory and is retried with exponential backoff (capped at ``retry_max_s``), each failure
logged on ``felt.recorder``; other matches are not held up behind it. Saving is idempotent
by match id, so a retry after a commit whose answer was lost cannot duplicate a match.

With ``process=True`` (what the server uses) the database work itself runs in one spawned
worker process, and the event loop drives it: no other thread of the server's process ever
holds the interpreter, so nothing here can stall the loop but its own small steps. The record
crosses over a socket pair as JSON bytes made by ``submit`` (orjson, in C, well under a
millisecond even for a long match), written and answered through asyncio streams; pickling
the record's thousands of small objects, or a writer thread waking for every answer, held
the GIL for milliseconds at a time. A worker that dies is replaced on the next attempt and
the match it was writing is retried. Without a running loop (or with ``process=False``) a
writer thread does the same work.
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
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson

from server.storage import store
from server.storage.db import Database

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

    # The event loop's side: the same messages, framed as ``multiprocessing.Connection``
    # frames them (a 4-byte big-endian length, then the bytes), over asyncio streams.

    async def open_streams(self) -> None:
        sock = socket.socket(fileno=os.dup(self.conn.fileno()))
        self.streams = await asyncio.open_unix_connection(sock=sock)

    async def write_async(self, message: bytes, step: Callable[[float], None]) -> None:
        reader, writer = self.streams
        try:
            started = time.thread_time()
            writer.write(struct.pack("!i", len(message)))
            writer.write(message)
            step(started)
            await writer.drain()
            size = struct.unpack("!i", await reader.readexactly(4))[0]
            answer = await reader.readexactly(size)
        except (OSError, asyncio.IncompleteReadError) as exc:
            raise WorkerDied(f"the recorder's worker process died (exit code {self.process.exitcode})") from exc
        if answer != b"ok":
            raise RuntimeError(answer[1:].decode("utf-8", "replace"))

    def close_streams(self) -> None:
        streams = getattr(self, "streams", None)
        if streams is not None:
            streams[1].close()


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
        self._task: asyncio.Task | None = None  # process mode: the loop drives the worker
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        # The longest the writer task held the loop in one step (CPU seconds; for the bench).
        self.longest_step_s = 0.0
        self._closing = False
        self._deadline: float | None = None
        self.written = 0
        self.failures = 0  # writes that failed (each retried): for the operators' metrics

    # ---- the event-loop side ------------------------------------------------------------

    def start(self) -> None:
        """Start writing (call inside the running event loop)."""
        try:
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()
        except RuntimeError:
            self._loop = None
        if self._thread is not None and self._thread.is_alive():
            return
        if self._task is not None and not self._task.done():
            return
        self._closing = False
        self._deadline = None
        if self._loop is not None and self._uses_process():
            self._wake = asyncio.Event()
            self._task = self._loop.create_task(self._run_async())
            return
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
                    payload = b"J" + orjson.dumps(record)
                except TypeError:
                    try:  # integer keys, say (half as fast, so only when needed)
                        payload = b"J" + orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS)
                    except TypeError:  # something JSON cannot hold: the worker gets it pickled
                        payload = None
            entry = _Entry(dict(record), payload)
            with self._cond:
                self._fresh.append(entry)
                self._cond.notify()
            self._notify_task()
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
        self._notify_task()
        if thread is not None:
            await asyncio.to_thread(thread.join, timeout + 1)
        if self._task is not None:
            done, _ = await asyncio.wait({self._task}, timeout=timeout + 1)
            if not done:  # stuck waiting on the worker: stop waiting
                self._task.cancel()
            self._task = None
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
            self._worker.close_streams()
            await asyncio.to_thread(self._worker.close)
            self._worker = None

    # ---- the writer thread ------------------------------------------------------------

    _STOP: Any = object()

    def _take(self) -> Any:
        """Under the lock: the next entry, ``_STOP``, or how long to wait (None: until woken)."""
        now = time.monotonic()
        if self._closing:
            if not self._fresh and not self._retry:
                return self._STOP
            if self._deadline is not None and now >= self._deadline:
                return self._STOP
        if self._retry and self._retry[0][0] <= now:
            entry = heapq.heappop(self._retry)[2]
        elif self._fresh:
            entry = self._fresh.popleft()
        else:
            wait = self._retry[0][0] - now if self._retry else None
            if self._closing and self._deadline is not None:
                left = self._deadline - now
                wait = left if wait is None else min(wait, left)
            return wait
        self._busy += 1
        self._writing = entry
        return entry

    def _next(self) -> _Entry | None:
        """The next entry to write, waiting as needed; None when it is time to stop."""
        with self._cond:
            while True:
                got = self._take()
                if got is self._STOP:
                    return None
                if isinstance(got, _Entry):
                    return got
                self._cond.wait(got)

    def _failed(self, entry: _Entry, exc: Exception) -> None:
        """Put a match whose write failed back, to be retried after its backoff."""
        entry.attempts += 1
        delay = min(self.retry_max_s, FIRST_RETRY_S * 2 ** (entry.attempts - 1))
        log.warning(
            "could not write match %s (attempt %d), retrying in %.2f s: %s",
            entry.record.get("id"), entry.attempts, delay, exc,
        )
        with self._cond:
            self.failures += 1
            if self._closing:  # the deadline is near: keep trying, a little more often
                delay = min(delay, 1.0)
            entry.due = time.monotonic() + delay
            heapq.heappush(self._retry, (entry.due, next(self._order), entry))
            self._busy -= 1
            self._writing = None

    def _written(self, entry: _Entry) -> None:
        with self._cond:
            self._busy -= 1
            self._writing = None
            self.written += 1
            self._cond.notify_all()
        if entry.attempts:
            log.info("wrote match %s after %d failed attempts", entry.record.get("id"), entry.attempts)

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
            try:
                self._write(entry)
            except Exception as exc:
                self._failed(entry, exc)
                continue
            self._written(entry)
            self._saved(str(entry.record.get("id")))

    # ---- the event loop driving the worker process ------------------------------------

    def _notify_task(self) -> None:
        """Wake the loop's writer task (from any thread)."""
        wake, loop = self._wake, self._loop
        if wake is None or loop is None or loop.is_closed():
            return
        try:
            if threading.get_ident() == self._loop_thread:
                wake.set()
            else:
                loop.call_soon_threadsafe(wake.set)
        except RuntimeError:  # the loop is closing
            pass

    async def _run_async(self) -> None:
        assert self._wake is not None
        try:  # start the worker now, not in the middle of the first finished match
            await self._ensure_worker_async()
        except Exception:
            log.exception("the recorder's worker process did not start; will retry on the first write")
        while True:
            with self._cond:
                got = self._take()
            if got is self._STOP:
                return
            if not isinstance(got, _Entry):
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), got)
                except asyncio.TimeoutError:
                    pass
                continue
            entry = got
            try:
                worker = await self._ensure_worker_async()
                message = entry.payload if entry.payload is not None else b"P" + pickle.dumps(entry.record)
                try:
                    await worker.write_async(message, self._step)
                except WorkerDied:
                    # Start a new worker on the next attempt; this match is retried like any failure.
                    self._worker = None
                    worker.close_streams()
                    await asyncio.to_thread(worker.close, 1)
                    raise
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self._failed(entry, exc)
                continue
            started = time.thread_time()
            self._written(entry)
            if self.on_saved is not None:
                try:
                    self.on_saved(str(entry.record.get("id")))
                except Exception:
                    log.exception("on_saved hook failed for match %s", entry.record.get("id"))
            self._step(started)

    def _step(self, started: float) -> None:
        """Note the CPU time of one step of the writer task since ``started``."""
        spent = time.thread_time() - started
        if spent > self.longest_step_s:
            self.longest_step_s = spent

    async def _ensure_worker_async(self) -> _Worker:
        if self._worker is None:
            # Spawning a process blocks (fork, exec, the worker's imports): off the loop.
            worker = await asyncio.to_thread(_Worker, self.db.url.render_as_string(hide_password=False))
            await worker.open_streams()
            self._worker = worker
        return self._worker

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
