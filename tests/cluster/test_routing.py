"""A table stays on the node the balancer sends its players to, whatever anyone else asks.

Through the real HAProxy (deploy/haproxy.cfg) and three real nodes: while four people play a
match, an anonymous client keeps asking for the table under other spellings of its code (a
space before or after, a tab, lower case, a percent-encoded letter or slash, a NUL, a
dot segment) and reads it
plainly, through the balancer and straight from every node. No read and no spelling may move
the table: its owner never changes, no player's socket closes, and the match plays to its end.
"""

from __future__ import annotations

import asyncio
import os
import random
from urllib.parse import urlsplit

import httpx
import orjson
import pytest
import websockets
from cluster_harness import Cluster, cluster_settings, require_services
from players import play, seat_players
from ws_client import new_player

from server.config import normalize_database_url

LONGER = {"max_cards": 5, "rebound": False}
# Ten hands: about 260 moves, each followed by a pause of at least PACE_S / 2 until the
# hammer has made HAMMERED requests (at most one per PAUSE_S), so the match cannot end first.
LONGEST = {"max_cards": 10, "rebound": False}
PACE_S = 0.3
HAMMERED = 150  # requests the hammer makes before the match may run on at full speed to its end
PAUSE_S = 0.05  # between two of the hammer's requests: several a second


pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    require_services()
    url = normalize_database_url(os.environ["TEST_DATABASE_URL"])
    settings = {**cluster_settings(), "FELT_RATE_LOOKUPS_PER_MINUTE": "100000", "FELT_RATE_LOOKUPS_BURST": "100000"}
    cluster = Cluster(tmp_path_factory.mktemp("routing"), url, **settings)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def raw_status(base: str, method: str, path: str) -> int:
    """The status of ``method path`` sent byte for byte as written (no client library
    re-encodes it): what any client on the network can send the balancer."""
    where = urlsplit(base)
    reader, writer = await asyncio.open_connection(where.hostname, where.port)
    try:
        writer.write(
            f"{method} {path} HTTP/1.1\r\nHost: felt\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".encode()
        )
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 30)
    finally:
        writer.close()
    return int(line.split()[1])


async def ws_close_code(ws_base: str, path: str) -> int:
    """How the server ends a socket opened at ``path`` (4404 for no such table), or 0 if it
    served a table there (its first frame a snapshot, not an error)."""
    async with websockets.connect(ws_base + path, compression=None) as ws:
        try:
            first = orjson.loads(await asyncio.wait_for(ws.recv(), 30))
            if first["type"] != "error":
                return 0
            await asyncio.wait_for(ws.recv(), 30)
        except websockets.ConnectionClosed as closed:
            return closed.code
    return 0


def spellings(code: str) -> list[tuple[str, str, int]]:
    """(method, path, the status every node must answer) for the code's other spellings."""
    first = f"%{ord(code[0]):02X}{code[1:]}"  # the same code, a letter percent-encoded
    return [
        ("GET", f"/api/rooms/{code}%20", 404),
        ("GET", f"/api/rooms/%20{code}", 404),
        ("GET", f"/api/rooms/{code}%09", 404),
        ("GET", f"/api/rooms/{code.lower()}", 404),
        ("GET", f"/api/rooms/{code[:4]}{code[4:].lower()}", 404),
        ("GET", f"/api/rooms/{code}+", 404),
        ("GET", f"/api/rooms/{code}%00", 400),  # a NUL: refused at the edge, on every node
        ("GET", f"/api/rooms/{code}%G1", 404),  # not valid percent-encoding
        ("GET", f"/api/rooms/%2e%2e/rooms/{code}", 404),
        ("POST", f"/api/tables/{code.lower()}/leave", 401),
        ("POST", f"/api/tables/%20{code}/close", 401),
        ("GET", f"/api/rooms/{first}", 200),
        ("GET", f"/api/rooms%2F{code}", 200),
        ("GET", f"/api/rooms%2f{code}", 200),
        ("GET", f"http://felt/api/rooms/{code}", 200),  # the absolute form
        ("GET", f"/api/rooms/{code}", 200),
        ("GET", "/api/rooms", 200),
    ]


