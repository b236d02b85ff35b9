"""``GET /api/games``: every game, its player counts, its options as a JSON Schema, and what a
client needs to speak of it: partnerships, each phase's rules section, its options in
players' words (docs/protocol.md)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from server.edges import rules_pages  # the module, not its names: it imports this package
from server.games import all_games

router = APIRouter(tags=["games"])


@router.get("/games", summary="Every game with its player counts and options schema")
async def list_games(request: Request) -> list[dict]:
    pages = request.app.state.rules
    return [{**game.describe(), **rules_pages.described(game, pages[game.name])} for game in all_games()]
