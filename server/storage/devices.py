"""A player's devices and the one-time codes that link a new one.

Every device holds its own bearer token; the database keeps only the token's SHA-256, and a
link code's. Plain functions that take the session and return plain values, as ``store``;
nothing here knows HTTP.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from server.storage.models import Device, LinkCode, Player, PushSubscription

LINK_TTL = timedelta(minutes=10)
# A link code is read off one screen and typed on another: no look-alikes, no case.
LINK_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LINK_LENGTH = 8  # 31**8: about 40 bits, against a few tries a minute per address for 10 minutes
LABEL_MAX = 64
# A device's last_seen_at is written at most this often (a token is looked up far more often).
SEEN_EVERY = timedelta(minutes=10)


def hash_secret(secret: str) -> str:
    """The SHA-256 hex of a token or a link code: all the database ever holds of either."""
    return hashlib.sha256(secret.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def new_link_code() -> str:
    return "".join(secrets.choice(LINK_ALPHABET) for _ in range(LINK_LENGTH))


def normalize_link_code(text: object) -> str | None:
    """A typed code as stored (capitals, no spaces or dashes), or None if it cannot be one."""
    if not isinstance(text, str) or len(text) > 4 * LINK_LENGTH:
        return None
    code = "".join(c for c in text.upper() if c not in " -\t")
    if len(code) != LINK_LENGTH or any(c not in LINK_ALPHABET for c in code):
        return None
    return code


# ---- devices -----------------------------------------------------------------------------


class TooManyDevices(Exception):
    """The player has the most devices (not revoked) a player may have."""


def device_count(session: Session, player_id: str) -> int:
    """How many devices of the player are not revoked (the player's row locked, on
    PostgreSQL, until the transaction ends: two devices added at once are counted in turn)."""
    session.execute(sa.select(Player.id).where(Player.id == player_id).with_for_update())
    count = session.scalar(
        sa.select(sa.func.count()).select_from(Device).where(Device.player_id == player_id, Device.revoked_at.is_(None))
    )
    return int(count or 0)


def add_device(
    session: Session, player_id: str, label: str, now: datetime | None = None, cap: int | None = None
) -> tuple[Device, str]:
    """A new device of ``player_id`` and its token (plaintext, shown once). Raises
    ``TooManyDevices`` when the player has ``cap`` devices already."""
    if cap is not None and device_count(session, player_id) >= cap:
        raise TooManyDevices
    now = now or _now()
    token = secrets.token_urlsafe(32)
    device = Device(
        id=secrets.token_hex(8),
        player_id=player_id,
        token_hash=hash_secret(token),
        label=label[:LABEL_MAX],
        created_at=now,
        last_seen_at=now,
        revoked_at=None,
    )
    session.add(device)
    session.flush()
    return device, token


def by_token(session: Session, token: str) -> tuple[Player, Device] | None:
    """The player and the device holding ``token``, or None (a revoked device holds nothing).

    Notes the device as seen now (at most every ``SEEN_EVERY``)."""
    if not isinstance(token, str) or not token:
        return None
    row = session.execute(
        sa.select(Player, Device)
        .join(Device, Device.player_id == Player.id)
        .where(Device.token_hash == hash_secret(token), Device.revoked_at.is_(None))
    ).first()
    if row is None:
        return None
    player, device = row
    now = _now()
    if device.last_seen_at < now - SEEN_EVERY:
        device.last_seen_at = now
    return player, device


def list_devices(session: Session, player_id: str) -> list[dict[str, Any]]:
    """The player's devices that are not revoked, oldest first."""
    rows = session.scalars(
        sa.select(Device)
        .where(Device.player_id == player_id, Device.revoked_at.is_(None))
        .order_by(Device.created_at, Device.id)
    )
    return [
        {"id": d.id, "name": d.name, "label": d.label, "created_at": d.created_at, "last_seen_at": d.last_seen_at}
        for d in rows
    ]


def name_device(session: Session, player_id: str, device_id: str, name: str | None) -> bool:
    """Give one of the player's devices a name (an already cleaned one; None forgets it); False
    when the player has no such device, or it was revoked."""
    device = _own_device(session, player_id, device_id)
    if device is None:
        return False
    device.name = name
    return True


def _own_device(session: Session, player_id: str, device_id: object) -> Device | None:
    """The player's device ``device_id`` that is not revoked, or None."""
    device = session.get(Device, device_id) if isinstance(device_id, str) and len(device_id) <= 64 else None
    if device is None or device.player_id != player_id or device.revoked_at is not None:
        return None
    return device


def revoke_device(session: Session, player_id: str, device_id: str) -> str | None:
    """Revoke one of the player's devices; its token's hash, or None when it has no such
    device (or it was revoked already)."""
    device = _own_device(session, player_id, device_id)
    if device is None:
        return None
    device.revoked_at = _now()
    # A signed-out device is told nothing more (its subscription would outlive its token).
    session.execute(sa.delete(PushSubscription).where(PushSubscription.device_id == device.id))
    return device.token_hash


# ---- link codes --------------------------------------------------------------------------


def create_link_code(session: Session, player_id: str, now: datetime | None = None) -> tuple[str, datetime]:
    """A new one-time code for the player and when it expires. A player has one live code at
    a time: making one ends the player's earlier codes."""
    now = now or _now()
    session.execute(sa.delete(LinkCode).where(LinkCode.player_id == player_id))
    code = new_link_code()
    while session.get(LinkCode, hash_secret(code)) is not None:
        code = new_link_code()
    expires = now + LINK_TTL
    session.add(LinkCode(code_hash=hash_secret(code), player_id=player_id, created_at=now, expires_at=expires))
    session.flush()
    return code, expires


def redeem_link_code(
    session: Session, text: object, label: str, now: datetime | None = None, cap: int | None = None
) -> tuple[Player, Device, str] | None:
    """Use a link code: a new device (and its token) for the code's player, or None when the
    code is unknown, used or expired (all the same to the caller). The code is spent by one
    conditional update, so two devices racing with it cannot both win. ``TooManyDevices`` as
    ``add_device``: the session rolled back, the code is not spent."""
    code = normalize_link_code(text)
    if code is None:
        return None
    now = now or _now()
    code_hash = hash_secret(code)
    spent = session.execute(
        sa.update(LinkCode)
        .where(LinkCode.code_hash == code_hash, LinkCode.used_at.is_(None), LinkCode.expires_at > now)
        .values(used_at=now)
        .execution_options(synchronize_session=False)
    )
    if spent.rowcount != 1:  # type: ignore[attr-defined]  # an UPDATE's result is a CursorResult
        return None
    player_id = session.scalar(sa.select(LinkCode.player_id).where(LinkCode.code_hash == code_hash))
    player = session.get(Player, player_id)
    if player is None:
        return None
    device, token = add_device(session, player.id, label, now, cap)
    return player, device, token


def rename_player(session: Session, player_id: str, name: str) -> Player | None:
    """Give the player a new (already cleaned) name; finished matches keep theirs."""
    player = session.get(Player, player_id)
    if player is not None:
        player.name = name
    return player


def save_prefs(session: Session, player_id: str, autoplay_forced: bool) -> None:
    """Keep a player's own settings (for every table)."""
    session.execute(sa.update(Player).where(Player.id == player_id).values(autoplay_forced=autoplay_forced))
