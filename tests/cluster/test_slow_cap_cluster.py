"""The slow-table cap on two nodes behind HAProxy (PostgreSQL, Redis): one player asks for a
seat at two slow tables held by two different nodes at the same moment, round after round,
with one slow seat to spare; never both are given, and a seat left is a seat to spare again.
"""

from __future__ import annotations

import asyncio
import os

import pytest
from cluster_harness import Cluster, cluster_settings, require_services
from ws_client import Client, new_player, new_room

from server.config import normalize_database_url

HOUR = 3600
CAP = 2
ROUNDS = 12


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):
    require_services()
    url = normalize_database_url(os.environ["TEST_DATABASE_URL"])
    settings = {**cluster_settings(), "FELT_MAX_SLOW_TABLES_PER_PLAYER": str(CAP)}
    cluster = Cluster(tmp_path_factory.mktemp("slowcap"), url, n=2, **settings)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def tables_on_two_nodes(cluster: Cluster) -> list[tuple[str, Client]]:
    """Two waiting slow tables, each of another host, held by two different nodes (a table
    goes to the node the balancer hashes its code to once a socket opens): (code, host socket)."""
    found: dict[str, tuple[str, Client]] = {}
    extra: list[Client] = []
    for i in range(40):
        if len(found) == 2:
            break
        host = await new_player(cluster.base, f"Hal{i}")
        code = await new_room(cluster.base, host["token"], "oh_hell", {"max_cards": 7}, seats=4, turn_timer=HOUR)
        socket = await Client(cluster.ws_base, code, host["token"], f"hal{i}").connect()
        owner = cluster.owner(code)
        if owner is not None and owner not in found:
            found[owner] = (code, socket)
        else:
            extra.append(socket)
    for socket in extra:
        await socket.close()
    assert len(found) == 2, "forty tables and all of them on one node"
    return list(found.values())


def seated(c: Client) -> bool:
    return c.state is not None and c.state["you"] is not None


async def answered(c: Client, errors: int) -> None:
    """Until the socket's player is seated or an error came after the first ``errors``."""
    await c.wait(lambda x: seated(x) or len(x.errors) > errors, 15, "a seat or a refusal")


async def stand(c: Client) -> None:
    await c.send({"type": "stand"})
    await c.wait(lambda x: not seated(x), 15, "the seat left")


async def test_two_seats_asked_at_once_on_two_nodes_never_pass_the_cap(two_nodes):
    cluster = two_nodes
    pat = await new_player(cluster.base, "Pat")
    await new_room(cluster.base, pat["token"], "oh_hell", {"max_cards": 7}, seats=4, turn_timer=HOUR)  # one of two
    tables = await tables_on_two_nodes(cluster)
    pats = [await Client(cluster.ws_base, code, pat["token"], f"pat@{code}").connect() for code, _ in tables]
    try:
        for _round in range(ROUNDS):
            errors = [len(c.errors) for c in pats]
            await asyncio.gather(*(c.send({"type": "sit", "seat": 1}) for c in pats))
            await asyncio.gather(*(answered(c, n) for c, n in zip(pats, errors, strict=True)))
            won = [c for c in pats if seated(c)]
            lost = [c for c in pats if not seated(c)]
            assert len(won) == 1, f"round {_round}: seated at {len(won)} of two with one slow seat to spare"
            assert lost[0].errors[-1]["code"] == "too_many_slow_tables", lost[0].errors[-1]
            await stand(won[0])
            # The seat left is one to spare again, on the other node too.
            await lost[0].send({"type": "sit", "seat": 1})
            await answered(lost[0], len(lost[0].errors))
            assert seated(lost[0]), lost[0].errors[-1:]
            await stand(lost[0])
    finally:
        for c in pats:
            await c.close()
        for _code, host in tables:
            await host.close()
