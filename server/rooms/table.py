"""A table as its log makes it: the seats, the game, the chat, the turn clock and the version.

Pure and synchronous: no event loop, no socket, no database. A table changes only by
``apply(entry)``, one log entry at a time, and says what else must follow as a list of
effects; the room that holds it acts on them (the writer, the lobby, the bots and the clock).
A live table and a table restored from its log are the same fold over the same entries:
``open_table`` from the ``created`` entry's data, then ``apply`` for every entry (the
``created`` one included). Every rule about who may change what is checked here too, by the
``check_*`` methods, before an entry is made: ``apply`` may still refuse an action the game
refuses (``GameError``), and then nothing has changed.

The log entries (``kind``: data) are: ``created`` (game, options, seats, private, host,
``open_bot_seats``, ``watchers`` and ``watch_delay`` (and ``group``: server/rooms/watching.py),
``follow_seats`` at "Play again", ``partners`` when partners are rotated:
their seats and how long each is kept), ``sit`` (seat, player_id, name), ``stand`` (seat),
``bot`` (seat, remove, level), ``start`` (match_id, seed, dealer, started_at), ``act`` (seat,
action, and ``clock`` when the turn clock ran out and a bot played for the seat), ``chat``
(the line), ``undo_ask``, ``undo`` and ``preselect`` (server/rooms/take_backs.py),
``next`` (code, by_host, and ``rotated`` when its players are moved there as
rotated partners), ``leave`` (seat),
``take`` (seat, player_id, name: during play a person takes a bot's seat, their own back
after leaving it or, asked and allowed, any bot's), ``ask_seat`` (player_id, seat, name: a
request for a bot's seat that the host answers; ``remove``: answered no), ``join_next``
(player_id, name: a spectator who will sit at "Play again"), ``seen`` (who is connected or
away changed; nothing to rebuild, but at a slow table ``back``: the seat whose player came
back from away), ``owner`` (a cluster node took
the table: the fence, nothing to rebuild), ``unpark``, ``park`` and ``close``.

Who is connected, and whose seat a bot plays while they are away, is not table history: the
room sets it on the seats (``seats_changed`` after) and logs only a ``seen`` entry. A slow
clock (server/rooms/timer.py) is the exception: its deadline is armed here, from the time of
the entry that moved the turn, and the turns it played (``act`` with ``clock``) and a seat's
return (``seen`` with ``back``) mark the seat away and back, so a table rebuilt from its log
has the same deadline, misses and away seats, and its lobby row carries the deadline and
who is awaited.

The table also keeps the parts of the view every connection shares (its room, its seats, its
chat and the game's public view), rebuilt only when they change: the differ skips them by
identity.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

from server.games import Game, get_game
from server.groups import ledger
from server.log_entry import LogEntry
from server.rooms.seats import Match, Seat, seed_commitment
from server.rooms.table_checks import TableChecks
from server.rooms.take_backs import TakeBacks
from server.rooms.timer import TurnClock
from server.rooms.watching import Watching

# The entries that change the table's lobby row (its status or who sits there).
TABLE_KINDS = frozenset({"created", "sit", "stand", "bot", "start", "leave", "take", "unpark", "park", "close"})
RETIRED_STATUS = {"park": "parked", "close": "closed"}

# Effects: what ``apply`` asks of the room, as (effect, value) pairs.
ROW = "row"  # the table's lobby row changed: the value is the new row
FINISHED = "finished"  # the match is over: the value is its record, for storage
TURN = "turn"  # who is to act may have changed: the clock and the bots look again
SEATED = "seated"  # a player took a seat: the value is its index (the room counts their sockets)


def _stamp(at: float) -> datetime:
    return datetime.fromtimestamp(at, UTC)


class Table(TableChecks, TakeBacks):
    """One table's state, changed only by ``apply``; see the module docstring."""

    # A server holds thousands of tables: no per-instance __dict__.
    __slots__ = (
        "_outside",
        "_outside_from",
        "_public",
        "_public_state",
        "chat",
        "chat_history",
        "clock",
        "clock_played",
        "code",
        "follow_seats",
        "game",
        "held_until",
        "host_id",
        "host_name",
        "joining",
        "match",
        "next_by_host",
        "next_code",
        "next_rotated",
        "open_bot_seats",
        "options",
        "partners",
        "private",
        "record",
        "result",
        "room_part",
        "seat_keys",
        "seat_requests",
        "seats",
        "seats_part",
        "state",
        "status",
        "version",
        "watching",
    )

    def __init__(
        self,
        code: str,
        game: Game,
        options: dict,
        seats: int,
        private: bool,
        host_id: str,
        host_name: str,
        clock: TurnClock,
        chat_history: int = 50,
    ) -> None:
        self.code = code
        self.game = game
        self.options = options
        self.private = private
        self.host_id = host_id
        self.host_name = host_name
        self.follow_seats: dict[str, int] = {}  # "Play again": player id -> the seat they had
        self.seats = [Seat(i) for i in range(seats)]
        self.status = "waiting"
        self.state: Any = None
        self.match: Match | None = None
        self.result: dict | None = None
        self.record: dict | None = None  # the finished match, as storage keeps it
        self.next_code: str | None = None
        self.next_by_host = False  # the next table was opened by this table's host
        self.next_rotated = False  # its players go there as rotated partners, moved by their pages
        self.partners: dict | None = None  # rotated partners: {"seats": [{seat, player_id, name}], "hold_s"}
        self.held_until = 0.0  # Unix seconds: until then the partners' seats are kept for them
        self.chat: list = []  # the last ``chat_history`` lines, a new list at each line
        self.chat_history = chat_history
        self.version = 0
        self.clock = clock
        self.clock_played: dict | None = None  # the last action, when the clock played it
        self.open_bot_seats = False  # anyone may take a bot's seat during play, unasked
        self.seat_requests: dict[str, dict] = {}  # player id -> their request for a bot's seat
        self.joining: dict[str, str] = {}  # spectators who sit at "Play again": player id -> name
        self.no_take_backs()
        self.watching = Watching()  # who may watch, and the state delayed watchers are shown
        # The game's public view (a spectator's), built once per state; the keys of a seat's
        # view that may differ from it (None: unknown, diff whole views).
        self._public_state: Any = None
        self._public: dict | None = None
        self.seat_keys: tuple[str, ...] | None = getattr(game, "seat_keys", None)
        self.room_part: dict = {}
        self._outside_from: dict | None = None  # the room part ``room_outside`` was built from
        self._outside: dict = {}
        self.seats_part: list = []
        self.rebuild_room_part()
        self.seats_changed()

    # ---- the one way a table changes ------------------------------------------------------

    def apply(self, entry: LogEntry) -> list[tuple[str, Any]]:
        """Apply one log entry (its version is the table's next); the effects that follow.

        Raises (a game rule, say) before anything has changed.
        """
        handler = _APPLY.get(entry.kind)
        effects: list[tuple[str, Any]] = [] if handler is None else handler(self, entry)
        self.version = entry.version
        self.watching.follow(self.game, self.state)
        kind = entry.kind
        slow_turn = self.clock.slow and any(effect == TURN for effect, _ in effects)
        if slow_turn:  # the slow clock is history: armed from the entry's own time
            self.arm_clock(entry.at)
        if slow_turn or kind in TABLE_KINDS or (kind == "act" and self.status == "finished"):
            effects.append((ROW, table_row(self, RETIRED_STATUS.get(kind))))
        return effects

    def _created(self, entry: LogEntry) -> list:
        """The table opened (``open_table`` read the rest): rotated partners' seats are kept
        for them from the entry's own time, so a table rebuilt from its log keeps them as long."""
        if self.partners is not None:
            self.held_until = entry.at + float(self.partners.get("hold_s", 0))
            self.rebuild_room_part()
        return []

    def _sit(self, entry: LogEntry) -> list:
        data = entry.data
        player_id = data["player_id"]
        for seat in self.seats:
            if seat.player_id == player_id:
                self.seats[seat.index] = Seat(seat.index)
        seat = self.seats[data["seat"]]
        seat.player_id = player_id
        seat.name = data["name"]
        self.seats_changed()
        return [(SEATED, seat.index)]

    def _stand(self, entry: LogEntry) -> list:
        index = entry.data["seat"]
        self.seats[index] = Seat(index)
        self.seats_changed()
        return []

    def _bot(self, entry: LogEntry) -> list:
        data = entry.data
        index = data["seat"]
        if data.get("remove"):
            self.seats[index] = Seat(index)
        else:
            level = data.get("level", "easy")
            seat = self.seats[index]
            seat.bot = True
            seat.level = level
            seat.name = f"{'Strong bot' if level == 'strong' else 'Bot'} {index + 1}"
        self.seats_changed()
        return []

    def _leave(self, entry: LogEntry) -> list:
        index = entry.data["seat"]
        if self.status == "waiting":
            self.seats[index] = Seat(index)
        else:  # a bot keeps the seat for good; the match record keeps who sat there
            seat = self.seats[index]
            seat.left_by = seat.player_id
            seat.player_id, seat.bot, seat.away, seat.connections = None, True, False, 0
            self._taken_over(index, f"Bot {index + 1}", None, True)
        self.seats_changed()
        return []

    def _take(self, entry: LogEntry) -> list:
        data = entry.data
        index, player_id = data["seat"], data["player_id"]
        self.seats[index] = Seat(index, player_id=player_id, name=data["name"])
        self._taken_over(index, data["name"], player_id, False)
        self.seat_requests = {p: r for p, r in self.seat_requests.items() if p != player_id and r["seat"] != index}
        self.joining = {p: n for p, n in self.joining.items() if p != player_id}
        self.seats_changed()
        self.rebuild_room_part()
        return [(SEATED, index), (TURN, None)]

    def _taken_over(self, index: int, name: str, player_id: str | None, bot: bool) -> None:
        """Seat ``index`` changes hands during play: from the next action on its decisions are
        the new occupant's (``Match.took_over``), the room part's ``seat_history`` says so."""
        if self.match is not None and self.status == "playing":
            view = self.public_view() or {}
            self.match.took_over(
                index, name, player_id, bot, len(view.get("history") or ()), len(view.get("log") or ())
            )
            self.rebuild_room_part()

    def _ask_seat(self, entry: LogEntry) -> list:
        data = entry.data
        player_id = data["player_id"]
        requests = {p: r for p, r in self.seat_requests.items() if p != player_id}
        if not data.get("remove"):
            requests[player_id] = {"player_id": player_id, "seat": data["seat"], "name": data["name"]}
        self.seat_requests = requests
        self.rebuild_room_part()
        return []

    def _join_next(self, entry: LogEntry) -> list:
        self.joining = {**self.joining, entry.data["player_id"]: entry.data["name"]}
        self.rebuild_room_part()
        return []

    def _start(self, entry: LogEntry) -> list:
        data = entry.data
        seed = data["seed"]
        self.state = self.game.new_game(
            players=len(self.seats), options=self.options, seed=int(seed), dealer=data["dealer"]
        )
        self.match = Match(
            id=data["match_id"],
            seed=seed,
            commitment=seed_commitment(seed),
            dealer=data["dealer"],
            started_at=datetime.fromisoformat(data["started_at"]),
            players=[
                {"seat": s.index, "name": s.name, "player_id": s.player_id, "bot": s.bot, "level": s.level}
                for s in self.seats
            ],
        )
        self.status = "playing"
        self.result = None
        self.clock_played = None
        self.rebuild_room_part()
        return [(TURN, None)]

    def _act(self, entry: LogEntry) -> list:
        data = entry.data
        seat, action, before = data["seat"], data["action"], self.state
        # GameError propagates to the edge with its sentence; nothing has changed then.
        self.state = self.game.apply(self.state, seat, action)
        self.acted(seat, before, bool(data.get("clock")))
        assert self.match is not None
        self.match.log_action(seat, orjson.dumps(action))
        if data.get("clock"):
            self.clock_played = {"seat": seat, "action": action}
            self.rebuild_room_part()
        elif self.clock_played is not None:
            self.clock_played = None
            self.rebuild_room_part()
        if self.clock.slow:
            self._slow_misses(seat, bool(data.get("clock")))
        outcome = self.game.outcome(self.state)
        if outcome is None:
            return [(TURN, None)]
        self._finish(outcome, entry.at)
        return [(TURN, None), (FINISHED, self.record)]

    def _slow_misses(self, seat: int, clock: bool) -> None:
        """A slow clock's misses are history: its third turn in a row played by the clock marks
        the seat away; a turn its player plays ends the run (a bot's, for an away seat, does not)."""
        if clock:
            if self.clock.missed(seat):
                self.seats[seat].away = True
                self.seats_changed()
        elif not self.seats[seat].away:
            self.clock.acted(seat)

    def _seen(self, entry: LogEntry) -> list:
        """Who is connected changed (nothing to rebuild); ``back``: a seat's player is back from
        away (a slow table's history), maybe to act now."""
        back = entry.data.get("back")
        if back is None:
            return []
        self.seats[back].away = False
        self.clock.acted(back)
        self.seats_changed()
        return [(TURN, None)] if back in self.people_to_act() else []

    def _chat(self, entry: LogEntry) -> list:
        # The last ``chat_history`` lines, a new list each time (the differ compares by identity).
        keep = self.chat_history - 1
        self.chat = [*(self.chat[-keep:] if keep else ()), entry.data]
        return []

    def _next(self, entry: LogEntry) -> list:
        self.next_code = entry.data["code"]
        self.next_by_host = bool(entry.data.get("by_host"))
        self.next_rotated = bool(entry.data.get("rotated"))
        self.rebuild_room_part()
        return []

    def _finish(self, outcome: dict, at: float) -> None:
        match = self.match
        assert match is not None
        self.status = "finished"
        self.seat_requests = {}
        match.finished_at = _stamp(at)
        self.result = {
            "match_id": match.id,
            "scores": outcome["scores"],
            "winners": outcome["winners"],
            "seed": match.seed,
            "commitment": match.commitment,
        }
        self.rebuild_room_part()
        self.record = match_record(self, match, outcome)

    # ---- the turn clock ---------------------------------------------------------------------

    def people_to_act(self) -> list[int]:
        """The seats a person plays (no bot) that are to act now."""
        if self.status != "playing":
            return []
        return [s for s in self.game.to_act(self.state) if not self.seats[s].is_botted]

    def bots_to_act(self) -> list[int]:
        """The seats a bot plays (for good, or while its player is away) that are to act now."""
        if self.status != "playing":
            return []
        return [s for s in self.game.to_act(self.state) if self.seats[s].is_botted]

    def arm_clock(self, now: float) -> bool:
        """A fresh turn on the clock from ``now`` (Unix seconds) for the people to act, or none;
        True if the deadline changed (the room part is rebuilt then)."""
        if self.clock.arm(self.people_to_act(), now):
            self.rebuild_room_part()
            return True
        return False

    def rebuild_room_part(self) -> None:
        self.room_part = room_part(self)

    @property
    def room_outside(self) -> dict:
        """What non-players see of a finished table (no "next"): built from the room part when
        first asked, one object per room part (the differ compares it by identity). Only a
        finished table is asked: a playing one does not keep a second room part."""
        part = self.room_part
        if self._outside_from is not part:
            self._outside = {**part, "next": None, "next_rotated": False}
            self._outside_from = part
        return self._outside

    def room_part_changed(self, **changed: Any) -> None:
        """Only ``changed`` of the room part is new (the take-back keys, after a person's
        action): every other value stays the very same object, which the room's differ
        skips by identity where a rebuilt part is compared key by key (the rebuild alone
        took ~5 µs of a move's ~130 in rooms of four played in process; this takes 0.1)."""
        self.room_part = {**self.room_part, **changed}

    def seats_changed(self) -> None:
        """Rebuild the seats part of the view (after any change to a seat)."""
        self.seats_part = seats_part(self.seats)

    # ---- presence: who is connected is not history (no entry; a restored table has nobody) ----

    def sockets(self, index: int, count: int) -> None:
        """The seat's player has ``count`` sockets open."""
        self.seats[index].connections = count
        self.seats_changed()

    def socket_opened(self, index: int) -> bool:
        """A socket of the seat's player opened: connected, not dropped, not away (they play
        it again); True if a bot was playing it while they were away."""
        seat = self.seats[index]
        seat.connections += 1
        seat.dropped_at = None
        away, seat.away = seat.away, False
        self.seats_changed()
        return away

    def socket_closed(self, index: int) -> int:
        """A socket of the seat's player closed: how many they still have open."""
        seat = self.seats[index]
        seat.connections = max(0, seat.connections - 1)
        self.seats_changed()
        return seat.connections

    def dropped(self, index: int, at: float) -> None:
        """The seat's player went at ``at`` (monotonic seconds): their grace runs from then."""
        self.seats[index].dropped_at = at

    def set_away(self, index: int, away: bool) -> None:
        """A bot plays the seat while its player is away, or no longer (at a fast table; a slow
        table's away is history: its ``seen`` and ``act`` entries say so)."""
        self.seats[index].away = away
        self.seats_changed()

    def person_acted(self, index: int) -> None:
        """The seat's player acted themselves: their run of missed turns is over."""
        self.clock.acted(index)

    def turn_missed(self, index: int) -> bool:
        """The clock played the seat's turn at a fast table: True if that makes it away."""
        return self.clock.missed(index)

    def public_view(self) -> dict | None:
        """The game's public view of the current state, the same object until it changes."""
        state = self.state
        if state is None:
            return None
        if self._public_state is not state:
            self._public = self.game.view(state, None)
            self._public_state = state
        return self._public


