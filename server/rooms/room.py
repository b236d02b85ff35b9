"""Rooms: the authoritative tables, kept in memory, one lock each.

A room holds its seats, the game's state, a version and the connections watching it. Every
change (a seat taken, an action applied, a chat line) happens under the room's lock, bumps
the version by one, and gives every connection a patch from *its own* last view to its new
view, put on that connection's own queue; a sender per connection drains it, so a slow or
dead client never delays the table. Views are built per seat (spectators get the public
view) before any diff, so a patch cannot carry what its receiver may not see.

The rooms know games only through the registry (``get_game``) and the engine surface, and
know the transport only as a ``Connection`` with a queue and a way to close it.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import random
import secrets
import time
import unicodedata
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import orjson

from server.bots import Bot, get_bot
from server.rooms.connection import Connection
from server.rooms.errors import RoomError
from server.rooms.fanout import Kept, PatchFrames
from server.rules.games import Game

if TYPE_CHECKING:
    from server.rooms.manager import RoomManager

log = logging.getLogger("felt.rooms")

# No 0/O, 1/I/L: codes are read aloud and typed. 31 symbols ** 8 > 2**39.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 8


def new_room_code() -> str:
    """A short, unguessable room code (about 40 bits)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalize_code(code: str) -> str:
    return code.strip().upper()


def new_seed() -> str:
    """A match seed from the operating system's secure random source (128 bits)."""
    return str(secrets.randbits(128))


def seed_commitment(seed: str) -> str:
    """The SHA-256 commitment to a seed, shown when the match starts."""
    return hashlib.sha256(seed.encode("ascii")).hexdigest()


def clean_text(text: str, limit: int) -> str:
    """Strip control characters and surrounding space; cut to ``limit`` characters."""
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" or ch == " ")
    return " ".join(kept.split())[:limit]


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def _encode(frame: dict) -> str:
    return orjson.dumps(frame).decode()


@dataclass(slots=True)
class Seat:
    index: int
    player_id: str | None = None
    name: str | None = None
    bot: bool = False
    level: str | None = None  # a bot seat's level: "easy" or "strong"
    away: bool = False  # a dropped player's seat, played by a bot until they return
    connections: int = 0
    dropped_at: float | None = None

    @property
    def is_botted(self) -> bool:
        return self.bot or self.away


@dataclass(slots=True)
class Match:
    """The match in play: what storage needs when it ends."""

    id: str
    seed: str
    commitment: str
    dealer: int
    started_at: datetime
    players: list[dict] = field(default_factory=list)
    # The action log as JSON, '{"seat":S,"action":{...}},' per move: about 45 bytes a move
    # where a list of dicts held about 420 (a long match's log is most of a room's memory).
    log: bytearray = field(default_factory=bytearray)

    def log_action(self, seat: int, encoded_action: bytes) -> None:
        """Append one applied action (``encoded_action`` is its JSON)."""
        self.log += b'{"seat":%d,"action":' % seat
        self.log += encoded_action
        self.log += b"},"

    def actions(self) -> list[dict]:
        """The whole log, in order: ``{"seat", "action"}`` per move."""
        if not self.log:
            return []
        return orjson.loads(b"[" + self.log[:-1] + b"]")


