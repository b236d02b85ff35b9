"""Request dependencies: the calling player, and the rate limits (per address, or per player)."""

from __future__ import annotations

import math
from typing import Any

from fastapi import Request

from server.edges.api.errors import ApiError
from server.limits import LOOKUPS, budget_key
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


def _limits(request: Request) -> tuple[Any, str] | None:
    """The app's rate limiter and whose budgets this request spends (None when the app has
    no limiter): its client address's, an IPv6 client's /64's."""
    state = request.app.state
    limiter = getattr(state, "limiter", None)
    if limiter is None:
        return None
    return limiter, budget_key(state.addresses.of(request.scope))


def too_many(wait_s: float, what: str, whose: str = "from your address") -> ApiError:
    seconds = max(1, math.ceil(wait_s))
    return ApiError(
        429,
        "rate_limited",
        f"Too many {what} {whose}; try again in {seconds} s.",
        {"Retry-After": str(seconds)},
    )


def spend(request: Request, kind: str, what: str) -> None:
    """Take one of this address's ``kind`` tokens, or refuse with 429 and ``Retry-After``."""
    limits = _limits(request)
    if limits is not None:
        limiter, address = limits
        wait_s = limiter.take(kind, address)
        if wait_s > 0:
            raise too_many(wait_s, what)


def spend_for(request: Request, kind: str, key: str, what: str, whose: str) -> None:
    """Take one of ``key``'s ``kind`` tokens (a bucket of something other than an address, a
    group say), or refuse with 429 and ``Retry-After``."""
    limiter = getattr(request.app.state, "limiter", None)
    if limiter is not None:
        wait_s = limiter.take(kind, key)
        if wait_s > 0:
            raise too_many(wait_s, what, whose)


def spend_player(request: Request, kind: str, caller: Caller, what: str) -> None:
    """Take one of this player's ``kind`` tokens (whatever their address), or refuse with 429
    and ``Retry-After``."""
    spend_for(request, kind, caller.id, what, "from you")


def check_lookups(request: Request) -> None:
    """Refuse (429) an address that has used up its failed room lookups, before it looks."""
    limits = _limits(request)
    if limits is not None:
        limiter, address = limits
        wait_s = limiter.wait(LOOKUPS, address)
        if wait_s > 0:
            raise too_many(wait_s, "unknown room codes")


def lookup_failed(request: Request) -> None:
    """Count one failed room lookup against this address."""
    limits = _limits(request)
    if limits is not None:
        limiter, address = limits
        limiter.take(LOOKUPS, address)
