"""A table's player list marks who left a table in play (a bot keeps their seat), so that the
lobby's "Your tables" keeps listing the table to them while its match goes on.

Every existing row is a seated player (``left`` false).

Revision ID: 0009_table_player_left
Revises: 0008_devices
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_table_player_left"
down_revision: str | None = "0008_devices"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("table_players") as batch:
        batch.add_column(sa.Column("left", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM table_players WHERE \"left\""))
    with op.batch_alter_table("table_players") as batch:
        batch.drop_column("left")
