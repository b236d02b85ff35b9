"""Groups' webhook messages waiting to be sent, in the database: a stop or a crash of the
server loses none, and in cluster mode exactly one node sends each (``webhook_outbox``).

Revision ID: 0015_webhook_outbox
Revises: 0014_group_ledger_lines
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_webhook_outbox"
down_revision: str | None = "0014_group_ledger_lines"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "webhook_outbox",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("key", sa.String(32), nullable=False),
        sa.Column("group_code", sa.String(16), nullable=False),
        sa.Column("message", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("next_at", sa.Double(), nullable=False),
        sa.Column("claimed_by", sa.String(64), nullable=True),
        sa.Column("claimed_until", sa.Double(), nullable=True),
        sa.ForeignKeyConstraint(
            ["group_code"], ["groups.code"], name="fk_webhook_outbox_group_code_groups", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_webhook_outbox"),
        sa.UniqueConstraint("key", name="uq_webhook_outbox_key"),
    )
    op.create_index("ix_webhook_outbox_group_code_id", "webhook_outbox", ["group_code", "id"])
    op.create_index("ix_webhook_outbox_next_at", "webhook_outbox", ["next_at"])


def downgrade() -> None:
    op.drop_index("ix_webhook_outbox_next_at", table_name="webhook_outbox")
    op.drop_index("ix_webhook_outbox_group_code_id", table_name="webhook_outbox")
    op.drop_table("webhook_outbox")
