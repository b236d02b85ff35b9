"""server.cluster against the real local Redis (a fresh key prefix per test): leases, the
handover, the shared cap and rate buckets, without starting any node."""

from __future__ import annotations

import asyncio
import functools

from server.cluster import RENEW_CHUNK, Cluster, SharedRateLimiter
from server.config import Settings
from server.limits import LOOKUPS, Rate
from server.rooms.manager import RoomManager
from server.storage.writer import MemoryWriter


async def holder(node: Cluster, code: str) -> str | None:
    """The node named in the lease of ``code`` (its value: the node and an acquisition's token)."""
    value = await node.redis.get(node.leases.key(code))
    return value.decode().rsplit(" ", 1)[0] if value else None


async def test_one_node_holds_a_lease_and_finds_out_when_it_is_gone(pair):
    a, b = pair
    assert await a.leases.claim("T1") and a.leases.owns("T1")
    assert not await b.leases.claim("T1") and not b.leases.owns("T1")
    assert await a.leases.claim("T1"), "the holder claiming again keeps it"
    assert await a.leases.renew() == []
    await a.redis.delete(a.leases.key("T1"))  # the lease ran out (a paused node, say)
    assert await b.leases.claim("T1")
    assert await a.leases.renew() == ["T1"]
    assert not a.leases.owns("T1"), "a node stops trusting a lease the moment it learns it is gone"
    await a.leases.release("T1")
    assert await holder(b, "T1") == "b", "a node releases only its own lease"


async def test_one_renewal_keeps_every_lease_still_held_and_drops_exactly_the_lost_ones(pair):
    a, b = pair
    codes = [f"R{i:04d}" for i in range(3 * RENEW_CHUNK + 7)]  # several script calls in one pipeline
    for code in codes:
        assert await a.leases.claim(code)
    taken = [codes[5], codes[RENEW_CHUNK + 1], codes[-1]]  # each lease ran out and b took it
    for code in taken:
        await a.redis.delete(a.leases.key(code))
        assert await b.leases.claim(code)
    for code in codes:  # the stored lives run short: a renewal must lengthen them again
        await a.redis.pexpire(a.leases.key(code), 5_000)
    assert sorted(await a.leases.renew()) == sorted(taken)
    assert not any(a.leases.owns(c) for c in taken) and all(a.leases.owns(c) for c in codes if c not in taken)
    ttls = [await a.redis.pttl(a.leases.key(c)) for c in codes]
    assert all(ttl > 5_000 for c, ttl in zip(codes, ttls, strict=True) if c not in taken), "this node's leases renewed"
    for code in taken:
        assert await holder(a, code) == "b", "another node's lease is left alone"
        assert await a.redis.pttl(a.leases.key(code)) <= 5_000, "and not lengthened"
    assert await a.leases.renew() == [], "what was dropped is not renewed again"


async def test_a_node_asked_for_a_table_hands_it_over(pair):
    a, b = pair
    handed = []

    class Member:
        def lost(self, code: str) -> None:
            pass

        async def hand_over(self, code: str) -> None:
            handed.append(code)
            await a.leases.release(code)

        def lobby_rows(self) -> list[dict]:
            return []

        def seated(self) -> dict[str, str]:
            return {}

    a.attach(Member())
    assert await a.leases.claim("T2")
    assert await b.leases.acquire("T2")
    assert handed == ["T2"] and b.leases.owns("T2") and not a.leases.owns("T2")


async def test_the_host_cap_counts_tables_on_every_node(pair):
    a, b = pair
    assert await a.hosts.reserve("p1", "T3", 2)
    assert await b.hosts.reserve("p1", "T4", 2)
    assert not await a.hosts.reserve("p1", "T5", 2)
    assert await b.hosts.reserve("p1", "T4", 2), "a table already counted is not counted twice"
    b.hosts.table_changed("T4", "p1", "finished")
    await asyncio.gather(*b.link.background())
    assert await a.hosts.reserve("p1", "T5", 2)
    assert await a.hosts.hosted("p1") == 2


