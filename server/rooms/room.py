"""Rooms: the authoritative tables, kept in memory, one lock each, rebuilt from their logs.

A room holds its seats, the game's state, a version and the connections watching it. Every
change (a seat taken, an action applied, a chat line) happens under the room's lock as one
log entry: ``_enter`` applies it (the same code rebuilds a room from its log after a restart),
the version goes up by one, the entry goes to the writer, and every connection gets a patch
from *its own* last view to its new view. Those frames are held until the writer reports the
version durable, then put on each connection's own queue, in version order; a sender per
connection drains it, so a slow or dead client never delays the table. Views are built per
seat (spectators get the public view) before any diff, so a patch cannot carry what its
receiver may not see.

The log entries (``kind``: data) are: ``created`` (game, options, seats, private, host),
``sit`` (seat, player_id, name), ``stand`` (seat), ``bot`` (seat, remove, level), ``start`` (match_id,
seed, dealer, started_at), ``act`` (seat, action), ``chat`` (the line), ``next`` (code), ``leave``
(seat), ``seen`` (who is connected or away changed; nothing to rebuild), ``owner`` (a cluster node took the
table: the fence, nothing to rebuild), ``unpark``, ``park`` and ``close``.

Who is connected is not table history: a socket opening or closing changes the seats part
of the view at once (a new connection's snapshot is current) but tells the others only
``presence_delay_s`` later, in one ``seen`` change, and only if what they were shown differs
by then (or sooner, with whatever change comes first). A reconnect within that delay, or a
storm of them, costs the log nothing and sends the others nothing; each version is still
logged, durable before it is shown, and numbered one after the last.

The rooms know games only through the registry (``get_game``) and the engine surface, and
know the transport only as a ``Connection`` with a queue and a way to close it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import orjson

from server.bots import Bot, get_bot
from server.budget import LoopBudget
from server.rooms.chat import ChatLimits
from server.rooms.connection import Connection
from server.rooms.errors import RoomError
from server.rooms.fanout import Kept, PatchFrames
from server.rooms.messages import snapshot_frame
from server.rooms.seats import Match, Seat, clean_text, new_seed, seed_commitment, utcnow
from server.rooms.timer import TurnTimer
from server.rules.games import Game, get_game
from server.rules.games.base import canonical_action
from server.storage.writer import LogEntry

if TYPE_CHECKING:
    from server.rooms.manager import RoomManager

log = logging.getLogger("felt.rooms")

NO_CHAT: list = []  # shared and never changed: the chat a finished room's spectators see

# The entries that change the table's lobby row (its status or who sits there).
TABLE_KINDS = frozenset({"created", "sit", "stand", "bot", "start", "leave", "unpark", "park", "close"})
RETIRED_STATUS = {"park": "parked", "close": "closed"}


def _stamp(at: float) -> datetime:
    return datetime.fromtimestamp(at, timezone.utc)


class Room:
    """One table: seats, the game state, a version, a lock, and its connections."""

    # A server holds thousands of rooms: no per-instance __dict__.
    __slots__ = (
        "manager", "settings", "code", "game", "options", "private", "host_id", "host_name",
        "created_at", "lock", "version", "status", "seats", "connections", "state", "match",
        "result", "next_code", "last_seen", "finished_at", "closed", "_bots", "_bot_task",
        "_grace_tasks", "_chat_limits", "next_by_host", "follow_seats", "_room_part", "_room_outside",
        "_seats_part", "_chat_part", "_public_state", "_public",
        "_seat_keys", "writer", "logged", "durable_version", "_held", "record", "timer", "_waiters",
        "_presence_due",
    )

    def __init__(
        self, manager: RoomManager, code: str, game: Game, options: dict, seats: int,
        private: bool, host_id: str, host_name: str, turn_timer: int = 0,
    ) -> None:
        self.manager = manager
        self.settings = manager.settings
        self.writer = manager.writer
        self.logged = manager.settings.table_log  # False only to measure the log's cost
        self.code = code
        self.game = game
        self.options = options
        self.private = private
        self.host_id = host_id
        self.host_name = host_name
        self.created_at = time.monotonic()
        self.lock = asyncio.Lock()
        self.version = 0
        self.durable_version = 0
        # Frames of versions the writer has not yet made durable: [(version, [(conn, frame)])].
        self._held: deque[tuple[int, list[tuple[Connection, str]]]] = deque()
        self._waiters: list[tuple[int, asyncio.Future]] = []  # see ``until_durable``
        self.status = "waiting"
        self.seats = [Seat(i) for i in range(seats)]
        self.connections: list[Connection] = []
        self.state: Any = None
        self.match: Match | None = None
        self.result: dict | None = None
        self.record: dict | None = None  # the finished match, as storage keeps it
        self.next_code: str | None = None
        self.last_seen = time.monotonic()
        self.finished_at: float | None = None
        self.closed = False
        self._bots: dict[int, Bot] = {}
        self._bot_task: asyncio.Task | None = None
        self._grace_tasks: dict[int, asyncio.Task] = {}
        self._presence_due: asyncio.TimerHandle | None = None  # the pending ``seen`` (see above)
        self.timer = TurnTimer(turn_timer, self.settings.turn_timer_scale)
        self._chat_limits = ChatLimits(self.settings.chat_per_minute, self.settings.chat_spectators_per_minute)
        self.next_by_host = False  # the next table was opened by this room's host
        self.follow_seats: dict[str, int] = {}  # "Play again": player id -> the seat they had
        # Parts of the view shared by every connection, rebuilt only when they change so
        # that the differ can skip them by identity.
        self._room_part: dict = {}
        self._room_outside: dict = {}  # what non-players see of a finished room: no "next"
        self._seats_part: list = []
        self._chat_part: list = []
        # The game's public view (a spectator's), built once per state; the keys of a
        # seat's view that may differ from it (None: unknown, diff whole views).
        self._public_state: Any = None
        self._public: dict | None = None
        self._seat_keys: tuple[str, ...] | None = getattr(game, "seat_keys", None)
        self._rebuild_room_part()
        self._rebuild_seats_part()

    @classmethod
    def open(cls, manager: RoomManager, code: str, created: dict) -> Room:
        """A new room from its ``created`` entry's data (the host sits in seat 0, or, at a
        "Play again" table, in the seat they had: ``follow_seats``)."""
        room = cls(
            manager, code, get_game(created["game"]), created["options"], created["seats"],
            created["private"], created["host_id"], created["host_name"], created.get("turn_timer", 0),
        )
        room.follow_seats = dict(created.get("follow_seats") or {})
        host_seat = room.seats[room.follow_seats.get(created["host_id"], 0)]
        host_seat.player_id = created["host_id"]
        host_seat.name = created["host_name"]
        room._rebuild_seats_part()
        return room

    @classmethod
    def rebuild(cls, manager: RoomManager, code: str, entries: list[tuple[int, str, dict, float]]) -> Room:
        """The room as its log leaves it: every entry entered again, in order, through the engines."""
        replay = cls._replay(manager, code, entries)
        room = next(replay)
        for _ in replay:
            pass
        return room

    @classmethod
    async def rebuild_in_turns(
        cls, manager: RoomManager, code: str, entries: list[tuple[int, str, dict, float]]
    ) -> Room:
        """``rebuild`` on the event loop, handing it back every half millisecond
        (``server.budget``): a long match is hundreds of entries, milliseconds of engine work.
        (In a worker thread the loop waited for the interpreter lock instead, up to the
        thread switch interval of 5 ms at a time: ``python -m bench.restore_turns``.)"""
        budget = LoopBudget()
        replay = cls._replay(manager, code, entries)
        room = next(replay)
        for _ in replay:
            await budget.spend()
        return room

    @classmethod
    def _replay(cls, manager: RoomManager, code: str, entries: list[tuple[int, str, dict, float]]) -> Iterator[Room]:
        """Yields the room made by the ``created`` entry, then once after each entry entered."""
        version, kind, data, _at = entries[0]
        if kind != "created":
            raise ValueError(f"table {code}: its log starts with {kind!r}, not 'created'")
        room = cls.open(manager, code, data)
        yield room
        for version, kind, data, at in entries[1:]:
            room._enter(kind, data, at)
            yield room
        room.version = room.durable_version = version
        room._rebuild_room_part()
        room._rebuild_seats_part()

    def table_row(self, status: str | None = None) -> dict:
        """The table as its lobby row keeps it."""
        return {
            "game": self.game.name,
            "status": status or self.status,
            "private": self.private,
            "host_id": self.host_id,
            "players": [s.player_id for s in self.seats if s.player_id],
        }

    # ---- public summaries --------------------------------------------------------------

    def summary(self) -> dict:
        """The room as the lobby lists it."""
        return {
            "code": self.code,
            "game": self.game.name,
            "title": self.game.title,
            "options": self.options,
            "seats": len(self.seats),
            "taken": sum(1 for s in self.seats if s.player_id or s.bot),
            "host_name": self.host_name,
            "status": self.status,
            "private": self.private,
            "turn_timer": self.timer.seconds,
        }

    def may_sit(self, player_id: str | None) -> bool:
        """Whether ``player_id`` has a seat here or may take one now: such a player always gets
        in, past the spectator cap and a crowded server's (a waiting table's guests included)."""
        if player_id is None:
            return False
        if self.seat_of(player_id) is not None or player_id in self.follow_seats:
            return True
        return self.status == "waiting" and any(s.player_id is None and not s.bot for s in self.seats)

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat.index
        return None

    def awaits(self, player_id: str | None) -> bool:
        """Whether the game in play waits for ``player_id``'s decision (read only)."""
        seat = self.seat_of(player_id)
        if seat is None or self.status != "playing" or self.state is None:
            return False
        return seat in self.game.to_act(self.state)

    # ---- view building -----------------------------------------------------------------

    def _rebuild_room_part(self) -> None:
        self._room_part = {
            "code": self.code,
            "game": self.game.name,
            "title": self.game.title,
            "options": self.options,
            "seats": len(self.seats),
            "private": self.private,
            "status": self.status,
            "host": self.host_id,
            "host_name": self.host_name,
            "commitment": self.match.commitment if self.match else None,
            "seed": self.match.seed if self.match and self.status == "finished" else None,
            "match_id": self.match.id if self.match and self.status == "finished" else None,
            "next": self.next_code,
            "turn_timer": self.timer.seconds,
            "deadline": self.timer.deadline,
        }
        self._room_outside = {**self._room_part, "next": None}

    def _rebuild_seats_part(self) -> None:
        self._seats_part = [
            {
                "seat": s.index,
                "name": s.name,
                "player_id": s.player_id,
                "bot": s.bot,
                "level": s.level,
                "connected": s.bot or s.connections > 0,
                "away": s.away,
            }
            for s in self.seats
        ]

    def _public_view(self) -> dict | None:
        """The game's public view of the current state, the same object until it changes."""
        state = self.state
        if state is None:
            return None
        if self._public_state is not state:
            self._public = self.game.view(state, None)
            self._public_state = state
        return self._public

    def _compose(self, conn: Connection, cache: dict) -> dict:
        """This connection's whole view; ``cache`` shares views between tabs of one player."""
        view = cache.get(conn.player_id)
        if view is not None:
            return view
        seat = self.seat_of(conn.player_id)
        game_view = cache.get(("seat", seat))
        if game_view is None and self.state is not None:
            if seat is None:
                game_view = self._public_view()
            else:
                game_view = self.game.view(self.state, seat)
            cache[("seat", seat)] = game_view
        # A finished room's chat and "Play again" table are its players' alone.
        outside = seat is None and self.status == "finished"
        view = cache[conn.player_id] = {
            "room": self._room_outside if outside else self._room_part,
            "seats": self._seats_part,
            "you": seat,
            "me": conn.me,
            "is_host": conn.player_id == self.host_id,
            "game": game_view,
            "chat": NO_CHAT if outside else self._chat_part,
            "result": self.result,
        }
        return view

    def _kept(self, view: dict, memo: dict) -> Kept:
        """What a connection keeps of ``view``; ``memo`` shares it between tabs of one player."""
        kept = memo.get(id(view))
        if kept is None:
            kept = memo[id(view)] = Kept(view, self._public_view(), self._seat_keys)
        return kept

    def sent_view(self, conn: Connection) -> dict | None:
        """The whole view ``conn`` was last sent (rebuilt from what it keeps; for tests and tools)."""
        return None if conn.view is None else conn.view.whole(self._seat_keys)

    def snapshot(self, conn: Connection) -> None:
        """Send ``conn`` its whole view at the current version (once that version is durable)."""
        view = self._compose(conn, {})
        conn.view = self._kept(view, {})
        frame = snapshot_frame(self.version, view)
        if self._held:  # the newest held version is the current one: the snapshot waits with it
            self._held[-1][1].append((conn, frame))
        elif not conn.push(frame):
            self._drop_slow(conn)


    # ---- changes: one log entry each ------------------------------------------------------

    def _change(self, kind: str, data: dict) -> None:
        """Apply one change, log it at the next version and give every connection its patch.

        ``_enter`` raises (a game rule, say) before anything has changed.
        """
        refused = self.manager.change_refused(self.code)
        if refused is not None:
            raise refused
        at = time.time()
        self._enter(kind, data, at)
        if kind in ("start", "act"):
            self._arm_timer()  # before the broadcast: the new deadline goes out with the change
        self._broadcast(kind, data, at)

    def _enter(self, kind: str, data: dict, at: float) -> None:
        handler = _ENTER.get(kind)
        if handler is not None:
            handler(self, data, at)

    def _enter_sit(self, data: dict, _at: float) -> None:
        player_id = data["player_id"]
        for seat in self.seats:
            if seat.player_id == player_id:
                self.seats[seat.index] = Seat(seat.index)
        seat = self.seats[data["seat"]]
        seat.player_id = player_id
        seat.name = data["name"]
        seat.connections = sum(1 for c in self.connections if c.player_id == player_id)
        self._rebuild_seats_part()

    def _enter_stand(self, data: dict, _at: float) -> None:
        self.seats[data["seat"]] = Seat(data["seat"])
        self._rebuild_seats_part()

    def _enter_bot(self, data: dict, _at: float) -> None:
        index = data["seat"]
        if data.get("remove"):
            self.seats[index] = Seat(index)
        else:
            level = data.get("level", "easy")
            self.seats[index].bot = True
            self.seats[index].level = level
            self.seats[index].name = f"{'Strong bot' if level == 'strong' else 'Bot'} {index + 1}"
        self._rebuild_seats_part()

    def _enter_leave(self, data: dict, _at: float) -> None:
        index = data["seat"]
        if self.status == "waiting":
            self.seats[index] = Seat(index)
        else:  # a bot keeps the seat for good; the match record keeps who sat there
            seat = self.seats[index]
            seat.player_id, seat.bot, seat.away, seat.connections = None, True, False, 0
        self._rebuild_seats_part()

    def _enter_start(self, data: dict, _at: float) -> None:
        seed = data["seed"]
        players = len(self.seats)
        self.state = self.game.new_game(players=players, options=self.options, seed=int(seed), dealer=data["dealer"])
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
        self._rebuild_room_part()

    def _enter_act(self, data: dict, at: float) -> None:
        seat, action = data["seat"], data["action"]
        # GameError propagates to the edge with its sentence; nothing has changed then.
        self.state = self.game.apply(self.state, seat, action)
        assert self.match is not None
        self.match.log_action(seat, orjson.dumps(action))
        outcome = self.game.outcome(self.state)
        if outcome is not None:
            self._finish(outcome, at)

    def _enter_chat(self, data: dict, _at: float) -> None:
        # The last ``chat_history`` lines, a new list each time (the differ compares by identity).
        keep = self.settings.chat_history - 1
        self._chat_part = [*(self._chat_part[-keep:] if keep else ()), data]

    def _enter_next(self, data: dict, _at: float) -> None:
        self.next_code = data["code"]
        self.next_by_host = bool(data.get("by_host"))
        self._rebuild_room_part()

    def _broadcast(self, kind: str = "seen", data: dict | None = None, at: float | None = None) -> None:
        """Bump the version, log the change and give every connection its own patch (under the lock).

        The frames wait until the writer says this version is durable (``durable``).
        """
        self.version += 1
        v = self.version
        public = self._public_view()
        patches = PatchFrames(v, public, self._seat_keys)
        cache: dict = {}
        kept: dict = {}
        frames: dict[int, str] = {}
        out: list[tuple[Connection, str]] = []
        for conn in list(self.connections):
            new = self._compose(conn, cache)
            key = id(conn.view)  # tabs of one player hold the same view: one diff for all
            frame = frames.get(key)
            if frame is None:
                frame = frames[key] = patches.frame(conn.view, new)
            conn.view = self._kept(new, kept)
            out.append((conn, frame))
        if not self.logged:
            self._deliver(out)
            return
        self._held.append((v, out))  # before append: a writer may report it durable at once
        finishing = kind == "act" and self.status == "finished"
        table = self.table_row(RETIRED_STATUS.get(kind)) if kind in TABLE_KINDS or finishing else None
        self.writer.append(LogEntry(self.code, v, kind, data or {}, table, at))
        if table is not None:
            self.manager.table_changed(self.code, table)

    def durable(self, version: int) -> None:
        """The writer made every version up to ``version`` durable: send their frames, in order."""
        if version > self.durable_version:
            self.durable_version = version
        held = self._held
        released: list[tuple[Connection, str]] = []
        while held and held[0][0] <= version:
            released += held.popleft()[1]
        self._deliver(released)
        if self._waiters:
            for v, waiter in self._waiters:
                if v <= version and not waiter.done():
                    waiter.set_result(None)
            self._waiters = [(v, w) for v, w in self._waiters if not w.done()]

    async def until_durable(self, timeout: float) -> bool:
        """Wait until the current version is durable (an answer that says a change was made,
        such as the new table's 201, must not come before it); False after ``timeout`` s."""
        version = self.version
        if not self.logged or self.durable_version >= version:
            return True
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append((version, waiter))
        try:
            await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            self._waiters = [(v, w) for v, w in self._waiters if w is not waiter]
            return False
        return True

    def _deliver(self, frames: list[tuple[Connection, str]]) -> None:
        """Queue ``frames``; a connection already ``limit`` frames behind is closed instead.

        The limit is checked once per delivery, not per frame: one commit may release many
        versions at once, which says nothing about how fast the client reads.
        """
        behind = {id(conn) for conn, _ in frames if conn.queue.qsize() >= conn.limit}
        for conn, frame in frames:
            if id(conn) in behind:
                self._drop_slow(conn)
            elif not conn.closed:
                conn.queue.put_nowait(frame)

    def _drop_slow(self, conn: Connection) -> None:
        if conn.closed:
            return
        log.warning("room %s: closing a connection that fell %d frames behind", self.code, conn.limit)
        conn.closed = True
        asyncio.get_running_loop().create_task(conn.closer(1008, "too slow: frames not read"))

    # ---- connections ---------------------------------------------------------------------

    async def join(self, conn: Connection) -> None:
        """A socket opens: attach it, mark its seat connected, send the snapshot."""
        async with self.lock:
            if self.closed:
                raise RoomError("not_found", f"There is no open room {self.code!r}.", 404)
            if self.status == "waiting" and conn.player_id in self.follow_seats:
                self._seat_follower(conn)
            if not self.may_sit(conn.player_id):
                watching = sum(1 for c in self.connections if self.seat_of(c.player_id) is None)
                if watching >= self.settings.max_spectators_per_room:
                    raise RoomError("room_full", "This room has as many spectators as it can take.")
            self.connections.append(conn)
            self.last_seen = time.monotonic()
            if self.status == "playing" and not self.timer.running:
                self._arm_timer()  # it ran out while nobody was here: a fresh turn now
            seat_index = self.seat_of(conn.player_id)
            if seat_index is not None:
                seat = self.seats[seat_index]
                seat.connections += 1
                seat.dropped_at = None
                task = self._grace_tasks.pop(seat_index, None)
                if task:
                    task.cancel()
                away, seat.away = seat.away, False
                self._rebuild_seats_part()
                if away:  # a bot was playing the seat: it is reclaimed at once, for all to see
                    self._broadcast_except(conn)
                else:
                    self._presence_changed()
            self.snapshot(conn)
            self._schedule_bots()

    def _seat_follower(self, conn: Connection) -> None:
        """Seat a player who followed "Play again" in the seat they had, if it is still free."""
        index = self.follow_seats[conn.player_id]
        seat = self.seats[index]
        if self.seat_of(conn.player_id) is None and seat.player_id is None and not seat.bot:
            self._change("sit", {"seat": index, "player_id": conn.player_id, "name": conn.name})

    def _broadcast_except(self, newcomer: Connection) -> None:
        # The newcomer gets a snapshot at the new version instead of a patch.
        self.connections.remove(newcomer)
        try:
            self._broadcast()
        finally:
            self.connections.append(newcomer)

    async def leave(self, conn: Connection) -> None:
        """A socket closed: detach it; a seated player's seat waits for them, then a bot plays."""
        conn.closed = True
        async with self.lock:
            if conn not in self.connections:
                return
            self.connections.remove(conn)
            self.last_seen = time.monotonic()
            seat_index = self.seat_of(conn.player_id)
            if seat_index is None or self.closed or self.manager.letting_go(self.code):
                return
            seat = self.seats[seat_index]
            seat.connections = max(0, seat.connections - 1)
            if seat.connections == 0:
                self._start_grace(seat_index)
            self._rebuild_seats_part()
            self._presence_changed()

    def _presence_changed(self) -> None:
        """Who is connected changed: tell the others once the presence delay has passed."""
        if self._presence_due is None and not self.closed:
            self._presence_due = asyncio.get_running_loop().call_later(
                self.settings.presence_delay_s, self._tell_presence
            )

    def _tell_presence(self) -> None:
        """Broadcast the seats as they are now, if a connection was shown otherwise (a ``seen``).

        A call from the loop, not a task, so there is nothing but the timer to keep or cancel;
        while the lock is held, or the table may not change now, it looks again a delay later.
        """
        self._presence_due = None
        if self.closed or self.manager.letting_go(self.code):
            return
        if self.lock.locked() or self.manager.change_refused(self.code) is not None:
            self._presence_changed()
            return
        seats = self._seats_part
        for conn in self.connections:
            kept = conn.view
            if kept is not None and kept.seats is not seats and kept.seats != seats:
                self._broadcast()
                return

    def _start_grace(self, seat_index: int) -> None:
        """The seat's player is gone: a bot plays it if they are not back within the grace period."""
        self.seats[seat_index].dropped_at = time.monotonic()
        if self.status == "playing" and seat_index not in self._grace_tasks:
            self._grace_tasks[seat_index] = asyncio.get_running_loop().create_task(
                self._grace_expired(seat_index, self.settings.reconnect_grace_s)
            )

    async def _grace_expired(self, seat_index: int, delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            self._grace_tasks.pop(seat_index, None)
            seat = self.seats[seat_index]
            if self.closed or self.status != "playing" or seat.connections > 0 or seat.away:
                return
            if self.manager.letting_go(self.code):
                return
            seat.away = True
            self._rebuild_seats_part()
            self._broadcast()
            self._schedule_bots()

    def restored(self) -> None:
        """After a rebuild (on the event loop): every seated player's grace period and the turn
        timer start now; a finished match is handed to storage again (saving is idempotent, so
        a record lost in a crash is not)."""
        for seat in self.seats:
            if seat.player_id is not None:
                self._start_grace(seat.index)
        self._arm_timer()
        if self.record is not None:
            self.writer.record(self.record)

    # ---- seat management -----------------------------------------------------------------

    def _require_waiting(self) -> None:
        if self.status != "waiting":
            raise RoomError("not_waiting", "The game has already started: seats are fixed now.")

    def _check_seat_index(self, seat: object) -> Seat:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(self.seats):
            raise RoomError("bad_seat", f"There is no seat {seat!r}: seats are 0 to {len(self.seats) - 1}.")
        return self.seats[seat]

    async def sit(self, conn: Connection, seat_index: int) -> None:
        async with self.lock:
            if self._back_in_seat(conn, seat_index):
                return
            self._require_waiting()
            if conn.player_id is None:
                raise RoomError("unauthorized", "Connect with a player token to take a seat.")
            seat = self._check_seat_index(seat_index)
            if self.seat_of(conn.player_id) == seat_index:
                raise RoomError("seat_taken", "You are already in that seat.")
            if seat.player_id is not None or seat.bot:
                raise RoomError("seat_taken", f"Seat {seat_index} is taken.")
            self._change("sit", {"seat": seat_index, "player_id": conn.player_id, "name": conn.name})

    def _back_in_seat(self, conn: Connection, seat_index: object) -> bool:
        """A player whose seat a bot plays (missed turns) sits in it again: "I'm back"."""
        if self.status != "playing" or seat_index != self.seat_of(conn.player_id):
            return False
        seat = self.seats[seat_index]
        if not seat.away:
            raise RoomError("seat_taken", "You are already playing in that seat.")
        self._set_away(seat.index, False)
        self.timer.acted(seat.index)
        self._arm_timer()
        self._broadcast()
        return True

    def _set_away(self, seat: int, away: bool) -> None:
        self.seats[seat].away = away
        self._rebuild_seats_part()

    async def stand(self, conn: Connection) -> None:
        async with self.lock:
            self._require_waiting()
            current = self.seat_of(conn.player_id)
            if current is None:
                raise RoomError("not_seated", "You are not sitting at this table.")
            self._change("stand", {"seat": current})

    async def set_bot(self, conn: Connection, seat_index: int, remove: bool, level: str = "easy") -> None:
        async with self.lock:
            if conn.player_id != self.host_id:
                raise RoomError("not_host", "Only the host can add or remove bots.", 403)
            self._require_waiting()
            seat = self._check_seat_index(seat_index)
            if remove and not seat.bot:
                raise RoomError("bad_seat", f"There is no bot in seat {seat_index}.")
            if not remove and (seat.player_id is not None or seat.bot):
                raise RoomError("seat_taken", f"Seat {seat_index} is taken.")
            self._change("bot", {"seat": seat_index, "remove": remove, "level": level})

    async def start(self, conn: Connection) -> None:
        async with self.lock:
            if conn.player_id != self.host_id:
                raise RoomError("not_host", "Only the host can start the game.", 403)
            self._require_waiting()
            empty = [s.index for s in self.seats if s.player_id is None and not s.bot]
            if empty:
                raise RoomError("not_full", f"Every seat must be filled first (empty: {', '.join(map(str, empty))}).")
            seed = new_seed()
            self._change("start", {
                "match_id": secrets.token_hex(8),
                "seed": seed,
                "dealer": random.Random(seed).randrange(len(self.seats)),
                "started_at": utcnow().isoformat(),
            })
            self._schedule_bots()

    async def leave_table(self, player_id: str | None) -> None:
        """A player leaves for good: before the start the seat empties, during play a bot keeps it."""
        async with self.lock:
            seat = self.seat_of(player_id)
            if seat is None:
                raise RoomError("not_seated", "You are not sitting at this table.")
            if self.status == "finished":
                raise RoomError("finished", "This match is over; there is nothing to leave.")
            self._change("leave", {"seat": seat})
            self._schedule_bots()

    async def close_table(self, player_id: str | None) -> None:
        """The host closes a table that has not started: everyone is sent away."""
        async with self.lock:
            if player_id != self.host_id:
                raise RoomError("not_host", "Only the host can close the table.", 403)
            self._require_waiting()
        await self.retire("close", 1000, "the host closed the table")

    # ---- actions -----------------------------------------------------------------------

    async def act(self, conn: Connection, action: dict, v: int) -> None:
        async with self.lock:
            if self.status != "playing":
                raise RoomError("not_playing", "There is no game in play in this room.")
            seat = self.seat_of(conn.player_id)
            if seat is None:
                raise RoomError("not_seated", "Only the players at the table can act; you are watching.", 403)
            # A node that may no longer change the table (stopping, or its lease gone: another
            # node may own it now) says so before judging the view: its version is not the table's.
            refused = self.manager.change_refused(self.code)
            if refused is not None:
                raise refused
            if v != self.version:
                raise RoomError("stale", f"Your view is out of date (version {v}, the table is at {self.version}).")
            away = self.seats[seat].away
            if away:
                self._set_away(seat, False)  # acting yourself takes the seat back from the bot
            try:
                self._apply(seat, action)
            except Exception:
                if away:
                    self._set_away(seat, True)  # refused: nothing changes
                raise
            self.timer.acted(seat)

    def _apply(self, seat: int, action: dict) -> None:
        action = canonical_action(action)  # extra fields ("note", "seat") are never stored
        # Encoded first: an action that cannot be stored is refused before anything changes.
        try:
            orjson.dumps(action)
        except TypeError:
            raise RoomError("bad_action", "That action cannot be recorded: use plain JSON values.", 422) from None
        self._change("act", {"seat": seat, "action": action})
        self.manager.actions_applied += 1
        if self.record is not None and self.status == "finished":
            self.writer.record(self.record)  # never blocks: written off the loop, after the entry
        self._schedule_bots()

    def _finish(self, outcome: dict, at: float) -> None:
        assert self.match is not None
        self.status = "finished"
        self.finished_at = time.monotonic()
        self.match.finished_at = _stamp(at)
        self.result = {
            "match_id": self.match.id,
            "scores": outcome["scores"],
            "winners": outcome["winners"],
            "seed": self.match.seed,
            "commitment": self.match.commitment,
        }
        self._rebuild_room_part()
        self.record = {
            "id": self.match.id,
            "game": self.game.name,
            "options": self.options,
            "seed": self.match.seed,
            "commitment": self.match.commitment,
            "dealer": self.match.dealer,
            "room_code": self.code,
            "private": self.private,
            "players": self.match.players,
            "hands": self.game.hand_records(self.state),
            "actions": self.match.actions(),
            "scores": outcome["scores"],
            "winners": outcome["winners"],
            "started_at": self.match.started_at,
            "finished_at": self.match.finished_at,
        }

    # ---- bots ----------------------------------------------------------------------------

    def _bot_seats_to_act(self) -> list[int]:
        # Bots never play on alone: a table with nobody connected pauses until someone is back.
        if self.status != "playing" or not self.connections or self.closed or self.manager.stopping:
            return []
        return [s for s in self.game.to_act(self.state) if self.seats[s].is_botted]

    def _schedule_bots(self) -> None:
        if self._bot_task is not None and not self._bot_task.done():
            return
        if self._bot_seats_to_act():
            self._bot_task = asyncio.get_running_loop().create_task(self._run_bots())

    async def _run_bots(self) -> None:
        delay = pause = self.settings.bot_delay_ms / 1000
        while not self.closed:
            await asyncio.sleep(pause)
            pause = delay
            async with self.lock:
                seats = self._bot_seats_to_act()
                if not seats:
                    return
                if self.manager.change_refused(self.code) is not None:
                    pause = max(delay, 0.25)  # the database is down (say): look again later
                    continue
                seat = seats[0]
                state = self.state
                view = self.game.view(state, seat)
                if not (self.seats[seat].bot and self.seats[seat].level == "strong"):
                    self._bot_move(seat, view)
                    continue
            # A Strong bot thinks in a worker process, outside the lock: the table stays live.
            # It gets the view's own (compact) legal actions: all a seat is told, and cheap to send.
            action = await self._strong_choice(seat, view, view["legal"])
            async with self.lock:
                if self.manager.stopping or self.closed:
                    return  # the server stopped while it thought: nothing more is played
                if self.state is not state or self.manager.change_refused(self.code) is not None:
                    continue  # the table moved on (or may not change now): look again
                try:
                    self._apply(seat, action)
                except Exception:
                    log.exception("room %s: the Strong bot in seat %d chose badly; the Easy bot plays", self.code, seat)
                    self._bot_move(seat, view)

    def _bot_move(self, seat: int, view: dict | None = None) -> None:
        """An Easy bot plays one turn for ``seat`` (call under the lock)."""
        view = self.game.view(self.state, seat) if view is None else view
        legal = self.game.legal_actions(self.state, seat)
        try:
            self._apply(seat, self._easy_choice(seat, view, legal))
        except Exception:
            # A bot must never stall the table: log it and play its first legal action.
            log.exception("room %s: the bot in seat %d chose badly; playing a legal action", self.code, seat)
            self._apply(seat, legal[0])

    def _easy_choice(self, seat: int, view: dict, legal: list[dict]) -> dict:
        try:
            bot = self._bots.get(seat)
            if bot is None:
                bot = self._bots[seat] = get_bot(self.game.name, random.Random(f"{self.code}:{seat}"))
            return bot.choose(view, legal)
        except Exception:
            log.exception("room %s: the bot in seat %d failed; playing a legal action", self.code, seat)
            return legal[0]

    async def _strong_choice(self, seat: int, view: dict, legal: list[dict]) -> dict:
        seed = f"{self.code}:{seat}:{self.version}"
        # What every player sees of the table: which seats are Easy bots (the bot reads their play).
        easy = [s.index for s in self.seats if s.bot and s.level != "strong"]
        try:
            return await self.manager.bot_pool.choose(self.game.name, self.options, seed, view, legal, easy)
        except Exception:
            if self.manager.stopping:  # the pool is going with the server: not a failure
                return legal[0]  # never played: the caller sees the stop first
            log.exception("room %s: the Strong bot in seat %d failed; the Easy bot plays", self.code, seat)
            return self._easy_choice(seat, view, self.game.legal_actions(self.state, seat))

    # ---- the turn timer --------------------------------------------------------------------

    def _arm_timer(self) -> None:
        """Give the people to act now a fresh turn on the clock (under the lock, before broadcasting)."""
        people = [] if self.status != "playing" else [
            s for s in self.game.to_act(self.state) if not self.seats[s].is_botted
        ]
        if self.timer.arm(people, self._turn_expired):
            self._rebuild_room_part()

    async def _turn_expired(self, deadline: int) -> None:
        """The clock ran out: a bot plays this turn; a second miss in a row marks the seat away."""
        async with self.lock:
            if self.closed or self.manager.stopping or self.status != "playing" or self.timer.deadline != deadline:
                return  # someone acted in time, or the match is over
            if not self.connections:
                return  # nobody at the table: it waits, as bots do
            people = [s for s in self.game.to_act(self.state) if not self.seats[s].is_botted]
            if not people:
                return
            seat = people[0]
            if self.timer.missed(seat):
                self._set_away(seat, True)
            self._bot_move(seat)

    # ---- chat ----------------------------------------------------------------------------

    async def say(self, conn: Connection, text: str) -> None:
        s = self.settings
        if len(text) > s.chat_max_chars:
            raise RoomError("too_long", f"Chat lines are at most {s.chat_max_chars} characters.", 422)
        line = clean_text(text, s.chat_max_chars)
        if not line:
            raise RoomError("empty", "There is nothing to say in that line.", 422)
        seated = self.seat_of(conn.player_id) is not None
        if self.private and not seated:
            raise RoomError("players_only", "Only the players at this private table can chat.", 403)
        self._chat_limits.take(conn.player_id, seated, time.monotonic())
        async with self.lock:
            self._change("chat", {
                "seat": self.seat_of(conn.player_id),
                "name": conn.name or "Spectator",
                "text": line,
                "at": utcnow().isoformat(timespec="seconds"),
            })

    async def resync(self, conn: Connection) -> None:
        async with self.lock:
            self.snapshot(conn)

    def check_may_follow(self, player_id: str) -> None:
        """Raise unless ``player_id`` played this room's finished match and may set its next
        table ("Play again"): once, except that the host's choice replaces a non-host's."""
        if self.status != "finished":
            raise RoomError("not_finished", "The next game can be set up once this one has finished.", 409)
        if self.seat_of(player_id) is None:
            raise RoomError("not_a_player", "Only the players of this match can set up its next game.", 403)
        if self.next_code is not None and (self.next_by_host or player_id != self.host_id):
            raise RoomError("next_exists", "This table's next game is already set up: join it.", 409)

    async def claim_next(self, player_id: str, code: str) -> None:
        """Make ``code`` this room's next table (see ``check_may_follow``)."""
        async with self.lock:
            self.check_may_follow(player_id)
            self._change("next", {"code": code, "by_host": player_id == self.host_id})

    # ---- life cycle -------------------------------------------------------------------------

    def is_idle(self, now: float) -> bool:
        if self.connections:
            return False
        if self.status == "finished":
            return now - self.last_seen > min(self.settings.room_idle_close_s, self.settings.finished_room_close_s)
        return now - self.last_seen > self.settings.room_idle_close_s

    async def unpark(self) -> None:
        """A parked table opened again: its lobby row says where it stands."""
        async with self.lock:
            self._broadcast("unpark", {})

    async def retire(self, kind: str, code: int = 1001, reason: str = "room closed") -> None:
        """Take the room out of memory: ``park`` (it resumes when opened) or ``close`` (for good)."""
        async with self.lock:
            if self.closed:
                return
            self._broadcast(kind, {})
            self.closed = True
        self.manager.retiring(self)
        await self.close(code, reason)

    async def close(self, code: int = 1001, reason: str = "room closed") -> None:
        """Stop the room's tasks and close its sockets (its log stays as it is)."""
        self.closed = True
        self.timer.cancel()
        for task in [self._bot_task, *self._grace_tasks.values()]:
            if task is not None:
                task.cancel()
        if self._presence_due is not None:
            self._presence_due.cancel()
            self._presence_due = None
        # Forget them: a cancelled task keeps its traceback, whose frames hold this room, so
        # holding on to them made every closed room a cycle left for the full collection.
        self._bot_task = None
        self._grace_tasks.clear()
        for conn in list(self.connections):
            if not conn.closed:
                conn.closed = True
                await conn.closer(code, reason)


_ENTER = {
    "sit": Room._enter_sit,
    "stand": Room._enter_stand,
    "bot": Room._enter_bot,
    "leave": Room._enter_leave,
    "start": Room._enter_start,
    "act": Room._enter_act,
    "chat": Room._enter_chat,
    "next": Room._enter_next,
}
