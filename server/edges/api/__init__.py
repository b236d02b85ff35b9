"""The HTTP edge: JSON routes under ``/api``, grouped by resource."""

from __future__ import annotations

from fastapi import APIRouter

from server.edges.api import games, group_webhooks, groups, matches, passkeys, players, push, rooms, tables

api_router = APIRouter(prefix="/api")
api_router.include_router(players.router)
api_router.include_router(games.router)
api_router.include_router(rooms.router)
api_router.include_router(matches.router)
api_router.include_router(tables.router)
api_router.include_router(groups.router)
api_router.include_router(group_webhooks.router)
api_router.include_router(passkeys.router)
api_router.include_router(push.router)

__all__ = ["api_router"]