async def test_a_rate_bucket_is_shared_by_the_nodes(pair):
    a, b = pair
    rates = {LOOKUPS: Rate(per_second=0.001, burst=3)}
    la, lb = SharedRateLimiter(a.link, rates), SharedRateLimiter(b.link, rates)
    assert la.take(LOOKUPS, "1.2.3.4") == 0 and la.take(LOOKUPS, "1.2.3.4") == 0
    await asyncio.gather(*a.link.background())
    assert lb.take(LOOKUPS, "1.2.3.4") == 0, "b's first grant: it has not heard of a's yet"
    await asyncio.gather(*b.link.background())
    assert lb.take(LOOKUPS, "1.2.3.4") > 0, "b learned the shared bucket is empty"


async def test_a_delayed_release_never_drops_a_later_acquisition_of_the_same_node(pair):
    """A table parked on a node is let go once its last entry is durable; if the same node
    opens the table again before that, the release decided for the parked copy must find the
    lease no longer its own (its token is the earlier acquisition's), and leave it."""
    a, b = pair
    assert await a.leases.claim("T6")
    parked = a.leases.token("T6")
    assert await a.leases.claim("T6"), "the same node opens the table again while the copy parks"
    reopened = a.leases.token("T6")
    assert reopened != parked, "every acquisition has its own token"
    a.leases.let_go("T6", parked)  # the parked copy's entry is durable now
    await asyncio.gather(*a.link.background())
    assert await holder(a, "T6") == "a", "the re-opened copy's lease was dropped"
    assert a.leases.owns("T6") and a.leases.token("T6") == reopened
    assert await a.leases.renew() == [], "the re-opened copy's lease is still renewed"
    assert not await b.leases.claim("T6"), "and nobody else can take the table"
    await a.leases.release("T6", parked)  # once more, in the foreground: still nothing
    assert await holder(a, "T6") == "a" and a.leases.owns("T6")
    await a.leases.release("T6", reopened)
    assert await holder(a, "T6") is None and not a.leases.owns("T6")
    assert await b.leases.claim("T6")


async def test_a_node_cannot_take_back_a_lease_it_holds_no_token_of(pair):
    """A lease naming this node but of an acquisition it forgot (a table dropped after a write
    conflict) is not this node's to renew or take again: it runs out, then anyone claims it."""
    a, b = pair
    assert await a.leases.claim("T7")
    a.leases.forget("T7")
    assert not await a.leases.claim("T7") and not a.leases.owns("T7")
    assert await a.leases.renew() == []
    await a.redis.pexpire(a.leases.key("T7"), 1)  # it runs out
    await asyncio.sleep(0.05)
    assert await b.leases.claim("T7")


async def test_a_node_lets_go_of_a_table_it_keeps_without_its_lease(pair):
    """A table in a node's memory whose lease the node no longer holds (not even one whose
    trust ran out) is dropped without a write, by the periodic check and when a client asks
    for it, instead of refusing every connect and every move for good."""
    a, _ = pair
    manager = RoomManager(Settings(bot_delay_ms=0), MemoryWriter)
    manager.join_cluster(a)
    try:
        first = await manager.create_shared("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann")
        second = await manager.create_shared("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p1", "Bob")
        assert manager.drop_unleased() == [], "tables under their leases stay"
        a.leases.forget(first.code)
        assert manager.drop_unleased() == [first.code]
        a.leases.forget(second.code)
        assert await manager.open(second.code) is None, "a client's ask lets it go as well"
        for room in (first, second):
            for _ in range(100):
                if room.closed:
                    break
                await asyncio.sleep(0.01)
            assert room.closed and manager.get(room.code) is None
        assert manager.writer.log[first.code][-1].kind == "created", "nothing was written"
    finally:
        await manager.close()


class LogSource:
    """The tables a ``MemoryWriter`` made durable, read back as the database source does."""

    def __init__(self, writer: MemoryWriter | None = None) -> None:
        self.writer = writer  # the manager's own (set once it is made)

    async def load(self, code):
        entries = self.writer.entries(code)
        if not entries:
            return None
        return ("parked" if entries[-1].kind == "park" else "waiting"), entries

    async def open_codes(self):
        return []

    async def waiting_codes(self):
        return []

    async def purge(self, parked_before):
        return 0


