"""Database tables (SQLAlchemy 2 typed ORM). Rows are storage only, never wire models.

A finished match is one ``matches`` row with its seats, hands and action log beside it,
written in one transaction. Timestamps are stored in UTC and always read back tz-aware
(SQLite hands back naive values; ``UTCDateTime`` puts the zone back).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

import sqlalchemy as sa
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Named constraints and indexes, so migrations and models agree on every name.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ID_LENGTH = 64


class UTCDateTime(TypeDecorator):
    """A timestamp stored in UTC and read back tz-aware on every backend."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:  # naive values are taken to be UTC already
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    __table__: ClassVar[sa.Table]  # every model here maps one Table (the library types it as any FromClause)
    metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: sa.JSON(),
        list[Any]: sa.JSON(),
    }


class Player(Base):
    """A guest identity; only the SHA-256 of its token is kept."""

    __tablename__ = "players"

    id: Mapped[str] = mapped_column(sa.String(ID_LENGTH), primary_key=True)
    name: Mapped[str] = mapped_column(sa.String(64))
    token_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[datetime]


class Match(Base):
    """One finished match: what it was, how it ended, and when."""

    __tablename__ = "matches"
    __table_args__ = (
        # History pages: newest first, ties broken by id (the cursor is (finished_at, id)).
        sa.Index("ix_matches_finished_at_id", "finished_at", "id"),
        sa.Index("ix_matches_game_finished_at_id", "game", "finished_at", "id"),
    )

    id: Mapped[str] = mapped_column(sa.String(ID_LENGTH), primary_key=True)
    game: Mapped[str] = mapped_column(sa.String(32))
    options: Mapped[dict[str, Any]]
    seed: Mapped[str] = mapped_column(sa.Text)
    commitment: Mapped[str] = mapped_column(sa.String(64))
    dealer: Mapped[int]
    room_code: Mapped[str | None] = mapped_column(sa.String(32))
    # Played at a private table: listed and readable only for its own players.
    private: Mapped[bool] = mapped_column(default=False, server_default=sa.false())
    scores: Mapped[list[Any]]
    winners: Mapped[list[Any]]
    player_count: Mapped[int]
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime]


class MatchSeat(Base):
    """Who sat where in a match, and how they did."""

    __tablename__ = "match_seats"
    __table_args__ = (
        sa.Index("ix_match_seats_player_id_match_id", "player_id", "match_id"),
        # A player's history page is a range of this index, newest first (cursor: finished_at, id).
        sa.Index("ix_match_seats_player_id_finished_at_match_id", "player_id", "finished_at", "match_id"),
    )

    match_id: Mapped[str] = mapped_column(
        sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    player_id: Mapped[str | None] = mapped_column(sa.ForeignKey("players.id", ondelete="SET NULL"))
    name: Mapped[str] = mapped_column(sa.String(64))
    bot: Mapped[bool]
    # A bot seat's level ("easy" or "strong"); NULL for people (and for bots before 0005).
    bot_level: Mapped[str | None] = mapped_column(sa.String(16))
    score: Mapped[int]
    winner: Mapped[bool]
    # The match's finished_at, copied here so that one index serves a player's history.
    # Always written; nullable only because migration 0002 added it to existing rows.
    finished_at: Mapped[datetime | None]


class Hand(Base):
    """One hand of a match: its dealer, the deal, what it scored, and the game's other notes
    on it (contract, trump, discards...) in ``extra``."""

    __tablename__ = "hands"

    match_id: Mapped[str] = mapped_column(
        sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    index: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    dealer: Mapped[int]
    deal: Mapped[dict[str, Any]]
    scores: Mapped[list[Any] | None]
    extra: Mapped[dict[str, Any] | None]


class Action(Base):
    """One entry of a match's action log, in order."""

    __tablename__ = "actions"

    match_id: Mapped[str] = mapped_column(
        sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    seat: Mapped[int]
    action: Mapped[dict[str, Any]]


class Table(Base):
    """A table (room) that outlives processes: what it is and where it stands.

    ``status`` is waiting, playing, finished, parked (out of memory, resumes when opened) or
    closed. Its whole history is its log (``TableLogEntry``); this row is what the lobby and
    the restore read without replaying it.
    """

    __tablename__ = "tables"
    __table_args__ = (sa.Index("ix_tables_status_updated_at", "status", "updated_at"),)

    code: Mapped[str] = mapped_column(sa.String(32), primary_key=True)
    game: Mapped[str] = mapped_column(sa.String(32))
    status: Mapped[str] = mapped_column(sa.String(16))
    private: Mapped[bool]
    host_id: Mapped[str | None] = mapped_column(sa.String(ID_LENGTH))
    version: Mapped[int]
    updated_at: Mapped[float] = mapped_column(sa.Float)  # Unix seconds of the last change


class TablePlayer(Base):
    """A player seated at a table (the lobby's "Your tables")."""

    __tablename__ = "table_players"
    __table_args__ = (sa.Index("ix_table_players_player_id", "player_id"),)

    code: Mapped[str] = mapped_column(sa.ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True)
    player_id: Mapped[str] = mapped_column(sa.String(ID_LENGTH), primary_key=True)


class TableLogEntry(Base):
    """One change to a table at one version: the write-ahead log a table is rebuilt from.

    The primary key (code, version) is the fence: a second writer of the same version fails.
    ``data`` is the change as JSON text (kind-specific; see server/rooms/room.py).
    """

    __tablename__ = "table_log"

    code: Mapped[str] = mapped_column(sa.ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True)
    version: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    kind: Mapped[str] = mapped_column(sa.String(16))
    data: Mapped[str] = mapped_column(sa.Text)
    at: Mapped[float] = mapped_column(sa.Float)  # Unix seconds
