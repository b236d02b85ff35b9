"""Web Push in storage: each device's subscription and the notification kinds it turned off,
and the keys the server keeps for itself (its VAPID key). Plain functions of a session, as
``store``; nothing here knows HTTP or the push protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from server.storage.models import Device, NotifyPrefs, Player, PushSubscription, ServerKey


@dataclass(frozen=True, slots=True)
class Subscription:
    """Where one device is told, and the keys its payloads are encrypted to."""

    device_id: str
    endpoint: str
    p256dh: str
    auth: str
    lang: str = "en"


def _now() -> datetime:
    return datetime.now(UTC)


def _live_device(session: Session, device_id: str) -> Device | None:
    device = session.get(Device, device_id)
    return device if device is not None and device.revoked_at is None else None


class TooManySubscriptions(Exception):
    """The player's devices hold the most push subscriptions a player may have."""


def save_subscription(
    session: Session,
    device_id: str,
    endpoint: str,
    p256dh: str,
    auth: str,
    lang: str = "en",
    cap: int | None = None,
) -> bool:
    """Keep ``device_id``'s subscription (replacing the one it had); False for a device that
    is unknown or revoked. A device's first subscription raises ``TooManySubscriptions`` when
    its player's devices hold ``cap`` already."""
    device = _live_device(session, device_id)
    if device is None:
        return False
    row = session.get(PushSubscription, device_id)
    if row is None:
        if cap is not None and subscription_count(session, device.player_id) >= cap:
            raise TooManySubscriptions
        row = PushSubscription(device_id=device_id, player_id=device.player_id, created_at=_now())
        session.add(row)
    row.endpoint, row.p256dh, row.auth, row.lang = endpoint, p256dh, auth, lang
    row.created_at = _now()
    session.flush()
    return True


def subscription_count(session: Session, player_id: str) -> int:
    """How many of the player's devices are subscribed (the player's row locked, on
    PostgreSQL, until the transaction ends: two devices subscribing at once are counted in
    turn)."""
    session.execute(sa.select(Player.id).where(Player.id == player_id).with_for_update())
    count = session.scalar(
        sa.select(sa.func.count()).select_from(PushSubscription).where(PushSubscription.player_id == player_id)
    )
    return int(count or 0)


def subscription_of(session: Session, device_id: str) -> Subscription | None:
    row = session.get(PushSubscription, device_id)
    return None if row is None else Subscription(row.device_id, row.endpoint, row.p256dh, row.auth, row.lang)


def drop_subscription(session: Session, device_id: str) -> bool:
    """Forget ``device_id``'s subscription; whether it had one."""
    gone = session.execute(sa.delete(PushSubscription).where(PushSubscription.device_id == device_id))
    return bool(gone.rowcount)  # type: ignore[attr-defined]  # a DELETE's result is a CursorResult


def drop_endpoint(session: Session, device_id: str, endpoint: str) -> bool:
    """Forget ``device_id``'s subscription if it still sends to ``endpoint`` (the push service
    said it is gone; a subscription made since then stays)."""
    gone = session.execute(
        sa.delete(PushSubscription).where(
            PushSubscription.device_id == device_id, PushSubscription.endpoint == endpoint
        )
    )
    return bool(gone.rowcount)  # type: ignore[attr-defined]


def kinds_off(session: Session, device_id: str) -> set[str]:
    row = session.get(NotifyPrefs, device_id)
    return set(row.off) if row is not None else set()


def set_kinds_off(session: Session, device_id: str, off: Iterable[str]) -> bool:
    """Turn exactly the kinds ``off`` off on ``device_id`` (the others on); False for a device
    that is unknown or revoked."""
    if _live_device(session, device_id) is None:
        return False
    row = session.get(NotifyPrefs, device_id)
    if row is None:
        row = NotifyPrefs(device_id=device_id)
        session.add(row)
    row.off = sorted(set(off))
    row.updated_at = _now()
    session.flush()
    return True


def subscriptions_for(session: Session, player_ids: Iterable[str], kind: str) -> list[Subscription]:
    """The subscriptions of the players' devices (not revoked) that have ``kind`` on."""
    rows = session.execute(
        sa.select(PushSubscription, NotifyPrefs.off)
        .join(Device, Device.id == PushSubscription.device_id)
        .outerjoin(NotifyPrefs, NotifyPrefs.device_id == PushSubscription.device_id)
        .where(PushSubscription.player_id.in_(list(player_ids)), Device.revoked_at.is_(None))
        .order_by(PushSubscription.device_id)
    ).all()
    return [
        Subscription(row.device_id, row.endpoint, row.p256dh, row.auth, row.lang)
        for row, off in rows
        if kind not in (off or ())
    ]


def server_key(
    session_factory: Callable[[], AbstractContextManager[Session]], name: str, make: Callable[[], str]
) -> str:
    """The server's key ``name``, made with ``make`` and stored the first time it is asked
    for. Two nodes making it at once both end up with the one stored first."""
    with session_factory() as session:
        found = session.get(ServerKey, name)
        if found is not None:
            return found.value
    try:
        with session_factory() as session:
            session.add(ServerKey(name=name, value=make(), created_at=_now()))
    except IntegrityError:  # another node stored it first: take theirs
        pass
    with session_factory() as session:
        stored = session.get(ServerKey, name)
        assert stored is not None
        return stored.value
