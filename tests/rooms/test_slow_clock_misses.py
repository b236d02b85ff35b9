"""A slow clock (hours or days a decision) plays on with nobody connected, marks a seat away
after three misses in a row, and keeps its deadline, misses and away seats in the table's log:
the fold of that log has the same ones. No network: rooms in memory with a recording channel."""

from __future__ import annotations

import asyncio

import pytest

from server.config import Settings
from server.notify.events import ClockRanOut
from server.rooms import Connection, RoomError, RoomManager
from server.rooms.table import fold
from server.rooms.timer import TURN_TIMER_CHOICES
from server.storage.writer import MemoryWriter

HOUR = 3600


class Recorder:
    def __init__(self) -> None:
        self.events: list = []

    def offer(self, event) -> None:
        self.events.append(event)

    async def close(self) -> None:
        pass

    def of(self, kind) -> list:
        return [e for e in self.events if isinstance(e, kind)]


def conn(player_id: str, name: str) -> Connection:
    async def closer(code: int, reason: str) -> None:
        pass

    return Connection(player_id, name, closer, limit=4096)


async def until(predicate, timeout: float = 20.0) -> None:
    for _ in range(int(timeout / 0.005)):
        if predicate():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the condition never came true")


def manager_with(seen: Recorder, **settings) -> RoomManager:
    manager = RoomManager(Settings(**{"bot_delay_ms": 0, **settings}), MemoryWriter)
    manager.notifier.add(seen)
    return manager


def test_the_slow_clocks_are_choices_beside_the_fast_ones():
    assert TURN_TIMER_CHOICES == (0, 30, 60, 120, 3600, 43200, 86400, 259200)


async def test_a_slow_clock_plays_with_nobody_there_and_the_third_miss_in_a_row_marks_the_seat_away():
    seen = Recorder()
    manager = manager_with(seen, turn_timer_scale=0.05 / HOUR)  # an hour a decision: 50 ms
    room = manager.create("oh_hell", {"max_cards": 7, "rebound": False}, 4, False, "p0", "Ann", turn_timer=HOUR)
    ann = conn("p0", "Ann")
    await room.join(ann)
    for seat in (1, 2, 3):
        await room.set_bot(ann, seat, remove=False)
    await room.start(ann)
    await room.leave(ann)  # nobody is connected: a slow clock runs all the same
    assert not room.connections
    await until(lambda: len(seen.of(ClockRanOut)) == 3 or room.status != "playing")
    ran_out = seen.of(ClockRanOut)
    assert [e.away for e in ran_out] == [False, False, True]
    assert all(e.player_id == "p0" and e.clock_s == HOUR for e in ran_out)
    assert room.table.seats[0].away
    # Away, the bot plays the seat on: the clock plays no more for it, the match goes on to its end.
    await until(lambda: room.status == "finished", timeout=60)
    assert len(seen.of(ClockRanOut)) == 3
    log = manager.writer.log[room.code]
    assert sum(1 for e in log if e.kind == "act" and e.data.get("clock")) == 3
    await manager.close()


async def test_a_slow_tables_deadline_misses_and_away_seat_are_the_folds_and_coming_back_is_logged():
    seen = Recorder()
    manager = manager_with(seen, turn_timer_scale=0.05 / HOUR)
    room = manager.create("oh_hell", {"max_cards": 7, "rebound": False}, 4, False, "p0", "Ann", turn_timer=HOUR)
    ann = conn("p0", "Ann")
    await room.join(ann)
    for seat in (1, 2, 3):
        await room.set_bot(ann, seat, remove=False)
    await room.start(ann)
    await room.leave(ann)
    await until(lambda: room.table.seats[0].away or room.status != "playing")
    assert room.table.seats[0].away
    log = manager.writer.log[room.code]
    folded = fold(log, manager.settings.turn_timer_scale)
    assert folded.seats[0].away and folded.clock.deadline == room.table.clock.deadline
    # Ann comes back: the seat is hers again, and the log says so.
    await room.join(conn("p0", "Ann"))
    assert not room.table.seats[0].away
    assert any(e.kind == "seen" and e.data.get("back") == 0 for e in manager.writer.log[room.code])
    again = fold(manager.writer.log[room.code], manager.settings.turn_timer_scale)
    assert not again.seats[0].away
    assert again.clock.deadline == room.table.clock.deadline
    await manager.close()