# ---- a table from its log ---------------------------------------------------------------


def open_table(code: str, created: dict, clock_scale: float = 1.0, chat_history: int = 50) -> Table:
    """The table a ``created`` entry's data opens, at version 0: the host sits in seat 0,
    or, at a "Play again" table, in the seat they had (``follow_seats``)."""
    table = Table(
        code,
        get_game(created["game"]),
        created["options"],
        created["seats"],
        created["private"],
        created["host_id"],
        created["host_name"],
        TurnClock(created.get("turn_timer", 0), clock_scale),
        chat_history,
    )
    table.follow_seats = dict(created.get("follow_seats") or {})
    table.open_bot_seats = bool(created.get("open_bot_seats"))
    table.partners = created.get("partners")
    table.undo = created.get("undo", "ask")
    table.watching = Watching.of(created)
    table.rebuild_room_part()
    host_seat = table.seats[table.follow_seats.get(created["host_id"], 0)]
    host_seat.player_id = created["host_id"]
    host_seat.name = created["host_name"]
    table.seats_changed()
    return table


def replay(entries: Sequence[LogEntry], clock_scale: float = 1.0, chat_history: int = 50) -> Iterator[Table]:
    """The fold of a table's log: yields the table its ``created`` entry opens, then again
    after each entry applied (a caller may hand the event loop back in between)."""
    first = entries[0]
    if first.kind != "created":
        raise ValueError(f"table {first.code}: its log starts with {first.kind!r}, not 'created'")
    table = open_table(first.code, first.data, clock_scale, chat_history)
    yield table
    for entry in entries:
        table.apply(entry)
        yield table


