"""A table's log entry: one change of one table at one version, in one shape from the room that
makes it to the database that keeps it and back to the room that is rebuilt from it.

Rooms make entries and fold them into their tables; storage writes them and reads them back.
Both import this module and neither imports the other. On the way to the writer's worker
process (and in its spool) an entry travels as ``row()``: its fields in the same order.
"""

from __future__ import annotations

from typing import Any, Protocol


class LogEntry:
    """``kind`` with its ``data`` at table ``code``'s ``version``, made at ``at`` (Unix seconds);
    ``table``: the table's lobby row when this entry changed it (what storage lists), else None."""

    __slots__ = ("at", "code", "data", "kind", "table", "version")

    def __init__(self, code: str, version: int, kind: str, data: dict, at: float, table: dict | None = None) -> None:
        self.code = code
        self.version = version
        self.kind = kind
        self.data = data
        self.at = at
        self.table = table

    def row(self) -> list[Any]:
        """The entry as a batch carries it: ``[code, version, kind, data, at, table]``."""
        return [self.code, self.version, self.kind, self.data, self.at, self.table]

    @classmethod
    def of_row(cls, row: list[Any] | tuple[Any, ...]) -> LogEntry:
        """The entry ``row()`` gave."""
        code, version, kind, data, at, table = row
        return cls(code, version, kind, data, at, table)

    def __repr__(self) -> str:
        return f"LogEntry({self.code!r}, v{self.version}, {self.kind!r}, {self.data!r})"


class EntrySink(Protocol):
    """Where a room's entries go to be made durable (``server.storage.writer.Writer``): both
    calls return at once and never raise; the writer reports back through ``WriterReports``."""

    def append(self, entry: LogEntry) -> None: ...

    def record(self, match: dict) -> None: ...


class LogWriter(EntrySink, Protocol):
    """The writer as the room manager uses it: the spool, an outage, a sync at start."""

    @property
    def spooled(self) -> bool: ...

    @property
    def outage(self) -> bool: ...

    async def sync(self, wait: bool = True) -> bool: ...


class WriterReports(Protocol):
    """What a writer tells the rooms' directory, on the event loop."""

    def durable(self, code: str, version: int) -> None:
        """Every version of table ``code`` up to ``version`` is durable."""

    def conflict(self, code: str) -> None:
        """Another writer logged a version of table ``code``: this process must let it go."""


class StoreUnavailable(Exception):
    """The tables' store cannot be reached or does not answer now (a database outage): the
    caller answers "try again later", not "bug". The store's own error is its ``__cause__``."""
