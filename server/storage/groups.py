"""Groups in the database: members, invites, house rules, seasons, tables and their matches.

Plain functions that take the session and return plain values, as ``store``. Whether the
caller may see a group is the edge's question (``role_of``); nothing here knows HTTP.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Collection, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.orm import Session

from server.storage.db import insert_of
from server.storage.models import (
    Group,
    GroupLedgerLine,
    GroupLedgerMeeting,
    GroupMatch,
    GroupMember,
    GroupRules,
    GroupSeason,
    GroupTable,
    GroupWebhook,
    Hand,
    MatchSeat,
    Player,
    Table,
    TablePlayer,
)

OWNER, MEMBER = "owner", "member"
CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no look-alikes: it is read aloud and typed
CODE_LENGTH = 10
OPEN_STATUSES = ("waiting", "playing", "parked")


def _now() -> datetime:
    return datetime.now(UTC)


def new_group_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def is_group_code(code: object) -> bool:
    return isinstance(code, str) and len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code)


def new_invite() -> str:
    return secrets.token_urlsafe(18)


# ---- groups and members ------------------------------------------------------------------


def create_group(session: Session, owner_id: str, name: str) -> dict[str, Any]:
    """A new group owned by ``owner_id`` (its first member), with season 1 open."""
    code = new_group_code()
    while session.get(Group, code) is not None:
        code = new_group_code()
    now = _now()
    group = Group(code=code, name=name, owner_id=owner_id, invite=new_invite(), created_at=now)
    session.add(group)
    session.flush()
    session.add(GroupMember(group_code=code, player_id=owner_id, role=OWNER, joined_at=now))
    session.add(GroupSeason(group_code=code, number=1, started_at=now, closed_at=None))
    session.flush()
    return {"code": code, "name": name, "invite": group.invite}


def groups_owned(session: Session, player_id: str) -> int:
    return session.scalar(sa.select(sa.func.count()).select_from(Group).where(Group.owner_id == player_id)) or 0


def role_of(session: Session, code: str, player_id: str) -> str | None:
    """``owner`` or ``member`` when ``player_id`` belongs to group ``code``, else None."""
    if not is_group_code(code):
        return None
    return session.scalar(
        sa.select(GroupMember.role).where(GroupMember.group_code == code, GroupMember.player_id == player_id)
    )


def groups_of(session: Session, player_id: str) -> list[dict[str, Any]]:
    """The groups ``player_id`` belongs to, oldest membership first."""
    query = (
        sa.select(Group.code, Group.name, GroupMember.role)
        .join(GroupMember, GroupMember.group_code == Group.code)
        .where(GroupMember.player_id == player_id)
        .order_by(GroupMember.joined_at, Group.code)
    )
    return [{"code": c, "name": n, "role": r} for c, n, r in session.execute(query)]


def members_of(session: Session, code: str) -> list[dict[str, Any]]:
    """A group's members (owner first, then by when they joined) with their current names."""
    query = (
        sa.select(GroupMember.player_id, Player.name, GroupMember.role)
        .join(Player, Player.id == GroupMember.player_id, isouter=True)
        .where(GroupMember.group_code == code)
        .order_by((GroupMember.role == OWNER).desc(), GroupMember.joined_at, GroupMember.player_id)
    )
    return [{"player_id": p, "name": n or "?", "role": r} for p, n, r in session.execute(query)]


def group_row(session: Session, code: str) -> Group | None:
    return session.get(Group, code) if is_group_code(code) else None


def name_of(session: Session, code: str) -> str:
    """The name of group ``code``, which exists (its membership was checked)."""
    return session.get_one(Group, code).name


def invite_of(session: Session, code: str) -> str:
    """The invite of group ``code``, which exists (its ownership was checked)."""
    return session.get_one(Group, code).invite


