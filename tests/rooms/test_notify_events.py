"""A room tells its host's notifier what players away from the table may hear of: a table
opened, whose turn it is (once per turn, with who is watching), a clock that ran out, a match
over. No network: rooms in memory with a recording channel."""

from __future__ import annotations

import asyncio

from server.config import Settings
from server.notify.events import ClockRanOut, MatchFinished, Mentioned, TableOpened, TableStarted, YourTurn
from server.rooms import Connection, RoomManager
from server.storage.writer import MemoryWriter


class Recorder:
    def __init__(self) -> None:
        self.events: list = []
        self.closed = False

    def offer(self, event) -> None:
        self.events.append(event)

    async def close(self) -> None:
        self.closed = True

    def of(self, kind) -> list:
        return [e for e in self.events if isinstance(e, kind)]


class Broken:
    def offer(self, event) -> None:
        raise RuntimeError("this channel is down")

    async def close(self) -> None:
        raise RuntimeError("and cannot close")


def conn(player_id: str, name: str) -> Connection:
    async def closer(code: int, reason: str) -> None:
        pass

    return Connection(player_id, name, closer, limit=4096)


def manager_with(*channels, **settings) -> RoomManager:
    manager = RoomManager(Settings(bot_delay_ms=0, **settings), MemoryWriter)
    for channel in channels:
        manager.notifier.add(channel)
    return manager


async def test_each_turn_is_told_once_to_the_player_it_awaits_and_a_broken_channel_costs_nothing():
    seen = Recorder()
    manager = manager_with(Broken(), seen)
    room = manager.create("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann")
    assert seen.of(TableOpened) == [TableOpened(room.code, "oh_hell", "Ann")]
    ann, ben, cy = conn("p0", "Ann"), conn("p1", "Ben"), conn("p2", "Cy")
    for c in (ann, ben, cy):
        await room.join(c)
    await room.sit(ben, 1)
    await room.sit(cy, 2)
    await room.start(ann)
    turns = seen.of(YourTurn)
    first = room.game.to_act(room.state)[0]
    assert [t.players for t in turns] == [(f"p{first}",)]
    assert turns[0].watching == frozenset({"p0", "p1", "p2"}) and turns[0].version == room.version
    await room.leave(ben)  # a change that does not move the turn tells nobody again
    assert len(seen.of(YourTurn)) == 1
    told = []
    while room.status == "playing":
        seat = room.game.to_act(room.state)[0]
        c = (ann, conn("p1", "Ben"), cy)[seat]
        if seat == 1:
            await room.join(c)
        await room.act(c, room.game.legal_actions(room.state, seat)[0], room.version)
        told = seen.of(YourTurn)
    assert all(len(t.players) == 1 for t in told)
    assert [t.players[0] for t in told[1:3]] == [f"p{(first + 1) % 3}", f"p{(first + 2) % 3}"]
    finished = seen.of(MatchFinished)
    assert len(finished) == 1 and finished[0].table == room.code
    assert finished[0].record["players"] and "winners" in finished[0].record
    await manager.close()
    assert seen.closed


async def test_a_player_awaited_again_after_the_bots_played_is_told_again():
    seen = Recorder()
    manager = manager_with(seen)
    room = manager.create("oh_hell", {"max_cards": 3, "rebound": False}, 3, False, "p0", "Ann")
    ann = conn("p0", "Ann")
    await room.join(ann)
    for seat in (1, 2):
        await room.set_bot(ann, seat, remove=False)
    await room.start(ann)
    decisions = 0
    for _ in range(4000):
        if room.status != "playing":
            break
        if 0 in room.game.to_act(room.state):
            await room.act(ann, room.game.legal_actions(room.state, 0)[0], room.version)
            decisions += 1
        await asyncio.sleep(0)
    assert room.status == "finished" and decisions > 3
    # Ann is told each time the turn comes (back) to her: her first decision, and every one
    # after a bot's; two of hers in a row (she won the trick and leads) are one turn.
    seats = [a["seat"] for a in room.match.actions()]
    turns = sum(1 for i, seat in enumerate(seats) if seat == 0 and (i == 0 or seats[i - 1] != 0))
    assert 1 < turns <= decisions
    assert [t.players for t in seen.of(YourTurn)] == [("p0",)] * turns
    await manager.close()


