"""Who last changed a group's house rules for a game, and what they changed
(``group_rules.changed_by``, ``group_rules.changes``), so the group's page and chat can say so.

Revision ID: 0016_group_rules_changed_by
Revises: 0015_webhook_outbox
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_group_rules_changed_by"
down_revision: str | None = "0015_webhook_outbox"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("group_rules") as batch:
        batch.add_column(sa.Column("changed_by", sa.String(64), nullable=True))
        batch.add_column(sa.Column("changes", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("group_rules") as batch:
        batch.drop_column("changes")
        batch.drop_column("changed_by")
