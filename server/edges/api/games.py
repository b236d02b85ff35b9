"""``GET /api/games``: every game, its player counts and its options as a JSON Schema."""

from __future__ import annotations

from fastapi import APIRouter

from server.rules.games import all_games

router = APIRouter(tags=["games"])


@router.get("/games", summary="Every game with its player counts and options schema")
async def list_games() -> list[dict]:
    return [game.describe() for game in all_games()]
