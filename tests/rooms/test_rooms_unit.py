"""Rooms in memory, without a network: the per-connection queue, the slow consumer, versions."""

from __future__ import annotations

import asyncio
import functools
import hashlib

import jsonpatch
import orjson
from looping import TurnCounter  # tests/support/looping.py

from server.config import Settings
from server.rooms import Connection, Room, RoomManager
from server.rooms.seats import CODE_ALPHABET, new_room_code, quoted, seed_commitment
from server.rooms.table import Table, fold
from server.storage.writer import MemoryWriter


def connection(player_id, name, limit=256):
    closed: list[int] = []

    async def closer(code: int, reason: str) -> None:
        closed.append(code)

    conn = Connection(player_id, name, closer, limit=limit)
    return conn, closed


def drain(conn: Connection) -> list[dict]:
    frames = []
    while not conn.queue.empty():
        frames.append(orjson.loads(conn.queue.get_nowait()))
    return frames


async def until_finished(room: Room) -> None:
    """Let the room's bots play (a bounded number of loop turns) until its match is over."""
    for _ in range(2000):
        if room.status == "finished":
            return
        await asyncio.sleep(0)
    assert room.status == "finished"


def test_room_codes_are_long_and_unambiguous():
    codes = {new_room_code() for _ in range(2000)}
    assert len(codes) == 2000
    assert all(len(c) == 8 and set(c) <= set(CODE_ALPHABET) for c in codes)
    assert not set("01ILO") & set(CODE_ALPHABET)
    assert len(CODE_ALPHABET) ** 8 > 2**30


class AskedSource:
    """A table store that has no tables and remembers every code it was asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def load(self, code):
        self.asked.append(code)
        return None

    async def open_codes(self):
        return []


async def test_only_strings_that_could_be_codes_are_looked_up_in_the_store():
    source = AskedSource()
    manager = RoomManager(Settings(bot_delay_ms=0), MemoryWriter, source)
    await manager.restore_all()
    for junk in ("A" * 10_000, "NOPE0000", "ROOM/../X", "", "   ", "ÄBCDEFGH"):
        assert await manager.open(junk) is None
    assert source.asked == []
    # A code is taken exactly as written: another spelling (spaces, a tab, lower case) is no
    # code at all (a balancer hashes the path as written), and only the canonical one is asked.
    for spelling in (" KQ7RMXAB", "KQ7RMXAB ", "KQ7RMXAB\t", "kq7rmxab", "KQ7Rmxab"):
        assert await manager.open(spelling) is None
    assert source.asked == []
    assert await manager.open("KQ7RMXAB") is None
    assert source.asked == ["KQ7RMXAB"]


def test_an_error_message_quotes_at_most_a_short_prefix_of_what_was_asked():
    assert quoted("KQ7RMXAB") == "'KQ7RMXAB'"
    long = quoted("A" * 10_000)
    assert long.startswith("'AAAA") and len(long) < 40


def test_the_commitment_is_the_sha256_of_the_seed():
    assert seed_commitment("12345") == hashlib.sha256(b"12345").hexdigest()


async def test_a_connection_that_never_reads_is_closed_and_the_others_keep_every_frame():
    manager = RoomManager(Settings(bot_delay_ms=0), MemoryWriter)
    room = manager.create("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann")
    reader, _ = connection("p0", "Ann")
    stalled, stalled_closed = connection(None, None, limit=8)
    await room.join(reader)
    await room.join(stalled)
    for _ in range(20):  # twenty changes; the stalled queue holds eight frames
        await room.set_bot(reader, 1, remove=False)
        await room.set_bot(reader, 1, remove=True)
    await asyncio.sleep(0)
    assert stalled_closed == [1008]
    frames = drain(reader)
    assert frames[0]["type"] == "snapshot"
    versions = [f["v"] for f in frames]
    assert versions == list(range(versions[0], versions[0] + len(frames)))
    state = frames[0]["state"]
    for f in frames[1:]:
        state = jsonpatch.apply_patch(state, f["ops"])
    snapshot_conn, _ = connection("p0", "Ann")
    room.snapshot(snapshot_conn)
    assert state == orjson.loads(snapshot_conn.queue.get_nowait())["state"]


async def test_a_finished_match_is_handed_to_storage_with_its_whole_log():
    manager = RoomManager(Settings(bot_delay_ms=0), MemoryWriter)
    recorder = manager.writer
    room = manager.create("ribs", {"target": 1}, 4, True, "p0", "Ann")
    host, _ = connection("p0", "Ann")
    await room.join(host)
    for seat in (1, 2, 3):
        await room.set_bot(host, seat, remove=False)
    room.seats[0].away = True  # let a bot play the host's seat too
    await room.start(host)
    await until_finished(room)
    (record,) = recorder.records
    assert record["id"] == room.result["match_id"]
    assert seed_commitment(record["seed"]) == record["commitment"]
    assert len(record["actions"]) > 0 and record["hands"]
    assert [p["bot"] for p in record["players"]] == [False, True, True, True]


async def test_a_room_nobody_has_been_connected_to_for_a_while_is_closed():
    manager = RoomManager(Settings(room_idle_close_s=0.05), MemoryWriter)
    idle = manager.create("tarbish", {}, 4, False, "p0", "Ann")
    busy = manager.create("tarbish", {}, 4, False, "p1", "Ben")
    conn, _ = connection("p1", "Ben")
    await busy.join(conn)
    assert await manager.sweep() == 0
    await asyncio.sleep(0.1)
    assert await manager.sweep() == 1
    assert manager.get(idle.code) is None and manager.get(busy.code) is busy
    assert [r["code"] for r in manager.list_public()[0]] == [busy.code]


async def test_the_sweep_over_many_rooms_hands_the_loop_back_between_short_turns():
    """Parking hundreds of idle tables is hundreds of log entries and lobby rows: done in one
    callback it held the event loop for milliseconds; the sweep yields every half millisecond."""
    manager = RoomManager(Settings(room_idle_close_s=0.01, max_open_rooms_per_player=1000), MemoryWriter)
    rooms = [manager.create("oh_hell", {}, 4, False, "p0", "Ann") for _ in range(300)]
    await asyncio.sleep(0.05)
    async with TurnCounter() as turns:
        assert await manager.sweep() == 300
    assert all(manager.get(r.code) is None for r in rooms)
    assert turns.count >= 3  # another task ran while the sweep went on


async def test_a_parked_table_is_freed_at_once_not_left_to_the_collector():
    """Parking a table must not leave a cycle behind: before, a match's last state and its view
    memo, and a room with the cancelled tasks it still held (their tracebacks hold the room),
    stayed in memory until the server's ten-minute full collection walked the whole heap."""
    import gc
    import weakref

    settings = Settings(bot_delay_ms=0, room_idle_close_s=0.01, reconnect_grace_s=600, max_open_rooms_per_player=100)
    manager = RoomManager(settings, MemoryWriter)
    refs = []
    gc.collect()
    gc.disable()  # only reference counting may free them
    try:
        for _ in range(5):
            room = manager.create("oh_hell", {}, 4, False, "p0", "Ann", turn_timer=30)
            host, _ = connection("p0", "Ann")
            await room.join(host)
            for seat in (1, 2, 3):
                await room.set_bot(host, seat, remove=False)
            await room.start(host)
            await room.leave(host)  # Ann's seat waits for her: a grace task
            assert room.autoplay.grace_tasks
            refs += [weakref.ref(room.lock), weakref.ref(room.state)]  # (a Room has no weak references)
        del room, host
        await asyncio.sleep(0.05)
        assert await manager.sweep() == 5
        for _ in range(5):
            await asyncio.sleep(0)
        assert [ref for ref in refs if ref() is not None] == []
    finally:
        gc.enable()


