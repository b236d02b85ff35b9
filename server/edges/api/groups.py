"""Groups over HTTP (``/api/groups``): a circle of friends, its invite link, house rules,
tables, standings and seasons.

Who is online says who sits at a table, and names the table only when the caller could open
it anyway (``groups.tables_open_to``): a private table's code lets anyone in.

Everything here answers 404 to anyone who is not a member, exactly as for a group that does
not exist. The invite secret travels in the invite link's fragment (``/g/{code}#invite=...``),
which browsers never send, so it is in no access log; it is in the answers of creating the
group, ``GET``/``POST .../invite`` (members; rotating: the owner) and nowhere else. Whoever
holds the secret may read whom it comes from (``POST .../invitation``) before they have a name.
"""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import orjson
from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from server.edges.api.deps import Caller, current_player, spend_player
from server.edges.api.errors import ApiError, error_response_doc
from server.games import game_names, get_game
from server.groups import ledger, partners, recap
from server.groups.presence import Presence, SharedPresence, presence_of
from server.limits import RECAP_IMAGES
from server.notify.events import RulesChanged, TableOpened
from server.option_words import option_said, value_words
from server.storage import groups, store
from server.storage.db import Database, Session

if TYPE_CHECKING:
    from server.edges.api.recap_images import RecapPainters
    from server.notify.webhooks import Webhooks

T = TypeVar("T")

router = APIRouter(tags=["groups"])


class NewGroup(BaseModel):
    name: str = Field(max_length=200, description="1 to 24 characters once trimmed, as a player's name.")


class GroupCreated(BaseModel):
    code: str
    name: str
    url: str
    invite_url: str = Field(description="Send this link to friends: it lets them join. Only members see it.")


class GroupBrief(BaseModel):
    code: str
    name: str
    role: Literal["owner", "member"]


class GroupList(BaseModel):
    groups: list[GroupBrief]


class MemberOut(BaseModel):
    player_id: str
    name: str
    role: Literal["owner", "member"]
    online: bool
    at_table: bool = Field(description="They are sitting at a table now.")
    table: str | None = Field(
        default=None,
        description="The table they sit at, when the caller may open it (a public table, a table of a group of "
        "theirs, or one they have a seat at); a private table's code is its key and is never shown to others.",
    )


class GroupTableOut(BaseModel):
    code: str
    url: str
    game: str
    status: str
    updated_at: float
    you_sit: bool = Field(default=False, description="The caller has a seat at this table (or left it in play).")


class SeasonOut(BaseModel):
    number: int
    started_at: datetime


class RulesChange(BaseModel):
    key: str
    value: Any
    before: Any


class RulesChangeOut(BaseModel):
    by: str = Field(description="The player who changed the game's house rules last.")
    name: str = Field(description="Their name now.")
    at: datetime
    changes: list[RulesChange] = Field(description="The options that change set, with their values before.")


class GroupOut(BaseModel):
    code: str
    name: str
    url: str
    role: Literal["owner", "member"] = Field(description="The caller's role.")
    members: list[MemberOut]
    rules: dict[str, dict[str, Any]]
    rules_changes: dict[str, RulesChangeOut] = Field(default_factory=dict)
    table_rules: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Per game, what its tables last chose beyond the game's options: watchers, watch_delay.",
    )
    tables: list[GroupTableOut]
    season: SeasonOut
    seasons: list[int]


class CloseSeason(BaseModel):
    season: int = Field(
        ge=1, lt=1_000_000, description="The open season you saw, to close: sent again, it closes nothing more."
    )


class Join(BaseModel):
    invite: str = Field(max_length=200)


class Invite(BaseModel):
    invite_url: str


class Invitation(BaseModel):
    group: str = Field(description="The group's name.")
    owner: str = Field(description="Who invites: the group's owner, by their current name.")


class Rules(BaseModel):
    model_config = ConfigDict(extra="forbid")
    options: dict[str, Any] = Field(default_factory=dict)


