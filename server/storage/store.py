"""Data access: plain functions that take the session explicitly and return plain dicts.

Nothing here knows HTTP; the routers turn ``ValueError`` subclasses into error answers.
"""

from __future__ import annotations

import base64
import binascii
import re
import secrets
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

import orjson
import sqlalchemy as sa
from sqlalchemy.orm import Session

from server.names import NAME_MAX, InvalidName, clean_name  # noqa: F401 (the store's API)
from server.storage import devices, groups
from server.storage.models import ID_LENGTH, Action, Hand, Match, MatchSeat, Player

if TYPE_CHECKING:
    import psycopg

# Opaque ids: what we mint (hex, urlsafe tokens) and what the rooms mint; anything else is 404.
_ID_RE = re.compile(rf"[A-Za-z0-9_-]{{1,{ID_LENGTH}}}")


class InvalidCursor(ValueError):
    """A ``before`` cursor that this server did not hand out."""


class InvalidRecord(ValueError):
    """A match record missing what storage needs."""


def is_valid_id(value: object) -> bool:
    """True for a string that could be one of our ids (anything else cannot exist)."""
    return isinstance(value, str) and _ID_RE.fullmatch(value) is not None


def hash_token(token: str) -> str:
    """The SHA-256 hex of a bearer token: all the database ever holds."""
    return devices.hash_secret(token)


def now_utc() -> datetime:
    return datetime.now(UTC)


# ---- players ---------------------------------------------------------------------------


def create_player(session: Session, name: str, device_label: str = "") -> tuple[Player, str]:
    """A new guest player and the token of its first device (plaintext, shown once; only its
    hash is stored)."""
    name = clean_name(name)
    now = now_utc()
    player = Player(id=secrets.token_hex(8), name=name, created_at=now)
    session.add(player)
    session.flush()
    _, token = devices.add_device(session, player.id, device_label, now)
    return player, token


def player_by_token(session: Session, token: str) -> Player | None:
    """The player holding ``token`` on a device that is not revoked, or None."""
    found = devices.by_token(session, token)
    return found[0] if found else None


def player_by_id(session: Session, player_id: str) -> Player | None:
    """The player with this id, or None (malformed ids included)."""
    if not is_valid_id(player_id):
        return None
    return session.get(Player, player_id)


# ---- matches ---------------------------------------------------------------------------


def _as_utc(value: Any, key: str) -> datetime:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise InvalidRecord(f"match record '{key}' is not an ISO 8601 time: {value!r}") from None
    if not isinstance(value, datetime):
        raise InvalidRecord(f"match record '{key}' must be a datetime, not {type(value).__name__}")
    if value.tzinfo is None:  # the rooms send UTC; a naive value is taken to be UTC
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _require(record: Mapping[str, Any], key: str) -> Any:
    try:
        return record[key]
    except KeyError:
        raise InvalidRecord(f"match record has no '{key}'") from None


_HAND_COLUMNS = frozenset({"dealer", "deal", "scores"})