async def test_the_chat_keeps_exactly_its_last_lines_and_every_view_gets_them():
    for history in (1, 3):
        manager = RoomManager(Settings(bot_delay_ms=0, chat_history=history, chat_per_minute=100), MemoryWriter)
        room = manager.create("oh_hell", {}, 3, False, "p0", "Ann")
        ann, _ = connection("p0", "Ann")
        watcher, _ = connection(None, None)
        await room.join(ann)
        await room.join(watcher)
        for i in range(5):
            await room.say(ann, f"line {i}")
        expected = [f"line {i}" for i in range(5 - history, 5)]
        for conn in (ann, watcher):
            shown = None
            for frame in drain(conn):
                shown = frame["state"] if frame["type"] == "snapshot" else jsonpatch.apply_patch(shown, frame["ops"])
            assert [line["text"] for line in shown["chat"]] == expected
            assert shown["chat"][-1]["name"] == "Ann" and shown["chat"][-1]["seat"] == 0


async def test_an_action_that_cannot_be_recorded_is_refused_and_changes_nothing():
    import pytest

    from server.rooms import RoomError

    manager = RoomManager(Settings(bot_delay_ms=0), MemoryWriter)
    room = manager.create("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann")
    conns = [connection(f"p{i}", f"P{i}")[0] for i in range(3)]
    for c in conns:
        await room.join(c)
    for i in (1, 2):
        await room.sit(conns[i], i)
    await room.start(conns[0])
    seat = room.game.to_act(room.state)[0]
    before_state, before_version = room.state, room.version
    with pytest.raises(RoomError) as refused:
        await room.act(conns[seat], {"type": "bid", "value": {1, 2}}, room.version)
    assert refused.value.code == "bad_action"
    assert room.state is before_state and room.version == before_version and room.match.actions() == []
    await room.act(conns[seat], {"type": "bid", "value": 0, "why": {1, 2}}, room.version)  # extra: dropped
    assert room.match.actions() == [{"seat": seat, "action": {"type": "bid", "value": 0}}]