def fold(entries: Sequence[LogEntry], clock_scale: float = 1.0, chat_history: int = 50) -> Table:
    """The table as its whole log leaves it."""
    steps = replay(entries, clock_scale, chat_history)
    table = next(steps)  # the one table every step of the fold yields
    for _ in steps:
        pass
    return table


def seats_part(seats: list[Seat]) -> list[dict]:
    """The seats part of the view: who sits where, and whether they are here."""
    return [
        {
            "seat": s.index,
            "name": s.name,
            "player_id": s.player_id,
            "bot": s.bot,
            "level": s.level,
            "connected": s.bot or s.connections > 0,
            "away": s.away,
            "left_by": s.left_by,
        }
        for s in seats
    ]


def table_row(table: Table, status: str | None = None) -> dict:
    """The table as its lobby row keeps it; ``left``: who left the match in play (a bot keeps
    their seat, theirs to take back until the match ends); at a slow table the clock's
    ``deadline`` (Unix ms) and the players it ``awaited``: both kept while the table is parked.
    A slow table where a bot is to play is due at once (``deadline`` 0): wherever it is (parked,
    or its node gone), it is brought back to play on."""
    slow = table.clock.slow and status != "closed"
    deadline = table.clock.deadline if slow else None
    if slow and deadline is None and table.bots_to_act():
        deadline = 0
    return {
        "game": table.game.name,
        "status": status or table.status,
        "private": table.private,
        "host_id": table.host_id,
        "players": [s.player_id for s in table.seats if s.player_id],
        "left": [s.left_by for s in table.seats if s.bot and s.left_by] if table.status == "playing" else [],
        "clock_s": table.clock.seconds,
        "deadline": deadline,
        "awaited": [p for p in (table.seats[s].player_id for s in table.people_to_act()) if p] if slow else [],
    }


