"""The rooms' view of stored tables: each call runs in a database thread with a deadline, never
on the event loop (``Database.call``: past it, ``DatabaseTimeout``; a database that is away,
``StoreUnavailable``)."""

from __future__ import annotations

import sqlalchemy as sa

from server.log_entry import LogEntry
from server.storage import tables
from server.storage.db import Database

# The hourly purge of old tables may delete many rows: its deadline is longer than a request's.
PURGE_TIMEOUT_S = 300.0


class DatabaseTables:
    """A ``TableSource`` (see server/rooms/restore.py) over the database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _load(self, code: str) -> tuple[str, list] | None:
        with self.db.session() as session:
            status = tables.table_status(session, code)
            if status is None:
                return None
            return status, tables.table_log(session, code)

    async def load(self, code: str) -> tuple[str, list[LogEntry]] | None:
        """A table's status and whole log, or None when there is no such table;
        ``StoreUnavailable`` when the database is down or does not answer."""
        return await self.db.call(self._load, code)

    def _codes(self) -> list[str]:
        with self.db.session() as session:
            return tables.table_codes(session, tables.OPEN_STATUSES)

    async def open_codes(self) -> list[str]:
        """The tables to rebuild on start: waiting, playing or finished."""
        return await self.db.call(self._codes)

    def _waiting(self) -> list[str]:
        with self.db.session() as session:
            return tables.table_codes(session, ("waiting",))

    async def waiting_codes(self) -> list[str]:
        """The tables waiting for players (cluster mode: some may be orphans of a dead node)."""
        return await self.db.call(self._waiting)

    def _purge(self, parked_before: float) -> int:
        with self.db.session() as session:
            if self.db.url.get_backend_name() == "postgresql":  # the hourly purge may take its time
                session.execute(sa.text(f"SET LOCAL statement_timeout = {int(PURGE_TIMEOUT_S * 1000)}"))
            return tables.purge(session, parked_before)

    async def purge(self, parked_before: float) -> int:
        """Delete closed tables and those parked before ``parked_before`` (Unix seconds)."""
        return await self.db.call(self._purge, parked_before, timeout_s=PURGE_TIMEOUT_S)

    def _of(self, player_id: str) -> list[dict]:
        with self.db.session() as session:
            return tables.tables_of(session, player_id)

    async def tables_of(self, player_id: str) -> list[dict]:
        """A player's unfinished tables (waiting, playing, parked), newest first."""
        return await self.db.call(self._of, player_id)

    def _slow_seats(self, player_id: str) -> list[str]:
        with self.db.session() as session:
            return tables.slow_seats(session, player_id)

    async def slow_seats(self, player_id: str) -> list[str]:
        """The codes of the slow tables the player sits at, as stored (the cap counts them);
        ``StoreUnavailable`` when the database is down or does not answer."""
        return await self.db.call(self._slow_seats, player_id)

    def _due(self, now_ms: int) -> list[str]:
        with self.db.session() as session:
            return tables.due_clocks(session, now_ms)

    async def due_clocks(self, now_ms: int) -> list[str]:
        """The tables whose slow clock ran out by ``now_ms`` (Unix ms), parked ones too."""
        return await self.db.call(self._due, now_ms)
