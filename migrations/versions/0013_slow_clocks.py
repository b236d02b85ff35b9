"""Slow tables keep their clock with their row: ``tables.clock_s`` (the turn clock's seconds),
``tables.deadline`` (a slow clock's running deadline, Unix milliseconds, indexed: the clocks
due are looked up by it, parked tables included) and ``table_players.to_act`` (whom it awaits).

Every existing table had a fast clock or none: no deadline, nobody awaited.

Revision ID: 0013_slow_clocks
Revises: 0012_group_webhooks
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_slow_clocks"
down_revision: str | None = "0012_group_webhooks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("clock_s", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("deadline", sa.BigInteger(), nullable=True))
        batch.create_index("ix_tables_deadline", ["deadline"])
    with op.batch_alter_table("table_players") as batch:
        batch.add_column(sa.Column("to_act", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("table_players") as batch:
        batch.drop_column("to_act")
    with op.batch_alter_table("tables") as batch:
        batch.drop_index("ix_tables_deadline")
        batch.drop_column("deadline")
        batch.drop_column("clock_s")
