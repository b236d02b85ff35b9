"""Rooms: the live tables, kept in memory, one lock each, and the sockets watching them.

A room holds a ``Table`` (server/rooms/table.py: the seats, the game, the chat, the clock,
all changed only by log entries), the lock, its connections, the frames waiting to be durable
and the writer. Every change goes through ``submit`` under the lock: checked, applied to the
table as one log entry at the next version, appended to the writer, and fanned out: every
connection gets a patch from *its own* last view to its new view. Those frames are held until
the writer reports the version durable, then put on each connection's own queue, in version
order; a sender per connection drains it, so a slow or dead client never delays the table.
Views are built per seat (spectators get the public view) before any diff, so a patch cannot
carry what its receiver may not see. Bots, the turn clock and a dropped player's grace drive
the room from outside (server/rooms/autoplay.py) through the same ``play``. Requests for a
bot's seat, claims, and the courtesies (take-backs, chosen and forced cards) are the room's
parts (server/rooms/takeover.py, claims.py, courtesies.py): each is given the lock, the table,
``submit`` and the little else it uses, and changes the table only through them.

Who is connected is not table history: a socket opening or closing changes the seats part
of the view at once (a new connection's snapshot is current) but tells the others only
``presence_delay_s`` later, in one ``seen`` change, and only if what they were shown differs
by then (or sooner, with whatever change comes first). A reconnect within that delay, or a
storm of them, costs the log nothing and sends the others nothing; each version is still
logged, durable before it is shown, and numbered one after the last.

The rooms know games only through the registry and the engine surface, storage only as an
``EntrySink`` (server/log_entry.py), the directory that holds them only as a ``Host``, and the
transport only as a ``Connection`` with a queue and a way to close it.
"""

from __future__ import annotations

import asyncio
import functools
import random
import secrets
import time

import orjson

from server.budget import LoopBudget
from server.log_entry import LogEntry
from server.notify.events import MatchFinished
from server.rooms.autoplay import Autoplay
from server.rooms.chat import ChatLimits
from server.rooms.claims import TableClaims
from server.rooms.connection import Connection
from server.rooms.courtesies import Courtesies
from server.rooms.delivery import Delivery
from server.rooms.errors import RoomError
from server.rooms.fanout import compose, fan_out, kept_of
from server.rooms.host import Host
from server.rooms.messages import snapshot_frame
from server.rooms.seats import clean_text, new_seed, utcnow
from server.rooms.table import FINISHED, ROW, SEATED, TURN, Table, open_table, replay, summary
from server.rooms.takeover import SeatTakeover
from server.rooms.tidings import mentioned, table_started, your_turn
from server.rooms.watching import send_away