def summary(table: Table) -> dict:
    """The table as the lobby lists it."""
    return {
        "code": table.code,
        "game": table.game.name,
        "title": table.game.title,
        "options": table.options,
        "seats": len(table.seats),
        "taken": sum(1 for s in table.seats if s.player_id or s.bot),
        "host_name": table.host_name,
        "status": table.status,
        "private": table.private,
        "turn_timer": table.clock.seconds,
        "watchers": table.watching.watchers,
        "watch_delay": table.watching.delay,
    }


def room_part(table: Table) -> dict:
    """The room part of every connection's view."""
    match, finished = table.match, table.status == "finished"
    return {
        "code": table.code,
        "game": table.game.name,
        "title": table.game.title,
        "options": table.options,
        "seats": len(table.seats),
        "private": table.private,
        "status": table.status,
        "host": table.host_id,
        "host_name": table.host_name,
        "commitment": match.commitment if match else None,
        "seed": match.seed if match and finished else None,
        "match_id": match.id if match and finished else None,
        "next": table.next_code,
        "next_rotated": table.next_rotated,
        "partners": None if table.partners is None else table.partners["seats"],
        "held_until": round(table.held_until * 1000) if table.partners is not None else None,
        "turn_timer": table.clock.seconds,
        "deadline": table.clock.deadline,
        "clock_played": table.clock_played,
        "open_bot_seats": table.open_bot_seats,
        "watchers": table.watching.watchers,
        "watch_delay": table.watching.delay,
        "seat_requests": list(table.seat_requests.values()),
        "joining": [{"player_id": p, "name": n} for p, n in table.joining.items()],
        "seat_history": seat_history(match) if match else [],
        "undo": table.undo,
        "undo_asked": table.undo_asked,
        "undoable": table.undoable,
    }


