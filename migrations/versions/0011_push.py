"""Web Push: a device's push subscription, the notification kinds it turned off, and the
server's own keys (the VAPID key every node signs with).

Revision ID: 0011_push
Revises: 0009_table_player_left
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_push"
down_revision: str | None = "0009_table_player_left"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("device_id", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("endpoint", sa.String(2048), nullable=False),
        sa.Column("p256dh", sa.String(128), nullable=False),
        sa.Column("auth", sa.String(32), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name="fk_push_subscriptions_device_id_devices", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_push_subscriptions_player_id_players", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("device_id", name="pk_push_subscriptions"),
    )
    op.create_index("ix_push_subscriptions_player_id", "push_subscriptions", ["player_id"])
    op.create_table(
        "notify_prefs",
        sa.Column("device_id", sa.String(64), nullable=False),
        sa.Column("off", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["device_id"], ["devices.id"], name="fk_notify_prefs_device_id_devices", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("device_id", name="pk_notify_prefs"),
    )
    op.create_table(
        "server_keys",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_server_keys"),
    )


def downgrade() -> None:
    op.drop_table("server_keys")
    op.drop_table("notify_prefs")
    op.drop_index("ix_push_subscriptions_player_id", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
