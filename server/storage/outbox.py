"""Groups' webhook messages waiting to be sent (``webhook_outbox``): put, claimed by one node,
done or tried again later (``server/notify/webhooks.py``).

A group's messages go out in order, so only a group's oldest message (its head) is ever
claimed, and only while nobody else's claim on it lasts. The claim is one conditional UPDATE
of that row (it holds only while the row is unclaimed, or its claim ended, and still due with
the tries that were read): on PostgreSQL a second node's UPDATE waits for the first's and then
finds the condition false, on SQLite the writers take turns; either way one node wins. Times
are wall-clock seconds (the nodes of a cluster keep their clocks in step).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from server.storage.models import WebhookOutbox as Row


@dataclass(frozen=True, slots=True)
class Pending:
    """A claimed message: its row's id, the group, what it says and how often it was tried."""

    id: int
    group: str
    message: dict[str, Any]
    tries: int


def _free(now: float) -> sa.ColumnElement[bool]:
    return sa.or_(Row.claimed_by.is_(None), Row.claimed_until < now)


def put(
    session: Session, group: str, message: dict[str, Any], now: float, bound: int, key: str | None = None
) -> tuple[int, int]:
    """Queue ``message`` for ``group``'s chat, to be tried at once, unless one with ``key`` is
    queued already (a write tried again after its answer was lost); past ``bound`` messages the
    group's oldest ones nobody is sending are dropped. (messages now queued, messages dropped)."""
    mine = Row.group_code == group
    key = key or secrets.token_hex(16)
    if session.scalar(sa.select(Row.id).where(Row.key == key)) is None:
        row = Row(key=key, group_code=group, message=message, created_at=datetime.now(UTC), tries=0, next_at=now)
        session.add(row)
        session.flush()
    count = session.scalar(sa.select(sa.func.count()).select_from(Row).where(mine)) or 0
    if count <= bound:
        return count, 0
    oldest = sa.select(Row.id).where(mine, _free(now)).order_by(Row.id).limit(count - bound)
    gone: sa.CursorResult = session.execute(  # type: ignore[assignment]
        sa.delete(Row).where(Row.id.in_(session.scalars(oldest).all()))
    )
    return count - gone.rowcount, gone.rowcount


def claim(session: Session, group: str, node: str, now: float, lease_s: float) -> Pending | float | None:
    """Claim ``group``'s head for ``node`` until ``now + lease_s``: the message; else the
    seconds until the head is due (0.0 when another node holds it); None when nothing waits."""
    head = session.execute(
        sa.select(Row.id, Row.message, Row.tries, Row.next_at, Row.claimed_by, Row.claimed_until)
        .where(Row.group_code == group)
        .order_by(Row.id)
        .limit(1)
    ).first()
    if head is None:
        return None
    if head.claimed_by is not None and head.claimed_by != node and (head.claimed_until or 0) >= now:
        return 0.0
    due: float = head.next_at
    if due > now:
        return due - now
    won: sa.CursorResult = session.execute(  # type: ignore[assignment]
        sa.update(Row)
        .where(Row.id == head.id, Row.tries == head.tries, Row.next_at <= now)
        .where(sa.or_(_free(now), Row.claimed_by == node))
        .values(claimed_by=node, claimed_until=now + lease_s)
    )
    if won.rowcount != 1:
        return 0.0
    return Pending(head.id, group, head.message, head.tries)


def done(session: Session, pending: Pending, node: str) -> None:
    """The message was delivered or given up on: it goes (unless another node took it over)."""
    session.execute(sa.delete(Row).where(Row.id == pending.id, Row.claimed_by == node))


def later(session: Session, pending: Pending, node: str, next_at: float) -> None:
    """The message failed a try that may pass: tried again (by any node) from ``next_at``."""
    session.execute(
        sa.update(Row)
        .where(Row.id == pending.id, Row.claimed_by == node)
        .values(tries=pending.tries + 1, next_at=next_at, claimed_by=None, claimed_until=None)
    )


def due_groups(session: Session, now: float, limit: int) -> list[str]:
    """Groups with a message due that nobody is sending (the groups a node should look at)."""
    query = sa.select(Row.group_code).where(Row.next_at <= now, _free(now)).group_by(Row.group_code)
    return list(session.scalars(query.order_by(sa.func.min(Row.id)).limit(limit)))


def release(session: Session, node: str | None, but: str | None = None) -> int:
    """End the claims of ``node``, or of every node but ``but`` when ``node`` is None (a single
    server starting again: its earlier processes are gone); the number of messages released."""
    query = sa.update(Row).where(Row.claimed_by.is_not(None))
    if node is not None:
        query = query.where(Row.claimed_by == node)
    if but is not None:
        query = query.where(Row.claimed_by != but)
    freed: sa.CursorResult = session.execute(query.values(claimed_by=None, claimed_until=None))  # type: ignore[assignment]
    return freed.rowcount


def queued(session: Session, group: str | None = None) -> list[dict[str, Any]]:
    """The messages waiting, oldest first (one group's, or every group's)."""
    query = sa.select(Row).order_by(Row.id)
    if group is not None:
        query = query.where(Row.group_code == group)
    return [
        {
            "id": r.id,
            "group": r.group_code,
            "message": r.message,
            "tries": r.tries,
            "next_at": r.next_at,
            "claimed_by": r.claimed_by,
            "claimed_until": r.claimed_until,
        }
        for r in session.scalars(query)
    ]
