"""A group's webhook: the URL its chat is told at (a secret), the format it speaks, and how the
last delivery went.

Revision ID: 0012_group_webhooks
Revises: 0011_push
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_group_webhooks"
down_revision: str | None = "0011_push"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "group_webhooks",
        sa.Column("group_code", sa.String(16), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_ok_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_failed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_failure", sa.String(64), nullable=True),
        sa.ForeignKeyConstraint(
            ["group_code"], ["groups.code"], name="fk_group_webhooks_group_code_groups", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("group_code", name="pk_group_webhooks"),
    )


def downgrade() -> None:
    op.drop_table("group_webhooks")
