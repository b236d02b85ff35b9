"""The initial schema: players, finished matches with their seats, hands and action logs.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_players"),
        sa.UniqueConstraint("token_hash", name="uq_players_token_hash"),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seed", sa.Text(), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("room_code", sa.String(32), nullable=True),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("winners", sa.JSON(), nullable=False),
        sa.Column("player_count", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_matches"),
    )
    op.create_index("ix_matches_finished_at_id", "matches", ["finished_at", "id"])
    op.create_index("ix_matches_game_finished_at_id", "matches", ["game", "finished_at", "id"])
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("bot", sa.Boolean(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("winner", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name="fk_match_seats_match_id_matches", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_match_seats_player_id_players", ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name="pk_match_seats"),
    )
    op.create_index("ix_match_seats_player_id_match_id", "match_seats", ["player_id", "match_id"])
    op.create_table(
        "hands",
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("index", sa.Integer(), nullable=False),
        sa.Column("dealer", sa.Integer(), nullable=False),
        sa.Column("deal", sa.JSON(), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=True),
        sa.Column("extra", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name="fk_hands_match_id_matches", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("match_id", "index", name="pk_hands"),
    )
    op.create_table(
        "actions",
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name="fk_actions_match_id_matches", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("match_id", "seq", name="pk_actions"),
    )


def downgrade() -> None:
    op.drop_table("actions")
    op.drop_table("hands")
    op.drop_index("ix_match_seats_player_id_match_id", table_name="match_seats")
    op.drop_table("match_seats")
    op.drop_index("ix_matches_game_finished_at_id", table_name="matches")
    op.drop_index("ix_matches_finished_at_id", table_name="matches")
    op.drop_table("matches")
    op.drop_table("players")
