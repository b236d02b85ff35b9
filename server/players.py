"""The players' part: who a bearer token belongs to.

Tokens are stored hashed; a player found once is remembered in memory (keyed by the token's
hash, so the cache holds no secret) and the database is asked off the event loop.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from server.storage import store


@dataclass(frozen=True, slots=True)
class Caller:
    """The player a request or a socket speaks for."""

    id: str
    name: str


_known: dict[str, Caller] = {}
_KNOWN_MAX = 50_000


async def player_for_token(app: Any, token: str | None) -> Caller | None:
    """The player holding ``token``, or None (a player, once found, is remembered in memory)."""
    if not token or len(token) > 256:
        return None
    key = hashlib.sha256(token.encode()).hexdigest()
    caller = _known.get(key)
    if caller is not None:
        return caller
    db = app.state.db

    def find() -> Caller | None:
        with db.session() as session:
            player = store.player_by_token(session, token)
            return Caller(player.id, player.name) if player else None

    caller = await db.call(find)
    if caller is not None:
        if len(_known) >= _KNOWN_MAX:
            _known.clear()
        _known[key] = caller
    return caller