class Room:
    """One live table: its ``Table``, a lock, its connections and the frames not yet durable."""

    # A server holds thousands of rooms: no per-instance __dict__.
    __slots__ = (
        "_chat_limits",
        "_presence_due",
        "autoplay",
        "closed",
        "code",
        "connections",
        "created_at",
        "delivery",
        "host",
        "last_seen",
        "lock",
        "logged",
        "settings",
        "table",
        "writer",
    )

    def __init__(self, host: Host, table: Table) -> None:
        self.host = host
        self.settings = settings = host.settings
        self.writer = host.writer
        self.logged = settings.table_log  # False only to measure the log's cost
        self.code = table.code
        self.table = table
        self.lock = asyncio.Lock()
        self.delivery = Delivery(table.code, table.version, self.logged)
        self.connections: list[Connection] = []
        self.created_at = self.last_seen = time.monotonic()
        self.closed = False
        self._presence_due: asyncio.TimerHandle | None = None  # the pending ``seen`` (see above)
        self._chat_limits = ChatLimits(settings.chat_per_minute, settings.chat_spectators_per_minute)
        self.autoplay = Autoplay(host.bot_pool, settings.bot_delay_ms / 1000, settings.reconnect_grace_s)

    @classmethod
    def open(cls, host: Host, code: str, created: dict) -> Room:
        """A new room from its ``created`` entry's data, at version 0 (``submit`` that entry next)."""
        return cls(host, open_table(code, created, host.settings.turn_timer_scale, host.settings.chat_history))

    @classmethod
    async def rebuild_in_turns(cls, host: Host, code: str, entries: list[LogEntry]) -> Room:
        """The room as its log leaves it (every entry applied again, in order, through the engines), on
        the event loop, handing it back every half millisecond: a long match is milliseconds of
        engine work (in a thread it held the interpreter lock: ``bench.restore_turns``)."""
        budget, s = LoopBudget(), host.settings
        steps = replay(entries, s.turn_timer_scale, s.chat_history)
        table = next(steps)  # the one table every step of the fold yields
        for _ in steps:
            await budget.spend()
        return cls(host, table)

    # ---- the table, as the directory and the edges read it ------------------------------------

    status = property(lambda self: self.table.status)
    version = property(lambda self: self.table.version)
    seats = property(lambda self: self.table.seats)
    state = property(lambda self: self.table.state)
    game = property(lambda self: self.table.game)
    match = property(lambda self: self.table.match)
    result = property(lambda self: self.table.result)
    host_id = property(lambda self: self.table.host_id)
    private = property(lambda self: self.table.private)

    def summary(self) -> dict:
        return summary(self.table)

    def seat_of(self, player_id: str | None) -> int | None:
        return self.table.seat_of(player_id)

    def may_sit(self, player_id: str | None) -> bool:
        return self.table.may_sit(player_id)

    def check_may_follow(self, player_id: str) -> None:
        self.table.check_may_follow(player_id)

    # ---- its parts, each with one job, given only what it uses (made when asked, not kept: a
    # part holds the room through ``submit``, and a room holding it would be a cycle) ------------

    @property
    def takeover(self) -> SeatTakeover:  # a bot's seat asked for, a slow seat counted, "I'm back"
        arm_clock = functools.partial(self.autoplay.arm_clock, self)
        return SeatTakeover(self.code, self.lock, self.table, self.host, self.submit, self.seen, arm_clock)

    @property
    def claims(self) -> TableClaims:  # a seated player's claim of the rest of the tricks
        return TableClaims(self.lock, self.table, self.submit, self.play)

    @property
    def courtesies(self) -> Courtesies:  # take-backs, a card chosen ahead, a forced card played
        force = functools.partial(self.autoplay.force, self)
        return Courtesies(self.lock, self.table, self.connections, self.submit, self.play, force)

    # ---- the one way in: a change ------------------------------------------------------------

    def submit(self, kind: str, data: dict, expected: int | None = None) -> None:
        """Make one change (under the lock): checked, applied, logged, shown once durable.

        ``expected``: the version the asker saw (an action must be asked of the current one).
        The table refuses (a game rule, say) before anything has changed.
        """
        refused = self.host.change_refused(self.code)  # the server stops, the lease is gone...
        if refused is not None:  # a shared instance: raised afresh, not onto its last traceback
            raise refused.with_traceback(None)
        if expected is not None and expected != self.table.version:
            raise RoomError("stale", f"Your view is out of date (version {expected}, the table is at {self.version}).")
        self.enter(kind, data)

    def enter(self, kind: str, data: dict) -> None:
        """Apply one entry to the table, log it and fan it out (under the lock, nothing checked:
        ``submit``'s second half, and the room's own entries: seen, owner, unpark, park, close)."""
        table = self.table
        entry = LogEntry(self.code, table.version + 1, kind, data, time.time())
        effects = table.apply(entry)
        for effect, value in effects:  # before the views are built: they go out with the change
            if effect is TURN:
                self.autoplay.arm_clock(self)
            elif effect is SEATED:
                self._count_sockets(value)
            elif effect is ROW:
                entry.table = value
        self._fan_out(entry)
        for effect, value in effects:  # after the entry: what it made follows it
            if effect is TURN:
                courtesies = self.courtesies
                if courtesies.play_preselected():
                    continue  # played at once, as that seat's own action: nobody is woken for it
                self.autoplay.schedule(self)
                courtesies.forced_plays()
                self.host.notify(your_turn(table, self.connections))
            elif effect is FINISHED:
                self.writer.record(value)  # never blocks: written off the loop, after the entry
                self.host.notify(MatchFinished(self.code, table.game.name, value))
            elif effect is ROW and self.logged:
                self.host.table_changed(self.code, value)

    def play(self, seat: int, action: dict, clock: bool = False, expected: int | None = None) -> None:
        """One action for ``seat``: a person's, a bot's, or the clock's (``clock``)."""
        action = self.table.game.canonical_action(action)  # extra fields ("note", "seat") are never stored
        # Encoded first: an action that cannot be stored is refused before anything changes.
        try:
            orjson.dumps(action)
        except TypeError:
            raise RoomError("bad_action", "That action cannot be recorded: use plain JSON values.", 422) from None
        data = {"seat": seat, "action": action, "clock": True} if clock else {"seat": seat, "action": action}
        self.submit("act", data, expected)
        self.host.action_applied()

    def seen(self, back: int | None = None) -> None:
        """Show the seats as they are now (who is connected or away): a ``seen`` entry; at a
        slow table a seat whose player is ``back`` from away says so (its away is history)."""
        self.enter("seen", {"back": back} if back is not None and self.table.clock.slow else {})

    def set_away(self, seat: int, away: bool) -> None:
        self.table.set_away(seat, away)

    def _count_sockets(self, seat_index: int) -> None:
        player_id = self.table.seats[seat_index].player_id
        self.table.sockets(seat_index, sum(1 for c in self.connections if c.player_id == player_id))

    # ---- fan-out: views, patches, held frames ----------------------------------------------------

    def sent_view(self, conn: Connection) -> dict | None:
        """The whole view ``conn`` was last sent (rebuilt from what it keeps; for tests and tools)."""
        return None if conn.view is None else conn.view.whole(self.table.seat_keys)

    def snapshot(self, conn: Connection) -> None:
        """Send ``conn`` its whole view at the current version (once that version is durable)."""
        view = compose(self.table, conn, {})
        conn.view = kept_of(self.table, view, {})
        self.delivery.snapshot(conn, snapshot_frame(self.version, view))

    def _fan_out(self, entry: LogEntry) -> None:
        """Every connection's patch to ``entry``'s version, held until it is durable; the entry
        goes to the writer after (a writer may report it durable at once)."""
        self.delivery.send(entry.version, fan_out(self.table, self.connections))
        if self.logged:
            self.writer.append(entry)

    async def until_durable(self, timeout: float) -> bool:
        """Wait until the current version is durable (an answer that says a change was made,
        such as the new table's 201, must not come before it); False after ``timeout`` s."""
        return await self.delivery.until_durable(self.version, timeout)

    # ---- connections ---------------------------------------------------------------------

    async def join(self, conn: Connection) -> None:
        """A socket opens: attach it, mark its seat connected, send the snapshot."""
        takeover = self.takeover
        async with takeover.following(conn.player_id) as follows, self.lock:
            table = self.table
            if self.closed:
                raise RoomError("not_found", f"There is no open room {self.code!r}.", 404)
            if follows and table.status == "waiting" and conn.player_id in table.follow_seats:
                takeover.seat_follower(conn)
            if not table.may_sit(conn.player_id):
                watching = sum(1 for c in self.connections if table.seat_of(c.player_id) is None)
                if watching >= self.settings.max_spectators_per_room:
                    raise RoomError("room_full", "This room has as many spectators as it can take.")
            self.connections.append(conn)
            self.last_seen = time.monotonic()
            if table.status == "playing" and not self.autoplay.clock_running:
                self.autoplay.arm_clock(self)  # it ran out while nobody was here: a fresh turn now
            seat_index = table.seat_of(conn.player_id)
            if seat_index is not None:
                self.autoplay.end_grace(seat_index)
                if table.socket_opened(
                    seat_index
                ):  # a bot was playing the seat: it is reclaimed at once, for all to see
                    self._seen_except(conn, seat_index)
                else:
                    self._presence_changed()
            self.snapshot(conn)
            self.autoplay.schedule(self)

    def _seen_except(self, newcomer: Connection, back: int) -> None:
        # The newcomer gets a snapshot at the new version instead of a patch.
        self.connections.remove(newcomer)
        try:
            self.seen(back)
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
            seat_index = self.table.seat_of(conn.player_id)
            if seat_index is None or self.closed or self.host.letting_go(self.code):
                return
            if self.table.socket_closed(seat_index) == 0:
                self.autoplay.start_grace(self, seat_index)
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
        while the lock is held, or the table may not change now, it looks again a delay later."""
        self._presence_due = None
        if self.closed or self.host.letting_go(self.code):
            return
        if self.lock.locked() or self.host.change_refused(self.code) is not None:
            self._presence_changed()
            return
        seats = self.table.seats_part
        for conn in self.connections:
            kept = conn.view
            if kept is not None and kept.seats is not seats and kept.seats != seats:
                self.seen()
                return

    def restored(self) -> None:
        """After a rebuild: every seated player's grace period and the turn clock start now; a
        finished match goes to storage again (saving is idempotent: a record lost in a crash is not)."""
        for seat in self.table.seats:
            if seat.player_id is not None:
                self.autoplay.start_grace(self, seat.index)
        self.autoplay.arm_clock(self)
        self.autoplay.schedule(self)  # a slow table's bots play on whoever is connected
        if self.table.record is not None:
            self.writer.record(self.table.record)

    # ---- what players ask ----------------------------------------------------------------

    async def sit(self, conn: Connection, seat_index: int) -> None:
        takeover = self.takeover
        async with takeover.slow_seat(conn.player_id), self.lock:
            if takeover.back_in_seat(conn, seat_index):
                return
            self.table.check_sit(conn.player_id, seat_index, time.time())
            self.submit("sit", {"seat": seat_index, "player_id": conn.player_id, "name": conn.name})

    async def stand(self, conn: Connection) -> None:
        async with self.lock:
            self.submit("stand", {"seat": self.table.check_stand(conn.player_id)})

    async def set_bot(self, conn: Connection, seat_index: int, remove: bool, level: str = "easy") -> None:
        async with self.lock:
            self.table.check_bot(conn.player_id, seat_index, remove, time.time())
            self.submit("bot", {"seat": seat_index, "remove": remove, "level": level})

    async def start(self, conn: Connection) -> None:
        async with self.lock:
            self.table.check_start(conn.player_id)
            seed = new_seed()
            self.submit(
                "start",
                {
                    "match_id": secrets.token_hex(8),
                    "seed": seed,
                    "dealer": random.Random(seed).randrange(len(self.table.seats)),
                    "started_at": utcnow().isoformat(),
                },
            )
            self.host.notify(table_started(self.table, self.connections))
            send_away(self.table, self.connections)  # the watchers the table does not take

    async def leave_table(self, player_id: str | None) -> None:
        """A player leaves for good: before the start the seat empties, during play a bot keeps it."""
        async with self.lock:
            self.submit("leave", {"seat": self.table.check_leave(player_id)})
            self.autoplay.schedule(self)

    async def close_table(self, player_id: str | None) -> None:
        """The host closes a table that has not started: everyone is sent away."""
        async with self.lock:
            self.table.require_host(player_id, "close the table")
            self.table.require_waiting()
        await self.retire("close", 1000, "the host closed the table")

    async def act(self, conn: Connection, action: dict, v: int) -> None:
        async with self.lock:
            seat = self.table.check_act(conn.player_id)
            away = self.table.seats[seat].away
            if away and self.table.clock.slow and v == self.version and self.host.change_refused(self.code) is None:
                self.seen(seat)  # a slow table's away is history: the player is back, logged first
                away, v = False, self.version
            if away:
                self.set_away(seat, False)  # acting yourself takes the seat back from the bot
            try:
                # A node that may no longer change the table (stopping, or its lease gone: another
                # node may own it now) says so before judging the view: its version is not the table's.
                self.play(seat, action, expected=v)
            except Exception:
                if away:
                    self.set_away(seat, True)  # refused: nothing changes
                raise
            self.table.person_acted(seat)

    async def say(self, conn: Connection, text: str) -> None:
        line = chat_line(text, self.settings.chat_max_chars)
        seated = self.table.seat_of(conn.player_id) is not None
        if self.table.private and not seated:
            raise RoomError("players_only", "Only the players at this private table can chat.", 403)
        self._chat_limits.take(conn.player_id, seated, time.monotonic())
        name = conn.name or "Spectator"
        async with self.lock:
            at = utcnow().isoformat(timespec="seconds")
            self.submit("chat", {"seat": self.table.seat_of(conn.player_id), "name": name, "text": line, "at": at})
            for mention in mentioned(self.table, conn.player_id, name, line, self.connections):
                self.host.notify(mention)

    async def resync(self, conn: Connection) -> None:
        async with self.lock:
            self.snapshot(conn)

    async def claim_next(self, player_id: str, code: str, rotated: bool = False) -> None:
        """Make ``code`` this room's next table (see ``Table.check_may_follow``); ``rotated``:
        its players sit there as rotated partners, and their pages take them there."""
        async with self.lock:
            self.table.check_may_follow(player_id)
            data = {"code": code, "by_host": player_id == self.table.host_id}
            self.submit("next", {**data, "rotated": True} if rotated else data)

    # ---- life cycle -------------------------------------------------------------------------

    async def unpark(self) -> None:
        """A parked table opened again: its lobby row says where it stands."""
        async with self.lock:
            self.enter("unpark", {})

    async def retire(self, kind: str, code: int = 1001, reason: str = "room closed") -> None:
        """Take the room out of memory: ``park`` (it resumes when opened) or ``close`` (for good)."""
        async with self.lock:
            if self.closed:
                return
            self.enter(kind, {})
            self.closed = True
        self.host.retiring(self)
        await self.close(code, reason)

    async def close(self, code: int = 1001, reason: str = "room closed") -> None:
        """Stop the room's tasks and close its sockets (its log stays as it is)."""
        self.closed = True
        self.autoplay.stop()
        if self._presence_due is not None:
            self._presence_due.cancel()
            self._presence_due = None
        for conn in list(self.connections):
            if not conn.closed:
                conn.closed = True
                await conn.closer(code, reason)


def chat_line(text: str, max_chars: int) -> str:
    """A chat line as it is said (control characters out, spaces folded), or the RoomError
    that refuses it (too long, or nothing left to say)."""
    if len(text) > max_chars:
        raise RoomError("too_long", f"Chat lines are at most {max_chars} characters.", 422)
    line = clean_text(text, max_chars)
    if not line:
        raise RoomError("empty", "There is nothing to say in that line.", 422)
    return line
