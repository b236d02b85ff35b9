"""One identity on every device, through a real server on SQLite and on PostgreSQL (PROTOCOL §8).

A device linked with a one-time code is the same player: its token opens the player's seat at
a table, and "Your tables", groups and history answer the same for both tokens. Revoking the
device closes its room socket at once (1008) and its token is refused from then on, while
the other device plays on.
"""

from __future__ import annotations

import httpx
import orjson
import pytest
import sqlalchemy as sa
import websockets
from ws_client import Client, new_player, new_room

SHORT = {"max_cards": 2, "rebound": False}  # a short Oh Hell


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def linked_phone(http: httpx.AsyncClient, laptop: dict) -> dict:
    code = (await http.post("/api/players/me/links", headers=auth(laptop["token"]))).json()["code"]
    answer = await http.post("/api/players/link", json={"code": code})
    assert answer.status_code == 201, answer.text
    return answer.json()


async def test_a_linked_device_is_the_same_player_and_revoking_it_closes_its_socket(server):
    laptop = await new_player(server.base, "Ana")
    code = await new_room(server.base, laptop["token"], "oh_hell", SHORT, 4)
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = (await http.post("/api/groups", json={"name": "Tuesday"}, headers=auth(laptop["token"]))).json()
        phone = await linked_phone(http, laptop)
        assert (phone["id"], phone["name"]) == (laptop["id"], "Ana")
        for path in ("/api/tables", "/api/groups"):
            mine = [(await http.get(path, headers=auth(t["token"]))).json() for t in (laptop, phone)]
            assert mine[0] == mine[1]
        assert [g["code"] for g in mine[1]["groups"]] == [group["code"]]
        on_laptop = await Client(server.ws_base, code, laptop["token"], "laptop").connect()
        on_phone = await Client(server.ws_base, code, phone["token"], "phone").connect()
        assert on_phone.state["you"] == on_laptop.state["you"] == 0
        assert on_phone.state["me"]["id"] == laptop["id"]
        listed = (await http.get("/api/players/me/devices", headers=auth(laptop["token"]))).json()["devices"]
        phone_device = next(d["id"] for d in listed if not d["current"])
        gone = await http.delete(f"/api/players/me/devices/{phone_device}", headers=auth(laptop["token"]))
        assert gone.status_code == 204
        await on_phone.wait(lambda c: c.closed is not None, what="the phone's socket to close")
        assert on_phone.closed[0] == 1008
        assert (await http.get("/api/tables", headers=auth(phone["token"]))).status_code == 401
        async with websockets.connect(f"{server.ws_base}/ws/rooms/{code}?token={phone['token']}") as ws:
            assert orjson.loads(await ws.recv())["code"] == "unauthorized"
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd.code == 1008
        await on_laptop.send({"type": "bot", "seat": 1})
        await on_laptop.wait(lambda c: c.state["seats"][1]["bot"], what="the laptop still playing")
        assert on_laptop.closed is None
        await on_laptop.close()


async def test_a_player_holds_a_few_passkey_challenges_however_often_they_ask(server):
    """Each challenge is a row for five minutes: asking again and again replaces the oldest,
    and the newest are kept."""
    ana, rui = await new_player(server.base, "Ana"), await new_player(server.base, "Rui")
    at_a_name = {"Host": f"localhost:{server.base.rsplit(':', 1)[1]}"}  # a passkey needs a host name
    async with httpx.AsyncClient(base_url=server.base, headers=at_a_name) as http:
        asked = [
            (await http.post("/api/players/me/passkeys/options", headers=auth(ana["token"]))).json()["challenge_id"]
            for _ in range(30)
        ]
        await http.post("/api/players/me/passkeys/options", headers=auth(rui["token"]))
    engine = sa.create_engine(server.env["DATABASE_URL"])
    try:
        with engine.connect() as conn:
            held = dict(
                conn.execute(sa.text("SELECT player_id, count(*) FROM passkey_challenges GROUP BY player_id")).all()
            )
            mine = sa.text("SELECT id FROM passkey_challenges WHERE player_id = :p")
            kept = set(conn.scalars(mine, {"p": ana["id"]}))
    finally:
        engine.dispose()
    assert held[ana["id"]] == 5 and held[rui["id"]] == 1
    assert kept == set(asked[-5:]), "the newest five are kept"


