"""Split brain by the network: one node runs on a test host in its own network namespace, and
the test cuts its link (HAProxy, Redis and PostgreSQL all lose it at once) while it owns a
table that people are playing. Another node takes the table once the lease has run out and
play goes on; when the link is back, the cut-off node applies nothing and lets go, and the
table's log holds one history."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess

import pytest
from cluster_harness import Cluster, cluster_settings, require_services
from netns import NetnsHost
from players import Player, check_acknowledged, check_seen, play, seat_players
from ws_client import Client, choose

from server.config import normalize_database_url

LONGER = {"max_cards": 5, "rebound": False}
CUT_OFF = 2  # the node on the test host


@pytest.fixture(scope="module")
def split(tmp_path_factory):
    require_services()
    host = NetnsHost()
    try:
        host.make()
    except (OSError, subprocess.SubprocessError) as exc:
        host.remove()
        detail = getattr(exc, "stderr", "") or exc
        pytest.skip(f"cannot make a network namespace test host here (needs root and `ip netns`): {detail}")
    url = normalize_database_url(os.environ["TEST_DATABASE_URL"])
    cluster = Cluster(tmp_path_factory.mktemp("split"), url, hosts={CUT_OFF: host}, **cluster_settings())
    try:
        cluster.start()
        yield cluster, host
    finally:
        host.mend()
        cluster.stop()
        host.remove()


async def _table_on(cluster: Cluster, node_id: str) -> tuple[str, list[Player]]:
    """A table people play through the balancer, whose code the balancer sends to ``node_id``."""
    for _ in range(30):
        code, players = await seat_players(cluster.base, cluster.ws_base, "oh_hell", LONGER)
        if cluster.owner(code) == node_id:
            return code, players
        for p in players:
            await p.client.close()
    raise AssertionError(f"no table landed on {node_id} in 30 tries")


def _turn(players: list[Player]) -> Player | None:
    newest = max(p.client.v for p in players)
    return next((p for p in players if p.client.my_turn() and p.client.v == newest), None)


@pytest.mark.slow
async def test_a_node_cut_off_by_the_network_loses_its_table_and_applies_nothing_when_it_is_back(split):
    cluster, host = split
    old = cluster.nodes[CUT_OFF]
    code, players = await _table_on(cluster, old.id)
    rng = random.Random(21)
    await play(players, rng, until=lambda: sum(len(p.acked) for p in players) >= 4 and _turn(players) is not None)
    turn = _turn(players)
    # A second tab of the player to act, straight to the node (over the pair, not the balancer).
    stale = await Client(old.ws_base, code, turn.token, "stale").connect()
    stale_v = stale.v
    host.cut()
    try:
        # Sent while the link is down: it reaches the node when the link is back.
        await stale.send({"type": "act", "action": choose(stale.game, rng), "v": stale_v})
        for p in players:  # their pings go unanswered: they reconnect through the balancer
            await p.drop()
        await play(
            players,
            rng,
            timeout=120,
            until=lambda: cluster.owner(code) not in (None, old.id) and sum(len(p.acked) for p in players) >= 8,
        )
        new_owner = cluster.owner(code)
        assert new_owner not in (None, old.id)
        assert stale.v == stale_v and stale.closed is None, "the cut-off side saw nothing (the link is down)"
    finally:
        host.mend()
    await stale.wait(lambda c: c.errors or c.closed is not None, 60, "the cut-off node to refuse or let go")
    assert stale.v == stale_v, "the cut-off node showed a change after it lost its lease"
    assert all(e["code"] == "moved" for e in stale.errors), stale.errors
    await stale.wait(lambda c: c.closed is not None, 60, "the cut-off node to let go of the table")
    await play(players, rng, timeout=120)
    log = cluster.table_log(code)
    assert [v for v, _, _ in log] == list(range(1, len(log) + 1)), "one history, no gaps"
    kind, data = log[stale_v][1], log[stale_v][2]  # the entry after the cut-off node's last version
    assert (kind, data) == ("owner", {"node": new_owner}), (kind, data)
    assert check_acknowledged(players, log) >= 8
    assert check_seen(players, code, cluster.table_entries(code)) > 0
    text = old.log_text()
    assert f"table {code}: this node lost its lease" in text or f"table {code}: another writer" in text
    for p in players:
        await p.client.close()
    await stale.close()
    await asyncio.to_thread(cluster.wait_all_up, 60)  # the cut-off node is back in the balancer
