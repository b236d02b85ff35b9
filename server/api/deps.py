"""Request dependencies: the database, the room manager and the calling player."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from typing import Any

from fastapi import Request

from server import store
from server.api.errors import ApiError


@dataclass(frozen=True, slots=True)
class Caller:
    """The player a request speaks for."""

    id: str
    name: str


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer`` header, if any."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


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

    caller = await asyncio.to_thread(find)
    if caller is not None:
        if len(_known) >= _KNOWN_MAX:
            _known.clear()
        _known[key] = caller
    return caller


async def current_player(request: Request) -> Caller:
    """The calling player; 401 without a valid bearer token."""
    token = bearer_token(request)
    if token is None:
        raise ApiError(401, "unauthorized", "Send your player token as 'Authorization: Bearer <token>'.")
    caller = await player_for_token(request.app, token)
    if caller is None:
        raise ApiError(401, "unauthorized", "That player token is not known here.")
    return caller
