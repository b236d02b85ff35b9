"""Felt on three nodes behind HAProxy, through the balancer's one address with real clients:
whole games, the shared lobby and cap, failover after SIGKILL, and the fence after SIGSTOP."""

from __future__ import annotations

import asyncio
import random
import signal

import httpx
import pytest

from cluster_harness import LOOKUP_BURST
from players import Player, check_acknowledged, play, seat_players
from ws_client import Client, choose, new_player

SHORT = {
    "oh_hell": {"max_cards": 3, "rebound": False},
    "bid_whist": {"target": 3},
    "tarbish": {"target": 120},
    "ribs": {"target": 1},
}
TABLES_IN_RESTART = 12
LONGER = {"max_cards": 5, "rebound": False}  # oh_hell: long enough to cut a node off mid-hand


async def wait_for(predicate, timeout: float = 20, what: str = "a condition") -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await predicate():
        assert loop.time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def create(base: str, token: str, game: str = "oh_hell", private: bool = False) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base) as http:
        return await http.post("/api/rooms", json={"game": game, "options": SHORT[game], "private": private},
                               headers={"Authorization": f"Bearer {token}"})


async def stored_once(base: str, player_id: str, match_id: str) -> dict:
    async with httpx.AsyncClient(base_url=base) as http:
        async def listed() -> bool:
            r = await http.get("/api/matches", params={"player": player_id})
            return any(m["id"] == match_id for m in r.json()["matches"])
        await wait_for(listed, what=f"match {match_id} in the history")
        r = await http.get("/api/matches", params={"player": player_id})
        assert [m["id"] for m in r.json()["matches"]].count(match_id) == 1
        r = await http.get(f"/api/matches/{match_id}")
        assert r.status_code == 200
        return r.json()


async def test_tables_created_on_every_node_are_listed_by_every_node(cluster):
    hosts = [await new_player(cluster.base, f"Host{i}") for i in range(6)]
    codes = []
    for host in hosts:
        r = await create(cluster.base, host["token"])
        assert r.status_code == 201, r.text
        codes.append(r.json()["code"])
    owners = {cluster.owner(code) for code in codes}
    assert owners == {n.id for n in cluster.nodes}, f"round robin should spread creation: {owners}"
    private = (await create(cluster.base, hosts[0]["token"], private=True)).json()["code"]
    async with httpx.AsyncClient() as http:
        for node in cluster.nodes:
            async def lists_all(node=node) -> bool:
                listed = {r["code"] for r in (await http.get(node.base + "/api/rooms")).json()["rooms"]}
                assert private not in listed
                return set(codes) <= listed
            await wait_for(lists_all, what=f"{node.id} to list every node's tables")


async def test_the_per_host_cap_holds_across_nodes(cluster):
    host = await new_player(cluster.base, "Busy")
    codes = []
    for _ in range(3):  # FELT_MAX_OPEN_ROOMS_PER_PLAYER=3 in the fixture
        r = await create(cluster.base, host["token"])
        assert r.status_code == 201, r.text
        codes.append(r.json()["code"])
    assert len({cluster.owner(c) for c in codes}) > 1, "the tables should sit on different nodes"
    for node in cluster.nodes:
        r = await create(node.base, host["token"])
        assert r.status_code == 429, r.text
        assert r.json()["error"]["code"] == "too_many_rooms"
    # Closing one table (through the balancer, to whichever node runs it) frees a place.
    async with httpx.AsyncClient(base_url=cluster.base) as http:
        r = await http.post(f"/api/tables/{codes[0]}/close", headers={"Authorization": f"Bearer {host['token']}"})
        assert r.status_code == 204, r.text

    async def freed() -> bool:
        return (await create(cluster.nodes[0].base, host["token"])).status_code == 201
    await wait_for(freed, what="the closed table to leave the host's count")


async def test_four_friends_play_every_game_through_the_balancer(cluster):
    async def one(game: str, seed: int) -> None:
        code, players = await seat_players(cluster.base, cluster.ws_base, game, SHORT[game])
        await play(players, random.Random(seed))
        state = players[0].client.state
        record = await stored_once(cluster.base, state["seats"][0]["player_id"], state["result"]["match_id"])
        assert record["game"] == game
        assert check_acknowledged(players, cluster.table_log(code)) > 0
        for p in players:
            await p.client.close()

    await asyncio.gather(*(one(game, i) for i, game in enumerate(SHORT)))



def _turn(players: list[Player]) -> Player | None:
    newest = max(p.client.v for p in players)
    return next((p for p in players if p.client.my_turn() and p.client.v == newest), None)