async def test_a_player_sits_at_no_more_slow_tables_than_the_cap():
    manager = manager_with(Recorder(), max_slow_tables_per_player=2)
    ben = conn("p1", "Ben")
    tables = [manager.create("oh_hell", {}, 4, False, f"h{i}", "Host", turn_timer=12 * HOUR) for i in range(3)]
    fast = manager.create("oh_hell", {}, 4, False, "h9", "Host", turn_timer=30)
    for room in tables[:2]:
        await room.join(ben)
        await room.sit(ben, 1)
    await tables[2].join(ben)
    with pytest.raises(RoomError) as refused:
        await tables[2].sit(ben, 1)
    assert refused.value.code == "too_many_slow_tables" and refused.value.status == 409
    assert tables[2].seat_of("p1") is None
    await fast.join(ben)
    await fast.sit(ben, 1)  # a fast table is not counted
    # A seat given up is one to spare again.
    await tables[0].stand(ben)
    await tables[2].sit(ben, 1)
    assert tables[2].seat_of("p1") == 1
    await manager.close()


async def test_a_slow_tables_row_carries_its_deadline_and_whom_it_awaits_and_a_bots_turn_is_due_at_once():
    manager = manager_with(Recorder(), bot_delay_ms=600_000)  # the bots wait: the test looks at their turn
    room = manager.create("oh_hell", {"max_cards": 7, "rebound": False}, 4, False, "p0", "Ann", turn_timer=HOUR)
    ann = conn("p0", "Ann")
    await room.join(ann)
    for seat in (1, 2, 3):
        await room.set_bot(ann, seat, remove=False)
    await room.start(ann)
    table, rows = room.table, manager.writer.tables
    if 0 in table.people_to_act():
        assert rows[room.code]["deadline"] == table.clock.deadline is not None
        assert rows[room.code]["awaited"] == ["p0"] and rows[room.code]["clock_s"] == HOUR
        await room.act(ann, table.game.legal_actions(table.state, 0)[0], room.version)
    assert table.bots_to_act() and table.clock.deadline is None
    assert rows[room.code]["deadline"] == 0 and rows[room.code]["awaited"] == []
    await manager.close()


async def play_out(room, *players) -> None:
    """Every person's decision made at once until the match ends (bots play on their own)."""
    for _ in range(4000):
        if room.status != "playing":
            return
        people = [s for s in room.game.to_act(room.state) if room.seats[s].player_id and not room.seats[s].bot]
        for seat in people:
            who = next(p for p in players if p.player_id == room.seats[seat].player_id)
            await room.act(who, room.game.legal_actions(room.state, seat)[0], room.version)
        await asyncio.sleep(0)
    raise AssertionError("the match did not finish")


async def test_play_again_seats_a_follower_only_with_a_slow_seat_to_spare():
    manager = manager_with(Recorder(), max_slow_tables_per_player=1)
    ann, ben = conn("p0", "Ann"), conn("p1", "Ben")
    first = manager.create("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann", turn_timer=HOUR)
    for c in (ann, ben):
        await first.join(c)
    await first.sit(ben, 1)
    await first.set_bot(ann, 2, remove=False)
    await first.start(ann)
    await play_out(first, ann, ben)
    # The finished table no longer counts: Ben sits at another slow table meanwhile.
    other = manager.create("oh_hell", {}, 4, False, "h9", "Host", turn_timer=HOUR)
    await other.join(ben)
    await other.sit(ben, 1)
    again = manager.create(
        "oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann", turn_timer=HOUR, follow=first
    )
    await again.join(conn("p1", "Ben"))
    assert again.seat_of("p1") is None  # he watches: the seat he had waits for him
    await other.stand(ben)
    await again.join(conn("p1", "Ben"))  # a seat to spare now: he is seated as he comes
    assert again.seat_of("p1") == 1
    await manager.close()


