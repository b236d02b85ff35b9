"""A name a player gives each of their devices ("Kitchen tablet"), so the list of devices tells
them apart (``devices.name``; null until named).

Revision ID: 0017_device_names
Revises: 0016_group_rules_changed_by
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017_device_names"
down_revision: str | None = "0016_group_rules_changed_by"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("devices") as batch:
        batch.add_column(sa.Column("name", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("devices") as batch:
        batch.drop_column("name")
