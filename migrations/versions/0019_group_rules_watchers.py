"""A group's house rules remember, per game, who its tables let watch and how far behind
(``group_rules.table_options``: ``{"watchers", "watch_delay"}``; NULL where no table of the
game has chosen them yet, which means the defaults).

Revision ID: 0019_group_rules_watchers
Revises: 0018_match_seat_occupants
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019_group_rules_watchers"
down_revision: str | None = "0018_match_seat_occupants"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("group_rules", sa.Column("table_options", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("group_rules") as batch:
        batch.drop_column("table_options")
