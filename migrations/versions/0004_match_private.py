"""Remember whether a match was played at a private table.

A private table's matches are listed and readable only for their own players (PROTOCOL §4),
so the history must know which ones they are. Matches stored before this were public.

Revision ID: 0004_match_private
Revises: 0003_table_log
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_match_private"
down_revision: str | None = "0003_table_log"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("private", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("private")
