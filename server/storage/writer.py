"""The one writer interface for everything the rooms make durable, and its in-memory backend.

Rooms hand the writer two things and never wait: ``append`` a table's log entry (one per
version of the table) and ``record`` a finished match. The writer makes them durable in
order and then reports, on the event loop, ``reports.durable(code, version)`` for each table
(``reports``: given when the writer is made): the room shows a version only after that. A
second writer of a table's version is refused and reported as ``reports.conflict(code)``.
(encode/broadcaster's backends are the model: one small interface, a real backend and one in
memory for tests.)

Backends: ``MemoryWriter`` (here: unit tests, or a server without a log) and
``server.storage.dbwriter.DatabaseWriter`` (the worker process: group commit, spool).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Sequence

from server.log_entry import LogEntry, WriterReports


class _Unheard:
    """Reports nobody listens to (a writer used on its own)."""

    def durable(self, code: str, version: int) -> None:
        return None

    def conflict(self, code: str) -> None:
        return None


class Writer:
    """What the rooms write through; see the module docstring. Subclasses do the writing."""

    def __init__(self, reports: WriterReports | None = None) -> None:
        self.reports: WriterReports = _Unheard() if reports is None else reports

    async def start(self) -> None:
        """Begin writing (inside the running event loop)."""

    def append(self, entry: LogEntry) -> None:
        """Queue one log entry; returns at once and never raises."""
        raise NotImplementedError

    def record(self, match: dict) -> None:
        """Queue one finished match; returns at once and never raises."""
        raise NotImplementedError

    @property
    def pending(self) -> int:
        """Entries and matches not yet durable."""
        return 0

    @property
    def spooled(self) -> bool:
        """True while some durable entries are only in the local spool, not in the database."""
        return False

    @property
    def outage(self) -> bool:
        """True while the database is unreachable and there is no spool (cluster mode): entries
        wait, not durable, and the rooms must refuse changes."""
        return False

    async def sync(self, wait: bool = True) -> bool:
        """Write what the spool holds to the database; True when the spool is empty. Without
        ``wait``, False at once while the database is still busy with an earlier call."""
        return True

    async def flush(self, timeout: float = 10.0) -> None:
        """Wait until everything queued is durable; TimeoutError after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self.pending:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.pending} entries still not durable after {timeout} s")
            await asyncio.sleep(0.002)

    async def close(self, timeout: float = 10.0) -> None:
        """Make everything queued durable (database or spool) within ``timeout``, then stop."""

    def _report(self, keys: Sequence[tuple[str, int]], refused: set[str]) -> None:
        """Tell the rooms: each table's newest version in ``keys`` ((code, version) pairs, in
        the order they were appended) is durable, or refused."""
        for code in refused:
            self.reports.conflict(code)
        for code, version in durable_versions(keys, refused):
            self.reports.durable(code, version)


def durable_versions(keys: Sequence[tuple[str, int]], refused: set[str]) -> Iterator[tuple[str, int]]:
    """Each table's newest version in ``keys``, the refused tables left out (lazily: a
    caller may yield to the event loop between tables)."""
    seen = set(refused)
    for code, version in reversed(keys):
        if code not in seen:
            seen.add(code)
            yield code, version


class MemoryWriter(Writer):
    """Keeps everything in lists: durable at once, or when ``commit()`` is called (``manual``).

    Refuses a second entry for the same (code, version) as the database does.
    """

    def __init__(self, reports: WriterReports | None = None, manual: bool = False) -> None:
        super().__init__(reports)
        self.manual = manual
        self.log: dict[str, list[LogEntry]] = {}
        self.records: list[dict] = []
        self.tables: dict[str, dict] = {}
        self._queued: list[LogEntry] = []

    def append(self, entry: LogEntry) -> None:
        self._queued.append(entry)
        if not self.manual:
            self.commit()

    def record(self, match: dict) -> None:
        if not any(r["id"] == match["id"] for r in self.records):
            self.records.append(match)

    @property
    def pending(self) -> int:
        return len(self._queued)

    def commit(self) -> None:
        """Make every queued entry durable and report each table's newest version."""
        queued, self._queued = self._queued, []
        refused: set[str] = set()
        for entry in queued:
            kept = self.log.setdefault(entry.code, [])
            if any(e.version == entry.version for e in kept):
                refused.add(entry.code)
                continue
            kept.append(entry)
            if entry.table is not None:
                self.tables[entry.code] = {**entry.table, "version": entry.version}
        self._report([(entry.code, entry.version) for entry in queued], refused)

    def entries(self, code: str) -> list[LogEntry]:
        """A table's log as the database gives it back."""
        return sorted(self.log.get(code, ()), key=lambda e: e.version)