async def test_a_passkey_at_an_ip_address_is_refused_saying_it_needs_the_host_name(server):
    """Browsers refuse a passkey whose site is an IP address: the server says so in words,
    for adding one and for signing in, and answers as usual at a host name."""
    ana = await new_player(server.base, "Ana")
    port = server.base.rsplit(":", 1)[1]
    calls = (("/api/players/me/passkeys/options", auth(ana["token"])), ("/api/passkeys/sign-in/options", {}))
    async with httpx.AsyncClient(base_url=server.base) as http:
        for host in (f"127.0.0.1:{port}", f"[::1]:{port}", "10.0.0.7"):
            for path, headers in calls:
                refused = await http.post(path, headers={**headers, "Host": host})
                assert refused.status_code == 400, (host, path, refused.text)
                error = refused.json()["error"]
                assert error["code"] == "passkey_needs_host_name" and "host name" in error["message"], error
        for path, headers in calls:
            named = await http.post(path, headers={**headers, "Host": f"localhost:{port}"})
            assert named.status_code == 200, named.text
            assert "localhost" in named.text


async def test_a_device_is_named_by_its_player_and_only_by_them(server):
    laptop = await new_player(server.base, "Ana")
    eve = await new_player(server.base, "Eve")
    async with httpx.AsyncClient(
        base_url=server.base, headers={"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0"}
    ) as http:
        phone = await linked_phone(http, laptop)
        mine = (await http.get("/api/players/me/devices", headers=auth(laptop["token"]))).json()["devices"]
        phone_id = next(d["id"] for d in mine if not d["current"])
        assert all(d["name"] is None for d in mine)
        named = await http.patch(
            f"/api/players/me/devices/{phone_id}", json={"name": "  Kitchen tablet "}, headers=auth(laptop["token"])
        )
        assert named.status_code == 200, named.text
        assert named.json()["name"] == "Kitchen tablet" and named.json()["current"] is False
        seen = (await http.get("/api/players/me/devices", headers=auth(phone["token"]))).json()["devices"]
        assert {d["id"]: d["name"] for d in seen}[phone_id] == "Kitchen tablet"  # on every device of hers
        assert all(d["last_seen_at"] for d in seen)
        for bad, status in (({"name": "x" * 25}, 422), ({"name": "a\u0000b"}, 400), ({"name": 5}, 422), ({}, 422)):
            refused = await http.patch(f"/api/players/me/devices/{phone_id}", json=bad, headers=auth(laptop["token"]))
            assert refused.status_code == status, (bad, refused.text)
        assert (
            await http.patch(f"/api/players/me/devices/{phone_id}", json={"name": "Mine"}, headers=auth(eve["token"]))
        ).status_code == 404
        assert (
            await http.patch("/api/players/me/devices/nope", json={"name": "x"}, headers=auth(laptop["token"]))
        ).status_code == 404
        kept = (await http.get("/api/players/me/devices", headers=auth(laptop["token"]))).json()["devices"]
        assert {d["id"]: d["name"] for d in kept}[phone_id] == "Kitchen tablet"  # nothing refused changed it
        forgot = await http.patch(
            f"/api/players/me/devices/{phone_id}", json={"name": None}, headers=auth(phone["token"])
        )
        assert forgot.status_code == 200 and forgot.json()["name"] is None and forgot.json()["current"] is True
        assert (
            await http.delete(f"/api/players/me/devices/{phone_id}", headers=auth(laptop["token"]))
        ).status_code == 204
        gone = await http.patch(
            f"/api/players/me/devices/{phone_id}", json={"name": "x"}, headers=auth(laptop["token"])
        )
        assert gone.status_code == 404
