"""Groups: a circle of friends with members, house rules per game, seasons, and its tables.

A group's finished matches are linked to it (``group_matches``) with the season that was open
when each was stored; the ledger is computed from the match records through that link.

Revision ID: 0006_groups
Revises: 0005_seat_bot_level
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_groups"
down_revision: str | None = "0005_seat_bot_level"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _group_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["group_code"], ["groups.code"], name=f"fk_{table}_group_code_groups", ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "groups",
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("owner_id", sa.String(64), nullable=False),
        sa.Column("invite", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("code", name="pk_groups"),
    )
    op.create_table(
        "group_members",
        sa.Column("group_code", sa.String(16), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        _group_fk("group_members"),
        sa.PrimaryKeyConstraint("group_code", "player_id", name="pk_group_members"),
    )
    op.create_index("ix_group_members_player_id", "group_members", ["player_id"])
    op.create_table(
        "group_rules",
        sa.Column("group_code", sa.String(16), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        _group_fk("group_rules"),
        sa.PrimaryKeyConstraint("group_code", "game", name="pk_group_rules"),
    )
    op.create_table(
        "group_seasons",
        sa.Column("group_code", sa.String(16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        _group_fk("group_seasons"),
        sa.PrimaryKeyConstraint("group_code", "number", name="pk_group_seasons"),
    )
    _create_tables_and_matches()


def _create_tables_and_matches() -> None:
    op.create_table(
        "group_tables",
        sa.Column("code", sa.String(32), nullable=False),
        sa.Column("group_code", sa.String(16), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        _group_fk("group_tables"),
        sa.PrimaryKeyConstraint("code", name="pk_group_tables"),
    )
    op.create_index("ix_group_tables_group_code_created_at", "group_tables", ["group_code", "created_at"])
    op.create_table(
        "group_matches",
        sa.Column("match_id", sa.String(64), nullable=False),
        sa.Column("group_code", sa.String(16), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("season", sa.Integer(), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name="fk_group_matches_match_id_matches", ondelete="CASCADE"
        ),
        _group_fk("group_matches"),
        sa.PrimaryKeyConstraint("match_id", name="pk_group_matches"),
    )
    op.create_index(
        "ix_group_matches_group_code_game_season", "group_matches", ["group_code", "game", "season", "match_id"]
    )
    op.create_index("ix_group_matches_group_code_finished_at", "group_matches", ["group_code", "finished_at"])


def downgrade() -> None:
    op.drop_table("group_matches")
    op.drop_table("group_tables")
    op.drop_table("group_seasons")
    op.drop_table("group_rules")
    op.drop_index("ix_group_members_player_id", table_name="group_members")
    op.drop_table("group_members")
    op.drop_table("groups")