async def test_no_spelling_of_a_code_and_no_read_moves_a_table(cluster: Cluster):
    code, players = await seat_players(cluster.base, cluster.ws_base, "oh_hell", LONGEST)
    owner = cluster.owner(code)
    assert owner is not None
    moves_before = sum(1 for _, kind, _ in cluster.table_log(code) if kind == "owner")
    answers: dict[tuple[str, str], set[int]] = {}
    sockets: dict[str, set[int]] = {}
    owners: set[str | None] = set()
    made = 0
    tried_sockets: list[str] = []
    stop = asyncio.Event()

    async def hammer() -> None:
        nonlocal made
        bases = [cluster.base] + [n.base for n in cluster.nodes]
        ws_paths = [f"/ws/rooms/{code.lower()}", f"/ws/rooms/{code}%20", f"/ws/rooms/%20{code}"]
        turn = 0
        while not stop.is_set():
            for method, path, _ in spellings(code):
                base = bases[turn % len(bases)]
                answers.setdefault((method, path), set()).add(await raw_status(base, method, path))
                made += 1
                owners.add(cluster.owner(code))
                await asyncio.sleep(PAUSE_S)
            path = ws_paths[turn % len(ws_paths)]
            sockets.setdefault(path, set()).add(await ws_close_code(cluster.ws_base, path))
            tried_sockets.append(path)
            turn += 1

    hammering = asyncio.create_task(hammer())
    try:
        rng = random.Random(21)
        await play(players, rng, timeout=600, until=lambda: made >= HAMMERED, pace_s=PACE_S)
        assert made >= HAMMERED, "the match ended before the hammer was done"
        await play(players, rng, timeout=600)  # to the end of the match, still hammered
    finally:
        stop.set()
        await hammering
    assert made >= HAMMERED
    print(
        f"hammered: {made} requests in {len(answers)} spellings, {len(tried_sockets)} sockets "
        f"under other spellings; owner {owner} throughout; {len(cluster.table_log(code))} log entries"
    )
    for method, path, status in spellings(code):
        assert answers[(method, path)] == {status}, f"{method} {path}: {answers[(method, path)]}"
    assert all(codes == {4404} for codes in sockets.values()), sockets
    assert owners == {owner}, f"the table's lease moved: {owners}"
    log = cluster.table_log(code)
    assert sum(1 for _, kind, _ in log if kind == "owner") == moves_before, "the table changed owner"
    assert [p.reconnects for p in players] == [0] * len(players), "a player's socket was closed"
    assert all(p.client.state["room"]["status"] == "finished" for p in players)
    assert [v for v, _, _ in log] == list(range(1, len(log) + 1)), "one history, no gaps"
    for p in players:
        await p.client.close()


async def test_a_read_of_a_table_on_another_node_answers_from_its_log(cluster: Cluster):
    """A plain read sent to each node straight (not through the balancer) answers the table's
    summary, and a stranger's leave or close is refused there on the table's log; none takes
    the table, and the owner's players never notice."""
    code, players = await seat_players(cluster.base, cluster.ws_base, "oh_hell", LONGER)
    owner = cluster.owner(code)
    moves_before = sum(1 for _, kind, _ in cluster.table_log(code) if kind == "owner")
    stranger = {"Authorization": f"Bearer {(await new_player(cluster.base, 'Stranger'))['token']}"}
    async with httpx.AsyncClient() as http:
        for _ in range(3):
            for node in cluster.nodes:
                r = await http.get(f"{node.base}/api/rooms/{code}")
                assert r.status_code == 200, r.text
                assert r.json()["code"] == code and r.json()["status"] == "playing" and r.json()["taken"] == 4
                r = await http.post(f"{node.base}/api/tables/{code}/leave", headers=stranger)
                assert (r.status_code, r.json()["error"]["code"]) == (409, "not_seated"), r.text
                r = await http.post(f"{node.base}/api/tables/{code}/close", headers=stranger)
                assert (r.status_code, r.json()["error"]["code"]) == (403, "not_host"), r.text
                assert cluster.owner(code) == owner
    await play(players, random.Random(22), timeout=300)
    assert sum(1 for _, kind, _ in cluster.table_log(code) if kind == "owner") == moves_before
    assert [p.reconnects for p in players] == [0] * len(players)
    for p in players:
        await p.client.close()