@pytest.mark.slow
async def test_the_table_of_a_killed_node_resumes_on_another_and_loses_nothing_acknowledged(cluster):
    code, players = await seat_players(cluster.base, cluster.ws_base, "oh_hell", LONGER)
    rng = random.Random(15)
    await play(players, rng, until=lambda: sum(len(p.acked) for p in players) >= 6)
    owner = cluster.owner(code)
    victim = cluster.node(owner)
    victim.kill()  # mid-hand: no flush, no release; the lease runs out on its own
    try:
        await play(players, rng)
        assert all(p.reconnects >= 1 for p in players)
        assert cluster.owner(code) not in (None, owner)
        log = cluster.table_log(code)
        assert [v for v, _, _ in log] == list(range(1, len(log) + 1)), "one history, no gaps"
        assert any(kind == "owner" for _, kind, _ in log)
        assert check_acknowledged(players, log) >= 6
        state = players[0].client.state
        await stored_once(cluster.base, state["seats"][0]["player_id"], state["result"]["match_id"])
    finally:
        for p in players:
            await p.client.close()
        victim.start()
        victim.wait()
        await asyncio.to_thread(cluster.wait_all_up)


@pytest.mark.slow
async def test_a_paused_owner_loses_its_table_and_applies_nothing_when_it_wakes(cluster):
    code, players = await seat_players(cluster.base, cluster.ws_base, "oh_hell", LONGER)
    rng = random.Random(16)
    await play(players, rng, until=lambda: sum(len(p.acked) for p in players) >= 4 and _turn(players) is not None)
    old = cluster.node(cluster.owner(code))
    turn = _turn(players)
    # A second tab of the player to act, straight to the owner (not through the balancer).
    stale = await Client(old.ws_base, code, turn.token, "stale").connect()
    stale_v = stale.v
    old.signal(signal.SIGSTOP)
    try:
        # Sent while the node sleeps: the kernel holds it until the node wakes.
        await stale.send({"type": "act", "action": choose(stale.game, rng), "v": stale_v})
        for p in players:  # their pings go unanswered: they reconnect through the balancer
            await p.drop()
        await play(players, rng, until=lambda: cluster.owner(code) not in (None, old.id)
                   and sum(len(p.acked) for p in players) >= 8)
        new_owner = cluster.owner(code)
        assert new_owner not in (None, old.id)
    finally:
        old.signal(signal.SIGCONT)
    await stale.wait(lambda c: c.errors or c.closed is not None, 20, "the old owner to refuse or let go")
    assert stale.v == stale_v, "the old owner showed a change after it lost its lease"
    await stale.wait(lambda c: c.closed is not None, 20, "the old owner to let go of the table")
    await play(players, rng)
    log = cluster.table_log(code)
    assert [v for v, _, _ in log] == list(range(1, len(log) + 1)), "one history, no gaps"
    kind, data = log[stale_v][1], log[stale_v][2]  # the entry after the old owner's last version
    assert (kind, data) == ("owner", {"node": new_owner}), (kind, data)
    check_acknowledged(players, log)
    state = players[0].client.state
    await stored_once(cluster.base, state["seats"][0]["player_id"], state["result"]["match_id"])
    for p in players:
        await p.client.close()
    await stale.close()


@pytest.mark.slow
async def test_a_rolling_restart_of_every_node_loses_no_table_and_no_acknowledged_action(cluster):
    """Each node in turn is stopped (SIGTERM: it flushes, releases its leases, closes with 1012)
    and started again while tables play at a human pace; every client finds its table again
    through the balancer, at a version never behind what it saw."""
    tables = await asyncio.gather(*(
        seat_players(cluster.base, cluster.ws_base, "oh_hell", {"max_cards": 10, "rebound": False})
        for _ in range(TABLES_IN_RESTART)
    ))
    restarted = asyncio.Event()

    async def restart_all() -> None:
        for node in cluster.nodes:
            await asyncio.to_thread(node.stop)
            node.start()
            await asyncio.to_thread(node.wait)
            await asyncio.to_thread(cluster.wait_all_up)
        restarted.set()

    async def keep_playing(index: int, players: list[Player]) -> None:
        await play(players, random.Random(100 + index), timeout=150, until=restarted.is_set, pace_s=0.3)

    await asyncio.gather(restart_all(), *(keep_playing(i, ps) for i, (_, ps) in enumerate(tables)))
    moved = 0
    for code, players in tables:
        for p in players:  # every socket is back, on a live table
            await p.connect() if p.gone else None
            assert p.client.state["room"]["code"] == code
        moved += sum(p.reconnects for p in players)
        log = cluster.table_log(code)
        assert [v for v, _, _ in log] == list(range(1, len(log) + 1)), f"{code}: one history, no gaps"
        check_acknowledged(players, log)
        for p in players:
            await p.client.close()
    assert moved > 0, "no table moved: the restart did not touch the tables"


# Last: it spends 127.0.0.1's lookups, which every socket checks before it opens a room.
async def test_a_rate_limit_holds_across_nodes(cluster):
    """Unknown room codes tried on every node in turn spend one shared bucket: without it the
    three nodes would allow three bursts; with it at most one burst and one token per other
    node (each node learns the shared level with its own next grant)."""
    answers = []
    async with httpx.AsyncClient() as http:
        for i in range(3 * LOOKUP_BURST):
            node = cluster.nodes[i % len(cluster.nodes)]
            answers.append((await http.get(f"{node.base}/api/rooms/ZZZZZZZZ")).status_code)
    assert set(answers) == {404, 429}, answers
    assert LOOKUP_BURST <= answers.count(404) <= LOOKUP_BURST + len(cluster.nodes) - 1, answers
    assert answers[-1] == 429