async def test_a_player_who_left_takes_their_slow_seat_back_only_with_one_to_spare():
    manager = manager_with(Recorder(), max_slow_tables_per_player=1, bot_delay_ms=600_000)
    ann, ben = conn("p0", "Ann"), conn("p1", "Ben")
    first = manager.create("oh_hell", {"max_cards": 3, "rebound": False}, 3, False, "p0", "Ann", turn_timer=HOUR)
    for c in (ann, ben):
        await first.join(c)
    await first.sit(ben, 1)
    await first.set_bot(ann, 2, remove=False)
    await first.start(ann)
    await first.leave_table("p1")  # a bot keeps his seat; it no longer counts as his
    other = manager.create("oh_hell", {}, 4, False, "h9", "Host", turn_timer=HOUR)
    await other.join(ben)
    await other.sit(ben, 1)
    with pytest.raises(RoomError) as refused:
        await first.takeover.reclaim(ben)
    assert refused.value.code == "too_many_slow_tables"
    assert first.seat_of("p1") is None
    await other.stand(ben)
    await first.takeover.reclaim(ben)
    assert first.seat_of("p1") == 1
    await manager.close()


async def test_two_requests_for_slow_seats_at_once_are_counted_one_after_the_other():
    manager = manager_with(Recorder(), max_slow_tables_per_player=1)
    ben = conn("p1", "Ben")
    first, second = (manager.create("oh_hell", {}, 4, False, f"h{i}", "Host", turn_timer=HOUR) for i in range(2))
    for room in (first, second):
        await room.join(ben)
    async with first.lock:  # the first table is busy: Ben's sit there waits for it
        asks = [asyncio.create_task(first.sit(ben, 1)), asyncio.create_task(second.sit(ben, 1))]
        # One turn of the loop: each task runs until it must wait (no clock involved). Before
        # the cap's count was held, both had been counted at zero tables by now.
        await asyncio.sleep(0)
    outcomes = await asyncio.gather(*asks, return_exceptions=True)
    assert outcomes[0] is None
    assert isinstance(outcomes[1], RoomError) and outcomes[1].code == "too_many_slow_tables"
    assert (first.seat_of("p1"), second.seat_of("p1")) == (1, None)
    await manager.close()


async def test_a_follower_coming_in_and_a_sit_elsewhere_at_once_take_one_slow_seat_between_them():
    manager = manager_with(Recorder(), max_slow_tables_per_player=1)
    ann, ben = conn("p0", "Ann"), conn("p1", "Ben")
    first = manager.create("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann", turn_timer=HOUR)
    for c in (ann, ben):
        await first.join(c)
    await first.sit(ben, 1)
    await first.set_bot(ann, 2, remove=False)
    await first.start(ann)
    await play_out(first, ann, ben)
    other = manager.create("oh_hell", {}, 4, False, "h9", "Host", turn_timer=HOUR)
    await other.join(ben)
    again = manager.create(
        "oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann", turn_timer=HOUR, follow=first
    )
    async with again.lock:  # the new table is busy: Ben's coming in waits for it
        asks = [asyncio.create_task(again.join(conn("p1", "Ben"))), asyncio.create_task(other.sit(ben, 1))]
        await asyncio.sleep(0)  # one turn of the loop: each task runs until it must wait
    outcomes = await asyncio.gather(*asks, return_exceptions=True)
    assert outcomes[0] is None and again.seat_of("p1") == 1
    assert isinstance(outcomes[1], RoomError) and outcomes[1].code == "too_many_slow_tables"
    assert other.seat_of("p1") is None
    await manager.close()