class SavedRules(BaseModel):
    game: str
    options: dict[str, Any]


def _presence(request: Request) -> Presence | SharedPresence:
    """Who is online, as the rooms see it (``presence_of``)."""
    state = request.app.state
    if getattr(state, "group_presence", None) is None:
        state.group_presence = presence_of(getattr(state, "rooms", None))
    presence: Presence | SharedPresence = state.group_presence
    return presence


def not_found(code: str) -> ApiError:
    return ApiError(404, "not_found", f"There is no group {code[:40]!r} that you belong to.")


def _invite_url(code: str, invite: str) -> str:
    return f"/g/{code}#invite={invite}"


async def member_role(request: Request, code: str, caller: Caller, owner: bool = False) -> str:
    """The caller's role in group ``code``; 404 when they are not a member, 403 when ``owner``
    is asked for and they are a member only."""
    db: Database = request.app.state.db

    def find() -> str | None:
        with db.session() as session:
            return groups.role_of(session, code, caller.id)

    role = await db.call(find)
    if role is None:
        raise not_found(code)
    if owner and role != groups.OWNER:
        raise ApiError(403, "not_owner", "Only the group's owner can do that.")
    return role


@router.post(
    "/groups",
    status_code=201,
    response_model=GroupCreated,
    summary="Create a group; the caller owns it (up to FELT_MAX_GROUPS_PER_PLAYER)",
    responses=error_response_doc(401, 409, 422, 503),
)
async def create_group(body: NewGroup, request: Request, caller: Caller = Depends(current_player)) -> dict:
    try:
        name = store.clean_name(body.name)
    except store.InvalidName as exc:
        raise ApiError(422, "invalid_name", str(exc).replace("name", "group name", 1)) from None
    db: Database = request.app.state.db
    cap = request.app.state.settings.max_groups_per_player

    def create() -> dict | None:
        with db.session() as session:
            if groups.groups_owned(session, caller.id) >= cap:
                return None
            return groups.create_group(session, caller.id, name)

    made = await db.call(create)
    if made is None:
        raise ApiError(409, "too_many_groups", f"One player may own at most {cap} groups, and you own {cap} already.")
    code = made["code"]
    return {"code": code, "name": name, "url": f"/g/{code}", "invite_url": _invite_url(code, made["invite"])}


@router.get("/groups", response_model=GroupList, summary="The caller's groups", responses=error_response_doc(401, 503))
async def my_groups(request: Request, caller: Caller = Depends(current_player)) -> dict:
    db: Database = request.app.state.db

    def read() -> list[dict]:
        with db.session() as session:
            return groups.groups_of(session, caller.id)

    return {"groups": await db.call(read)}


async def group_answer(request: Request, code: str, caller: Caller) -> dict:
    """The group as its members see it (404 for anyone else)."""
    page = await _in_session(request, lambda s: groups.group_page(s, code, caller.id))
    if page is None:
        raise not_found(code)
    tables = [{**t, "url": f"/r/{t['code']}"} for t in page.pop("tables")]
    found = {"code": code, "name": page.pop("name"), "url": f"/g/{code}", **page, "tables": tables}
    presence = _presence(request)
    await presence.saw(caller.id)
    online = await presence.online([m["player_id"] for m in found["members"]])
    seated_at = {seen["table"] for seen in online.values() if seen["table"]}
    linked = await _in_session(request, lambda s: groups.tables_open_to(s, caller.id, seated_at))
    for member in found["members"]:
        seen = online[member["player_id"]]
        table = seen["table"]
        member.update(online=seen["online"], at_table=table is not None, table=table if table in linked else None)
    return found


@router.get(
    "/groups/{code}",
    response_model=GroupOut,
    summary="A group: members and who is online, rules, open tables",
    responses=error_response_doc(401, 404, 503),
)
async def get_group(code: str, request: Request, caller: Caller = Depends(current_player)) -> dict:
    return await group_answer(request, code, caller)


