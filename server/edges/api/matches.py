"""Finished matches: history pages, whole records and replays (``/api/matches``)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from server.storage import store
from server.edges.api.errors import ApiError, error_response_doc
from server.rules.games import game_names
from server.rules.replay import ReplayError, replay_states

router = APIRouter(tags=["matches"])


class SeatOut(BaseModel):
    seat: int
    name: str
    player_id: str | None
    bot: bool
    level: Literal["easy", "strong"] | None = Field(
        default=None, description='A bot seat\'s level ("easy" or "strong"); null for a person.'
    )


class MatchSummary(BaseModel):
    id: str
    game: str
    players: list[SeatOut]
    scores: list[int]
    winners: list[int]
    started_at: datetime
    finished_at: datetime


class MatchPage(BaseModel):
    matches: list[MatchSummary]
    next: str | None = Field(description="Pass as 'before' for the next (older) page; null on the last page.")


class HandOut(BaseModel):
    """One hand; games add their own keys (contract, trump, ...) beside these."""

    model_config = ConfigDict(extra="allow")

    dealer: int
    deal: dict[str, Any]
    scores: list[int] | None


class ActionOut(BaseModel):
    seat: int
    action: dict[str, Any]


class MatchRecord(BaseModel):
    id: str
    game: str
    options: dict[str, Any]
    seed: str
    commitment: str = Field(description="SHA-256 hex of the seed, published when the match began.")
    dealer: int = Field(description="The first hand's dealer.")
    room_code: str | None = None
    players: list[SeatOut]
    hands: list[HandOut]
    actions: list[ActionOut]
    scores: list[int]
    winners: list[int]
    started_at: datetime
    finished_at: datetime


class ReplayState(BaseModel):
    index: int
    seat: int | None = Field(description="The seat that acted to reach this state; null for the deal.")
    action: dict[str, Any] | None
    view: dict[str, Any] = Field(description="The game's full view: every hand shown.")


class Replay(BaseModel):
    id: str
    game: str
    players: list[SeatOut]
    states: list[ReplayState]


def _db(request: Request):
    return request.app.state.db


async def _load(request: Request, match_id: str) -> dict[str, Any]:
    db = _db(request)

    def load() -> dict[str, Any] | None:
        with db.session() as session:
            return store.get_match(session, match_id)

    record = await asyncio.to_thread(load) if store.is_valid_id(match_id) else None
    if record is None:
        raise ApiError(404, "not_found", f"There is no finished match {match_id!r}.")
    return record


@router.get(
    "/matches",
    response_model=MatchPage,
    summary="Finished matches, newest first",
    responses=error_response_doc(400, 422, 503),
)
async def list_matches(
    request: Request,
    player: str | None = Query(None, max_length=200, description="Only matches this player id sat in."),
    game: str | None = Query(None, max_length=64, description="Only matches of this game."),
    limit: int = Query(20, ge=1, le=100),
    before: str | None = Query(None, max_length=512, description="The 'next' cursor of the previous page."),
) -> MatchPage:
    if game is not None and game not in game_names():
        known = ", ".join(sorted(game_names()))
        raise ApiError(400, "unknown_game", f"There is no game {game!r}; the games are: {known}.")
    if before is not None:
        try:
            store.decode_cursor(before)
        except store.InvalidCursor as exc:
            raise ApiError(400, "bad_cursor", str(exc)) from None
    db = _db(request)

    def page() -> MatchPage:
        with db.session() as session:
            matches, next_cursor = store.list_matches(
                session, player=player, game=game, before=before, limit=limit
            )
        return MatchPage(matches=matches, next=next_cursor)

    return await asyncio.to_thread(page)


@router.get(
    "/matches/{match_id}",
    response_model=MatchRecord,
    summary="One finished match: enough to replay it",
    responses=error_response_doc(404, 503),
)
async def get_match(match_id: str, request: Request) -> dict[str, Any]:
    return await _load(request, match_id)


@router.get(
    "/matches/{match_id}/replay",
    response_model=Replay,
    summary="Every state of a finished match, with all hands shown",
    responses=error_response_doc(404, 500, 503),
)
async def get_replay(match_id: str, request: Request) -> dict[str, Any]:
    record = await _load(request, match_id)
    try:
        states = await asyncio.to_thread(replay_states, record)
    except ReplayError as exc:
        raise ApiError(500, "replay_failed", str(exc)) from None
    return {"id": record["id"], "game": record["game"], "players": record["players"], "states": states}
