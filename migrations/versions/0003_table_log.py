"""Tables that outlive processes: the table row, its seated players and its write-ahead log.

Every change to a table is one ``table_log`` row, unique per (code, version), written before
anyone is shown that version; a table is rebuilt from its log on start or when its link is
opened after it was parked.

Revision ID: 0003_table_log
Revises: 0002_seat_finished_at
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_table_log"
down_revision: str | None = "0002_seat_finished_at"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("code", sa.String(32), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("host_id", sa.String(64), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("code", name="pk_tables"),
    )
    op.create_index("ix_tables_status_updated_at", "tables", ["status", "updated_at"])
    op.create_table(
        "table_players",
        sa.Column("code", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.ForeignKeyConstraint(
            ["code"], ["tables.code"], name="fk_table_players_code_tables", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("code", "player_id", name="pk_table_players"),
    )
    op.create_index("ix_table_players_player_id", "table_players", ["player_id"])
    op.create_table(
        "table_log",
        sa.Column("code", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["code"], ["tables.code"], name="fk_table_log_code_tables", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("code", "version", name="pk_table_log"),
    )


def downgrade() -> None:
    op.drop_table("table_log")
    op.drop_index("ix_table_players_player_id", table_name="table_players")
    op.drop_table("table_players")
    op.drop_index("ix_tables_status_updated_at", table_name="tables")
    op.drop_table("tables")