class Room:
    """One table: seats, the game state, a version, a lock, and its connections."""

    # A server holds thousands of rooms: no per-instance __dict__.
    __slots__ = (
        "manager", "settings", "code", "game", "options", "private", "host_id", "host_name",
        "created_at", "lock", "version", "status", "seats", "connections", "state", "match",
        "result", "next_code", "last_seen", "finished_at", "closed", "_bots", "_bot_task",
        "_grace_tasks", "_room_part", "_seats_part", "_chat_part", "_public_state", "_public",
        "_seat_keys",
    )

    def __init__(
        self,
        manager: RoomManager,
        code: str,
        game: Game,
        options: dict,
        seats: int,
        private: bool,
        host_id: str,
        host_name: str,
    ) -> None:
        self.manager = manager
        self.settings = manager.settings
        self.code = code
        self.game = game
        self.options = options
        self.private = private
        self.host_id = host_id
        self.host_name = host_name
        self.created_at = time.monotonic()
        self.lock = asyncio.Lock()
        self.version = 0
        self.status = "waiting"
        self.seats = [Seat(i) for i in range(seats)]
        self.connections: list[Connection] = []
        self.state: Any = None
        self.match: Match | None = None
        self.result: dict | None = None
        self.next_code: str | None = None
        self.last_seen = time.monotonic()
        self.finished_at: float | None = None
        self.closed = False
        self._bots: dict[int, Bot] = {}
        self._bot_task: asyncio.Task | None = None
        self._grace_tasks: dict[int, asyncio.Task] = {}
        # Parts of the view shared by every connection, rebuilt only when they change so
        # that the differ can skip them by identity.
        self._room_part: dict = {}
        self._seats_part: list = []
        self._chat_part: list = []
        # The game's public view (a spectator's), built once per state; the keys of a
        # seat's view that may differ from it (None: unknown, diff whole views).
        self._public_state: Any = None
        self._public: dict | None = None
        self._seat_keys: tuple[str, ...] | None = getattr(game, "seat_keys", None)
        self._rebuild_room_part()
        self._rebuild_seats_part()

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
        }

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat.index
        return None

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
        }

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
        view = cache[conn.player_id] = {
            "room": self._room_part,
            "seats": self._seats_part,
            "you": seat,
            "me": conn.me,
            "is_host": conn.player_id == self.host_id,
            "game": game_view,
            "chat": self._chat_part,
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
        """Send ``conn`` its whole view at the current version."""
        view = self._compose(conn, {})
        conn.view = self._kept(view, {})
        if not conn.push(_encode({"type": "snapshot", "v": self.version, "state": view})):
            self._drop_slow(conn)

    def _broadcast(self) -> None:
        """Bump the version and give every connection its own patch (call under the lock)."""
        self.version += 1
        v = self.version
        public = self._public_view()
        patches = PatchFrames(v, public, self._seat_keys)
        cache: dict = {}
        kept: dict = {}
        frames: dict[int, str] = {}
        for conn in list(self.connections):
            new = self._compose(conn, cache)
            key = id(conn.view)  # tabs of one player hold the same view: one diff for all
            frame = frames.get(key)
            if frame is None:
                frame = frames[key] = patches.frame(conn.view, new)
            conn.view = self._kept(new, kept)
            if not conn.push(frame):
                self._drop_slow(conn)

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
            if len(self.connections) >= self.settings.max_connections_per_room:
                raise RoomError("room_full", "This room has too many connections open.")
            self.connections.append(conn)
            self.last_seen = time.monotonic()
            seat_index = self.seat_of(conn.player_id)
            changed = False
            if seat_index is not None:
                seat = self.seats[seat_index]
                seat.connections += 1
                seat.dropped_at = None
                task = self._grace_tasks.pop(seat_index, None)
                if task:
                    task.cancel()
                if seat.away:
                    seat.away = False  # reclaimed at once
                self._rebuild_seats_part()
                changed = True
            if changed:
                self._broadcast_except(conn)
            self.snapshot(conn)
            self._schedule_bots()

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
            if seat_index is None:
                return
            seat = self.seats[seat_index]
            seat.connections = max(0, seat.connections - 1)
            if seat.connections == 0:
                seat.dropped_at = time.monotonic()
                if self.status == "playing":
                    self._grace_tasks[seat_index] = asyncio.get_running_loop().create_task(
                        self._grace_expired(seat_index, self.settings.reconnect_grace_s)
                    )
            self._rebuild_seats_part()
            self._broadcast()

    async def _grace_expired(self, seat_index: int, delay: float) -> None:
        await asyncio.sleep(delay)
        async with self.lock:
            self._grace_tasks.pop(seat_index, None)
            seat = self.seats[seat_index]
            if self.status != "playing" or seat.connections > 0 or seat.away:
                return
            seat.away = True
            self._rebuild_seats_part()
            self._broadcast()
            self._schedule_bots()

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
            self._require_waiting()
            if conn.player_id is None:
                raise RoomError("unauthorized", "Connect with a player token to take a seat.")
            seat = self._check_seat_index(seat_index)
            current = self.seat_of(conn.player_id)
            if current == seat_index:
                raise RoomError("seat_taken", "You are already in that seat.")
            if seat.player_id is not None or seat.bot:
                raise RoomError("seat_taken", f"Seat {seat_index} is taken.")
            if current is not None:
                self.seats[current] = Seat(current)
            seat.player_id = conn.player_id
            seat.name = conn.name
            seat.connections = sum(1 for c in self.connections if c.player_id == conn.player_id)
            self._rebuild_seats_part()
            self._broadcast()

    async def stand(self, conn: Connection) -> None:
        async with self.lock:
            self._require_waiting()
            current = self.seat_of(conn.player_id)
            if current is None:
                raise RoomError("not_seated", "You are not sitting at this table.")
            self.seats[current] = Seat(current)
            self._rebuild_seats_part()
            self._broadcast()

    async def set_bot(self, conn: Connection, seat_index: int, remove: bool, level: str = "easy") -> None:
        async with self.lock:
            if conn.player_id != self.host_id:
                raise RoomError("not_host", "Only the host can add or remove bots.", 403)
            self._require_waiting()
            seat = self._check_seat_index(seat_index)
            if remove:
                if not seat.bot:
                    raise RoomError("bad_seat", f"There is no bot in seat {seat_index}.")
                self.seats[seat_index] = Seat(seat_index)
            else:
                if seat.player_id is not None or seat.bot:
                    raise RoomError("seat_taken", f"Seat {seat_index} is taken.")
                seat.bot = True
                seat.level = level
                seat.name = f"{'Strong bot' if level == 'strong' else 'Bot'} {seat_index + 1}"
            self._rebuild_seats_part()
            self._broadcast()

    async def start(self, conn: Connection) -> None:
        async with self.lock:
            if conn.player_id != self.host_id:
                raise RoomError("not_host", "Only the host can start the game.", 403)
            self._require_waiting()
            empty = [s.index for s in self.seats if s.player_id is None and not s.bot]
            if empty:
                raise RoomError("not_full", f"Every seat must be filled first (empty: {', '.join(map(str, empty))}).")
            self._start_match()
            self._broadcast()
            self._schedule_bots()

    def _start_match(self) -> None:
        seed = new_seed()
        players = len(self.seats)
        dealer = random.Random(seed).randrange(players)
        self.state = self.game.new_game(players=players, options=self.options, seed=int(seed), dealer=dealer)
        self.match = Match(
            id=secrets.token_hex(8),
            seed=seed,
            commitment=seed_commitment(seed),
            dealer=dealer,
            started_at=utcnow(),
            players=[
                {"seat": s.index, "name": s.name, "player_id": s.player_id, "bot": s.bot, "level": s.level}
                for s in self.seats
            ],
        )
        self.status = "playing"
        self.result = None
        self._rebuild_room_part()

    # ---- actions -----------------------------------------------------------------------

    async def act(self, conn: Connection, action: dict, v: int) -> None:
        async with self.lock:
            if self.status != "playing":
                raise RoomError("not_playing", "There is no game in play in this room.")
            seat = self.seat_of(conn.player_id)
            if seat is None:
                raise RoomError("not_seated", "Only the players at the table can act; you are watching.", 403)
            if v != self.version:
                raise RoomError("stale", f"Your view is out of date (version {v}, the table is at {self.version}).")
            self._apply(seat, action)

    def _apply(self, seat: int, action: dict) -> None:
        # Encoded first: an action that cannot be stored is refused before anything changes.
        try:
            encoded = orjson.dumps(action)
        except TypeError:
            raise RoomError("bad_action", "That action cannot be recorded: use plain JSON values.", 422) from None
        # GameError propagates to the edge with its sentence; nothing has changed then.
        self.state = self.game.apply(self.state, seat, action)
        assert self.match is not None
        self.match.log_action(seat, encoded)
        outcome = self.game.outcome(self.state)
        if outcome is not None:
            self._finish(outcome)
        self._broadcast()
        self._schedule_bots()

    def _finish(self, outcome: dict) -> None:
        assert self.match is not None
        self.status = "finished"
        self.finished_at = time.monotonic()
        self.result = {
            "match_id": self.match.id,
            "scores": outcome["scores"],
            "winners": outcome["winners"],
            "seed": self.match.seed,
            "commitment": self.match.commitment,
        }
        self._rebuild_room_part()
        record = {
            "id": self.match.id,
            "game": self.game.name,
            "options": self.options,
            "seed": self.match.seed,
            "commitment": self.match.commitment,
            "dealer": self.match.dealer,
            "room_code": self.code,
            "players": self.match.players,
            "hands": self.game.hand_records(self.state),
            "actions": self.match.actions(),
            "scores": outcome["scores"],
            "winners": outcome["winners"],
            "started_at": self.match.started_at,
            "finished_at": utcnow(),
        }
        self.manager.recorder.submit(record)  # never blocks: written off the loop by the recorder

    # ---- bots ----------------------------------------------------------------------------

    def _bot_seats_to_act(self) -> list[int]:
        if self.status != "playing":
            return []
        return [s for s in self.game.to_act(self.state) if self.seats[s].is_botted]

    def _schedule_bots(self) -> None:
        if self._bot_task is not None and not self._bot_task.done():
            return
        if self._bot_seats_to_act():
            self._bot_task = asyncio.get_running_loop().create_task(self._run_bots())

    async def _run_bots(self) -> None:
        delay = self.settings.bot_delay_ms / 1000
        while not self.closed:
            await asyncio.sleep(delay)
            async with self.lock:
                seats = self._bot_seats_to_act()
                if not seats:
                    return
                seat = seats[0]
                state = self.state
                view = self.game.view(state, seat)
                if not (self.seats[seat].bot and self.seats[seat].level == "strong"):
                    self._apply(seat, self._easy_choice(seat, view, self.game.legal_actions(state, seat)))
                    continue
            # A Strong bot thinks in a worker process, outside the lock: the table stays live.
            # It gets the view's own (compact) legal actions: all a seat is told, and cheap to send.
            action = await self._strong_choice(seat, view, view["legal"])
            async with self.lock:
                if self.state is not state or self.closed:
                    continue  # the table moved on while it thought: look again
                try:
                    self._apply(seat, action)
                except Exception:
                    log.exception("room %s: the Strong bot in seat %d chose badly; the Easy bot plays", self.code, seat)
                    self._apply(seat, self._easy_choice(seat, view, self.game.legal_actions(state, seat)))

    def _easy_choice(self, seat: int, view: dict, legal: list[dict]) -> dict:
        try:
            bot = self._bots.get(seat)
            if bot is None:
                bot = self._bots[seat] = get_bot(self.game.name, random.Random(f"{self.code}:{seat}"))
            return bot.choose(view, legal)
        except Exception:
            # A bot must never stall the table: log it and play its first legal action.
            log.exception("room %s: the bot in seat %d failed; playing a legal action", self.code, seat)
            return legal[0]

    async def _strong_choice(self, seat: int, view: dict, legal: list[dict]) -> dict:
        seed = f"{self.code}:{seat}:{self.version}"
        try:
            return await self.manager.bot_pool.choose(self.game.name, self.options, seed, view, legal)
        except Exception:
            log.exception("room %s: the Strong bot in seat %d failed; the Easy bot plays", self.code, seat)
            return self._easy_choice(seat, view, legal)

    # ---- chat ----------------------------------------------------------------------------

    async def say(self, conn: Connection, text: str) -> None:
        s = self.settings
        now = time.monotonic()
        if conn.chat_times is None:
            conn.chat_times = deque()
        while conn.chat_times and now - conn.chat_times[0] > 60:
            conn.chat_times.popleft()
        if len(conn.chat_times) >= s.chat_per_minute:
            raise RoomError("rate_limited", "You are sending chat too fast; wait a moment.", 429)
        if len(text) > s.chat_max_chars:
            raise RoomError("too_long", f"Chat lines are at most {s.chat_max_chars} characters.", 422)
        line = clean_text(text, s.chat_max_chars)
        if not line:
            raise RoomError("empty", "There is nothing to say in that line.", 422)
        conn.chat_times.append(now)
        async with self.lock:
            said = {
                "seat": self.seat_of(conn.player_id),
                "name": conn.name or "Spectator",
                "text": line,
                "at": utcnow().isoformat(timespec="seconds"),
            }
            # The last ``chat_history`` lines, a new list each time (the differ compares by identity).
            keep = self.settings.chat_history - 1
            self._chat_part = [*(self._chat_part[-keep:] if keep else ()), said]
            self._broadcast()

    async def resync(self, conn: Connection) -> None:
        async with self.lock:
            self.snapshot(conn)

    async def set_next(self, code: str) -> None:
        async with self.lock:
            self.next_code = code
            self._rebuild_room_part()
            self._broadcast()

    # ---- life cycle -------------------------------------------------------------------------

    def is_idle(self, now: float) -> bool:
        if self.connections:
            return False
        if self.status == "finished":
            return now - self.last_seen > min(self.settings.room_idle_close_s, self.settings.finished_room_close_s)
        if self.status == "playing" and self._bot_seats_to_act() and all(s.is_botted for s in self.seats):
            return False  # bots are finishing the match; it will be recorded
        return now - self.last_seen > self.settings.room_idle_close_s

    async def close(self, code: int = 1001, reason: str = "room closed") -> None:
        self.closed = True
        for task in [self._bot_task, *self._grace_tasks.values()]:
            if task is not None:
                task.cancel()
        for conn in list(self.connections):
            if not conn.closed:
                conn.closed = True
                await conn.closer(code, reason)