@router.post(
    "/groups/{code}/join",
    response_model=GroupOut,
    summary="Join a group with the secret of its invite link",
    responses=error_response_doc(401, 404, 503),
)
async def join_group(code: str, body: Join, request: Request, caller: Caller = Depends(current_player)) -> dict:
    db: Database = request.app.state.db

    def join() -> bool:
        with db.session() as session:
            return groups.join_group(session, code, body.invite, caller.id)

    if not await db.call(join):
        raise ApiError(404, "not_found", "That invite link is not (or no longer) valid; ask for a new one.")
    return await group_answer(request, code, caller)


@router.post(
    "/groups/{code}/invitation",
    response_model=Invitation,
    summary="Whom an invite link comes from, read with its secret before joining (no token needed)",
    responses=error_response_doc(404, 503),
)
async def read_invitation(code: str, body: Join, request: Request) -> dict:
    found = await _in_session(request, lambda s: groups.invitation(s, code, body.invite))
    if found is None:
        raise ApiError(404, "not_found", "That invite link is not (or no longer) valid; ask for a new one.")
    return found


async def _in_session(request: Request, work: Callable[[Session], T]) -> T:
    db: Database = request.app.state.db

    def run() -> T:
        with db.session() as session:
            return work(session)

    return await db.call(run)


@router.get(
    "/groups/{code}/invite",
    response_model=Invite,
    summary="The group's invite link (members only)",
    responses=error_response_doc(401, 404, 503),
)
async def get_invite(code: str, request: Request, caller: Caller = Depends(current_player)) -> dict:
    await member_role(request, code, caller)
    invite = await _in_session(request, lambda s: groups.invite_of(s, code))
    return {"invite_url": _invite_url(code, invite)}


@router.post(
    "/groups/{code}/invite",
    response_model=Invite,
    summary="Owner only: a new invite link; the old one no longer lets anyone join",
    responses=error_response_doc(401, 403, 404, 503),
)
async def rotate_invite(code: str, request: Request, caller: Caller = Depends(current_player)) -> dict:
    await member_role(request, code, caller, owner=True)
    invite = await _in_session(request, lambda s: groups.rotate_invite(s, code))
    return {"invite_url": _invite_url(code, invite)}


@router.delete(
    "/groups/{code}/members/{player_id}",
    status_code=204,
    summary="Owner: remove a member; anyone: leave (the owner cannot leave)",
    responses=error_response_doc(401, 403, 404, 409, 503),
)
async def remove_member(
    code: str, player_id: str, request: Request, caller: Caller = Depends(current_player)
) -> Response:
    role = await member_role(request, code, caller)
    if player_id != caller.id and role != groups.OWNER:
        raise ApiError(403, "not_owner", "Only the group's owner can remove someone else.")
    if player_id == caller.id and role == groups.OWNER:
        raise ApiError(409, "owner_stays", "The owner cannot leave their own group.")
    if not await _in_session(request, lambda s: groups.remove_member(s, code, player_id)):
        raise ApiError(404, "not_found", "That player is not a member of this group.")
    return Response(status_code=204)


def parsed_options(game_name: str, options: dict[str, Any]) -> dict[str, Any]:
    """The options as a room would take them (every option filled in); 422 otherwise."""
    try:
        game = get_game(game_name)
    except ValueError as err:
        raise ApiError(422, "unknown_game", str(err)) from None
    try:
        return game.parse_options(options).model_dump(mode="json")
    except ValueError as err:
        raise ApiError(422, "bad_options", str(err)) from None


