"""Say which bot played a seat: Easy (the heuristic bots) or Strong (the search bots).

Existing rows are left NULL: before this revision every bot was an Easy bot, so readers show a
bot seat with no level as "easy".

Revision ID: 0005_seat_bot_level
Revises: 0004_match_private
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_seat_bot_level"
down_revision: str | None = "0004_match_private"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("match_seats", sa.Column("bot_level", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_seats") as batch:
        batch.drop_column("bot_level")
