"""Devices: a bearer token per device of a player, one-time codes that link a new device, and
passkeys (WebAuthn credentials) that sign a player in on a new device, with their challenges.

Each player's single token (``players.token_hash``) becomes the player's first device, so
every existing token keeps working; the column then leaves ``players``. Downgrading puts back
one token per player (its oldest device that is not revoked); the others stop working.

Revision ID: 0008_devices
Revises: 0007_match_room_code
Create Date: 2026-12-03
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_devices"
down_revision: str | None = "0007_match_room_code"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHUNK = 1000

_players = sa.table(
    "players",
    sa.column("id", sa.String),
    sa.column("token_hash", sa.String),
    sa.column("created_at", sa.DateTime(timezone=True)),
)
_devices = sa.table(
    "devices",
    sa.column("id", sa.String),
    sa.column("player_id", sa.String),
    sa.column("token_hash", sa.String),
    sa.column("label", sa.String),
    sa.column("created_at", sa.DateTime(timezone=True)),
    sa.column("last_seen_at", sa.DateTime(timezone=True)),
    sa.column("revoked_at", sa.DateTime(timezone=True)),
)


def _player_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["player_id"], ["players.id"], name=f"fk_{table}_player_id_players", ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "devices",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        _player_fk("devices"),
        sa.PrimaryKeyConstraint("id", name="pk_devices"),
        sa.UniqueConstraint("token_hash", name="uq_devices_token_hash"),
    )
    op.create_index("ix_devices_player_id", "devices", ["player_id"])
    op.create_table(
        "link_codes",
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        _player_fk("link_codes"),
        sa.PrimaryKeyConstraint("code_hash", name="pk_link_codes"),
    )
    op.create_index("ix_link_codes_player_id", "link_codes", ["player_id"])
    op.create_table(
        "passkeys",
        sa.Column("credential_id", sa.String(512), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        _player_fk("passkeys"),
        sa.PrimaryKeyConstraint("credential_id", name="pk_passkeys"),
    )
    op.create_index("ix_passkeys_player_id", "passkeys", ["player_id"])
    op.create_table(
        "passkey_challenges",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("challenge", sa.String(128), nullable=False),
        sa.Column("player_id", sa.String(64), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        _player_fk("passkey_challenges"),
        sa.PrimaryKeyConstraint("id", name="pk_passkey_challenges"),
    )
    _move_tokens_to_devices()
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint("uq_players_token_hash", type_="unique")
        batch.drop_column("token_hash")


def _move_tokens_to_devices() -> None:
    """Every player's token becomes its first device (id drawn here, label unknown)."""
    conn = op.get_bind()
    rows = conn.execute(sa.select(_players.c.id, _players.c.token_hash, _players.c.created_at)).all()
    for start in range(0, len(rows), CHUNK):
        conn.execute(
            _devices.insert(),
            [
                {"id": secrets.token_hex(8), "player_id": pid, "token_hash": token_hash, "label": "",
                 "created_at": created, "last_seen_at": created, "revoked_at": None}
                for pid, token_hash, created in rows[start : start + CHUNK]
            ],
        )


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("token_hash", sa.String(64), nullable=True))
    conn = op.get_bind()
    kept: dict[str, str] = {}
    live = (
        sa.select(_devices.c.player_id, _devices.c.token_hash)
        .where(_devices.c.revoked_at.is_(None))
        .order_by(_devices.c.created_at.desc(), _devices.c.id.desc())
    )
    for pid, token_hash in conn.execute(live):
        kept[pid] = token_hash  # the last one written is the oldest
    for (pid,) in conn.execute(sa.select(_players.c.id)).all():
        # A player whose every device was revoked gets a token nobody holds.
        token_hash = kept.get(pid) or hashlib.sha256(secrets.token_bytes(32)).hexdigest()
        conn.execute(_players.update().where(_players.c.id == pid).values(token_hash=token_hash))
    with op.batch_alter_table("players") as batch:
        batch.alter_column("token_hash", existing_type=sa.String(64), nullable=False)
        batch.create_unique_constraint("uq_players_token_hash", ["token_hash"])
    op.drop_table("passkey_challenges")
    op.drop_index("ix_passkeys_player_id", table_name="passkeys")
    op.drop_table("passkeys")
    op.drop_index("ix_link_codes_player_id", table_name="link_codes")
    op.drop_table("link_codes")
    op.drop_index("ix_devices_player_id", table_name="devices")
    op.drop_table("devices")