async def test_a_bot_seat_keeps_its_level_when_the_table_is_rebuilt_from_its_log():
    from server.rooms.room import Room

    manager = RoomManager(Settings(bot_delay_ms=0), MemoryWriter)
    writer = manager.writer
    room = manager.create("tarbish", {}, 4, False, "p0", "Ann")
    host = connection("p0", "Ann")[0]
    await room.join(host)
    await room.set_bot(host, 1, False, "strong")
    await room.set_bot(host, 2, False)
    await room.set_bot(host, 3, False, "strong")
    levels = [s["level"] for s in room.sent_view(host)["seats"]]
    assert levels == [None, "strong", "easy", "strong"]
    again = Room(manager, fold(writer.entries(room.code)))
    assert [s.level for s in again.seats] == [None, "strong", "easy", "strong"]
    assert again.seats[1].name == "Strong bot 2" and again.seats[2].name == "Bot 3"


async def test_no_frame_of_a_version_leaves_the_room_before_the_writer_makes_it_durable():
    manager = RoomManager(Settings(bot_delay_ms=0), functools.partial(MemoryWriter, manual=True))
    writer = manager.writer
    room = manager.create("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann")
    host, _ = connection("p0", "Ann")
    await room.join(host)
    assert drain(host) == []  # the snapshot waits for the room's 'created' entry
    writer.commit()
    (snapshot,) = drain(host)
    assert snapshot["type"] == "snapshot" and snapshot["v"] == room.version
    await room.set_bot(host, 1, remove=False)
    await room.set_bot(host, 2, remove=False)
    assert drain(host) == [] and room.version == snapshot["v"] + 2  # accepted, applied, not shown
    writer.commit()
    assert [f["v"] for f in drain(host)] == [snapshot["v"] + 1, snapshot["v"] + 2]
    # Ann connecting is logged as nothing of its own: the next change's patch shows it.
    assert [e.kind for e in writer.log[room.code]] == ["created", "bot", "bot"]


async def test_a_room_rebuilt_from_its_log_is_the_room_that_wrote_it():
    settings = Settings(bot_delay_ms=0)
    manager = RoomManager(settings, MemoryWriter)
    writer = manager.writer
    room = manager.create("tarbish", {"target": 150}, 4, False, "p0", "Ann")
    host, _ = connection("p0", "Ann")
    await room.join(host)
    for seat in (1, 2, 3):
        await room.set_bot(host, seat, remove=False)
    await room.say(host, "good luck")
    room.seats[0].away = True  # a bot plays Ann's seat too, while she watches
    await room.start(host)
    for _ in range(300):
        await asyncio.sleep(0)
    rebuilt = Room(RoomManager(settings, MemoryWriter), fold(writer.entries(room.code)))
    assert rebuilt.version == room.version
    assert rebuilt.status == room.status and rebuilt.match.id == room.match.id
    assert rebuilt.match.actions() == room.match.actions()
    assert rebuilt.state == room.state
    assert rebuilt.table.chat == room.table.chat
    assert [(s.player_id, s.name, s.bot) for s in rebuilt.seats] == [(s.player_id, s.name, s.bot) for s in room.seats]
    await room.close()


class LogSource:
    """Tables served from an in-memory log, as the database's table source serves them."""

    def __init__(self, writer: MemoryWriter, codes: list[str]) -> None:
        self.writer, self.codes = writer, codes

    async def load(self, code: str):
        return ("playing", self.writer.entries(code)) if code in self.codes else None

    async def open_codes(self) -> list[str]:
        return list(self.codes)


async def test_tables_are_restored_on_the_event_loop_in_short_turns_between_other_tasks():
    """A long match is hundreds of log entries to enter again. Rebuilt in a worker thread it made
    the loop wait for the interpreter lock up to 5 ms at a time; rebuilt on the loop, other tasks
    run between its entries, and no other thread is used."""
    import threading

    settings = Settings(bot_delay_ms=0)
    first = RoomManager(settings, MemoryWriter)
    writer = first.writer
    played = []
    for _ in range(3):
        room = first.create("oh_hell", {}, 4, False, "p0", "Ann")
        host, _ = connection("p0", "Ann")
        await room.join(host)
        for seat in (1, 2, 3):
            await room.set_bot(host, seat, remove=False)
        room.seats[0].away = True
        await room.start(host)
        played.append(room)
    while any(r.status == "playing" for r in played):
        await asyncio.sleep(0.01)
    assert all(len(writer.entries(r.code)) > 400 for r in played)

    entered: list[tuple[int, int]] = []  # (thread, the counter's turns) at every entry applied
    original = Table.apply

    def apply(table, entry):
        entered.append((threading.get_ident(), turns.count))
        return original(table, entry)

    manager = RoomManager(settings, MemoryWriter, LogSource(writer, [r.code for r in played]))
    Table.apply = apply
    try:
        async with TurnCounter() as turns:
            assert await manager.restore_all() == 3
    finally:
        Table.apply = original
    assert {thread for thread, _ in entered} == {threading.get_ident()}
    assert entered[-1][1] - entered[0][1] >= 3  # the counter ran while the entries went in
    for room in played:
        again = manager.get(room.code)
        assert again.state == room.state and again.version == room.version
        assert again.match.actions() == room.match.actions()


