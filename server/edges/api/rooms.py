"""Rooms over HTTP: open one, list the public ones waiting for players, read a summary."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from server.edges.api.deps import Caller, current_player
from server.edges.api.errors import ApiError, error_response_doc
from server.rooms import RoomError
from server.rules.games import game_names

router = APIRouter(tags=["rooms"])


class CreateRoom(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: str = Field(description="A game id from GET /api/games.", json_schema_extra={"enum": sorted(game_names())})
    options: dict[str, Any] = Field(default_factory=dict, description="The game's options; defaults fill the rest.")
    seats: int | None = Field(default=None, description="How many players (default: the game's usual count).")
    private: bool = Field(default=False, description="Private rooms are not listed in the lobby.")
    from_: str | None = Field(default=None, alias="from", description="The room this one follows ('Play again').")


class RoomCreated(BaseModel):
    code: str
    url: str


class RoomSummary(BaseModel):
    code: str
    game: str
    title: str
    options: dict[str, Any]
    seats: int
    taken: int
    host_name: str
    status: str
    private: bool


class RoomList(BaseModel):
    rooms: list[RoomSummary]


@router.post(
    "/rooms",
    status_code=201,
    response_model=RoomCreated,
    summary="Open a room; the caller is its host and sits in seat 0",
    responses=error_response_doc(400, 401, 403, 404, 409, 422, 429),
)
async def create_room(body: CreateRoom, request: Request, caller: Caller = Depends(current_player)) -> dict:
    """With ``from``: "Play again" after the finished room ``from``. Only a player of its match
    may ask; the first one's room becomes its ``next``, except that its host's room replaces
    one a non-host opened (once). Each player who follows sits in the seat they had."""
    manager = request.app.state.rooms
    previous = None
    try:
        if body.from_:
            previous = manager.get(body.from_)
            if previous is None:
                raise ApiError(404, "not_found", f"There is no open room {body.from_!r} to play again from.")
            previous.check_may_follow(caller.id)
        room = manager.create(
            body.game, body.options, body.seats, body.private, caller.id, caller.name, follow=previous
        )
        if previous is not None:
            try:
                await previous.claim_next(caller.id, room.code)
            except RoomError:  # another player's table got there first
                await room.retire("close")
                raise
    except RoomError as err:
        raise ApiError(err.status, err.code, err.message) from None
    return {"code": room.code, "url": f"/r/{room.code}"}


@router.get("/rooms", response_model=RoomList, summary="Public rooms waiting for players")
async def list_rooms(request: Request) -> dict:
    return {"rooms": request.app.state.rooms.list_public()}


@router.get(
    "/rooms/{code}",
    response_model=RoomSummary,
    summary="A room's public summary",
    responses=error_response_doc(404, 503),
)
async def get_room(code: str, request: Request) -> dict:
    try:
        room = await request.app.state.rooms.open(code)
    except RoomError as err:
        raise ApiError(err.status, err.code, err.message) from None
    if room is None:
        raise ApiError(404, "not_found", f"There is no open room {code!r}.")
    return room.summary()
