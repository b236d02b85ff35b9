"""Web Push through a real server (SQLite and PostgreSQL): a device subscribes with keys the
test made, the player's turn comes while their socket is closed, and the loopback push
service the test runs gets one message, which the test decrypts with the subscription's private
key and whose VAPID token verifies with the key the server publishes. Turns the player watched
sent nothing; a push service that never answers does not hold up the table.
"""

from __future__ import annotations

import base64
import json
import random
import time

import httpx
import pytest
from live_server import served_on
from push_receiver import Keys, PushReceiver
from py_vapid import Vapid02
from ws_client import Client, choose, new_player, new_room

SHORT = {"max_cards": 2, "rebound": False}  # a short Oh Hell


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    env = {
        "FELT_OUTBOUND_ALLOW_PRIVATE": "1",  # the push service is the test's, on loopback
        "FELT_RECONNECT_GRACE_S": "600",  # a player who closed the table keeps their seat (no bot)
        "FELT_PUSH_TIMEOUT_S": "600",  # a hung push service is waited on for as long as the test runs
        "FELT_PRESENCE_DELAY_S": "0",
    }
    with served_on(request.param, tmp_path_factory, "push", **env) as live:
        yield live


@pytest.fixture
async def receiver():
    receiver = await PushReceiver().start()
    yield receiver
    await receiver.stop()


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def act(client: Client, rng: random.Random) -> None:
    """One legal action; again on the newer view when the table moved on meanwhile (a
    presence change) and it is still this client's turn."""
    while client.my_turn():
        v = client.v
        await client.send({"type": "act", "action": choose(client.game, rng), "v": v})
        await client.wait(lambda c, v=v: c.v > v or c.errors, what="the action's patch")
        if not client.errors:
            return
        assert [e["code"] for e in client.errors] == ["stale"], client.errors
        client.errors.clear()
        await client.wait(lambda c, v=v: c.v > v, what="the newer view")


async def table_for(server, ann: dict, bob: dict) -> tuple[str, Client, Client]:
    """Ann's four-seat Oh Hell table with Bob and two bots, started, both connected."""
    code = await new_room(server.base, ann["token"], "oh_hell", SHORT, 4)
    a = await Client(server.ws_base, code, ann["token"], "Ann").connect()
    b = await Client(server.ws_base, code, bob["token"], "Bob").connect()
    await b.send({"type": "sit", "seat": 1})
    await b.wait(lambda c: c.state["you"] == 1, what="Bob seated")
    for seat in (2, 3):
        await a.send({"type": "bot", "seat": seat})
    await a.wait(lambda c: all(s["bot"] for s in c.state["seats"][2:]), what="two bots")
    await a.send({"type": "start"})
    await a.wait(lambda c: c.game is not None and c.state["room"]["status"] == "playing", what="the start")
    return code, a, b


async def ann_leaves_after_a_turn_she_watched(a: Client, b: Client, rng: random.Random) -> int:
    """Ann plays while she looks at the table until it is Bob's turn after at least one of
    hers; then she closes the table. How many turns she took watching."""
    watched = 0
    while True:
        await settle(a, b)
        if a.my_turn():
            await act(a, rng)
            watched += 1
        elif b.my_turn():
            if watched:
                break
            await act(b, rng)
        else:  # the bots' turn
            v = a.v
            await a.wait(lambda c, v=v: c.v > v, what="the bots")
    await a.close()
    await b.wait(lambda c: not c.state["seats"][0]["connected"], what="Ann gone from the table")
    return watched


async def bob_plays_until_anns_turn(b: Client, rng: random.Random) -> None:
    while True:
        await b.wait(lambda c: c.my_turn() or c.game["to_act"] == [0], what="Bob's turn or Ann's")
        if not b.my_turn():
            return
        await act(b, rng)


async def settle(a: Client, b: Client) -> None:
    """Both clients at the same version."""
    while a.v != b.v:
        target = max(a.v, b.v)
        await a.wait(lambda c, target=target: c.v >= target, what="Ann up to date")
        await b.wait(lambda c, target=target: c.v >= target, what="Bob up to date")


async def play_to_end(a: Client, b: Client, rng: random.Random) -> None:
    while True:
        await settle(a, b)
        if a.state["room"]["status"] == "finished":
            return
        mover = a if a.my_turn() else b if b.my_turn() else None
        if mover is None:  # the bots' turn
            v = a.v
            await a.wait(lambda c, v=v: c.v > v, what="the bots")
            continue
        await act(mover, rng)


async def subscribe(http: httpx.AsyncClient, player: dict, subscription: dict) -> None:
    answer = await http.put("/api/devices/me/push", json=subscription, headers=auth(player["token"]))
    assert answer.status_code == 200, answer.text
    assert answer.json()["push"] is True


def check_vapid(header: str, key: str, audience: str) -> None:
    """The Authorization header is a VAPID token for ``audience`` signed with ``key``."""
    scheme, _, params = header.partition(" ")
    parts = dict(p.split("=", 1) for p in params.split(","))
    assert scheme == "vapid" and parts["k"] == key
    assert Vapid02.verify(header)  # the signature, with the key the header names
    body = parts["t"].split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    assert claims["aud"] == audience and claims["exp"] > time.time() and claims["sub"].startswith("mailto:")


async def test_your_turn_with_the_table_closed_is_pushed_encrypted_and_signed(server, receiver):
    rng = random.Random(35)
    ann, bob = await new_player(server.base, "Ann"), await new_player(server.base, "Bob")
    keys = Keys()
    async with httpx.AsyncClient(base_url=server.base) as http:
        key = (await http.get("/api/push/key")).json()["key"]
        await subscribe(http, ann, keys.subscription(receiver.url("ann")))
        code, a, b = await table_for(server, ann, bob)
        watched = await ann_leaves_after_a_turn_she_watched(a, b, rng)
        assert watched >= 1 and receiver.at("ann") == []  # turns she watched: nothing pushed
        await bob_plays_until_anns_turn(b, rng)
        got = await receiver.wait_for("ann")
        assert len(receiver.at("ann")) == 1
        message = got[0]
        assert message.headers["Content-Encoding"] == "aes128gcm" and int(message.headers["TTL"]) > 0
        assert keys.decrypt(message.body) == {
            "title": "Your turn at Ann's Oh Hell table",
            "body": "The table waits for you.",
            "url": f"/r/{code}",
            "kind": "turn",
            "tag": f"felt-turn-{code}",
        }
        check_vapid(message.headers["Authorization"], key, f"http://127.0.0.1:{receiver.port}")
        metrics = (await http.get("/metrics")).text
        assert 'felt_push_messages_total{outcome="dropped"} 0.0' in metrics
        await b.close()


async def test_a_push_service_that_never_answers_does_not_hold_up_the_table(server, receiver):
    rng = random.Random(36)
    ann, bob = await new_player(server.base, "Ann"), await new_player(server.base, "Bob")
    receiver.replies["hung"] = "hang"
    async with httpx.AsyncClient(base_url=server.base) as http:
        await subscribe(http, ann, Keys().subscription(receiver.url("hung")))
        code, a, b = await table_for(server, ann, bob)
        await ann_leaves_after_a_turn_she_watched(a, b, rng)
        await bob_plays_until_anns_turn(b, rng)
        await receiver.wait_for("hung")
        # The push is held open by the receiver; Ann comes back and the match plays to its end.
        a = await Client(server.ws_base, code, ann["token"], "Ann").connect()
        await play_to_end(a, b, rng)
        assert len(receiver.hanging) == 1 and not receiver.hanging[0].transport.is_closing()
        await a.close()
        await b.close()