def seat_history(match: Match) -> list[dict]:
    """Every occupant of each seat that changed hands during the match, in order, each with the
    point of the match where they took over (``hand``: the hand's index, ``at``: the length of
    that hand's log then; the first occupant at 0, 0), so a client names who made each move."""
    seats = sorted({t["seat"] for t in match.takeovers})
    out = []
    for index in seats:
        start = match.players[index]
        out.append({"seat": index, "hand": 0, "at": 0, **{k: start[k] for k in ("name", "player_id", "bot", "level")}})
        out.extend(
            {k: t[k] for k in ("seat", "hand", "at", "name", "player_id", "bot", "level")}
            for t in match.takeovers
            if t["seat"] == index
        )
    return out


def match_record(table: Table, match: Match, outcome: dict) -> dict:
    """A finished match as storage keeps it, with its rows in a group's ledger (storage links
    the match to a group, if any, and stores them; it never computes them)."""
    record = {
        "id": match.id,
        "game": table.game.name,
        "options": table.options,
        "seed": match.seed,
        "commitment": match.commitment,
        "dealer": match.dealer,
        "room_code": table.code,
        "private": table.private,
        "players": [{**p, "occupants": match.occupants(p["seat"])} for p in match.players],
        "hands": table.game.hand_records(table.state),
        "actions": match.actions(),
        "scores": outcome["scores"],
        "winners": outcome["winners"],
        "started_at": match.started_at,
        "finished_at": match.finished_at,
    }
    record["ledger"] = ledger.of_record(record)
    return record


def _undo(table: Table, entry: LogEntry) -> list:
    """A seat's last action taken back (server/rooms/take_backs.py): whose turn it is changed."""
    table.take_back(entry.data["seat"])
    return [(TURN, None)]


_APPLY = {
    "created": Table._created,
    "sit": Table._sit,
    "stand": Table._stand,
    "bot": Table._bot,
    "leave": Table._leave,
    "start": Table._start,
    "act": Table._act,
    "chat": Table._chat,
    "seen": Table._seen,
    "next": Table._next,
    "take": Table._take,
    "ask_seat": Table._ask_seat,
    "join_next": Table._join_next,
    "undo": _undo,
    "undo_ask": Table._undo_ask,
    "preselect": Table._preselect,
}


def awaits(table: Table, player_id: str | None) -> bool:
    """Whether the game in play at ``table`` waits for ``player_id``'s decision."""
    seat = table.seat_of(player_id)
    if seat is None or table.status != "playing" or table.state is None:
        return False
    return seat in table.game.to_act(table.state)
