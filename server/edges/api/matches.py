"""Finished matches: history pages, whole records and replays (``/api/matches``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from server.edges.api.deps import bearer_token
from server.edges.api.errors import ApiError, error_response_doc
from server.edges.api.replays import ReplayWorkers, StoredBody
from server.games import game_names
from server.players import player_for_token
from server.rooms.seats import quoted
from server.rules.replay import ReplayError
from server.storage import store
from server.storage.db import Database

router = APIRouter(tags=["matches"])


class OccupantOut(BaseModel):
    from_: int = Field(alias="from", description="The index (in the match's actions) of their first decision.")
    name: str
    player_id: str | None
    bot: bool
    level: Literal["easy", "strong"] | None = None


class SeatOut(BaseModel):
    seat: int
    name: str
    player_id: str | None
    bot: bool
    level: Literal["easy", "strong"] | None = Field(
        default=None, description='A bot seat\'s level ("easy" or "strong"); null for a person.'
    )
    occupants: list[OccupantOut] = Field(
        default_factory=list,
        description="Who made the seat's decisions, in order: the first occupant (the fields above) from 0,"
        " then each who took the seat over during play (a late friend, or a bot for a player who left).",
    )


class MatchSummary(BaseModel):
    id: str
    game: str
    options: dict[str, Any] = Field(description="The options the match was played with (the history shows its rules).")
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
    private: bool = Field(default=False, description="Played at a private table: readable only for its players.")
    players: list[SeatOut]
    hands: list[HandOut]
    actions: list[ActionOut]
    scores: list[int]
    winners: list[int]
    started_at: datetime
    finished_at: datetime


class ReplayStep(BaseModel):
    seat: int = Field(description="The seat that acted.")
    action: dict[str, Any]
    ops: list[dict[str, Any]] = Field(description="RFC 6902 patch from the previous state to this one.")


class Replay(BaseModel):
    """The first state in full, then one patch per action: O(match length)."""

    id: str
    game: str
    options: dict[str, Any]
    seed: str = Field(description="Public once the match is over.")
    commitment: str
    dealer: int
    players: list[SeatOut]
    count: int = Field(description="The number of actions (and steps).")
    first: dict[str, Any] = Field(description="The deal, as the game's full view: every hand shown.")
    steps: list[ReplayStep]


def _db(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


async def _viewer(request: Request) -> str | None:
    """The calling player's id when a known bearer token came with the request, else None."""
    caller = await player_for_token(request.app, bearer_token(request))
    return caller.id if caller else None


def _missing(match_id: str) -> ApiError:
    return ApiError(404, "not_found", f"There is no finished match {quoted(match_id, 40)}.")


async def _load(request: Request, match_id: str) -> dict[str, Any]:
    db = _db(request)
    viewer = await _viewer(request)

    def load() -> dict[str, Any] | None:
        with db.session() as session:
            return store.get_match(session, match_id, viewer=viewer)

    record = await db.call(load) if store.is_valid_id(match_id) else None
    if record is None:
        raise _missing(match_id)
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
    game: str | None = Query(
        None, max_length=64, description="Only matches of this game.", json_schema_extra={"enum": sorted(game_names())}
    ),
    limit: int = Query(20, ge=1, le=100),
    before: str | None = Query(None, max_length=512, description="The 'next' cursor of the previous page."),
) -> MatchPage:
    """Matches of private tables are listed only to their own players (send your bearer token)."""
    if game is not None and game not in game_names():
        known = ", ".join(sorted(game_names()))
        raise ApiError(400, "unknown_game", f"There is no game {game!r}; the games are: {known}.")
    if before is not None:
        try:
            store.decode_cursor(before)
        except store.InvalidCursor as exc:
            raise ApiError(400, "bad_cursor", str(exc)) from None
    db = _db(request)
    viewer = await _viewer(request)

    def page() -> MatchPage:
        with db.session() as session:
            matches, next_cursor = store.list_matches(
                session, player=player, game=game, before=before, limit=limit, viewer=viewer
            )
        return MatchPage(matches=matches, next=next_cursor)

    return await db.call(page)


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
    summary="A finished match's states: the deal in full, then one patch per action, all hands shown",
    responses=error_response_doc(404, 500, 503),
)
async def get_replay(match_id: str, request: Request) -> StreamingResponse:
    """Private tables' matches: 404 to anyone but their players. 503 with Retry-After when busy."""
    db = _db(request)
    viewer = await _viewer(request)

    def readable() -> bool:
        with db.session() as session:
            return store.may_read(session, match_id, viewer)

    if not store.is_valid_id(match_id) or not await db.call(readable):
        raise _missing(match_id)
    try:
        body = await request.app.state.replays.body(match_id)
    except ReplayError as exc:
        raise ApiError(500, "replay_failed", str(exc)) from None
    return StreamingResponse(body.chunks(), media_type="application/json", headers={"content-length": str(len(body))})


def replay_builder(workers: ReplayWorkers) -> Callable[[str], Awaitable[StoredBody]]:
    """What the replay service calls to build a body: the workers' build, 404 for no match."""

    async def build(match_id: str) -> StoredBody:
        body = await workers.build(match_id)
        if body is None:
            raise _missing(match_id)
        return body

    return build