@router.put(
    "/groups/{code}/rules/{game}",
    response_model=SavedRules,
    summary="Save the group's options for a game: its next tables of that game start with them",
    responses=error_response_doc(401, 404, 422, 503),
)
async def put_rules(
    code: str, game: str, body: Rules, request: Request, caller: Caller = Depends(current_player)
) -> dict:
    await member_role(request, code, caller)
    options = parsed_options(game, body.options)
    webhooks: Webhooks | None = getattr(request.app.state, "webhooks", None)

    def save(session: Session) -> tuple[int, int] | None:
        changes = groups.save_rules(session, code, game, options, caller.id, defaults(game))
        if not changes or webhooks is None:
            return None
        # The group's chat hears who changed what, stored with the change itself.
        said = (f"{option_said(game, c['key']).label}: {value_words(game, c['key'], c['value'])}" for c in changes)
        return webhooks.announce(session, RulesChanged(code, game, caller.name, tuple(said)), code)

    queued = await _in_session(request, save)
    if queued is not None and webhooks is not None:
        webhooks.announced(None, code, queued)
    return {"game": game, "options": options}


def defaults(game_name: str) -> dict[str, Any]:
    """A game's options as a table that changes nothing plays them (what a first change of a
    group's rules is told against)."""
    return get_game(game_name).parse_options({}).model_dump(mode="json")


def _season_arg(season: str | None) -> int | str | None:
    if season is None or season == "":
        return groups.CURRENT_SEASON
    if season == "all":
        return None
    if season.isdigit() and 0 < int(season) < 1_000_000:
        return int(season)
    raise ApiError(422, "bad_season", "season is a season's number or 'all'.")


@router.get(
    "/groups/{code}/standings",
    summary="The ledger of one game: standings, head-to-head and partner pairs",
    responses=error_response_doc(401, 404, 422, 503),
)
async def standings(
    code: str,
    request: Request,
    caller: Caller = Depends(current_player),
    game: str = Query(..., description="A game id.", json_schema_extra={"enum": sorted(game_names())}),
    season: str | None = Query(
        None, max_length=10, description="A season's number, or 'all' (default: the current one)."
    ),
) -> dict:
    await member_role(request, code, caller)
    if game not in game_names():
        raise ApiError(422, "unknown_game", f"There is no game {game[:40]!r}.")

    wanted = _season_arg(season)
    sums = await _in_session(request, lambda s: groups.ledger_sums(s, code, game, wanted))
    number = sums["season"]
    table = ledger.standings_of_totals(game, sums["persons"], sums["meetings"], sums["members"])
    return {"game": game, "season": "all" if number is None else number, **table}


@router.post(
    "/groups/{code}/seasons",
    response_model=SeasonOut,
    summary="Owner only: close the current season (its table is frozen) and start the next",
    responses=error_response_doc(401, 403, 404, 422, 503),
)
async def new_season(code: str, body: CloseSeason, request: Request, caller: Caller = Depends(current_player)) -> dict:
    await member_role(request, code, caller, owner=True)
    started = await _in_session(request, lambda s: groups.close_season(s, code, body.season))
    if started is None:
        raise ApiError(422, "bad_season", f"The group has no season {body.season}.")
    return started


@router.get(
    "/groups/{code}/matches",
    summary="The group's latest finished matches, newest first",
    responses=error_response_doc(401, 404, 503),
)
async def recent_matches(
    code: str,
    request: Request,
    caller: Caller = Depends(current_player),
    limit: int = Query(10, ge=1, le=50),
) -> dict:
    await member_role(request, code, caller)
    found = await _in_session(request, lambda s: store.match_summaries(s, groups.recent_match_ids(s, code, limit)))
    return {"matches": found}


# ---- what room creation and "Your tables" ask of groups ------------------------------------


async def group_table_options(request: Request, code: str, caller: Caller, game: str, options: dict) -> dict:
    """The options of a new table of group ``code``: the group's saved ones for ``game``, with
    what the caller chose on top. 404 unless the caller is a member."""
    await member_role(request, code, caller)
    saved = await _in_session(request, lambda s: groups.rules_of(s, code).get(game, {}))
    return {**saved, **options}


