"""Rotate partners through a real server, on SQLite and on PostgreSQL.

After a partnership match of a group, the host's "Rotate partners" tells every player's
connection at the finished table where to go (``room.next`` with ``room.next_rotated``); the
new table names the rotated seating (``room.partners``) and keeps each player's seat for them
for the reconnect grace: the host cannot put a bot there, nor anyone else sit there, until the
player comes or the grace is over.
"""

from __future__ import annotations

import asyncio
import random
import time

import httpx
import pytest
from live_server import served_on
from ws_client import Client, new_player, play_to_end

GRACE_S = 6  # the reconnect grace, the time a rotated partner's seat is kept for them


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    with served_on(request.param, tmp_path_factory, "rotate", FELT_RECONNECT_GRACE_S=str(GRACE_S)) as live:
        yield live


def auth(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


async def finished_group_match(server, http, four: list[dict]) -> tuple[str, list[Client]]:
    """A group's Bid Whist of one hand played to its end by ``four``, their sockets still open."""
    group = (await http.post("/api/groups", json={"name": "Friday"}, headers=auth(four[0]))).json()
    invite = group["invite_url"].split("#invite=", 1)[1]
    for p in four[1:]:
        r = await http.post(f"/api/groups/{group['code']}/join", json={"invite": invite}, headers=auth(p))
        assert r.status_code == 200, r.text
    made = await http.post(
        "/api/rooms",
        json={"game": "bid_whist", "group": group["code"], "options": {"target": 1}},
        headers=auth(four[0]),
    )
    room = made.json()["code"]
    clients = [await Client(server.ws_base, room, p["token"], p["name"]).connect() for p in four]
    for seat, c in enumerate(clients[1:], start=1):
        await c.send({"type": "sit", "seat": seat})
    await clients[0].wait(lambda c: all(s["name"] for s in c.state["seats"]), what="a full table")
    await clients[0].send({"type": "start"})
    await clients[0].wait(lambda c: c.state["room"]["status"] != "waiting", what="the start")
    await play_to_end(clients, random.Random(3))
    return room, clients


async def test_rotate_partners_moves_every_player_and_keeps_their_seats_from_bots(server):
    names = ["Ana", "Rui", "Eva", "Bia"]
    four = [await new_player(server.base, n) for n in names]
    cy = await new_player(server.base, "Cy")
    async with httpx.AsyncClient(base_url=server.base) as http:
        room, old = await finished_group_match(server, http, four)
        watcher = await Client(server.ws_base, room, cy["token"], "Cy").connect()
        assert all(c.state["room"]["next_rotated"] is False for c in old)
        again = await http.post(
            "/api/rooms", json={"game": "bid_whist", "from": room, "rotate_partners": True}, headers=auth(four[0])
        )
        assert again.status_code == 201, again.text
        new = again.json()["code"]
        # Each of the four connections is told where to go, and that it goes as a rotated partner;
        # someone merely watching is told nothing.
        for c in old:
            await c.wait(lambda c: c.state["room"]["next"] == new, what="the next table")
            assert c.state["room"]["next_rotated"] is True
        assert watcher.state["room"]["next"] is None and watcher.state["room"]["next_rotated"] is False
        for c in [*old, watcher]:
            await c.close()

        host = await Client(server.ws_base, new, four[0]["token"], "Ana").connect()
        partners = host.state["room"]["partners"]
        by_seat = {p["seat"]: p["name"] for p in partners}
        assert sorted(by_seat) == [0, 1, 2, 3] and by_seat[0] == "Ana" and sorted(by_seat.values()) == sorted(names)
        # Ana partnered Eva and Rui partnered Bia: each now has someone else.
        assert {by_seat[0], by_seat[2]} != {"Ana", "Eva"} and {by_seat[1], by_seat[3]} != {"Rui", "Bia"}
        assert host.state["room"]["held_until"] > time.time() * 1000
        # While the others are on their way, the host cannot fill their seats with bots...
        for seat in (1, 2, 3):
            await host.send({"type": "bot", "seat": seat})
            assert (await host.next_error())["code"] == "seat_held"
        # ...nor can someone else sit there.
        cy_here = await Client(server.ws_base, new, cy["token"], "Cy").connect()
        await cy_here.send({"type": "sit", "seat": 1})
        assert (await cy_here.next_error())["code"] == "seat_held"
        assert [s["name"] for s in host.state["seats"]] == ["Ana", None, None, None]

        # Two of them come and sit where the rotation says; the third never does.
        id_of = {p["name"]: p for p in four}
        came = [await Client(server.ws_base, new, id_of[by_seat[s]]["token"], by_seat[s]).connect() for s in (1, 2)]
        for c, seat in zip(came, (1, 2), strict=True):
            assert c.state["you"] == seat
        await host.wait(lambda c: [s["name"] for s in c.state["seats"]][:3] == [by_seat[0], by_seat[1], by_seat[2]])
        # Past the grace the seat is no longer kept: a bot takes it, as for any absent player.
        await asyncio.sleep(max(0.0, host.state["room"]["held_until"] / 1000 - time.time()) + 0.2)
        await host.send({"type": "bot", "seat": 3})
        await host.wait(lambda c: c.state["seats"][3]["bot"], what="the bot in the absent partner's seat")
        for c in [host, cy_here, *came]:
            await c.close()


async def test_a_plain_play_again_keeps_no_seats_and_moves_nobody(server):
    four = [await new_player(server.base, n) for n in ("Ana", "Rui", "Eva", "Bia")]
    async with httpx.AsyncClient(base_url=server.base) as http:
        room, old = await finished_group_match(server, http, four)
        again = await http.post("/api/rooms", json={"game": "bid_whist", "from": room}, headers=auth(four[1]))
        assert again.status_code == 201, again.text
        new = again.json()["code"]
        await old[0].wait(lambda c: c.state["room"]["next"] == new, what="the next table")
        assert old[0].state["room"]["next_rotated"] is False
        for c in old:
            await c.close()
        host = await Client(server.ws_base, new, four[1]["token"], "Rui").connect()
        assert host.state["room"]["partners"] is None and host.state["room"]["held_until"] is None
        await host.send({"type": "bot", "seat": 0})
        await host.wait(lambda c: c.state["seats"][0]["bot"], what="a bot in a seat nobody keeps")
        await host.close()
