"""The marks of whose turn it is at a cluster's fast tables (server/rooms/turn_marks.py) against
the real local Redis, a fresh key prefix per test: two nodes' ``TurnMarks``, no node started."""

from __future__ import annotations

import asyncio

import pytest
import redis

from server.cluster import Cluster
from server.config import Settings
from server.rooms.turn_marks import TurnMarks


@pytest.fixture
def marks(pair):
    """The two nodes of ``pair``, each with its own ``TurnMarks``."""
    return [(node, TurnMarks(node)) for node in pair]


async def until(check, what: str) -> None:
    for _ in range(500):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


async def shows(marks: TurnMarks, player: str, expected: dict) -> None:
    async def seen() -> bool:
        return await marks.of(player) == expected

    await until(seen, f"{player}'s turns to read {expected}")


async def settled(marks: TurnMarks) -> None:
    async def done() -> bool:
        return not marks.writing

    await until(done, "the marks written")


async def test_a_turn_marked_on_one_node_is_read_on_the_other_and_follows_the_turn(marks):
    (a, on_a), (_b, on_b) = marks
    assert await a.leases.claim("T1")
    on_a.follow("T1", {"ann": None})
    await shows(on_b, "ann", {"T1": None})
    on_a.follow("T1", {"bob": 1_700_000_000_000})  # ann acted: bob's turn, on a clock
    await shows(on_b, "bob", {"T1": 1_700_000_000_000})
    assert await on_b.of("ann") == {}
    on_a.follow("T1", {})  # the match ended
    await shows(on_b, "bob", {})
    assert not await a.redis.exists(on_a.key("ann"), on_a.key("bob")), "no mark left behind"


async def test_the_same_awaited_people_write_nothing_again(marks):
    (a, on_a), _ = marks
    assert await a.leases.claim("T1")
    on_a.follow("T1", {"ann": None})
    await settled(on_a)
    sent = a.link.ops
    on_a.follow("T1", {"ann": None})
    await settled(on_a)
    assert a.link.ops == sent


async def test_a_mark_whose_lease_is_gone_is_not_believed(marks):
    (a, on_a), (_b, on_b) = marks
    assert await a.leases.claim("T1")
    on_a.follow("T1", {"ann": None})
    await shows(on_b, "ann", {"T1": None})
    await a.redis.delete(a.leases.key("T1"))  # the node died: its lease ran out
    assert await on_b.of("ann") == {}
    assert await a.redis.hexists(on_a.key("ann"), "T1"), "the mark is there, not believed"


async def test_the_next_holder_writes_over_and_the_last_ones_late_removal_spares_its_marks(marks):
    (a, on_a), (b, on_b) = marks
    assert await a.leases.claim("T1")
    on_a.follow("T1", {"ann": None, "bob": None})
    await shows(on_b, "bob", {"T1": None})
    await a.redis.delete(a.leases.key("T1"))  # a's lease ran out; b takes the table
    assert await b.leases.claim("T1")
    on_b.taken("T1", {"ann", "bob", "cy"}, {"bob": None})
    await shows(on_b, "bob", {"T1": None})
    assert not await b.redis.hexists(on_b.key("ann"), "T1"), "the earlier holder's mark is written over"
    on_a.follow("T1", {})  # a lets go of the table late
    await settled(on_a)
    assert await on_b.of("bob") == {"T1": None}, "b's mark stays"


async def test_redis_unreachable_never_reaches_the_caller(caplog):
    dead = Cluster(Settings(redis_url="redis://127.0.0.1:1/0", redis_prefix="felt-test-dead:", node_id="x"))
    dead.leases.tokens["T1"] = "t"  # as if it held the lease
    marks = TurnMarks(dead)
    marks.follow("T1", {"ann": None})
    await settled(marks)
    assert "could not mark the turn at table T1" in caplog.text
    with pytest.raises(redis.RedisError):
        await marks.of("ann")
    await dead.redis.aclose()
