"""Request dependencies: the database, the room manager and the calling player."""

from __future__ import annotations

from fastapi import Request

from server.edges.api.errors import ApiError
from server.players import Caller, player_for_token


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer`` header, if any."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


async def current_player(request: Request) -> Caller:
    """The calling player; 401 without a valid bearer token."""
    token = bearer_token(request)
    if token is None:
        raise ApiError(401, "unauthorized", "Send your player token as 'Authorization: Bearer <token>'.")
    caller = await player_for_token(request.app, token)
    if caller is None:
        raise ApiError(401, "unauthorized", "That player token is not known here.")
    return caller
