"""The slow-seat cap across nodes against the real local Redis (a fresh key prefix per test):
the hold script of server/cluster/holds.py, and two nodes' room managers asking for one player's
slow seats (server/rooms/directory.py), without starting any node."""

from __future__ import annotations

import asyncio
import functools

import pytest

from server.cluster import Cluster
from server.config import Settings
from server.rooms import RoomError
from server.rooms.manager import RoomManager
from server.storage.writer import MemoryWriter

HOUR = 3600
OH_HELL = {"max_cards": 1, "rebound": False}


async def held(node: Cluster, player_id: str) -> set[str]:
    return {c.decode() for c in await node.redis.zrange(node.slow.keys(player_id)[0], 0, -1)}


async def test_a_hold_is_counted_with_the_stores_seats_and_a_reading_before_a_give_back_counts_again(pair):
    a, b = pair
    given = await a.slow.given_back("ann")
    assert await a.slow.hold("ann", "X", 2, {"P"}, given, 60_000) == 1
    assert await b.slow.hold("ann", "Y", 2, {"P"}, given, 60_000) == 0, "the other node finds the hold"
    assert await b.slow.hold("ann", "X", 2, {"P"}, given, 60_000) == 1, "a hold asked again is kept"
    await a.slow.give_back("ann", "X", 60_000)  # X's seat is in the store now: b's reading may predate it
    assert await b.slow.hold("ann", "Y", 2, {"P"}, given, 60_000) == -1
    fresh = await b.slow.given_back("ann")
    assert await b.slow.hold("ann", "Y", 2, {"P", "X"}, fresh, 60_000) == 0, "counted from the store"
    assert await b.slow.hold("ann", "Y", 2, {"P"}, fresh, 60_000) == 1, "she left X"
    assert await held(a, "ann") == {"Y"}


async def test_a_hold_nobody_gives_back_runs_out(pair):
    a, b = pair
    given = await a.slow.given_back("bob")
    assert await a.slow.hold("bob", "X", 1, set(), given, 1)  # its node dies: never given back nor kept
    for _ in range(500):
        if await b.slow.hold("bob", "Y", 1, set(), given, 60_000) == 1:
            break
        await asyncio.sleep(0.01)
    assert await held(b, "bob") == {"Y"}
    assert not await a.slow.keep("bob", "X", 60_000), "a hold that ran out is not brought back"


class Store:
    """The players' slow seats as the database would list them, shared by both nodes."""

    def __init__(self) -> None:
        self.seats: dict[str, list[str]] = {}
        self.writer: MemoryWriter | None = None

    async def slow_seats(self, player_id: str) -> list[str]:
        return list(self.seats.get(player_id, ()))

    async def load(self, code):
        return None

    async def open_codes(self):
        return []

    async def waiting_codes(self):
        return []

    async def purge(self, parked_before):
        return 0

    async def due_clocks(self, now_ms):
        return []


async def node_manager(node: Cluster, store: Store) -> RoomManager:
    settings = Settings(bot_delay_ms=0, max_slow_tables_per_player=1)
    manager = RoomManager(settings, functools.partial(MemoryWriter, manual=True), store)  # type: ignore[arg-type]
    manager.join_cluster(node)
    await manager.restore_all()
    return manager


async def until_held(node: Cluster, player_id: str, codes: set[str]) -> None:
    for _ in range(500):
        if await held(node, player_id) == codes:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"holds {await held(node, player_id)} and not {codes}")


async def test_a_seat_not_yet_in_the_store_counts_on_the_other_node_until_the_store_has_it(pair):
    a, b = pair
    store = Store()
    here, there = await node_manager(a, store), await node_manager(b, store)
    try:
        room = await here.create_shared("oh_hell", OH_HELL, 4, False, "ann", "Ann", turn_timer=HOUR)
        assert await held(a, "ann") == {room.code}
        with pytest.raises(RoomError) as refused:  # the store has not heard of her seat yet
            await there.create_shared("oh_hell", OH_HELL, 4, False, "ann", "Ann", turn_timer=HOUR)
        assert refused.value.code == "too_many_slow_tables"
        assert not there.rooms and not b.leases.tokens, "the refused table's code is let go"
        assert here.writer.pending  # type: ignore[attr-defined]
        store.seats["ann"] = [room.code]
        here.writer.commit()  # type: ignore[attr-defined]  # durable: the store counts it from now on
        await until_held(a, "ann", set())
        with pytest.raises(RoomError):
            await there.create_shared("oh_hell", OH_HELL, 4, False, "ann", "Ann", turn_timer=HOUR)
        store.seats["ann"] = []  # she left it
        again = await there.create_shared("oh_hell", OH_HELL, 4, False, "ann", "Ann", turn_timer=HOUR)
        assert again.seat_of("ann") == 0
    finally:
        await here.close()
        await there.close()


async def test_a_hold_is_given_back_when_the_seat_is_not_taken(pair):
    a, _ = pair
    store = Store()
    manager = await node_manager(a, store)
    try:
        room = await manager.create_shared("oh_hell", OH_HELL, 4, False, "bob", "Bob", turn_timer=HOUR)
        with pytest.raises(RoomError):
            async with manager.slow_seat("cat", room.code):
                assert await held(a, "cat") == {room.code}
                raise RoomError("seat_taken", "That seat is taken.")
        await until_held(a, "cat", set())
        async with manager.slow_seat("cat", room.code):
            pass  # a request that seats nobody (a seat asked of the host, say)
        await until_held(a, "cat", set())
    finally:
        await manager.close()