def group_page(session: Session, code: str, player_id: str) -> dict[str, Any] | None:
    """Group ``code`` as member ``player_id`` sees it: its name, the member's role, members,
    house rules and their changes, table choices, open tables (``you_sit`` at each), season and
    seasons; None when there is no such group or ``player_id`` is not in it."""
    group = group_row(session, code)
    role = role_of(session, code, player_id)
    if group is None or role is None:
        return None
    tables = open_tables(session, [code])
    mine = seated_at(session, player_id, [t["code"] for t in tables])
    return {
        "name": group.name,
        "role": role,
        "members": members_of(session, code),
        "rules": rules_of(session, code),
        "rules_changes": rules_changes_of(session, code),
        "table_rules": table_options_by_game(session, code),
        "tables": [{**t, "you_sit": t["code"] in mine} for t in tables],
        "season": current_season(session, code),
        "seasons": season_numbers(session, code),
    }


def invitation(session: Session, code: str, invite: str) -> dict[str, str] | None:
    """What an invite link says before anyone joins: the group's name and who invites (its
    owner, by their current name); None for a wrong or rotated invite, or no such group."""
    group = group_row(session, code)
    if group is None or not isinstance(invite, str) or not secrets.compare_digest(invite, group.invite):
        return None
    owner = session.scalar(sa.select(Player.name).where(Player.id == group.owner_id))
    return {"group": group.name, "owner": owner or "?"}


def join_group(session: Session, code: str, invite: str, player_id: str) -> bool:
    """Make ``player_id`` a member when ``invite`` is the group's current secret (joining twice
    changes nothing). False for a wrong or rotated invite, or no such group."""
    group = group_row(session, code)
    # compare_digest takes str of ASCII only: any other invite is compared as UTF-8 bytes.
    if group is None or not isinstance(invite, str) or not secrets.compare_digest(_utf8(invite), _utf8(group.invite)):
        return False
    if role_of(session, code, player_id) is None:
        session.add(GroupMember(group_code=code, player_id=player_id, role=MEMBER, joined_at=_now()))
        session.flush()
    return True


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def rotate_invite(session: Session, code: str) -> str:
    """A new invite secret for the group; the old link no longer lets anyone in."""
    group = session.get_one(Group, code)
    group.invite = new_invite()
    session.flush()
    return group.invite


def remove_member(session: Session, code: str, player_id: str) -> bool:
    """Remove a member (never the owner). Their matches stay; they are simply no longer ranked."""
    deleted: sa.CursorResult = session.execute(  # type: ignore[assignment]
        sa.delete(GroupMember).where(
            GroupMember.group_code == code, GroupMember.player_id == player_id, GroupMember.role != OWNER
        )
    )
    return deleted.rowcount > 0


# ---- house rules ---------------------------------------------------------------------------


def rules_of(session: Session, code: str) -> dict[str, dict[str, Any]]:
    """The group's saved options, per game."""
    rows = session.execute(sa.select(GroupRules.game, GroupRules.options).where(GroupRules.group_code == code))
    return {game: dict(options) for game, options in rows}


