"""Who made each seat's decisions: a seat that changed hands during play (a late friend took a
bot's seat, a bot kept the seat of a player who left) keeps every occupant with the index of
the first action that was theirs (``match_seats.occupants``; NULL for a seat one occupant
played throughout, as every seat stored before).

Revision ID: 0018_match_seat_occupants
Revises: 0017_device_names
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_match_seat_occupants"
down_revision: str | None = "0017_device_names"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("match_seats", sa.Column("occupants", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("match_seats") as batch:
        batch.drop_column("occupants")
