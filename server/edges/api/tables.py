"""A player's own tables over HTTP: the lobby's "Your tables", and leaving or closing one.

Tables outlive processes (see server/rooms/manager.py): the list comes from the database, so
it shows parked tables too; leaving or closing one brings it back into memory first. The
tables where it is the caller's turn come first, the soonest deadline first: a slow table's
turn and deadline are read from its stored row (parked or not, on any node), another table's
from its room when this node holds it, or when another node holds it from the marks that node
keeps in Redis (server/rooms/turn_marks.py).
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, TypeVar

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel

from server.edges.api.deps import Caller, current_player
from server.edges.api.errors import ApiError, error_response_doc
from server.edges.api.groups import group_tables_of
from server.log_entry import StoreUnavailable
from server.rooms import Room, RoomError
from server.rooms.table import awaits
from server.rooms.timer import is_slow

T = TypeVar("T")

router = APIRouter(tags=["tables"])


class TableSummary(BaseModel):
    code: str
    group: str | None = None  # the group's code, for a table of one of the caller's groups
    url: str
    game: str
    status: str  # waiting, playing or parked
    private: bool
    is_host: bool
    updated_at: float  # Unix seconds of the table's last change
    your_turn: bool = False  # the game in play waits for the caller (slow tables as stored, fast ones from their node)
    deadline: int | None = None  # when it is the caller's turn on a clock: when it runs out (Unix ms)
    turn_timer: int = 0  # the table's clock, seconds a decision (3600 and more: a slow table)
    left: bool = False  # the caller left this match in play: a bot plays their seat, theirs to take back


class TableList(BaseModel):
    tables: list[TableSummary]


@router.get(
    "/tables",
    response_model=TableList,
    summary="Your unfinished tables (waiting, playing or parked): those where it is your turn first, the "
    "soonest deadline first, then the others newest first; a match you left, until it ends",
    responses=error_response_doc(401, 503),
)
async def my_tables(request: Request, caller: Caller = Depends(current_player)) -> dict:
    try:
        found = await request.app.state.tables.tables_of(caller.id)
    except StoreUnavailable:
        raise ApiError(503, "unavailable", "The table store is not reachable right now; try again.") from None
    # The open tables of the caller's groups are theirs too, seated or not.
    theirs = await group_tables_of(request, caller.id)
    group_of = {t["code"]: t["group"] for t in theirs}
    seated = {t["code"] for t in found}
    found += [{**t, "is_host": t.pop("host_id") == caller.id} for t in theirs if t["code"] not in seated]
    rooms = request.app.state.rooms
    elsewhere = [
        t
        for t in found
        if t["status"] == "playing" and rooms.get(t["code"]) is None and not is_slow(t.get("turn_timer", 0))
    ]
    marks = await rooms.directory.turns_of(caller.id) if elsewhere else None
    listed = [
        {**t, "url": f"/r/{t['code']}", "group": group_of.get(t["code"]), **_turn(rooms, t, caller.id, marks)}
        for t in found
    ]
    # Stable: the others keep the store's order (newest first).
    listed.sort(key=lambda t: (not t["your_turn"], t["deadline"] if t["your_turn"] and t["deadline"] else 2**63))
    return {"tables": listed}


def _turn(rooms: Any, table: dict, player_id: str, marks: dict[str, int | None] | None) -> dict:
    """Whether a table in play waits for the player, and until when: from the room where this
    node holds it, from the marks of the node that holds it elsewhere (``marks``: a fast
    table's turn), else as stored (a slow table's clock, kept while it is parked), so that
    listing never loads a parked table nor one another node holds."""
    stored = {"your_turn": bool(table.get("your_turn")), "deadline": table.get("deadline")}
    room = rooms.get(table["code"]) if table["status"] == "playing" else None
    if room is None and marks is not None and table["status"] == "playing" and not is_slow(table.get("turn_timer", 0)):
        return {"your_turn": table["code"] in marks, "deadline": marks.get(table["code"])}
    if room is None:
        return stored if table["status"] in ("playing", "parked") else {"your_turn": False, "deadline": None}
    turn = awaits(room.table, player_id) and not room.table.seats[room.table.seat_of(player_id)].away
    return {"your_turn": turn, "deadline": room.table.clock.deadline if turn else None}


async def _refusals_as_api(step: Awaitable[T]) -> T:
    """Await ``step``; a room's refusal becomes the HTTP error it stands for."""
    try:
        return await step
    except RoomError as err:
        raise ApiError(err.status, err.code, err.message) from None


async def _open(request: Request, code: str, player_id: str, host_only: bool = False) -> Room:
    """The table, open on this node; where another node may hold it, the directory checks
    whether the caller sits at it (or hosts it) first, so only a table's own players bring it
    to this node (``Directory.open_for``)."""
    directory = request.app.state.rooms.directory
    room: Room | None = await _refusals_as_api(
        directory.open_for(code, lambda found: _check_caller(found, code, player_id, host_only))
    )
    if room is None:
        raise ApiError(404, "not_found", f"There is no open table {code!r}.")
    return room


def _check_caller(room: Any, code: str, player_id: str, host_only: bool) -> None:
    if room is None:
        raise ApiError(404, "not_found", f"There is no open table {code!r}.")
    if host_only and player_id != room.host_id:
        raise ApiError(403, "not_host", "Only the host can close the table.")
    if not host_only and room.seat_of(player_id) is None:
        raise ApiError(409, "not_seated", "You are not sitting at this table.")


@router.post(
    "/tables/{code}/leave",
    status_code=204,
    summary="Leave a table for good: before the start your seat empties, during play a bot keeps it",
    responses=error_response_doc(401, 404, 409, 503),
)
async def leave_table(code: str, request: Request, caller: Caller = Depends(current_player)) -> None:
    room = await _open(request, code, caller.id)
    await _refusals_as_api(room.leave_table(caller.id))


@router.post(
    "/tables/{code}/close",
    status_code=204,
    summary="Host only, before the start: close the table for everyone",
    responses=error_response_doc(401, 403, 404, 409, 503),
)
async def close_table(code: str, request: Request, caller: Caller = Depends(current_player)) -> None:
    room = await _open(request, code, caller.id, host_only=True)
    await _refusals_as_api(room.close_table(caller.id))