async def link_group_table(
    request: Request,
    code: str,
    opened: TableOpened,
    options: dict | None,
    by: str | None = None,
    table_options: dict | None = None,
) -> None:
    """Make the table just ``opened`` a table of group ``code``; with ``options``, they become
    the group's defaults for its game (the options a group last used), changed by ``by``, its
    host, and ``table_options`` (its ``watchers`` and ``watch_delay``) are remembered beside
    them. Its opening is queued for the group's chat in the same transaction: once this
    returns, the message is stored too."""
    webhooks: Webhooks | None = getattr(request.app.state, "webhooks", None)

    def link(session: Session) -> tuple[int, int] | None:
        new = groups.link_table(session, code, opened.table, opened.game)
        if options is not None:
            groups.save_rules(session, code, opened.game, options, by, defaults(opened.game))
            if table_options is not None:
                groups.save_table_options(session, code, opened.game, table_options)
        return webhooks.announce(session, opened, code) if new and webhooks is not None else None

    queued = await _in_session(request, link)
    if webhooks is not None:
        webhooks.announced(opened.table, code, queued)


async def group_table_choices(request: Request, code: str, game: str) -> dict:
    """What the group's last table of ``game`` chose beyond the game's options (``watchers``,
    ``watch_delay``; {} before any); the caller's membership is checked by ``group_table_options``."""
    return await _in_session(request, lambda s: groups.table_options_of(s, code, game))


async def group_of_table(request: Request, table_code: str) -> str | None:
    return await _in_session(request, lambda s: groups.group_of_table(s, table_code))


async def group_tables_of(request: Request, player_id: str) -> list[dict]:
    """The open tables of every group ``player_id`` belongs to (for "Your tables")."""
    return await _in_session(request, lambda s: groups.tables_of_member(s, player_id))


# ---- export: nothing is locked in ----------------------------------------------------------

EXPORT_CHUNK = 100  # match records read per database call while the export streams
CSV_COLUMNS = ("player_id", "name", "matches", "wins", "win_share", "average_place", "points", "points_against")


@router.get(
    "/groups/{code}/standings.csv",
    summary="The standings of one game and season as CSV",
    responses={200: {"content": {"text/csv": {}}}, **error_response_doc(401, 404, 422, 503)},
)
async def standings_csv(
    code: str,
    request: Request,
    caller: Caller = Depends(current_player),
    game: str = Query(..., description="A game id."),
    season: str | None = Query(None, max_length=10, description="A season's number, or 'all'."),
) -> Response:
    table = await standings(code, request, caller, game, season)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in table["rows"]:
        writer.writerow([_csv_cell(row[c]) for c in CSV_COLUMNS])
    name = f"felt-{code}-{game}-season-{table['season']}.csv"
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{name}"'},
    )


