"""Carry each match's finished_at on its seats, indexed for a player's history page.

A player's history was an IN-subquery over match_seats followed by a sort of all of that
player's matches on every page; with (player_id, finished_at, match_id) on match_seats a
page is one index range, newest first, with the same (finished_at, id) cursor.

Revision ID: 0002_seat_finished_at
Revises: 0001_initial
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_seat_finished_at"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEX = "ix_match_seats_player_id_finished_at_match_id"


def upgrade() -> None:
    op.add_column("match_seats", sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        "UPDATE match_seats SET finished_at ="
        " (SELECT matches.finished_at FROM matches WHERE matches.id = match_seats.match_id)"
    )
    op.create_index(INDEX, "match_seats", ["player_id", "finished_at", "match_id"])


def downgrade() -> None:
    op.drop_index(INDEX, table_name="match_seats")
    with op.batch_alter_table("match_seats") as batch:
        batch.drop_column("finished_at")
