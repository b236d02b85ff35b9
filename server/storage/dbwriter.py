"""The database backend of the writer: a worker process group-commits, a local spool keeps the rest.

The event loop only queues entries and matches and exchanges bytes with one spawned worker
process over a socket pair (asyncio streams): no database call, and no other thread holding
the interpreter, in the server's process. Whatever was queued while the worker wrote the
previous batch goes in the next one, in one transaction (group commit): under load many
tables' entries share each commit, and when idle an entry is written at once.

When the database cannot be reached the worker appends the batch to a local spool file
(one JSON line per batch, fsync'ed) and answers that it is durable there; while the spool
holds anything, new batches go after it, and the worker writes the spool to the database
(idempotently) as soon as it answers again, then empties it. On start the spool is written
before any table is restored. A worker that dies, or does not answer at all, is replaced and
the batch it held is sent again as a replay (entries already stored are skipped). If the
worker cannot take the last batches at a stop, the server's process spools them itself.

A database that hangs (accepts connections, never answers: a stopped server, a black-holed
network) is one that cannot be reached: the worker does its database work in a thread of its
own (SQLite, a local file, in its main thread: see ``_WorkerState._run``) and answers within a
deadline (``FELT_DB_TIMEOUT_S`` and a margin); past it the batch is spooled, and so are the
next ones while the spool holds anything; the write past its deadline
goes on in that thread (if it commits, the spool's copy is skipped when it is written: a
replay), and the spool is tried again only once that thread is free. No TCP option ends a call
to such a database, so only this deadline does.

Without a spool (``spool_path=None``: cluster mode, where another node may take a table whose
node cannot reach the database, so a spooled version could later collide with its history)
an unreachable database is an *outage*: the batch is not durable, nothing of it is shown, the
writer retries it and ``outage`` is true until a write succeeds; the rooms refuse changes
meanwhile. A batch past its deadline is such an outage too, until its write ends: the same
batch sent again then gets that write's answer, so it is never written twice. What is still
unwritten at a stop is dropped (it was never shown to anyone).
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import multiprocessing
import os
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as futures_wait
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Literal, TypeVar

import orjson
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from server.budget import LoopBudget
from server.log_entry import LogEntry, StoreUnavailable, WriterReports
from server.storage import tables
from server.storage.db import DEFAULT_TIMEOUT_S, Database, DatabaseTimeout
from server.storage.writer import Writer, durable_versions

log = logging.getLogger("felt.writer")

MAX_BATCH_ENTRIES = 1000  # a batch is spliced in one callback: ~0.6 ms per 1,000 entries on a loaded machine
FIRST_RETRY_S = 0.05
SPOOL_RETRY_S = 1.0  # an idle writer tries to write its spool to the database this often
# Errors that mean "the database is not reachable or not ready", not "this batch is wrong"
# (a session's outage leaves it as StoreUnavailable).
UNREACHABLE = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.ProgrammingError, StoreUnavailable)


class WorkerDied(RuntimeError):
    """The worker process went away (killed, out of memory) before it answered."""


def _encode(value: Any) -> bytes:
    """One row or match as JSON, copied to a buffer of its exact size.

    orjson's result keeps the capacity it grew to, and every encoded row waits in the queue
    until its batch is committed, so a playing room's rows held that slack as well: the copy
    costs a memcpy of a few hundred bytes. It helps: in paired runs of ``bench.load``'s memory
    step a playing room beyond its sockets went from 30-39 to 23-25 KiB (docs/decisions/0050).
    """
    try:
        raw = orjson.dumps(value)
    except TypeError:  # integer keys in a game's notes, say: slower, so only when needed
        raw = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    return memoryview(raw).tobytes()


def _batch_message(rows: list[bytes], matches: list[bytes], replay: bool = False) -> bytes:
    """One batch as the worker reads it, spliced from entries and matches encoded when queued.

    Encoding a whole batch at once was the event loop's longest callback under load (a few ms
    for a few hundred entries, `python -m bench.loop_turns`); each entry is now encoded in the
    callback of the change that made it.
    """
    head = b'{"op":"write","replay":true,"log":[' if replay else b'{"op":"write","log":['
    return head + b",".join(rows) + b'],"matches":[' + b",".join(matches) + b"]}"


class Spool:
    """A local file of batches not yet in the database: appended with fsync, emptied once written.

    Appends, a drain's read and the removal of what it wrote take one lock (a thread lock and
    an flock of a file beside the spool: the server's process appends too, at a stop): a drain
    runs in the worker's database thread while batches keep being appended, and removes only
    the bytes it read."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self._lock:
            fd = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)

    def is_empty(self) -> bool:
        try:
            return self.path.stat().st_size == 0
        except FileNotFoundError:
            return True

    def append(self, batch: bytes) -> None:
        """Add one batch (its JSON, one line) and wait until it is on disk."""
        with self._locked():
            new = not self.path.exists()
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                size = os.fstat(fd).st_size
                # A torn last line (a crash mid-write) must not swallow this batch's line.
                torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
                os.write(fd, (b"\n" if torn else b"") + batch.replace(b"\n", b" ") + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
            if new:  # the file's name must survive a power loss too
                _fsync_directory(self.path.parent)

    def read(self) -> bytes:
        """The whole file, never half of a batch being appended."""
        with self._locked():
            return self._read()

    def _read(self) -> bytes:
        try:
            return self.path.read_bytes()
        except FileNotFoundError:
            return b""

    def batches(self, data: bytes | None = None) -> list[dict]:
        """Every whole batch in the file (or in ``data``, read from it), in order (a torn
        line, from a crash, is skipped)."""
        out = []
        for line in (self.read() if data is None else data).splitlines():
            if not line.strip():
                continue
            try:
                out.append(orjson.loads(line))
            except orjson.JSONDecodeError:
                log.error("spool %s: skipping a torn line of %d bytes", self.path, len(line))
        return out

    def remove(self, written: bytes) -> None:
        """Remove ``written`` (what a drain read and wrote) from the start of the file; what
        was appended since stays. Nothing is removed if the file no longer starts with it."""
        with self._locked():
            data = self._read()
            if not data.startswith(written):
                return
            rest = data[len(written) :]
            if not rest:
                self.clear()
                return
            fresh = self.path.with_name(self.path.name + ".new")
            fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, rest)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(fresh, self.path)
            _fsync_directory(self.path.parent)

    def clear(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_TRUNC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _fsync_directory(path: Path) -> None:
    directory = os.open(path, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


# ---- the worker process ------------------------------------------------------------------


def _write_isolated(db: Database, batch: dict, replay: bool) -> tuple[list[str], list[str]]:
    """Write ``batch`` one table and one match at a time, each in its own savepoint.

    Returns the tables refused (a second writer of a version) and the matches refused.
    """
    refused_tables: list[str] = []
    refused_matches: list[str] = []
    with db.session() as session:
        for code in tables.codes_of(batch):
            try:
                with session.begin_nested():
                    tables.write_batch(session, tables.only_code(batch, code), replay=replay)
            except sa_exc.IntegrityError as exc:
                log.error("table %s: a second writer of one of its versions was refused: %s", code, exc.orig)
                refused_tables.append(code)
        for record in batch.get("matches") or ():
            try:
                with session.begin_nested():
                    tables.write_batch(session, {"matches": [record]})
            except UNREACHABLE:
                raise
            except Exception as exc:  # noqa: BLE001 - one bad record, whatever its fault, never sinks the batch
                log.error("match %s cannot be stored and is dropped: %s: %r", record.get("id"), exc, record)
                refused_matches.append(str(record.get("id")))
    return refused_tables, refused_matches


T = TypeVar("T")


class DatabaseBusy(Exception):
    """The database thread has not finished an earlier call that ran past its deadline."""


class _Late:
    """A batch whose write ran past its deadline and goes on in the database thread."""

    def __init__(self, message: bytes, job: Future[dict]) -> None:
        self.message = message
        self.job = job


class _WorkerState:
    """The worker's database work, in a thread of its own so that no answer to the event loop
    waits past the deadline: a database that hangs (accepts, never answers) is handled as one
    that refuses. A batch past the deadline is spooled (its write goes on, its result unused:
    the spool's copy is written again idempotently); no spool (cluster mode): it is not
    durable, and until the late write ends every batch is answered "unreachable"."""

    def __init__(self, url: str, spool_path: str | None, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.db = Database(url, timeout_s=timeout_s)
        # The database's own timeouts (connect, statement, SQLite's busy wait) end most waits
        # first; this deadline is for a database that never answers at all.
        self.deadline_s = timeout_s * 1.5 + 0.5
        self.spool = Spool(spool_path) if spool_path else None
        self.last_drain = 0.0
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="felt-writer-db")
        self._job: Future | None = None  # the database thread's current call
        self._late: _Late | None = None  # cluster mode: a batch still being written past its deadline
        self._conn: sa.Connection | None = None  # held by the database thread between batches
        self.inline = self.db.is_sqlite  # see ``_run``

    def _run(self, fn: Callable[..., T], *args: Any, wait: bool = False) -> T:
        """``fn(*args)`` in the database thread; DatabaseTimeout when it runs past the deadline
        (it goes on there). While the thread is still on an earlier call: DatabaseBusy at
        once, or (``wait``) after waiting for that call within the same deadline.

        SQLite is called in this thread: a file has no network to hang on (its locks wait at
        most the busy timeout), and handing each batch to the thread and back was half the
        worker's CPU for a one-entry batch (``python -m bench.writer_batch``). A worker stuck
        anyway (a filesystem that hangs) is replaced by the server after its answer timeout."""
        if self.inline:
            return fn(*args)
        deadline = time.monotonic() + self.deadline_s
        if self._job is not None and not self._job.done():
            if not wait:
                raise DatabaseBusy("the database has not answered an earlier call")
            futures_wait([self._job], timeout=self.deadline_s)
            if not self._job.done():
                raise DatabaseBusy("the database has not answered an earlier call")
        job = self._thread.submit(fn, *args)
        self._job = job
        try:
            return job.result(timeout=max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            raise DatabaseTimeout(f"the database did not answer within {self.deadline_s:g} s") from None

    def close(self) -> None:
        if self._job is not None and not self._job.done():
            # The database thread still waits for the database: exiting must not wait for it
            # (whatever it writes is in the spool, or was never shown).
            logging.shutdown()
            os._exit(0)
        self._thread.shutdown()
        if self._conn is not None:
            self._conn.close()
        self.db.dispose()

    def _unwritten(self, message: bytes, exc: Exception) -> dict:
        """The database is unreachable: spool the batch, or (no spool) say it is not durable."""
        if self.spool is None:
            return {"ok": False, "unreachable": True, "error": f"{type(exc).__name__}: {exc}"}
        log.warning("database unreachable; batch spooled: %s", exc)
        self.spool.append(message)
        self.last_drain = time.monotonic()
        return {"ok": True, "spooled": True}

    def drain(self, wait: bool = False) -> bool:
        """Write the spool to the database (within the deadline); True when it is empty
        afterwards. Without ``wait``, not tried while the database thread is busy."""
        if self.spool is None or self.spool.is_empty():
            return True
        self.last_drain = time.monotonic()
        try:
            return self._run(self._drain, wait=wait)
        except (DatabaseBusy, DatabaseTimeout) as exc:
            log.warning("the spool waits for the database: %s", exc)
            return False

    def _drain(self) -> bool:
        """(In the database thread.) Write what the spool holds now, then remove just that."""
        assert self.spool is not None
        data = self.spool.read()
        batches = self.spool.batches(data)
        try:
            with self.db.session() as session:
                for batch in batches:
                    tables.write_batch(session, batch, replay=True)
        except UNREACHABLE as exc:
            log.warning("the spool (%d batches) waits for the database: %s", len(batches), exc)
            return False
        self.spool.remove(data)
        log.warning("wrote %d spooled batches to the database", len(batches))
        return self.spool.is_empty()

    def _write(self, batch: dict, replay: bool) -> dict:
        """(In the database thread.) One batch in one transaction, or (a second writer, a
        record the database refuses) one table and one match at a time."""
        try:
            if batch.get("matches"):
                with self.db.session() as session:  # a match is saved through the ORM
                    tables.write_batch(session, batch, replay=replay)
            else:
                self._write_entries(batch.get("log") or [], replay)
            return {"ok": True, "spooled": False, "conflicts": []}
        except UNREACHABLE:
            raise
        except Exception:  # noqa: BLE001 - whatever the database refused, isolate it (one table at a time)
            pass
        conflicts, refused = _write_isolated(self.db, batch, replay)
        return {"ok": True, "spooled": False, "conflicts": conflicts, "refused_matches": refused}

    def _write_entries(self, log: list, replay: bool) -> None:
        """(In the database thread.) Entries in one transaction on the connection this worker
        holds: checking one out of the pool and back for every batch was a third of a
        one-entry commit's CPU in the worker (``python -m bench.writer_batch``). A held
        connection the database dropped (a restart) is replaced and the batch tried once more
        on a fresh one, as the pool's ping would have done; any other failure drops it too."""
        for attempt in (1, 2):
            conn = self._conn if self._conn is not None else self.db.engine.connect()
            self._conn = None
            try:
                if self.inline and tables.log_only(log):
                    tables.write_log_sqlite(conn, log, replay=replay)
                else:
                    with conn.begin():
                        tables.write_entries(conn, log, replay=replay)
            except sa_exc.DBAPIError as exc:
                conn.close()
                if attempt == 1 and exc.connection_invalidated:
                    continue
                raise
            except BaseException:
                conn.close()
                raise
            self._conn = conn
            return

    def write(self, message: bytes) -> dict:
        batch = orjson.loads(message)
        if batch.get("op") == "sync":
            return {"ok": True, "spooled": not self.drain(wait=batch.get("wait", True))}
        if self.spool is None:
            return self._write_unspooled(message, batch)
        spool = self.spool
        if not spool.is_empty() and not (time.monotonic() - self.last_drain > 1.0 and self.drain()):
            spool.append(message)
            return {"ok": True, "spooled": True}
        try:
            return self._run(self._write, batch, bool(batch.get("replay")))
        except (*UNREACHABLE, DatabaseBusy, DatabaseTimeout) as exc:
            return self._unwritten(message, exc)

    def _write_unspooled(self, message: bytes, batch: dict) -> dict:
        """Cluster mode: a batch past its deadline may still commit, so the same batch sent
        again gets that write's answer once it ends, never a second write of its versions."""
        late = self._late
        if late is not None:
            if not late.job.done():
                return self._unwritten(message, DatabaseBusy("the database has not answered the previous batch"))
            self._late = None
            if late.message == message and late.job.exception() is None:
                return late.job.result()
        try:
            return self._run(self._write, batch, bool(batch.get("replay")))
        except DatabaseTimeout as exc:
            assert self._job is not None
            self._late = _Late(message, self._job)
            return self._unwritten(message, exc)
        except (*UNREACHABLE, DatabaseBusy) as exc:
            return self._unwritten(message, exc)


def _never_preempt_the_loop() -> None:
    """Run this process under Linux's SCHED_BATCH policy: the same share of the CPU as the
    server, but waking up (a batch arrives) never preempts what runs on its core.

    Under the normal policy each batch written to this process woke it and, on the event
    loop's core, it preempted the loop in the middle of its ``write`` for the length of a
    commit: py-spy on the log-on server pinned to one core (``bench.durable``'s setting,
    1,000 rooms x 1 move/s) found 30% of the loop's samples in that write. A lower priority
    (nice) would fix that too, but would also shrink this process's share when the server is
    busy, and every frame waits for its commits; SCHED_BATCH only changes when it runs.
    Elsewhere (no such policy) nothing changes."""
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is None or not hasattr(os, "sched_setscheduler"):
        return
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except OSError as exc:  # refused by the system: the normal policy still works
        log.warning("the writer's worker keeps the normal scheduling policy: %s", exc)


def _worker_main(
    conn: Any, url: str, spool_path: str | None, timeout_s: float = DEFAULT_TIMEOUT_S, parent_end: Any = None
) -> None:
    """The worker process: answer b"ready", then one JSON answer per batch it is sent."""
    if parent_end is not None:  # forked: close our copy of the server's end, or EOF never comes
        parent_end.close()
    _never_preempt_the_loop()
    state = _WorkerState(url, spool_path, timeout_s)
    conn.send_bytes(b"ready")
    while True:
        try:
            message = conn.recv_bytes()
        except (EOFError, OSError):  # the server closed the pipe: stop
            break
        try:
            answer = state.write(message)
        except Exception as exc:  # noqa: BLE001 - the worker never dies: the server gets the error as the answer
            answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        try:
            conn.send_bytes(orjson.dumps(answer))
        except OSError:  # the server gave up on this answer (a stop): nothing is left to say
            break
    state.close()


class _Worker:
    """The spawned worker process and the event loop's streams to it."""

    def __init__(
        self,
        url: str,
        spool_path: str | None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        method: Literal["spawn", "fork"] = "spawn",
    ) -> None:
        # (one literal per call: typed as the context that has a ``Process``, not any context)
        ctx = multiprocessing.get_context("fork") if method == "fork" else multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        args = (child, url, spool_path, timeout_s, self.conn if method == "fork" else None)
        self.process = ctx.Process(target=_worker_main, args=args, name="felt-writer", daemon=True)
        self.process.start()
        child.close()
        try:
            ready = self.conn.recv_bytes()
        except (EOFError, OSError) as exc:
            raise WorkerDied("the writer's worker process did not start") from exc
        if ready != b"ready":
            raise WorkerDied("the writer's worker process did not start")

    async def open_streams(self) -> None:
        sock = socket.socket(fileno=os.dup(self.conn.fileno()))
        self.streams = await asyncio.open_unix_connection(sock=sock)

    async def ask(self, message: bytes) -> dict:
        """Send one message (framed as multiprocessing frames it) and read the answer."""
        reader, writer = self.streams
        try:
            # One write, not the length and then the message: each write to the socket wakes
            # the worker, and a profile of the loaded server showed those writes' time.
            writer.write(struct.pack("!i", len(message)) + message)
            await writer.drain()
            size = struct.unpack("!i", await reader.readexactly(4))[0]
            answer: dict = orjson.loads(await reader.readexactly(size))
            return answer
        except (OSError, asyncio.IncompleteReadError) as exc:
            raise WorkerDied(f"the writer's worker process died (exit code {self.process.exitcode})") from exc

    async def close_streams(self) -> None:
        """Close the loop's end (a duplicate of the pipe's descriptor): the worker then sees EOF."""
        streams = getattr(self, "streams", None)
        if streams is not None:
            streams[1].close()
            with suppress(OSError):
                await streams[1].wait_closed()

    def close(self, timeout: float = 5.0) -> None:
        self.conn.close()  # with the streams closed, the worker sees EOF and stops
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(1)


# ---- the event loop's side ---------------------------------------------------------------


class DatabaseWriter(Writer):
    """The writer the server uses: batches to the worker process, one in flight at a time."""

    def __init__(
        self,
        url: str,
        spool_path: str | Path | None,
        retry_max_s: float = 30.0,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        reports: WriterReports | None = None,
    ) -> None:
        super().__init__(reports)
        self.url = url
        self.timeout_s = float(timeout_s)
        # The worker answers within its deadline (plus a spool's fsync); one that does not
        # answer in this long is stuck and is replaced (its batch sent again as a replay).
        self.answer_timeout_s = 4 * self.timeout_s + 10
        self.spool = Spool(spool_path) if spool_path is not None else None  # None: cluster mode
        self._outage = False
        self.retry_max_s = max(float(retry_max_s), FIRST_RETRY_S)
        # Each entry is kept as what the writer needs of it: its (code, version) and its JSON,
        # encoded as it is appended (in the callback of the change that made it).
        self._keys: list[tuple[str, int]] = []
        self._rows: list[bytes] = []
        self._matches: list[bytes] = []  # each finished match's JSON, encoded as it is recorded
        self._in_flight = 0
        self._flying: tuple[list[tuple[str, int]], list[bytes], list[bytes]] = ([], [], [])
        self._spooled = self.spool is not None and not self.spool.is_empty()
        self._worker: _Worker | None = None
        self._talk = asyncio.Lock()  # one exchange with the worker at a time
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task | None = None
        self._closing = False
        self.batches = 0  # batches committed (for the bench: entries per commit)
        self.failures = 0  # attempts that failed (each retried): for the operators' metrics

    async def start(self) -> None:
        self._wake = asyncio.Event()
        if threading.active_count() == 1:
            # Nothing but this thread runs yet (no database connection either): a fork is
            # safe here and takes milliseconds, where a spawn imports everything again
            # (seconds on a busy machine, on every start).
            self._worker = _Worker(self.url, self._spool_path, self.timeout_s, "fork")
            await self._worker.open_streams()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _spawn(self) -> None:
        """Start the worker (under ``_talk``): spawning blocks (fork, exec, imports), so off the loop."""
        if self._worker is None:
            worker = await asyncio.to_thread(_Worker, self.url, self._spool_path, self.timeout_s)
            await worker.open_streams()
            self._worker = worker

    def append(self, entry: LogEntry) -> None:
        self._keys.append((entry.code, entry.version))
        self._rows.append(_encode(entry.row()))
        if self._wake is not None:
            self._wake.set()

    def record(self, match: dict) -> None:
        self._matches.append(_encode(match))
        if self._wake is not None:
            self._wake.set()

    @property
    def pending(self) -> int:
        return len(self._keys) + len(self._matches) + self._in_flight

    @property
    def _spool_path(self) -> str | None:
        return str(self.spool.path) if self.spool is not None else None

    @property
    def spooled(self) -> bool:
        return self._spooled

    @property
    def outage(self) -> bool:
        return self._outage

    async def sync(self, wait: bool = True) -> bool:
        """Write what the spool holds to the database; True when the spool is empty. With
        ``wait``, the worker waits (within its deadline) for a database call still running."""
        try:
            answer = await self._ask(b'{"op":"sync"}' if wait else b'{"op":"sync","wait":false}')
        except (WorkerDied, OSError) as exc:
            log.warning("the spool could not be written: %s", exc)
            return False
        self._spooled = bool(answer.get("spooled"))
        return not self._spooled

    async def _ask(self, message: bytes) -> dict:
        """One exchange with the worker, starting (or replacing) it as needed."""
        async with self._talk:
            await self._spawn()
            worker = self._worker
            assert worker is not None
            try:
                # A timeout scope, not ``wait_for``: that wraps each exchange in a task of its
                # own (one more task and loop turn for every batch, at human pace every move).
                async with asyncio.timeout(self.answer_timeout_s):
                    return await worker.ask(message)
            except TimeoutError:
                log.error("the writer's worker did not answer in %.0f s; replacing it", self.answer_timeout_s)
                self._worker = None
                await worker.close_streams()
                await asyncio.to_thread(worker.close, 0)
                raise WorkerDied("the writer's worker process did not answer") from None
            except WorkerDied:
                self._worker = None
                await worker.close_streams()
                await asyncio.to_thread(worker.close, 1)
                raise

    def _take(self) -> tuple[list[tuple[str, int]], list[bytes], list[bytes]]:
        keys, rows = self._keys[:MAX_BATCH_ENTRIES], self._rows[:MAX_BATCH_ENTRIES]
        del self._keys[: len(keys)], self._rows[: len(rows)]
        matches, self._matches = self._matches, []
        self._in_flight = len(keys) + len(matches)
        self._flying = (keys, rows, matches)
        return keys, rows, matches

    async def _run(self) -> None:
        assert self._wake is not None
        try:  # now, while the server starts, not in the middle of the first change
            async with self._talk:
                await self._spawn()
        except Exception:
            log.exception("the writer's worker did not start; trying again with the first batch")
        woken = False  # True in the turn that woke from ``_idle``: a turn of its own already
        while True:
            if not self._keys and not self._matches:
                if self._closing:
                    return
                self._wake.clear()
                await self._idle()
                woken = True
                continue
            # A turn of its own for taking, building and sending the batch: otherwise it ran
            # on after the last half millisecond of the previous batch's reporting, and that
            # step was the loop's longest at 2,500 rooms (``python -m bench.loop_turns``).
            # Woken from idle it is in a turn of its own: one loop turn less per batch, and
            # at human pace every move is such a batch (``python -m bench.writer_batch``).
            if not woken:
                await asyncio.sleep(0)
            woken = False
            keys, rows, matches = self._take()
            answer = await self._commit(rows, matches)
            self._flying = ([], [], [])
            if answer is not None:  # None: dropped at a stop, never durable, nothing reported
                self._spooled = bool(answer.get("spooled"))
                await self._report_in_turns(keys, set(answer.get("conflicts") or ()))
            self._in_flight = 0  # only now: ``flush`` means "durable and reported"

    async def _idle(self) -> None:
        """Wait for the next entry; while the spool holds anything, try to write it to the
        database every ``SPOOL_RETRY_S`` meanwhile (never waiting for a database thread
        that is still on an earlier call)."""
        assert self._wake is not None
        if not self._spooled:
            await self._wake.wait()
            return
        try:
            await asyncio.wait_for(self._wake.wait(), SPOOL_RETRY_S)
        except TimeoutError:
            await self.sync(wait=False)

    async def _report_in_turns(self, keys: list[tuple[str, int]], refused: set[str]) -> None:
        """``_report``, half a millisecond of it per loop turn: each table told queues its
        frames (tens of microseconds), so a commit of hundreds of tables, as at 2,500 rooms,
        reported at once held the loop for 5-10 ms (``python -m bench.loop_turns``)."""
        for code in refused:
            self.reports.conflict(code)
        budget = LoopBudget()
        for code, version in durable_versions(keys, refused):
            await budget.spend()
            self.reports.durable(code, version)

    async def _commit(self, rows: list[bytes], matches: list[bytes]) -> dict | None:
        """Send one batch until the worker says it is durable (database or spool); None if
        it is dropped at a stop (no spool, the database unreachable)."""
        replay = False
        attempts = 0
        while True:
            try:
                answer = await self._ask(_batch_message(rows, matches, replay))
                self._outage = bool(answer.get("unreachable"))
                if answer.get("ok"):
                    self.batches += 1
                    return answer
                error = answer.get("error")
            except WorkerDied as exc:
                replay = True  # it may have committed before it died
                error = str(exc)
            attempts += 1
            self.failures += 1
            delay = min(self.retry_max_s, FIRST_RETRY_S * 2 ** (attempts - 1))
            log.warning(
                "could not write a batch of %d entries (attempt %d), retrying in %.2f s: %s",
                len(rows),
                attempts,
                delay,
                error,
            )
            if self._closing:
                return self._leave_at_stop(_batch_message(rows, matches, replay=True), len(rows))
            await asyncio.sleep(delay)

    def _leave_at_stop(self, message: bytes, count: int) -> dict | None:
        """At a stop, a batch the worker cannot write: spooled, or (no spool) dropped unseen."""
        if self.spool is None:
            log.error("stopping: %d entries never reached the database and were never shown; dropped", count)
            return None
        self.spool.append(message)
        return {"ok": True, "spooled": True}

    async def close(self, timeout: float = 10.0) -> None:
        """Write (or spool) everything queued, then stop the worker."""
        self._closing = True
        if self._wake is not None:
            self._wake.set()
        if self._task is not None:
            done, _ = await asyncio.wait({self._task}, timeout=timeout)
            if not done:  # stuck on the worker: spool what is left ourselves
                self._task.cancel()
                await asyncio.gather(self._task, return_exceptions=True)
        rows, matches = self._flying[1] + self._rows, self._flying[2] + self._matches
        self._keys, self._rows, self._matches, self._flying, self._in_flight = [], [], [], ([], [], []), 0
        if rows or matches:
            log.error("the writer cannot write %d entries and %d matches at the stop", len(rows), len(matches))
            self._leave_at_stop(_batch_message(rows, matches, replay=True), len(rows))
        if self._worker is not None:
            await self._worker.close_streams()
            await asyncio.to_thread(self._worker.close)
            self._worker = None