async def test_a_table_parked_and_opened_again_on_one_node_keeps_its_lease(pair):
    """The race that left tables unplayable: a node parks a table (its lease is to be let go
    once the ``park`` entry is durable), a client opens it again on the same node before
    that, and then the park's release comes. The re-opened table keeps its lease and plays."""
    a, b = pair
    manager = RoomManager(Settings(bot_delay_ms=0), functools.partial(MemoryWriter, manual=True), LogSource())
    writer = manager.source.writer = manager.writer
    manager.join_cluster(a)
    await manager.restore_all()
    try:
        room = await manager.create_shared("oh_hell", {"max_cards": 1, "rebound": False}, 3, False, "p0", "Ann")
        code = room.code
        writer.commit()
        parked = a.leases.token(code)
        await room.retire("park")  # its last entry is not durable yet: the lease is still held
        opening = asyncio.create_task(manager.open(code))
        for _ in range(500):  # until the client's open took the lease again (it then waits
            if a.leases.token(code) != parked:  # for the parked copy to leave memory)
                break
            await asyncio.sleep(0.01)
        assert a.leases.token(code) != parked
        writer.commit()  # the park is durable: the parked copy leaves and its release is sent
        reopened = await asyncio.wait_for(opening, 30)
        await asyncio.gather(*a.link.background())
        assert reopened is not None and reopened is not room
        assert await holder(a, code) == "a" and a.leases.owns(code), "the park's release dropped the new lease"
        assert await a.leases.renew() == []
        assert await manager.open(code) is reopened, "the table plays on (no 'moving' refusal)"
        assert manager.drop_unleased() == []
        assert not await b.leases.claim(code), "no other node can take it meanwhile"
    finally:
        await manager.close()


async def test_a_revoked_device_is_forgotten_and_its_sockets_closed_on_every_node(pair):
    """A revocation published by one node reaches the others' device sockets (server/players.py)."""
    from types import SimpleNamespace

    from server import players

    a, b = pair
    closed: list = []

    async def closer(code: int, reason: str) -> None:
        closed.append(code)

    on_b = SimpleNamespace(state=SimpleNamespace(device_sockets=players.DeviceSockets(), cluster=b))
    on_b.state.device_sockets.add("phone", closer)
    players._known["f" * 64] = (players.Caller("p1", "Ana", "phone"), float("inf"))  # b knew the token
    b.attend_players(players.on_cluster_message(on_b))
    on_a = SimpleNamespace(state=SimpleNamespace(device_sockets=players.DeviceSockets(), cluster=a))
    await players.device_revoked(on_a, "phone", "f" * 64)
    for _ in range(100):
        if closed:
            break
        await asyncio.sleep(0.05)
    assert closed == [players.CLOSE_REVOKED]
    assert on_b.state.device_sockets.held("phone") == 0
    assert "f" * 64 not in players._known


class Seated:
    """A node's rooms as the cluster asks them who sits where."""

    def __init__(self) -> None:
        self.now: dict[str, str] = {}

    def lost(self, code: str) -> None:
        pass

    async def hand_over(self, code: str) -> None:
        pass

    def seated(self) -> dict[str, str]:
        return dict(self.now)

    def lobby_rows(self) -> list[dict]:
        return []


async def test_presence_crosses_nodes_and_a_lost_hash_is_written_again_whole(pair):
    a, b = pair
    rooms_a, rooms_b = Seated(), Seated()
    a.attach(rooms_a)
    b.attach(rooms_b)
    rooms_a.now = {"ana": "T1", "rui": "T1"}
    rooms_b.now = {"eva": "T2"}
    for node in (a, b):
        await node.lobby.publish()  # the node list the readers go by
        await node.presence.publish_seated()
    await b.presence.saw("zed", 60_000)
    assert await a.presence.of(["ana", "eva", "zed", "ivo"]) == ({"ana": "T1", "eva": "T2"}, {"zed"})
    rooms_a.now = {"ana": "T1"}  # Rui left his table: only the change is written
    await a.presence.publish_seated()
    assert await b.presence.of(["ana", "rui"]) == ({"ana": "T1"}, set())
    await a.redis.delete(f"{a.prefix}seated:a")  # the hash expired (a long pause, say)
    rooms_a.now = {"ana": "T1", "ivo": "T3"}
    await a.presence.publish_seated()  # finds the hash gone: writes the change, and all of it next time
    await a.presence.publish_seated()
    assert await b.presence.of(["ana", "ivo"]) == ({"ana": "T1", "ivo": "T3"}, set())