async def test_a_clock_that_runs_out_is_told_with_the_seat_it_played_for():
    seen = Recorder()
    manager = manager_with(seen, turn_timer_scale=0.001)
    room = manager.create("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann", turn_timer=30)
    ann = conn("p0", "Ann")
    await room.join(ann)
    for seat in (1, 2):
        await room.set_bot(ann, seat, remove=False)
    await room.start(ann)
    for _ in range(2000):
        if seen.of(ClockRanOut):
            break
        await asyncio.sleep(0.005)
    ran_out = seen.of(ClockRanOut)
    assert ran_out and ran_out[0] == ClockRanOut(room.code, "oh_hell", "p0", "Ann", 30, False, frozenset({"p0"}))
    await manager.close()


async def test_a_start_is_told_once_to_the_people_seated_with_who_is_watching():
    seen = Recorder()
    manager = manager_with(seen)
    room = manager.create("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann")
    ann, ben, spectator = conn("p0", "Ann"), conn("p1", "Ben"), conn("p9", "Zed")
    for c in (ann, ben, spectator):
        await room.join(c)
    await room.sit(ben, 1)
    await room.set_bot(ann, 2, remove=False)
    await room.leave(ben)  # his seat stays his; his socket is gone
    assert seen.of(TableStarted) == []
    await room.start(ann)
    assert seen.of(TableStarted) == [
        TableStarted(room.code, "oh_hell", "Ann", ("p0", "p1"), ("Ann", "Ben"), frozenset({"p0", "p9"}))
    ]
    await manager.close()


async def test_a_chat_line_that_names_seated_players_tells_each_once_never_the_speaker_nor_a_bot():
    seen = Recorder()
    manager = manager_with(seen)
    room = manager.create("oh_hell", {"max_cards": 1, "rebound": False}, 4, False, "p0", "Ann")
    ann, ben, cy, spectator = conn("p0", "Ann"), conn("p1", "Ben"), conn("p2", "Cy"), conn("p9", "Zed")
    for c in (ann, ben, cy, spectator):
        await room.join(c)
    await room.sit(ben, 1)
    await room.sit(cy, 2)
    await room.set_bot(ann, 3, remove=False)
    await room.leave(cy)
    bot_name = room.seats[3].name
    assert bot_name
    await room.say(ann, f"ben, BEN! @Cy: your lead. Ann here, {bot_name} too")
    watching = frozenset({"p0", "p1", "p9"})
    assert seen.of(Mentioned) == [
        Mentioned(room.code, "oh_hell", "Ann", "p1", "Ben", watching),
        Mentioned(room.code, "oh_hell", "Ann", "p2", "Cy", watching),
    ]
    await room.say(spectator, "Benny, Cyan and Anna are not them; neither is ben_2 or 2ben")
    assert len(seen.of(Mentioned)) == 2
    await room.say(spectator, "well played ann")  # a spectator may name a player too
    assert seen.of(Mentioned)[2:] == [Mentioned(room.code, "oh_hell", "Zed", "p0", "Ann", watching)]
    await manager.close()


def test_a_name_counts_only_as_a_word_of_its_own():
    from server.rooms.tidings import says_name

    assert says_name("hi Ana", "ana") and says_name("@ANA!", "Ana") and says_name("Ana Maria?", "Ana Maria")
    assert says_name("(jo.)", "Jo.") and says_name("ok, Zoë", "zoë")
    assert not says_name("Banana", "Ana") and not says_name("Anakin", "Ana") and not says_name("ana_b", "Ana")
    assert not says_name("x", "  ") and not says_name("Zoëy", "Zoë")
