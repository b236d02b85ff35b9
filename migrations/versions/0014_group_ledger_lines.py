"""A group's ledger lines and meetings, written from each match's record when it is linked to
its group, so the standings add up small rows instead of every record's seats and hands:
``group_ledger_lines`` has one row per person per match (side, place, won, points for and
against, contracts declared and made), ``group_ledger_meetings`` one per two people of a
match (partners or not, who placed higher, the partners' win and contracts).

Every match already linked to a group gets its lines and meetings from its stored record here.

Revision ID: 0014_group_ledger_lines
Revises: 0013_slow_clocks
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

from server.games import all_games
from server.groups.ledger import lines, meetings

revision: str = "0014_group_ledger_lines"
down_revision: str | None = "0013_slow_clocks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ("match_id", "seat", "player_id", "side", "place", "won", "points", "against", "bids", "bids_made")
MEETING = ("a", "b", "together", "a_higher", "b_higher", "won", "bids", "bids_made")
LINK = ("group_code", "game", "season")


def _fk(table: str, column: str, target: str) -> sa.ForeignKeyConstraint:
    name = f"fk_{table}_{column}_{target.split('.')[0]}"
    return sa.ForeignKeyConstraint([column], [target], name=name, ondelete="CASCADE")


def _link_columns() -> list[sa.Column]:
    return [
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("group_code", sa.String(16), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "group_ledger_lines",
        *_link_columns(),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        *(sa.Column(c, sa.Integer(), nullable=False) for c in ("side", "place", "won", "points")),
        sa.Column("against", sa.Double(), nullable=False),
        *(sa.Column(c, sa.Integer(), nullable=False) for c in ("bids", "bids_made")),
        _fk("group_ledger_lines", "match_id", "matches.id"),
        _fk("group_ledger_lines", "group_code", "groups.code"),
        _fk("group_ledger_lines", "player_id", "players.id"),
        sa.PrimaryKeyConstraint("match_id", "seat", name="pk_group_ledger_lines"),
    )
    op.create_index(
        "ix_group_ledger_lines_group_game_player",
        "group_ledger_lines",
        ["group_code", "game", "player_id", "season", "won", "points", "against", "place"],
    )
    op.create_table(
        "group_ledger_meetings",
        *_link_columns(),
        sa.Column("seat_a", sa.Integer(), nullable=False),
        sa.Column("seat_b", sa.Integer(), nullable=False),
        sa.Column("a", sa.String(64), nullable=False),
        sa.Column("b", sa.String(64), nullable=False),
        *(sa.Column(c, sa.Integer(), nullable=False) for c in MEETING[2:]),
        _fk("group_ledger_meetings", "match_id", "matches.id"),
        _fk("group_ledger_meetings", "group_code", "groups.code"),
        _fk("group_ledger_meetings", "a", "players.id"),
        _fk("group_ledger_meetings", "b", "players.id"),
        sa.PrimaryKeyConstraint("match_id", "seat_a", "seat_b", name="pk_group_ledger_meetings"),
    )
    op.create_index(
        "ix_group_ledger_meetings_group_game_pair",
        "group_ledger_meetings",
        ["group_code", "game", "a", "b", "together", "season", *MEETING[3:]],
    )
    _backfill(op.get_bind())


def _backfill(conn: sa.Connection) -> None:
    """The lines of every match already linked to a group, from its seats (and, in the
    partnership games, its hands' declarers and scores)."""
    links = sa.table("group_matches", *(sa.column(c) for c in ("match_id", "group_code", "game", "season")))
    seats = sa.table("match_seats", *(sa.column(c) for c in ("match_id", "seat", "player_id", "bot", "score", "winner")))
    hands = sa.table(
        "hands", sa.column("match_id"), sa.column("index"), sa.column("scores", sa.JSON), sa.column("extra", sa.JSON)
    )
    target = sa.table("group_ledger_lines", *(sa.column(c) for c in (*LINK, *COLUMNS)))
    pairs = sa.table("group_ledger_meetings", *(sa.column(c) for c in (*LINK, "match_id", "seat_a", "seat_b", *MEETING)))
    matches: dict[str, dict[str, Any]] = {}
    for row in conn.execute(sa.select(links).order_by(links.c.match_id)):
        matches[row.match_id] = {"link": row, "seats": [], "hands": []}
    for row in conn.execute(sa.select(seats).where(seats.c.match_id.in_(sa.select(links.c.match_id)))):
        if row.match_id in matches:
            matches[row.match_id]["seats"].append(dict(row._mapping))
    partnership = sa.select(links.c.match_id).where(links.c.game.in_(sorted(g.name for g in all_games() if g.partnerships)))
    query = sa.select(hands).where(hands.c.match_id.in_(partnership)).order_by(hands.c.match_id, hands.c["index"])
    for row in conn.execute(query):
        matches[row.match_id]["hands"].append({**(row.extra or {}), "scores": row.scores})
    out: list[dict[str, Any]] = []
    met: list[dict[str, Any]] = []
    for match_id, match in matches.items():
        link = match["link"]
        match["seats"].sort(key=lambda s: s["seat"])
        base = {"match_id": match_id, "group_code": link.group_code, "game": link.game, "season": link.season}
        mine = [{**line, "won": int(line["won"])} for line in lines(link.game, match)]
        out += [{**base, **line} for line in mine]
        met += [{**base, **m} for m in meetings(mine)]
    for table, rows in ((target, out), (pairs, met)):
        for start in range(0, len(rows), 1000):
            conn.execute(table.insert(), rows[start : start + 1000])


def downgrade() -> None:
    op.drop_index("ix_group_ledger_meetings_group_game_pair", table_name="group_ledger_meetings")
    op.drop_table("group_ledger_meetings")
    op.drop_index("ix_group_ledger_lines_group_game_player", table_name="group_ledger_lines")
    op.drop_table("group_ledger_lines")
