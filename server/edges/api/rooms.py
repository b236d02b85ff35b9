"""Rooms over HTTP: open one, list the public ones waiting for players, read a summary."""

from __future__ import annotations

import base64
import binascii
from typing import Any, Literal

import orjson
from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from server.edges.api.deps import Caller, bearer_token, check_lookups, current_player, lookup_failed, spend
from server.edges.api.errors import ApiError, error_response_doc
from server.edges.api.groups import (
    group_of_table,
    group_table_choices,
    group_table_options,
    link_group_table,
    rotated_follow,
)
from server.games import game_names
from server.limits import ROOMS
from server.notify.events import TableOpened
from server.players import player_for_token
from server.rooms import Room, RoomError
from server.rooms.manager import UNAVAILABLE
from server.rooms.seats import is_room_code, quoted
from server.rooms.watching import WATCH_DELAYS, WATCHERS
from server.storage import store
from server.storage.db import Database

# How long a new table's answer waits for its first log entry to be durable (the writer
# commits every few ms; longer means the database is out, and the answer is 503).
CREATE_DURABLE_S = 10.0

router = APIRouter(tags=["rooms"])


class CreateRoom(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: str = Field(description="A game id from GET /api/games.", json_schema_extra={"enum": [*sorted(game_names())]})
    options: dict[str, Any] = Field(default_factory=dict, description="The game's options; defaults fill the rest.")
    seats: int | None = Field(default=None, description="How many players (default: the game's usual count).")
    private: bool = Field(default=False, description="Private rooms are not listed in the lobby.")
    turn_timer: Literal[0, 30, 60, 120, 3600, 43200, 86400, 259200] = Field(
        default=0,
        description="Seconds a player has per turn before a bot plays it for them (0: no timer); 3600 and "
        "more is a slow clock (hours or days a decision) that runs while the table is parked.",
    )
    open_bot_seats: bool = Field(
        default=False,
        description="During play anyone may take a bot's seat unasked (false: the host allows each request).",
    )
    undo: Literal["ask", "off", "free"] | None = Field(
        default=None,
        description="Taking an action back: the next seat to act agrees ('ask'), 'free' (at once) or 'off'. "
        "Default: the group's last choice for the game, the table played again's ('from'), else 'ask'.",
    )
    watchers: Any = Field(
        default=None,
        description="Who may watch without a seat: 'everyone' (anyone with the link), 'members' (a group's"
        " members; at another table only its players' own other tabs) or 'nobody'. Unset: the group's last"
        " choice, the table played again's, else 'everyone'.",
        json_schema_extra={"enum": list(WATCHERS)},
    )
    watch_delay: Any = Field(
        default=None,
        description="How far behind the play watchers are shown the table: 'none', 'trick' or 'hand'."
        " Unset: as for 'watchers', else 'none'.",
        json_schema_extra={"enum": list(WATCH_DELAYS)},
    )
    from_: str | None = Field(default=None, alias="from", description="The room this one follows ('Play again').")
    group: str | None = Field(
        default=None,
        max_length=40,
        description="A group's code: a private table of that group (the caller must be a member), its options"
        " defaulting to the group's saved ones for the game. 'Play again' after a group's table keeps the group.",
    )
    rotate_partners: bool = Field(
        default=False,
        description="With 'from', in a partnership game: seat the pairs who have partnered least tonight"
        " (at the group's tables) as partners, instead of everyone in the seat they had.",
    )


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
    turn_timer: int = 0
    watchers: str = "everyone"
    watch_delay: str = "none"


class RoomList(BaseModel):
    rooms: list[RoomSummary]
    next: str | None = Field(
        default=None, description="Pass as 'cursor' for the next (older) page; null on the last page."
    )


def encode_cursor(key: tuple[float, str]) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(list(key))).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, str]:
    """The room key a cursor names; ApiError 400 when it is not one of ours."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created, code = orjson.loads(raw)
        if isinstance(created, (int, float)) and not isinstance(created, bool) and isinstance(code, str):
            return float(created), code
    except (binascii.Error, ValueError, TypeError):
        pass
    raise ApiError(400, "bad_cursor", "That cursor is not one this server gave out; start from the first page.")


@router.post(
    "/rooms",
    status_code=201,
    response_model=RoomCreated,
    summary="Open a room; the caller is its host and sits in seat 0",
    responses=error_response_doc(400, 401, 403, 404, 409, 422, 429, 503),
)
async def create_room(body: CreateRoom, request: Request, caller: Caller = Depends(current_player)) -> dict:
    """With ``from``: "Play again" after the finished room ``from``. Only a player of its match
    may ask; the first one's room becomes its ``next``, except that its host's room replaces
    one a non-host opened (once). Each player who follows sits in the seat they had."""
    spend(request, ROOMS, "new rooms")
    manager = request.app.state.rooms
    previous = follow = None
    options, group, undo = body.options, body.group, body.undo
    chosen = {"watchers": body.watchers, "watch_delay": body.watch_delay}
    watch: dict = {}  # what the new table takes that was not chosen now
    if group is not None:
        options = await group_table_options(request, group, caller, body.game, body.options)
        watch = await group_table_choices(request, group, body.game)
        undo = undo or watch.pop("undo", None)  # the group's last choice, beside its watchers
    elif body.from_:
        group = await group_of_table(request, body.from_)
    try:
        if body.from_:
            # The finished room may run on another node: only one of its players (checked by
            # the directory first, on a read that moves nothing) takes it over.
            previous = await manager.directory.finished_for(
                body.from_, lambda found: _may_follow(found, body.from_, caller.id)
            )
            _may_follow(previous, body.from_, caller.id)
            follow = await rotated_follow(request, previous, group) if body.rotate_partners else previous
            watch = {"watchers": previous.table.watching.watchers, "watch_delay": previous.table.watching.delay}
            undo = undo or previous.table.undo  # "Play again" keeps it
        watch = {**watch, **{k: v for k, v in chosen.items() if v is not None}, "group": group}
        room = await manager.create_shared(
            body.game,
            options,
            body.seats,
            body.private or group is not None,
            caller.id,
            caller.name,
            turn_timer=body.turn_timer,
            follow=follow,
            open_bot_seats=body.open_bot_seats,
            watch=watch,
            undo=undo,
        )
        if group is not None:  # the options a group last used become its defaults
            used = room.summary()["options"] if body.group is not None else None
            opened = TableOpened(room.code, room.table.game.name, room.table.host_name)
            remembered = _chosen_beside_options(room) if body.group else None
            await link_group_table(request, group, opened, used, caller.id, remembered)
        if previous is not None:
            try:
                await previous.claim_next(caller.id, room.code, rotated=follow is not previous)
            except RoomError:  # another player's table got there first
                await room.retire("close")
                raise
        # The 201 says the table exists: it must survive a crash the moment after it is sent.
        if not await room.until_durable(CREATE_DURABLE_S):
            raise UNAVAILABLE
    except RoomError as err:
        raise ApiError(err.status, err.code, err.message) from None
    return {"code": room.code, "url": f"/r/{room.code}"}


def _chosen_beside_options(room: Any) -> dict:
    """What a group's new table chose beyond the game's options, for the group to remember (its
    take-back rule when not the usual: the choices are replaced whole, so "ask" is forgotten)."""
    watching, undo = room.table.watching, room.table.undo
    return {"watchers": watching.watchers, "watch_delay": watching.delay, **({"undo": undo} if undo != "ask" else {})}


def _may_follow(previous: Any, code: str, player_id: str) -> None:
    if previous is None:
        raise ApiError(404, "not_found", f"There is no open room {quoted(code)} to play again from.")
    previous.check_may_follow(player_id)


@router.get(
    "/rooms",
    response_model=RoomList,
    summary="Public rooms waiting for players, newest first, a page at a time",
    responses=error_response_doc(400, 422),
)
async def list_rooms(
    request: Request,
    limit: int = Query(50, ge=1, le=200, description="Rooms on this page (at most 200)."),
    cursor: str | None = Query(None, max_length=200, description="The 'next' of the previous page."),
) -> dict:
    after = decode_cursor(cursor) if cursor is not None else None
    rooms, last = await request.app.state.rooms.list_lobby(limit=limit, after=after)
    return {"rooms": rooms, "next": encode_cursor(last) if last is not None else None}


@router.get(
    "/rooms/{code}",
    response_model=RoomSummary,
    summary="A room's public summary",
    responses=error_response_doc(404, 429, 503),
)
async def get_room(code: str, request: Request) -> dict:
    check_lookups(request)
    try:  # a read: it never takes the table to this node from another
        room: Room | None = await request.app.state.rooms.read(code)
    except RoomError as err:
        raise ApiError(err.status, err.code, err.message) from None
    if room is None:
        lookup_failed(request)
        raise ApiError(404, "not_found", f"There is no open room {quoted(code)}.")
    return room.summary()


class PlayedAt(BaseModel):
    match_id: str | None = Field(description="The last finished match played at the table, or null.")


@router.get(
    "/rooms/{code}/match",
    response_model=PlayedAt,
    summary="The match a table played: an old link to a finished, closed table opens its record",
    responses=error_response_doc(429, 503),
)
async def match_of_room(code: str, request: Request) -> dict:
    """Always 200, so that a page asking after a table that is gone logs no failed request;
    ``match_id`` is null when no match was played there that the caller may read (a private
    table's match only with one of its players' bearer token)."""
    check_lookups(request)
    match_id = None
    if is_room_code(code):
        db: Database = request.app.state.db
        caller = await player_for_token(request.app, bearer_token(request))
        viewer = caller.id if caller else None

        def find() -> str | None:
            with db.session() as session:
                return store.match_of_room(session, code, viewer)

        match_id = await db.call(find)
    if match_id is None:
        lookup_failed(request)
    return {"match_id": match_id}