def _csv_cell(value: Any) -> Any:
    """A spreadsheet never runs a name as a formula: a leading =, +, - or @ is quoted away."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@"):
        return "'" + value
    return value


@router.get(
    "/groups/{code}/export.json",
    summary="Every match of the group as its whole stored record, oldest first",
    responses=error_response_doc(401, 404, 503),
)
async def export_json(code: str, request: Request, caller: Caller = Depends(current_player)) -> StreamingResponse:
    """Streamed ``EXPORT_CHUNK`` records at a time, each chunk one database call within the
    usual deadline, however many matches the group has."""
    await member_role(request, code, caller)
    name, ids = await _in_session(request, lambda s: (groups.name_of(s, code), groups.all_match_ids(s, code)))

    async def body() -> AsyncIterator[bytes]:
        yield b'{"group":' + orjson.dumps({"code": code, "name": name}) + b',"matches":['
        first = True
        for start in range(0, len(ids), EXPORT_CHUNK):
            chunk = ids[start : start + EXPORT_CHUNK]

            def read(session: Session, chunk: list[str] = chunk) -> list[dict[str, Any] | None]:
                return [store.get_match(session, m, viewer=store.ANYONE) for m in chunk]

            records = await _in_session(request, read)
            for record in records:
                if record is not None:
                    yield (b"" if first else b",") + orjson.dumps(record)
                    first = False
        yield b"]}"

    return StreamingResponse(
        body(),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="felt-{code}-matches.json"'},
    )


# ---- the night's recap ---------------------------------------------------------------------


async def _night(request: Request, code: str) -> tuple[dict, str]:
    """The group's night recap and the group's name (membership checked by the caller)."""

    members, matches, name = await _in_session(request, lambda s: groups.night_of(s, code, recap.NIGHT_GAP))
    return recap.recap(matches, members), name


@router.get(
    "/groups/{code}/recap",
    summary="The group's last night: who won what, best hand, biggest comeback, nets",
    responses=error_response_doc(401, 404, 503),
)
async def night_recap(code: str, request: Request, caller: Caller = Depends(current_player)) -> dict:
    await member_role(request, code, caller)
    night, name = await _night(request, code)
    return {**night, "text": recap.recap_text(name, night, recap.titles())}


@router.get(
    "/groups/{code}/recap.png",
    summary="The group's last night as an image to share",
    responses={200: {"content": {"image/png": {}}}, **error_response_doc(401, 404, 429, 503)},
)
async def night_recap_png(code: str, request: Request, caller: Caller = Depends(current_player)) -> Response:
    """Drawn in a worker process once per night's version and kept (server/edges/api/recap_images.py)."""
    spend_player(request, RECAP_IMAGES, caller, "recap images")
    await member_role(request, code, caller)
    version = await _in_session(request, lambda s: groups.night_version(s, code))

    async def draw() -> bytes:
        night, name = await _night(request, code)
        painters: RecapPainters = request.app.state.recap_painters
        return await painters.draw(name, night, recap.titles())

    png = await request.app.state.recap_images.body(f"{code}:{version}", draw)
    return Response(
        png, media_type="image/png", headers={"Content-Disposition": f'inline; filename="felt-{code}-night.png"'}
    )


# ---- rotate partners at "Play again" -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _FollowSeat:
    index: int
    player_id: str | None
    bot: bool = False
    level: str | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class _Joining:
    joining: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RotatedFollow:
    """What room creation reads of the table it follows (its seats, its bots and who asked to
    join the next game), with partners rotated: the bots take the seats no player has, and
    each player's seat is kept for them ``hold_s`` (the reconnect grace) while their page
    brings them over."""

    seats: list[_FollowSeat]
    table: _Joining
    hold_s: float


def _seating(seats: Any, count: int) -> list[str | None]:
    out: list[str | None] = [None] * count
    for s in seats:
        if 0 <= s.index < count and not getattr(s, "bot", False):
            out[s.index] = s.player_id
    return out


async def rotated_follow(request: Request, previous: Any, group: str | None) -> Any:
    """The seating a "Play again" table takes with partners rotated: the pairs that have
    partnered least tonight at the group's tables (or, outside a group, new partners)."""
    if len(previous.seats) != 4 or previous.game.teams(4) is None:
        return previous
    last = _seating(previous.seats, 4)
    done = getattr(previous.match, "id", None)
    night: list[list[str | None]] = []
    if group is not None:
        matches = await _in_session(request, lambda s: groups.night_matches(s, group, recap.NIGHT_GAP))
        night = [
            [None if seat["bot"] else seat["player_id"] for seat in m["seats"]]
            for m in matches
            if len(m["seats"]) == 4 and get_game(m["game"]).teams(4) is not None and m["id"] != done
        ]
    seating = partners.rotated(last, partners.together([*night, last]))
    levels = [s.level or "easy" for s in previous.seats if s.bot]
    names = {s.player_id: s.name for s in previous.seats if s.player_id}
    seats = []
    for i, pid in enumerate(seating):
        bot = pid is None and bool(levels)
        seats.append(_FollowSeat(i, pid, bot, levels.pop(0) if bot else None, names.get(pid)))
    hold_s = request.app.state.rooms.settings.reconnect_grace_s
    return RotatedFollow(seats, _Joining(tuple(previous.table.joining)), hold_s)
