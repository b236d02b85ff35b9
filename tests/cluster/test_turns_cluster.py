"""A fast table's turn in "Your tables" asked through another node (two nodes behind HAProxy,
PostgreSQL, Redis): the table is held on one node, the lobby's ``GET /api/tables`` goes to the
other, and ``your_turn`` with its deadline follows the decision from one player to the next
until the match ends (server/rooms/turn_marks.py)."""

from __future__ import annotations

import asyncio
import os
import random

import httpx
import pytest
from cluster_harness import Cluster, Node, cluster_settings, require_services
from ws_client import Client, new_player, new_room, play_to_end

from server.config import normalize_database_url

OPTIONS = {"max_cards": 2, "rebound": False}  # a short Oh Hell


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):
    require_services()
    url = normalize_database_url(os.environ["TEST_DATABASE_URL"])
    cluster = Cluster(tmp_path_factory.mktemp("turns"), url, n=2, **cluster_settings())
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def turns(node: Node, player: dict) -> dict[str, tuple[bool, int | None]]:
    async with httpx.AsyncClient(base_url=node.base) as http:
        r = await http.get("/api/tables", headers={"Authorization": f"Bearer {player['token']}"})
        assert r.status_code == 200, r.text
        return {t["code"]: (t["your_turn"], t["deadline"]) for t in r.json()["tables"]}


async def shows(node: Node, player: dict, code: str, expected: tuple[bool, int | None] | None) -> None:
    """Wait until ``node`` lists ``code`` for ``player`` as ``expected`` (None: not listed)."""
    seen = None
    for _ in range(300):
        seen = (await turns(node, player)).get(code)
        if seen == expected:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{node.id} lists {code} for {player['name']} as {seen}, not {expected}")


async def test_your_turn_at_a_table_held_on_one_node_is_told_through_the_other(two_nodes):
    cluster = two_nodes
    home, other = cluster.nodes
    ann, bob = await new_player(home.base, "Ann"), await new_player(home.base, "Bob")
    code = await new_room(home.base, ann["token"], "oh_hell", OPTIONS, 4, turn_timer=120)
    a = await Client(home.ws_base, code, ann["token"], "Ann").connect()
    b = await Client(home.ws_base, code, bob["token"], "Bob").connect()
    try:
        await b.send({"type": "sit", "seat": 1})
        await b.wait(lambda c: c.state["you"] == 1, what="Bob seated")
        for seat in (2, 3):
            await a.send({"type": "bot", "seat": seat})
        await a.wait(lambda c: all(s["bot"] for s in c.state["seats"][2:]), what="two bots")
        await a.send({"type": "start"})
        assert cluster.owner(code) == home.id
        checked = []

        async def on_turn(client: Client) -> None:
            mover, waiting = (ann, bob) if client is a else (bob, ann)
            await shows(other, mover, code, (True, client.state["room"]["deadline"]))
            await shows(other, waiting, code, (False, None))
            checked.append(client.label)

        await play_to_end([a, b], random.Random(5), timeout=120, on_turn=on_turn)
        assert {"Ann", "Bob"} <= set(checked)
        assert cluster.owner(code) == home.id, "the table never moved: the other node read marks"
        for player in (ann, bob):
            listed = (await turns(other, player)).get(code)
            assert listed is None or listed == (False, None), "a finished table awaits nobody"
    finally:
        await a.close()
        await b.close()