def dumps_json(value: Any) -> str | None:
    """JSON text for a JSON column (SQL NULL for None, as the JSON type itself stores it)."""
    if value is None:
        return None
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def _insert_many(conn: sa.Connection, table: sa.Table, columns: tuple[str, ...], rows: list[tuple]) -> None:
    """One driver-level executemany for many rows whose JSON is already text.

    A match's action log is hundreds of rows; going around SQLAlchemy's per-row parameter
    processing makes writing a match several times faster on both backends.
    """
    mark = {"qmark": "?", "format": "%s", "pyformat": "%s"}.get(conn.dialect.paramstyle)
    if mark is None:  # a driver with another style: let SQLAlchemy do it
        json_cols = {c.name for c in table.columns if isinstance(c.type, sa.JSON)}
        conn.execute(
            table.insert(),
            [
                {
                    c: (orjson.loads(v) if c in json_cols and v is not None else v)
                    for c, v in zip(columns, row, strict=True)
                }
                for row in rows
            ],
        )
        return
    quote = conn.dialect.identifier_preparer.quote
    if conn.dialect.name == "postgresql" and conn.dialect.driver == "psycopg":
        # COPY is PostgreSQL's bulk path: one statement, rows streamed, same transaction.
        raw = cast("psycopg.Connection[Any]", conn.connection.dbapi_connection)  # only psycopg gets here
        with (
            raw.cursor() as cursor,
            cursor.copy(f"COPY {quote(table.name)} ({', '.join(quote(c) for c in columns)}) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)
        return
    sql = (
        f"INSERT INTO {quote(table.name)} ({', '.join(quote(c) for c in columns)}) "
        f"VALUES ({', '.join([mark] * len(columns))})"
    )
    conn.exec_driver_sql(sql, rows)


def _options(options: Any) -> dict[str, Any]:
    if options is None:
        return {}
    if hasattr(options, "model_dump"):  # a game's parsed options model
        dumped: dict[str, Any] = options.model_dump(mode="json")
        return dumped
    return dict(options)


def save_match(session: Session, record: Mapping[str, Any]) -> str:
    """Store a finished match (match, seats, hands, actions, and the ledger rows its record
    brings when it was played at a group's table) and return its id.

    Saving a match id that is already stored changes nothing: the rooms may submit twice.
    """
    match_id: str = _require(record, "id")
    if not is_valid_id(match_id):
        raise InvalidRecord(f"match id {match_id!r} is not a valid id")
    if session.get(Match, match_id) is not None:
        return match_id
    players = list(_require(record, "players"))
    scores = [int(s) for s in _require(record, "scores")]
    winners = [int(w) for w in _require(record, "winners")]
    if len(scores) != len(players):
        raise InvalidRecord(f"match {match_id}: {len(scores)} scores for {len(players)} players")
    finished_at = _as_utc(_require(record, "finished_at"), "finished_at")
    session.add(_match_row(record, match_id, scores, winners, len(players), finished_at))
    session.flush()  # the parent row first: the children's foreign keys point at it
    # Children go in through Core executemany: the ORM's per-row bookkeeping buys nothing here.
    conn = session.connection()
    seats = _seat_rows(session, match_id, players, scores, winners, finished_at)
    conn.execute(MatchSeat.__table__.insert(), seats)
    _insert_hands_and_actions(conn, match_id, record)
    people = {seat["player_id"] for seat in seats if seat["player_id"] is not None}
    game = str(record["game"])
    groups.link_match(session, match_id, record.get("room_code"), game, finished_at, record.get("ledger"), people)
    return match_id


def _match_row(
    record: Mapping[str, Any], match_id: str, scores: list[int], winners: list[int], players: int, finished_at: datetime
) -> Match:
    return Match(
        id=match_id,
        game=str(_require(record, "game")),
        options=_options(record.get("options")),
        seed=str(_require(record, "seed")),
        commitment=str(_require(record, "commitment")),
        dealer=int(_require(record, "dealer")),
        room_code=record.get("room_code"),
        private=bool(record.get("private", False)),
        scores=scores,
        winners=winners,
        player_count=players,
        started_at=_as_utc(_require(record, "started_at"), "started_at"),
        finished_at=finished_at,
    )


def _seat_rows(
    session: Session, match_id: str, players: list, scores: list[int], winners: list[int], finished_at: datetime
) -> list[dict]:
    """The match's seats; a seat whose player is not (or no longer) known is kept, unlinked,
    rather than refused: a match must never become unwritable because of one missing identity."""
    wanted = {p.get("player_id") for p in players if p.get("player_id")}
    known = set(session.scalars(sa.select(Player.id).where(Player.id.in_(wanted)))) if wanted else set()
    winner_set = set(winners)
    return [
        {
            "match_id": match_id,
            "seat": int(p["seat"]),
            "player_id": p.get("player_id") if p.get("player_id") in known else None,
            "name": str(p.get("name") or f"Seat {p['seat']}"),
            "bot": bool(p.get("bot", False)),
            "bot_level": (p.get("level") or "easy") if p.get("bot") else None,
            "score": scores[int(p["seat"])],
            "winner": int(p["seat"]) in winner_set,
            "finished_at": finished_at,
            "occupants": _occupants(p.get("occupants")),
        }
        for p in players
    ]


def _occupants(given: Any) -> list[dict] | None:
    """A seat's occupants as stored: only when it changed hands, each with its first action."""
    if not isinstance(given, list) or len(given) < 2:
        return None
    keys = ("from", "name", "player_id", "bot", "level")
    return [{k: o.get(k) for k in keys} for o in given if isinstance(o, dict)]


def _insert_hands_and_actions(conn: sa.Connection, match_id: str, record: Mapping[str, Any]) -> None:
    hands = [
        (
            match_id,
            i,
            int(h["dealer"]),
            dumps_json(h.get("deal") or {}),
            dumps_json(h.get("scores")),
            dumps_json({k: v for k, v in h.items() if k not in _HAND_COLUMNS} or None),
        )
        for i, h in enumerate(record.get("hands") or [])
    ]
    if hands:
        _insert_many(conn, Hand.__table__, ("match_id", "index", "dealer", "deal", "scores", "extra"), hands)
    actions = [
        (match_id, i, int(a["seat"]), dumps_json(a["action"])) for i, a in enumerate(record.get("actions") or [])
    ]
    if actions:
        _insert_many(conn, Action.__table__, ("match_id", "seq", "seat", "action"), actions)


def encode_cursor(finished_at: datetime, match_id: str) -> str:
    """An opaque cursor for 'older than this match', stable when timestamps tie."""
    raw = f"{finished_at.astimezone(UTC).isoformat()}|{match_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """The (finished_at, id) inside a cursor, or InvalidCursor."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, _, match_id = raw.partition("|")
        finished_at = datetime.fromisoformat(stamp)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidCursor("The 'before' cursor is not one this server handed out.") from None
    if finished_at.tzinfo is None or not is_valid_id(match_id):
        raise InvalidCursor("The 'before' cursor is not one this server handed out.")
    return finished_at.astimezone(UTC), match_id


def _seats_by_match(session: Session, match_ids: list[str]) -> dict[str, list[dict]]:
    seats: dict[str, list[dict]] = {m: [] for m in match_ids}
    if not match_ids:
        return seats
    rows = session.execute(
        sa.select(
            MatchSeat.match_id,
            MatchSeat.seat,
            MatchSeat.name,
            MatchSeat.player_id,
            MatchSeat.bot,
            MatchSeat.bot_level,
            MatchSeat.occupants,
        )
        .where(MatchSeat.match_id.in_(match_ids))
        .order_by(MatchSeat.match_id, MatchSeat.seat)
    )
    for match_id, seat, name, player_id, bot, level, occupants in rows:
        first = {"name": name, "player_id": player_id, "bot": bot, "level": (level or "easy") if bot else None}
        seats[match_id].append({"seat": seat, **first, "occupants": occupants or [{"from": 0, **first}]})
    return seats


def _summary(match: Match, players: list[dict]) -> dict[str, Any]:
    return {
        "id": match.id,
        "game": match.game,
        "options": match.options,
        "players": players,
        "scores": list(match.scores),
        "winners": list(match.winners),
        "started_at": match.started_at,
        "finished_at": match.finished_at,
    }


def _visible_to(viewer: str | None) -> sa.ColumnElement[bool]:
    """Public matches, and the private ones ``viewer`` sat in."""
    if viewer is None or not is_valid_id(viewer):
        return Match.private.is_(False)
    theirs = sa.select(MatchSeat.match_id).where(MatchSeat.player_id == viewer)
    return sa.or_(Match.private.is_(False), Match.id.in_(theirs))


def may_read(session: Session, match_id: str, viewer: str | None) -> bool:
    """True when the match exists and ``viewer`` may read it (public, or they sat in it)."""
    if not is_valid_id(match_id):
        return False
    query = sa.select(Match.id).where(Match.id == match_id, _visible_to(viewer))
    return session.scalar(query) is not None


def match_of_room(session: Session, room_code: str, viewer: str | None = None) -> str | None:
    """The id of the last match played at table ``room_code`` that ``viewer`` may read, if any:
    an old link to a table that has finished and closed still leads to its record."""
    query = (
        sa.select(Match.id)
        .where(Match.room_code == room_code, _visible_to(viewer))
        .order_by(Match.finished_at.desc(), Match.id.desc())
        .limit(1)
    )
    return session.scalar(query)


def list_matches(
    session: Session,
    *,
    player: str | None = None,
    game: str | None = None,
    before: str | None = None,
    limit: int = 20,
    viewer: str | None = None,
) -> tuple[list[dict[str, Any]], str | None]:
    """A page of match summaries, newest first, and the cursor of the next page (or None).

    Matches of private tables are included only when ``viewer`` (a player id) sat in them.
    """
    limit = max(1, min(int(limit), 100))
    if player is not None:
        if not is_valid_id(player):
            return [], None
        # One range of ix_match_seats_player_id_finished_at_match_id, newest first.
        query = sa.select(Match).join(MatchSeat, MatchSeat.match_id == Match.id).where(MatchSeat.player_id == player)
        stamp_col, id_col = MatchSeat.finished_at, MatchSeat.match_id
    else:
        query = sa.select(Match)
        stamp_col, id_col = Match.finished_at, Match.id
    query = query.where(_visible_to(viewer))
    if game is not None:
        query = query.where(Match.game == game)
    if before is not None:
        stamp, match_id = decode_cursor(before)
        query = query.where(sa.or_(stamp_col < stamp, sa.and_(stamp_col == stamp, id_col < match_id)))
    query = query.order_by(stamp_col.desc(), id_col.desc()).limit(limit + 1)
    rows = list(session.scalars(query))
    more = len(rows) > limit
    rows = rows[:limit]
    seats = _seats_by_match(session, [m.id for m in rows])
    page = [_summary(m, seats[m.id]) for m in rows]
    next_cursor = encode_cursor(rows[-1].finished_at, rows[-1].id) if more else None
    return page, next_cursor


ANYONE = "*"  # the viewer that may read every match, private ones included


def get_match(session: Session, match_id: str, viewer: str | None = None) -> dict[str, Any] | None:
    """The whole record of a finished match (enough to replay it), or None.

    A private table's match is None unless ``viewer`` (a player id) sat in it; pass
    ``viewer=ANYONE`` to read any match (the server's own tools and tests).
    """
    if not is_valid_id(match_id):
        return None
    match = session.get(Match, match_id)
    if match is None or (viewer is not ANYONE and not may_read(session, match_id, viewer)):
        return None
    players = _seats_by_match(session, [match_id])[match_id]
    hands = [
        {"dealer": dealer, "deal": deal, "scores": scores, **(extra or {})}
        for dealer, deal, scores, extra in session.execute(
            sa.select(Hand.dealer, Hand.deal, Hand.scores, Hand.extra)
            .where(Hand.match_id == match_id)
            .order_by(Hand.index)
        )
    ]
    actions = [
        {"seat": seat, "action": action}
        for seat, action in session.execute(
            sa.select(Action.seat, Action.action).where(Action.match_id == match_id).order_by(Action.seq)
        )
    ]
    return {
        "id": match.id,
        "game": match.game,
        "options": match.options,
        "seed": match.seed,
        "commitment": match.commitment,
        "dealer": match.dealer,
        "room_code": match.room_code,
        "private": match.private,
        "players": players,
        "hands": hands,
        "actions": actions,
        "scores": list(match.scores),
        "winners": list(match.winners),
        "started_at": match.started_at,
        "finished_at": match.finished_at,
    }


def match_summaries(session: Session, match_ids: list[str]) -> list[dict[str, Any]]:
    """Summaries of these matches (as the history lists them), in the order of ``match_ids``."""
    if not match_ids:
        return []
    found = {m.id: m for m in session.scalars(sa.select(Match).where(Match.id.in_(match_ids)))}
    seats = _seats_by_match(session, list(found))
    return [_summary(found[m], seats[m]) for m in match_ids if m in found]
