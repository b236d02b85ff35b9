"""Passkeys in the database: the credentials that sign a player in, and the challenges handed
out for adding or using one (each answered once, within ``CHALLENGE_TTL``). The WebAuthn
checks themselves are the edge's (the ``webauthn`` library); nothing here knows HTTP.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from server.storage.models import Passkey, PasskeyChallenge, Player

CHALLENGE_TTL = timedelta(minutes=5)
# Challenges one player may hold at once: a new one replaces their oldest, so asking again
# and again keeps this many rows. (Signing in, with no player, is paced per address instead.)
CHALLENGES_PER_PLAYER = 5


def _now() -> datetime:
    return datetime.now(UTC)


def new_challenge(session: Session, challenge: str, player_id: str | None) -> str:
    """Keep a challenge (base64url) for ``player_id`` (None: signing in); its handle. Expired
    challenges are swept on the way, and so are the player's beyond their newest
    ``CHALLENGES_PER_PLAYER - 1``."""
    now = _now()
    session.execute(sa.delete(PasskeyChallenge).where(PasskeyChallenge.expires_at < now))
    if player_id is not None:
        newest = (
            sa.select(PasskeyChallenge.id)
            .where(PasskeyChallenge.player_id == player_id)
            .order_by(PasskeyChallenge.expires_at.desc(), PasskeyChallenge.id)
            .limit(CHALLENGES_PER_PLAYER - 1)
        )
        session.execute(
            sa.delete(PasskeyChallenge).where(
                PasskeyChallenge.player_id == player_id, PasskeyChallenge.id.not_in(newest.scalar_subquery())
            )
        )
    handle = secrets.token_urlsafe(24)
    session.add(PasskeyChallenge(id=handle, challenge=challenge, player_id=player_id, expires_at=now + CHALLENGE_TTL))
    return handle


def take_challenge(session: Session, handle: object, player_id: str | None) -> str | None:
    """The challenge behind ``handle`` if it was made for ``player_id`` and has not expired;
    it is deleted either way (a challenge is answered once)."""
    if not isinstance(handle, str) or len(handle) > 64:
        return None
    row = session.get(PasskeyChallenge, handle)
    if row is None:
        return None
    session.delete(row)
    if row.player_id != player_id or row.expires_at <= _now():
        return None
    return row.challenge


def add_passkey(
    session: Session, player_id: str, credential_id: str, public_key: bytes, sign_count: int, label: str
) -> dict[str, Any]:
    key = Passkey(
        credential_id=credential_id,
        player_id=player_id,
        public_key=public_key,
        sign_count=sign_count,
        label=label[:64],
        created_at=_now(),
        last_used_at=None,
    )
    session.add(key)
    session.flush()
    return summary(key)


def summary(key: Passkey) -> dict[str, Any]:
    return {"id": key.credential_id, "label": key.label, "created_at": key.created_at, "last_used_at": key.last_used_at}


def passkeys_of(session: Session, player_id: str) -> list[dict[str, Any]]:
    rows = session.scalars(sa.select(Passkey).where(Passkey.player_id == player_id).order_by(Passkey.created_at))
    return [summary(k) for k in rows]


def credential_ids_of(session: Session, player_id: str) -> list[str]:
    return list(session.scalars(sa.select(Passkey.credential_id).where(Passkey.player_id == player_id)))


def passkey(session: Session, credential_id: object) -> Passkey | None:
    if not isinstance(credential_id, str) or not credential_id or len(credential_id) > 512:
        return None
    return session.get(Passkey, credential_id)


def used(session: Session, key: Passkey, sign_count: int) -> Player | None:
    """A passkey just signed in: keep its new counter; its player."""
    key.sign_count = sign_count
    key.last_used_at = _now()
    return session.get(Player, key.player_id)


def remove_passkey(session: Session, player_id: str, credential_id: str) -> bool:
    key = passkey(session, credential_id)
    if key is None or key.player_id != player_id:
        return False
    session.delete(key)
    return True
