"""Rooms over HTTP: open one, list the public ones waiting for players, read a summary."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, ConfigDict, Field

from server.edges.api.deps import Caller, current_player
from server.edges.api.errors import ApiError, error_response_doc
from server.rooms import RoomError

router = APIRouter(tags=["rooms"])


class CreateRoom(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: str = Field(description="A game id from GET /api/games.")
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
    responses=error_response_doc(401, 422, 429),
)
async def create_room(body: CreateRoom, request: Request, caller: Caller = Depends(current_player)) -> dict:
    manager = request.app.state.rooms
    try:
        room = manager.create(body.game, body.options, body.seats, body.private, caller.id, caller.name)
    except RoomError as err:
        raise ApiError(err.status, err.code, err.message) from None
    if body.from_:
        previous = manager.get(body.from_)
        if previous is not None and previous.seat_of(caller.id) is not None and previous.next_code is None:
            await previous.set_next(room.code)
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
