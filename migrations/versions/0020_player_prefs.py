"""A player's own settings, kept for every table: ``players.autoplay_forced`` (their only legal
card is played for them after a short pause), off by default.

Revision ID: 0020_player_prefs
Revises: 0019_group_rules_watchers
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_player_prefs"
down_revision: str | None = "0019_group_rules_watchers"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("autoplay_forced", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("autoplay_forced")