async def test_a_turn_timer_that_ran_out_with_nobody_there_starts_again_when_someone_is_back():
    # 30 s scaled to 0.3 s; the grace is long, so only the timer can play for the host.
    manager = RoomManager(Settings(bot_delay_ms=0, turn_timer_scale=0.01, reconnect_grace_s=600), MemoryWriter)
    room = manager.create("oh_hell", {"max_cards": 3, "rebound": False}, 4, False, "p0", "Ann", turn_timer=30)
    host, _ = connection("p0", "Ann")
    await room.join(host)
    for seat in (1, 2, 3):
        await room.set_bot(host, seat, remove=False)
    await room.start(host)
    for _ in range(200):  # the bots before Ann act
        if room.game.to_act(room.state) == [0]:
            break
        await asyncio.sleep(0.005)
    assert room.game.to_act(room.state) == [0] and room.autoplay.clock_running
    await room.leave(host)
    await asyncio.sleep(0.6)  # the clock runs out with nobody at the table: nothing is played
    assert not room.autoplay.clock_running and room.game.view(room.state, 0)["bids"][0] is None
    back, _ = connection("p0", "Ann")
    await room.join(back)
    assert room.autoplay.clock_running
    assert drain(back)[0]["state"]["room"]["deadline"] == room.table.clock.deadline

    def bid_for_ann() -> list[dict]:
        return [m for m in room.match.actions() if m["seat"] == 0 and m["action"]["type"] == "bid"]

    # Wait for the move itself, not for the turn to leave seat 0: with bots at no delay the
    # hand can come back to Ann (and, once she is away, even end) between two looks.
    for _ in range(400):
        if bid_for_ann():
            break
        await asyncio.sleep(0.005)
    assert bid_for_ann()  # the timer's bot bid for Ann
    await room.close()


class AskedPool:
    """A bot pool that plays each Strong decision's first legal action and remembers what it was told."""

    def __init__(self) -> None:
        self.told: list[tuple[str, tuple[int, ...]]] = []

    async def choose(self, game, options, seed, view, legal, easy_seats=None):
        self.told.append((game, tuple(easy_seats)))
        return legal[0]

    def close(self) -> None:
        pass


async def test_a_strong_bot_is_told_which_seats_the_table_lists_as_easy_bots():
    # What every player sees: seat 2 is an Easy bot; seat 1 a Strong bot; seat 0 a person
    # (played by an Easy bot while away, which does not make it one).
    manager = RoomManager(Settings(bot_delay_ms=0), MemoryWriter)
    pool = manager.bot_pool = AskedPool()
    room = manager.create("oh_hell", {"max_cards": 1, "rebound": False}, 3, True, "p0", "Ann")
    host, _ = connection("p0", "Ann")
    await room.join(host)
    await room.set_bot(host, 1, False, "strong")
    await room.set_bot(host, 2, False)
    room.seats[0].away = True
    await room.start(host)
    await until_finished(room)
    assert pool.told and set(pool.told) == {("oh_hell", (2,))}


async def test_a_refusal_raised_again_and_again_does_not_keep_its_earlier_tracebacks():
    """The refusals are shared instances (``RESTARTING``, a lease gone): raised as they were,
    each raise added its frames to the last ones, so an instance raised at every refused move
    kept growing and held every frame (and room) it had passed through."""
    import traceback

    import pytest

    from server.rooms import RoomError

    manager = RoomManager(Settings(bot_delay_ms=0, chat_per_minute=100), MemoryWriter)
    room = manager.create("oh_hell", {}, 3, False, "p0", "Ann")
    host, _ = connection("p0", "Ann")
    await room.join(host)
    manager.stopping = True
    depths = []
    for _ in range(3):
        with pytest.raises(RoomError) as refused:
            await room.say(host, "anyone?")
        assert refused.value.code == "restarting"
        depths.append(len(traceback.extract_tb(refused.value.__traceback__)))
    assert depths[0] == depths[1] == depths[2]
