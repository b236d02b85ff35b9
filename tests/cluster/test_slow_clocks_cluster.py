"""Slow clocks on two nodes behind HAProxy (PostgreSQL, Redis): a clock runs out once, on the
node that holds the table, never on the other too; and when that node is killed before the
deadline, the other node takes the table (its lease unheld) and the clock plays there, once.
An hour a decision is scaled down to a few seconds; the reconnect grace is long, so only the
clock plays for the idle player.
"""

from __future__ import annotations

import asyncio
import os
import random
import time

import pytest
from cluster_harness import Cluster, cluster_settings, require_services
from ws_client import Client, choose, host_with_bots, new_player, new_room

from server.config import normalize_database_url

HOUR = 3600
DECISION_S = 6.0


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):
    require_services()
    url = normalize_database_url(os.environ["TEST_DATABASE_URL"])
    settings = {
        **cluster_settings(),
        "FELT_TURN_TIMER_SCALE": str(DECISION_S / HOUR),
        "FELT_SLOW_CLOCK_POLL_S": "0.2",
        "FELT_RECONNECT_GRACE_S": "600",
    }
    cluster = Cluster(tmp_path_factory.mktemp("slow"), url, n=2, **settings)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def clock_turns(cluster: Cluster, code: str) -> list[int]:
    return [d["seat"] for _v, kind, d in cluster.table_log(code) if kind == "act" and d.get("clock")]


async def ann_waits(cluster: Cluster) -> tuple[dict, str, int]:
    """Ann's slow table with three bots, started, at her turn, her socket closed: her player,
    the table's code and her deadline."""
    ann = await new_player(cluster.base, "Ann")
    code = await new_room(cluster.base, ann["token"], "oh_hell", {"max_cards": 7, "rebound": False}, turn_timer=HOUR)
    host = await host_with_bots(cluster.ws_base, code, ann["token"], "ann")
    await host.send({"type": "start"})
    await host.wait(lambda c: c.my_turn(), what="Ann's first turn")
    deadline = host.state["room"]["deadline"]
    await host.close()
    return ann, code, deadline


async def until(predicate, timeout: float = 40.0, what: str = "a condition") -> None:
    for _ in range(int(timeout / 0.1)):
        if predicate():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def she_plays_her_next_turn(cluster: Cluster, ann: dict, code: str, deadline: int) -> None:
    back = await Client(cluster.ws_base, code, ann["token"], "back").connect()
    try:
        await back.wait(lambda c: c.my_turn() and c.state["room"]["deadline"] != deadline, 30, "her next turn")
        v = back.v
        await back.send({"type": "act", "action": choose(back.game, random.Random(2)), "v": v})
        await back.wait(lambda c: c.v > v or c.errors, what="her move")
        assert not back.errors, back.errors
    finally:
        await back.close()


async def test_a_slow_clock_runs_out_once_on_the_node_holding_the_table(two_nodes):
    cluster = two_nodes
    ann, code, deadline = await ann_waits(cluster)
    owner = cluster.owner(code)
    assert owner is not None
    owners = [d for _v, kind, d in cluster.table_log(code) if kind == "owner"]  # the balancer's node took it
    # Both nodes look for due clocks every 0.2 s; only the holder plays it.
    await until(lambda: clock_turns(cluster, code), what="the clock running out")
    await she_plays_her_next_turn(cluster, ann, code, deadline)
    assert clock_turns(cluster, code) == [0]
    assert cluster.owner(code) == owner
    assert [d for _v, kind, d in cluster.table_log(code) if kind == "owner"] == owners, "the table never moved"


async def test_the_clock_of_a_killed_nodes_table_runs_out_once_on_the_other_node(two_nodes):
    cluster = two_nodes
    ann, code, deadline = await ann_waits(cluster)
    owner = cluster.owner(code)
    victim = cluster.node(owner)
    victim.kill()  # before her time runs out: no flush, no release; the lease runs out on its own
    try:
        assert time.time() * 1000 < deadline, "the machine was too slow to kill the node in time"
        await until(lambda: clock_turns(cluster, code), what="the clock running out on the other node")
        other = next(n.id for n in cluster.nodes if n.id != owner)
        assert cluster.owner(code) == other
        assert [d["node"] for _v, kind, d in cluster.table_log(code) if kind == "owner"][-1] == other
        await she_plays_her_next_turn(cluster, ann, code, deadline)
        assert clock_turns(cluster, code) == [0]
    finally:
        victim.start()
        victim.wait()
        await asyncio.to_thread(cluster.wait_all_up)