def save_rules(
    session: Session,
    code: str,
    game: str,
    options: dict[str, Any],
    by: str | None = None,
    defaults: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Save (or replace) the group's options for ``game``, changed by player ``by``. Answers
    the change, ``[{"key", "value", "before"}]`` for each option whose value it changed (from
    the saved rules, or from the game's ``defaults`` when none are saved yet), which is kept
    with who made it when it changed anything. One statement writes it, so that two tables of
    the game opened at once both save theirs (the later one is kept)."""
    saved_before = session.execute(
        sa.select(GroupRules.options).where(GroupRules.group_code == code, GroupRules.game == game)
    ).scalar_one_or_none()
    before = dict(saved_before) if saved_before is not None else dict(defaults or {})
    changes = [
        {"key": key, "value": value, "before": before.get(key)}
        for key, value in options.items()
        if key not in before or before[key] != value
    ]
    if saved_before is not None and not changes:
        return changes  # the same rules saved again change nothing, not even when
    saved: dict[str, Any] = {"options": dict(options), "updated_at": _now()}
    if changes and by is not None:
        saved |= {"changed_by": by, "changes": changes}
    insert = insert_of(session.connection())(GroupRules.__table__).values(group_code=code, game=game, **saved)
    session.execute(insert.on_conflict_do_update(index_elements=["group_code", "game"], set_=saved))
    return changes


def table_options_of(session: Session, code: str, game: str) -> dict[str, Any]:
    """What the group's tables of ``game`` last chose beyond the game's options ({} if nothing)."""
    saved = session.execute(
        sa.select(GroupRules.table_options).where(GroupRules.group_code == code, GroupRules.game == game)
    ).scalar_one_or_none()
    return dict(saved or {})


def table_options_by_game(session: Session, code: str) -> dict[str, dict[str, Any]]:
    """``table_options_of`` for every game whose tables chose them."""
    rows = session.execute(
        sa.select(GroupRules.game, GroupRules.table_options).where(
            GroupRules.group_code == code, GroupRules.table_options.is_not(None)
        )
    )
    return {game: dict(chosen) for game, chosen in rows if chosen}


def save_table_options(session: Session, code: str, game: str, chosen: dict[str, Any]) -> None:
    """Remember what a table of ``game`` chose beyond the game's options (its rules row is
    saved first: ``save_rules``)."""
    session.execute(
        sa.update(GroupRules)
        .where(GroupRules.group_code == code, GroupRules.game == game)
        .values(table_options=dict(chosen))
    )


def rules_changes_of(session: Session, code: str) -> dict[str, dict[str, Any]]:
    """The last change of the group's rules per game that someone made: ``{"by", "name", "at",
    "changes"}`` (``name``: the player's name now)."""
    rows = session.execute(
        sa.select(GroupRules.game, GroupRules.changed_by, Player.name, GroupRules.updated_at, GroupRules.changes)
        .join(Player, Player.id == GroupRules.changed_by, isouter=True)
        .where(GroupRules.group_code == code, GroupRules.changed_by.is_not(None))
    )
    return {
        game: {"by": by, "name": name or "?", "at": at, "changes": list(changes or [])}
        for game, by, name, at, changes in rows
    }


# ---- seasons -------------------------------------------------------------------------------


def current_season(session: Session, code: str) -> dict[str, Any]:
    """The group's open season: ``{"number", "started_at"}``."""
    row = session.scalar(
        sa.select(GroupSeason)
        .where(GroupSeason.group_code == code, GroupSeason.closed_at.is_(None))
        .order_by(GroupSeason.number.desc())
        .limit(1)
    )
    if row is None:  # every group has one open season from its creation on
        raise LookupError(f"group {code} has no open season")
    return {"number": row.number, "started_at": row.started_at}


def close_season(session: Session, code: str, number: int | None = None) -> dict[str, Any] | None:
    """Close season ``number`` (None: the open one; its table is frozen from now on) and open
    the next: the season that follows it. Closing a season already closed changes nothing and
    answers the same, so a close of one season sent twice, or by two people at once, closes
    it once (only the update that finds it still open opens the next). None: the group has
    no season ``number``."""
    if number is None:
        number = current_season(session, code)["number"]
    now = _now()
    closed: sa.CursorResult = session.execute(  # type: ignore[assignment]
        sa.update(GroupSeason)
        .where(GroupSeason.group_code == code, GroupSeason.number == number, GroupSeason.closed_at.is_(None))
        .values(closed_at=now)
    )
    if closed.rowcount == 1:
        session.add(GroupSeason(group_code=code, number=number + 1, started_at=now, closed_at=None))
        session.flush()
        return {"number": number + 1, "started_at": now}
    following = session.execute(
        sa.select(GroupSeason.number, GroupSeason.started_at).where(
            GroupSeason.group_code == code, GroupSeason.number == number + 1
        )
    ).first()
    return None if following is None else {"number": following.number, "started_at": following.started_at}


def season_numbers(session: Session, code: str) -> list[int]:
    return list(
        session.scalars(
            sa.select(GroupSeason.number).where(GroupSeason.group_code == code).order_by(GroupSeason.number)
        )
    )


# ---- tables --------------------------------------------------------------------------------


def link_table(session: Session, code: str, table_code: str, game: str) -> bool:
    """Record that table ``table_code`` was opened for group ``code``; False if it was already."""
    if session.get(GroupTable, table_code) is not None:
        return False
    session.add(GroupTable(code=table_code, group_code=code, game=game, created_at=_now()))
    session.flush()
    return True


def group_of_table(session: Session, table_code: str | None) -> str | None:
    if not table_code:
        return None
    return session.scalar(sa.select(GroupTable.group_code).where(GroupTable.code == table_code))


def open_tables(session: Session, codes: list[str], limit: int = 50) -> list[dict[str, Any]]:
    """The unfinished tables (waiting, playing, parked) of the groups ``codes``, newest first."""
    if not codes:
        return []
    query = (
        sa.select(Table, GroupTable.group_code)
        .join(GroupTable, GroupTable.code == Table.code)
        .where(GroupTable.group_code.in_(codes), Table.status.in_(OPEN_STATUSES))
        .order_by(Table.updated_at.desc())
        .limit(limit)
    )
    return [
        {
            "code": t.code,
            "game": t.game,
            "status": t.status,
            "private": t.private,
            "host_id": t.host_id,
            "updated_at": t.updated_at,
            "group": group_code,
        }
        for t, group_code in session.execute(query)
    ]


def tables_open_to(session: Session, player_id: str, codes: Collection[str]) -> set[str]:
    """Which of the tables ``codes`` a group's page may link for ``player_id``: public ones,
    the tables of any group of theirs, and those they have a seat at. A private table's code
    is its key, so no one else is shown it."""
    if not codes:
        return set()
    public = sa.select(Table.code).where(Table.code.in_(codes), Table.private.is_(False))
    of_their_groups = (
        sa.select(GroupTable.code)
        .join(GroupMember, GroupMember.group_code == GroupTable.group_code)
        .where(GroupTable.code.in_(codes), GroupMember.player_id == player_id)
    )
    theirs = sa.select(TablePlayer.code).where(TablePlayer.code.in_(codes), TablePlayer.player_id == player_id)
    return set(session.scalars(sa.union(public, of_their_groups, theirs)))


def seated_at(session: Session, player_id: str, codes: list[str]) -> set[str]:
    """Which of the tables ``codes`` ``player_id`` has a seat at (one they left in play too:
    theirs to take back)."""
    if not codes:
        return set()
    query = sa.select(TablePlayer.code).where(TablePlayer.player_id == player_id, TablePlayer.code.in_(codes))
    return set(session.scalars(query))


def member_group_codes(session: Session, player_id: str) -> list[str]:
    return list(session.scalars(sa.select(GroupMember.group_code).where(GroupMember.player_id == player_id)))


def tables_of_member(session: Session, player_id: str) -> list[dict[str, Any]]:
    """The open tables of every group ``player_id`` belongs to (see ``open_tables``)."""
    return open_tables(session, member_group_codes(session, player_id))


# ---- matches -------------------------------------------------------------------------------


def link_match(
    session: Session,
    match_id: str,
    room_code: str | None,
    game: str,
    finished_at: datetime,
    rows: Mapping[str, Any] | None,
    people: Collection[str],
) -> None:
    """Count a match stored from a group's table in that group's open season (called when the
    match is stored, so a late record counts in the season open when it arrives), with its
    ledger ``rows`` as its record brings them (``{"lines", "meetings"}``, made by the groups
    layer): those of the ``people`` whose seats the match links, as its seats keep them."""
    code = group_of_table(session, room_code)
    if code is None:
        return
    season = current_season(session, code)["number"]
    session.add(GroupMatch(match_id=match_id, group_code=code, game=game, season=season, finished_at=finished_at))
    session.flush()
    rows = rows or {}
    base = {"match_id": match_id, "group_code": code, "game": game, "season": season}
    lines = [{**base, **line} for line in rows.get("lines") or () if line["player_id"] in people]
    if lines:
        session.connection().execute(GroupLedgerLine.__table__.insert(), lines)
    meetings = [{**base, **m} for m in rows.get("meetings") or () if m["a"] in people and m["b"] in people]
    if meetings:
        session.connection().execute(GroupLedgerMeeting.__table__.insert(), meetings)


def ledger_totals(
    session: Session, code: str, game: str, season: int | None
) -> tuple[list[tuple[str, int, int, int, float, int]], list[tuple[str, str, bool, tuple[int, ...]]]]:
    """The sums of ``game``'s stored ledger lines in the group's ``season`` (None: all
    seasons), added up by the database: per person ``(player_id, matches, wins, points,
    against, places)``, per two people ``(a, b, together, (matches, a_higher, b_higher, won,
    bids, bids_made))``. The groups layer shapes them (``ledger.standings_of_totals``)."""
    line, meet = GroupLedgerLine, GroupLedgerMeeting
    conn = session.connection()
    per_person = sa.select(
        line.player_id,
        sa.func.count(),
        sa.func.sum(line.won),
        sa.func.sum(line.points),
        sa.func.sum(line.against),
        sa.func.sum(line.place),
    ).where(line.group_code == code, line.game == game)
    if season is not None:
        per_person = per_person.where(line.season == season)
    persons = [
        (player_id, int(matches), int(wins), int(points), float(against), int(places))
        for player_id, matches, wins, points, against, places in conn.execute(per_person.group_by(line.player_id))
    ]
    sums = (meet.a_higher, meet.b_higher, meet.won, meet.bids, meet.bids_made)
    per_two = sa.select(meet.a, meet.b, meet.together, sa.func.count(), *map(sa.func.sum, sums)).where(
        meet.group_code == code, meet.game == game
    )
    if season is not None:
        per_two = per_two.where(meet.season == season)
    meetings = [
        (a, b, bool(together), tuple(int(c) for c in counts))
        for a, b, together, *counts in conn.execute(per_two.group_by(meet.a, meet.b, meet.together))
    ]
    return persons, meetings


CURRENT_SEASON = "current"


def ledger_sums(session: Session, code: str, game: str, season: int | str | None) -> dict[str, Any]:
    """What the standings of ``game`` in the group's ``season`` are made of: ``{"season",
    "members", "persons", "meetings"}`` (see ``ledger_totals``); ``season`` is a number, None
    for all seasons, or ``CURRENT_SEASON`` (the one open now, whose number is answered)."""
    number = current_season(session, code)["number"] if season == CURRENT_SEASON else season
    members = {m["player_id"]: m["name"] for m in members_of(session, code)}
    persons, meetings = ledger_totals(session, code, game, number if isinstance(number, int) else None)
    return {"season": number, "members": members, "persons": persons, "meetings": meetings}


def ledger_matches(
    session: Session, code: str, game: str, season: int | None, only: Collection[str] | None = None
) -> list[dict[str, Any]]:
    """Every match of ``game`` in the group's ``season`` (None: all seasons), or only those of
    them whose ids are in ``only``, with its seats:
    ``{"id", "season", "seats": [{"seat", "player_id", "name", "bot", "score", "winner"}], "hands"}``
    (``hands``: what the partnership games' pairs count their bids made from)."""
    query = (
        sa.select(
            GroupMatch.match_id,
            GroupMatch.season,
            MatchSeat.seat,
            MatchSeat.player_id,
            MatchSeat.name,
            MatchSeat.bot,
            MatchSeat.score,
            MatchSeat.winner,
        )
        .join(MatchSeat, MatchSeat.match_id == GroupMatch.match_id)
        .where(GroupMatch.group_code == code, GroupMatch.game == game)
        .order_by(GroupMatch.match_id, MatchSeat.seat)
    )
    if season is not None:
        query = query.where(GroupMatch.season == season)
    if only is not None:
        query = query.where(GroupMatch.match_id.in_(list(only)))
    matches: dict[str, dict[str, Any]] = {}
    for match_id, number, seat, player_id, name, bot, score, winner in session.connection().execute(query):
        match = matches.setdefault(match_id, {"id": match_id, "season": number, "seats": [], "hands": []})
        match["seats"].append(
            {"seat": seat, "player_id": player_id, "name": name, "bot": bot, "score": score, "winner": winner}
        )
    _add_hands(session, code, game, season, matches, only)
    return list(matches.values())


def _add_hands(
    session: Session,
    code: str,
    game: str,
    season: int | None,
    matches: dict[str, dict[str, Any]],
    only: Collection[str] | None,
) -> None:
    """Each match's hands as stored (``{"scores", **extra}``: who declared, what it scored),
    for the partner pairs' bids made."""
    query = (
        sa.select(Hand.match_id, Hand.scores, Hand.extra)
        .join(GroupMatch, GroupMatch.match_id == Hand.match_id)
        .where(GroupMatch.group_code == code, GroupMatch.game == game)
        .order_by(Hand.match_id, Hand.index)
    )
    if season is not None:
        query = query.where(GroupMatch.season == season)
    if only is not None:
        query = query.where(GroupMatch.match_id.in_(list(only)))
    for match_id, scores, extra in session.connection().execute(query):
        if match_id in matches:
            matches[match_id]["hands"].append({**(extra or {}), "scores": scores})


def recent_match_ids(session: Session, code: str, limit: int = 10) -> list[str]:
    """The group's latest finished matches, newest first."""
    query = (
        sa.select(GroupMatch.match_id)
        .where(GroupMatch.group_code == code)
        .order_by(GroupMatch.finished_at.desc(), GroupMatch.match_id.desc())
        .limit(limit)
    )
    return list(session.scalars(query))


def night_of(session: Session, code: str, gap: timedelta) -> tuple[dict[str, str], list[dict[str, Any]], str]:
    """What the night's recap of group ``code`` is made of: its members (id -> name), the
    matches of its last night (``night_matches``) and its name."""
    members = {m["player_id"]: m["name"] for m in members_of(session, code)}
    return members, night_matches(session, code, gap), name_of(session, code)


def all_match_ids(session: Session, code: str) -> list[str]:
    """Every match of the group, oldest first (the export)."""
    query = (
        sa.select(GroupMatch.match_id)
        .where(GroupMatch.group_code == code)
        .order_by(GroupMatch.finished_at, GroupMatch.match_id)
    )
    return list(session.scalars(query))


def night_version(session: Session, code: str) -> str:
    """A short digest of what the group's night recap is drawn from, which changes whenever
    the recap may: the group's name, its members and their names, and its matches (how many,
    and the latest). Cheap: no match is read."""
    name = session.execute(sa.select(Group.name).where(Group.code == code)).scalar()
    members = [(m["player_id"], m["name"]) for m in members_of(session, code)]
    count = session.execute(sa.select(sa.func.count()).where(GroupMatch.group_code == code)).scalar()
    latest = session.execute(
        sa.select(GroupMatch.match_id)
        .where(GroupMatch.group_code == code)
        .order_by(GroupMatch.finished_at.desc(), GroupMatch.match_id.desc())
        .limit(1)
    ).scalar()
    return hashlib.sha256(repr((name, members, count, latest)).encode()).hexdigest()[:24]


def night_matches(session: Session, code: str, gap: timedelta, limit: int = 200) -> list[dict[str, Any]]:
    """The group's last night: its latest matches, newest back to the first one that finished
    more than ``gap`` after the one before it. Oldest first, each with its game, time, seats
    and every hand's scores: ``{"id", "game", "finished_at", "seats", "hands"}``."""
    rows = list(
        session.execute(
            sa.select(GroupMatch.match_id, GroupMatch.game, GroupMatch.finished_at)
            .where(GroupMatch.group_code == code)
            .order_by(GroupMatch.finished_at.desc(), GroupMatch.match_id.desc())
            .limit(limit)
        )
    )
    night = rows[:1]
    for row in rows[1:]:
        if night[-1].finished_at - row.finished_at > gap:
            break
        night.append(row)
    night.reverse()
    ids = [r.match_id for r in night]
    seats: dict[str, list[dict[str, Any]]] = {m: [] for m in ids}
    for match_id, seat, player_id, name, bot, score, winner in session.execute(
        sa.select(
            MatchSeat.match_id,
            MatchSeat.seat,
            MatchSeat.player_id,
            MatchSeat.name,
            MatchSeat.bot,
            MatchSeat.score,
            MatchSeat.winner,
        )
        .where(MatchSeat.match_id.in_(ids))
        .order_by(MatchSeat.match_id, MatchSeat.seat)
    ):
        seats[match_id].append(
            {"seat": seat, "player_id": player_id, "name": name, "bot": bot, "score": score, "winner": winner}
        )
    hands: dict[str, list[list[int]]] = {m: [] for m in ids}
    for match_id, scores in session.execute(
        sa.select(Hand.match_id, Hand.scores).where(Hand.match_id.in_(ids)).order_by(Hand.match_id, Hand.index)
    ):
        hands[match_id].append(list(scores or []))
    return [
        {
            "id": r.match_id,
            "game": r.game,
            "finished_at": r.finished_at,
            "seats": seats[r.match_id],
            "hands": hands[r.match_id],
        }
        for r in night
    ]


def match_group(session: Session, match_id: str) -> str | None:
    return session.scalar(sa.select(GroupMatch.group_code).where(GroupMatch.match_id == match_id))


# ---- the group's webhook -------------------------------------------------------------------


def webhook_of(session: Session, code: str) -> dict[str, Any] | None:
    """The group's webhook with how its last delivery went, and the group's name; None without
    one. ``url`` is a secret: the caller decides who may see it."""
    row = session.execute(
        sa.select(GroupWebhook, Group.name)
        .join(Group, Group.code == GroupWebhook.group_code)
        .where(GroupWebhook.group_code == code)
    ).first()
    if row is None:
        return None
    hook, name = row
    return {
        "group": code,
        "group_name": name,
        "url": hook.url,
        "format": hook.format,
        "updated_at": hook.updated_at,
        "last_ok_at": hook.last_ok_at,
        "last_failed_at": hook.last_failed_at,
        "last_failure": hook.last_failure,
    }


def save_webhook(session: Session, code: str, url: str, format: str) -> None:
    """Set (or replace) the group's webhook; a new URL starts with no delivery behind it."""
    row = session.get(GroupWebhook, code)
    if row is None:
        session.add(GroupWebhook(group_code=code, url=url, format=format, updated_at=_now()))
    else:
        if row.url != url:
            row.last_ok_at = row.last_failed_at = row.last_failure = None
        row.url, row.format, row.updated_at = url, format, _now()
    session.flush()


def delete_webhook(session: Session, code: str) -> bool:
    deleted: sa.CursorResult = session.execute(  # type: ignore[assignment]
        sa.delete(GroupWebhook).where(GroupWebhook.group_code == code)
    )
    return deleted.rowcount > 0


def record_delivery(session: Session, code: str, url: str, failure: str | None) -> None:
    """How a delivery to ``url`` went (``failure`` None: delivered); nothing when the group's
    webhook has changed since (the outcome belongs to the old URL)."""
    values: dict[str, Any] = (
        {"last_ok_at": _now()} if failure is None else {"last_failed_at": _now(), "last_failure": failure[:64]}
    )
    session.execute(
        sa.update(GroupWebhook).where(GroupWebhook.group_code == code, GroupWebhook.url == url).values(**values)
    )
