"""Find a match by the code of the table it was played at: an old link to a table that has
finished and closed (GET /api/rooms/{code}) still leads to its match record.

Revision ID: 0007_match_room_code
Revises: 0006_groups
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0007_match_room_code"
down_revision: str | None = "0006_groups"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_matches_room_code", "matches", ["room_code"])


def downgrade() -> None:
    op.drop_index("ix_matches_room_code", table_name="matches")
