"""What plays a table when no person does: its bots, its turn clock, and a dropped player's grace.

An ``Autoplay`` drives one room from outside, through the room's ``play`` (the same way in
as a person's action: checked, applied to the table, logged, fanned out) and ``seen`` (a seat
marked away). Easy bots choose under the room's lock; a Strong bot thinks in a worker process
(the bot pool) outside it, so the table stays live meanwhile. When the turn clock runs out, an
Easy bot plays that one turn for the seat and the action's log entry says so (``clock``).
A player who asked for it (``autoplay_forced``) has their only legal card played for them, as
their own action, after a random pause that waits outside the lock (``force``).

Bots never play on alone: a table with nobody connected pauses until someone is back, but for
a slow table (hours or days a decision), which plays on by its clock whoever is connected.
A slow clock's deadline is the table's own (armed by its fold, see server/rooms/timer.py):
the room only waits for it, and its player's seat has no grace period (nobody is expected to
stay connected for days).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import TYPE_CHECKING, Any, Protocol

from server.bots import Bot, get_bot
from server.notify.events import ClockRanOut
from server.rooms.host import BotPool, Host

if TYPE_CHECKING:
    from server.rooms.connection import Connection
    from server.rooms.table import Table

log = logging.getLogger("felt.rooms")

FORCED_PAUSE_S = (0.8, 2.0)  # a forced card is played after a random pause this long (seconds)


class Driven(Protocol):
    """What an ``Autoplay`` needs of its room (``server.rooms.room.Room``)."""

    code: str
    table: Table
    lock: asyncio.Lock
    connections: list[Connection]
    closed: bool
    host: Host

    def play(self, seat: int, action: dict, clock: bool = False) -> None: ...

    def set_away(self, seat: int, away: bool) -> None: ...

    def seen(self) -> None: ...


class Autoplay:
    """One room's bots, turn clock and grace periods (see the module docstring)."""

    # A room holds its Autoplay, which holds no room (its tasks do, while they run): a closed
    # room is freed by reference counting alone, with no cycle left for the collector.
    __slots__ = ("_bot_task", "_bots", "_clock_task", "_forced", "bot_delay_s", "grace_s", "grace_tasks", "pool")

    def __init__(self, pool: BotPool, bot_delay_s: float, grace_s: float) -> None:
        self.pool = pool
        self.bot_delay_s = bot_delay_s
        self.grace_s = grace_s
        self._bots: dict[int, Bot] = {}
        self._bot_task: asyncio.Task | None = None
        self._clock_task: asyncio.Task | None = None
        self.grace_tasks: dict[int, asyncio.Task] = {}
        self._forced: dict[int, tuple[Any, asyncio.Task]] = {}  # seat -> (the turn's state, its forced card)

    # ---- bots ----------------------------------------------------------------------------

    @staticmethod
    def _bot_seats(room: Driven) -> list[int]:
        if room.closed or room.host.stopping or not (room.connections or room.table.clock.slow):
            return []
        return room.table.bots_to_act()

    def schedule(self, room: Driven) -> None:
        """Let the bots play if one is to act (and they are not playing already)."""
        if self._bot_task is not None and not self._bot_task.done():
            return
        if self._bot_seats(room):
            self._bot_task = asyncio.get_running_loop().create_task(self._run_bots(room))

    async def _run_bots(self, room: Driven) -> None:
        delay = self.bot_delay_s
        pause = delay
        while not room.closed:
            await asyncio.sleep(pause)
            pause = delay
            async with room.lock:
                seats = self._bot_seats(room)
                if not seats:
                    return
                if room.host.change_refused(room.code) is not None:
                    pause = max(delay, 0.25)  # the database is down (say): look again later
                    continue
                seat, table = seats[0], room.table
                state = table.state
                view = table.game.view(state, seat)
                if not (table.seats[seat].bot and table.seats[seat].level == "strong"):
                    self.easy_move(room, seat, view)
                    continue
            # It gets the view's own (compact) legal actions: all a seat is told, and cheap to send.
            action = await self._strong_choice(room, seat, view, view["legal"])
            async with room.lock:
                if room.host.stopping or room.closed:
                    return  # the server stopped while it thought: nothing more is played
                if room.table.state is not state or room.host.change_refused(room.code) is not None:
                    continue  # the table moved on (or may not change now): look again
                if seat not in room.table.bots_to_act():
                    continue  # a person took the seat while the bot thought: theirs to play
                try:
                    room.play(seat, action)
                except Exception:
                    log.exception("room %s: the Strong bot in seat %d chose badly; the Easy bot plays", room.code, seat)
                    self.easy_move(room, seat, view)

    def easy_move(self, room: Driven, seat: int, view: dict | None = None, clock: bool = False) -> None:
        """An Easy bot plays one turn for ``seat`` (under the room's lock); ``clock``: for the clock."""
        table = room.table
        view = table.game.view(table.state, seat) if view is None else view
        legal = table.game.legal_actions(table.state, seat)
        try:
            room.play(seat, self._easy_choice(room, seat, view, legal), clock=clock)
        except Exception:
            # A bot must never stall the table: log it and play its first legal action.
            log.exception("room %s: the bot in seat %d chose badly; playing a legal action", room.code, seat)
            room.play(seat, legal[0], clock=clock)

    def _easy_choice(self, room: Driven, seat: int, view: dict, legal: list[dict]) -> dict:
        try:
            bot = self._bots.get(seat)
            if bot is None:
                bot = self._bots[seat] = get_bot(room.table.game.name, random.Random(f"{room.code}:{seat}"))
            return bot.choose(view, legal)
        except Exception:
            log.exception("room %s: the bot in seat %d failed; playing a legal action", room.code, seat)
            return legal[0]

    async def _strong_choice(self, room: Driven, seat: int, view: dict, legal: list[dict]) -> dict:
        table = room.table
        seed = f"{room.code}:{seat}:{table.version}"
        # What every player sees of the table: which seats are Easy bots (the bot reads their play).
        easy = [s.index for s in table.seats if s.bot and s.level != "strong"]
        try:
            return await self.pool.choose(table.game.name, table.options, seed, view, legal, easy)
        except Exception:
            if room.host.stopping:  # the pool is going with the server: not a failure
                return legal[0]  # never played: the caller sees the stop first
            log.exception("room %s: the Strong bot in seat %d failed; the Easy bot plays", room.code, seat)
            return self._easy_choice(room, seat, view, table.game.legal_actions(table.state, seat))

    # ---- a forced card (the player's ``autoplay_forced``) -----------------------------------

    def force(self, room: Driven, seat: int, state: Any, action: dict) -> None:
        """Play ``seat``'s only legal card ``action`` for its player after a random pause of
        ``FORCED_PAUSE_S`` (so that the pause does not tell the table it was forced), unless
        the table has moved on by then. The pause is waited outside the room's lock."""
        waiting = self._forced.get(seat)
        if waiting is not None and not waiting[1].done():
            if waiting[0] is state:
                return  # already waiting for this very turn
            waiting[1].cancel()  # a turn the table has moved on from (a take-back, say)
        pause = random.uniform(*FORCED_PAUSE_S)
        task = asyncio.get_running_loop().create_task(self._play_forced(room, seat, state, action, pause))
        self._forced[seat] = (state, task)

    async def _play_forced(self, room: Driven, seat: int, state: Any, action: dict, pause: float) -> None:
        await asyncio.sleep(pause)
        async with room.lock:
            if self._forced.get(seat, (None,))[0] is state:
                del self._forced[seat]
            table = room.table
            if room.closed or room.host.stopping or table.state is not state or seat not in table.people_to_act():
                return  # played already, or the table moved on
            if room.host.change_refused(room.code) is not None:
                return
            room.play(seat, action)

    # ---- the turn clock --------------------------------------------------------------------

    @property
    def clock_running(self) -> bool:
        """True while a deadline is being waited for (it has not run out, nor been cancelled)."""
        return self._clock_task is not None and not self._clock_task.done()

    def arm_clock(self, room: Driven) -> None:
        """Give the people to act now a fresh turn on the clock (under the lock, before the
        change goes out: the new deadline goes out with it)."""
        clock = room.table.clock
        if not clock.seconds:  # most tables have no clock: nothing to look at on every move
            return
        self._cancel_clock()
        if clock.slow:  # armed by the table's fold: wait for the deadline it has
            if clock.deadline is not None:
                delay = max(0.0, clock.deadline / 1000 - time.time())
                self._clock_task = asyncio.get_running_loop().create_task(self._wait(room, delay, clock.deadline))
            return
        room.table.arm_clock(time.time())
        if clock.deadline is not None:
            self._clock_task = asyncio.get_running_loop().create_task(self._wait(room, clock.delay, clock.deadline))

    async def _wait(self, room: Driven, delay: float, deadline: int) -> None:
        await asyncio.sleep(delay)
        await self._turn_expired(room, deadline)

    def _cancel_clock(self) -> None:
        task, self._clock_task = self._clock_task, None
        # The expiry's own task re-arms the clock through the room: it must not cancel itself.
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    async def _turn_expired(self, room: Driven, deadline: int) -> None:
        """The clock ran out: a bot plays this turn; a second miss in a row marks the seat away
        (a slow clock's third, counted by the table's fold)."""
        async with room.lock:
            table = room.table
            if room.closed or room.host.stopping or table.status != "playing" or table.clock.deadline != deadline:
                return  # someone acted in time, or the match is over
            slow = table.clock.slow
            if not room.connections and not slow:
                return  # nobody at the table: it waits, as bots do
            people = table.people_to_act()
            if not people or room.host.change_refused(room.code) is not None:
                return  # (a slow clock due and not played: server/rooms/slow_clocks.py looks again)
            seat = people[0]
            away = False if slow else table.turn_missed(seat)
            if away:
                room.set_away(seat, True)
            self.easy_move(room, seat, clock=True)
            who = table.seats[seat]
            away = away or (slow and who.away)
            if who.player_id is not None:
                name, seconds = who.name or "", table.clock.seconds
                watching = frozenset(c.player_id for c in room.connections if c.player_id is not None)
                room.host.notify(ClockRanOut(room.code, table.game.name, who.player_id, name, seconds, away, watching))

    # ---- a dropped player's grace ---------------------------------------------------------------

    def start_grace(self, room: Driven, seat_index: int) -> None:
        """The seat's player is gone: a bot plays it if they are not back within the grace period."""
        table = room.table
        table.dropped(seat_index, time.monotonic())
        if table.status == "playing" and seat_index not in self.grace_tasks and not table.clock.slow:
            self.grace_tasks[seat_index] = asyncio.get_running_loop().create_task(self._grace_expired(room, seat_index))

    def end_grace(self, seat_index: int) -> None:
        """The seat's player is back."""
        task = self.grace_tasks.pop(seat_index, None)
        if task is not None:
            task.cancel()

    async def _grace_expired(self, room: Driven, seat_index: int) -> None:
        await asyncio.sleep(self.grace_s)
        async with room.lock:
            self.grace_tasks.pop(seat_index, None)
            table = room.table
            seat = table.seats[seat_index]
            if room.closed or table.status != "playing" or seat.connections > 0 or seat.away:
                return
            if room.host.letting_go(room.code):
                return
            room.set_away(seat_index, True)
            room.seen()
            self.schedule(room)

    def stop(self) -> None:
        """Cancel every task. Forget them too: a cancelled task keeps its traceback, whose frames
        hold the room, so holding on to them made every closed room a cycle for the full collection."""
        forced = (task for _, task in self._forced.values())
        tasks: list[Any] = [self._bot_task, self._clock_task, *self.grace_tasks.values(), *forced]
        for task in tasks:
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        self._bot_task = self._clock_task = None
        self.grace_tasks.clear()
        self._forced.clear()
