"""Web Push that cannot be turned against the server or anyone else, through a real server on
SQLite and on PostgreSQL, with push services of the test's own on loopback (127.0.0.1 and
127.0.0.2 stand for two hosts):

- a push service that answers its headers and then a byte every 2 s, for ten of a player's
  devices, does not hold up another player's push to another host, and each of its requests
  is cut off at ``FELT_PUSH_TIMEOUT_S`` (the whole request, not each read);
- one endpoint gets one message an event, however many devices (of however many players)
  subscribed with it;
- a player has at most 20 devices and 10 push subscriptions (the default caps): one more (a
  linked device, a passkey's sign-in, a subscription) is refused with 409 and changes nothing.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import httpx
import pytest
from live_server import served_on
from push_receiver import Keys, PushReceiver
from soft_passkey import SoftPasskey
from ws_client import Client, linked_device, new_player, new_room

SHORT = {"max_cards": 2, "rebound": False}  # a short Oh Hell
DEADLINE_S = 5.0  # FELT_PUSH_TIMEOUT_S here: longer than the drip's 2 s between bytes


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    env = {
        "FELT_OUTBOUND_ALLOW_PRIVATE": "1",  # the push services are the test's, on loopback
        "FELT_RECONNECT_GRACE_S": "600",  # a player who closed the table keeps their seat
        "FELT_PUSH_TIMEOUT_S": str(DEADLINE_S),
        "FELT_PRESENCE_DELAY_S": "0",
        "FELT_RATE_LINKS_PER_MINUTE": "10000",  # the tests link dozens of devices
        "FELT_RATE_LINKS_BURST": "10000",
    }
    with served_on(request.param, tmp_path_factory, "pushcap", **env) as live:
        yield live


@pytest.fixture
async def receivers():
    """Two push services: one on 127.0.0.1, one on 127.0.0.2 (another host to the server)."""
    one, two = await PushReceiver("127.0.0.1").start(), await PushReceiver("127.0.0.2").start()
    yield one, two
    await one.stop()
    await two.stop()


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def devices_of(server, player: dict, count: int) -> list[dict]:
    """The player's first device and ``count - 1`` more, each as ``{"token", ...}``."""
    return [player] + [await linked_device(server.base, player) for _ in range(count - 1)]


async def subscribe(http: httpx.AsyncClient, device: dict, endpoint: str, keys: Keys | None = None) -> httpx.Response:
    body = (keys or Keys()).subscription(endpoint)
    return await http.put("/api/devices/me/push", json=body, headers=auth(device["token"]))


async def seated_away(server, code: str, players: list[dict]) -> None:
    """Each player takes the next seat at ``code`` and closes the table again (keeping it)."""
    for seat, player in enumerate(players, start=1):
        client = await Client(server.ws_base, code, player["token"], player["name"]).connect()
        await client.send({"type": "sit", "seat": seat})
        await client.wait(lambda c, seat=seat: c.state["you"] == seat, what=f"{player['name']} seated")
        await client.close()


async def test_a_slow_push_service_holds_up_no_other_host_and_is_cut_off_at_the_deadline(server, receivers):
    slow, other = receivers
    ann, dan, bea = [await new_player(server.base, name) for name in ("Ann", "Dan", "Bea")]
    bea_keys = Keys()
    async with httpx.AsyncClient(base_url=server.base) as http:
        for i, device in enumerate(await devices_of(server, dan, 10)):
            slow.replies[f"drip{i}"] = "drip"
            assert (await subscribe(http, device, slow.url(f"drip{i}"))).status_code == 200
        assert (await subscribe(http, bea, other.url("bea"), bea_keys)).status_code == 200
    code = await new_room(server.base, ann["token"], "oh_hell", SHORT, 4)
    await seated_away(server, code, [dan, bea])  # Dan's seat comes first: his pushes start first
    host = await Client(server.ws_base, code, ann["token"], "Ann").connect()
    said = time.monotonic()
    await host.send({"type": "chat", "text": "Dan, Bea: ready?"})
    got = await other.wait_for("bea", timeout=2 * DEADLINE_S)
    assert time.monotonic() - said < DEADLINE_S / 2, "Bea's push waited on Dan's slow push service"
    assert bea_keys.decrypt(got[0].body)["title"] == "Ann mentioned you at the Oh Hell table"
    assert len(slow.drips) >= 8  # Dan's devices' requests were under way meanwhile

    async def first_tries_ended() -> None:
        while sum(d.ended is not None for d in slow.drips) < 10:
            await asyncio.sleep(0.1)

    await asyncio.wait_for(first_tries_ended(), 4 * DEADLINE_S)
    ended = [d for d in slow.drips if d.ended is not None]
    for drip in ended:  # each request, though it was never idle for 2 s, ended at the deadline
        assert DEADLINE_S - 1 < drip.ended - drip.started < DEADLINE_S + 1, drip
    starts = sorted(d.started for d in slow.drips)
    assert starts[8] - starts[0] > DEADLINE_S - 1  # the ninth waited for one of its host's 8 slots
    await host.close()


async def test_one_endpoint_gets_one_message_an_event_however_many_devices_gave_it(server, receivers):
    service, _ = receivers
    ann = await new_player(server.base, "Ann")
    players = [await new_player(server.base, name) for name in ("Cy", "Di", "Ed", "Flo", "Gus", "Hal")]
    keys: list[Keys] = []
    async with httpx.AsyncClient(base_url=server.base) as http:
        for player in players:  # 6 players x 10 devices: 60 subscriptions of one endpoint
            for device in await devices_of(server, player, 10):
                keys.append(Keys())
                assert (await subscribe(http, device, service.url("one"), keys[-1])).status_code == 200
    code = await new_room(server.base, ann["token"], "oh_hell", SHORT, 7)
    await seated_away(server, code, players)
    host = await Client(server.ws_base, code, ann["token"], "Ann").connect()
    await host.send({"type": "chat", "text": "Cy?"})  # one player's ten devices
    await service.wait_for("one")
    await host.send({"type": "start"})  # six players' sixty devices
    await host.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    await service.wait_for("one", 2)
    await asyncio.sleep(2)  # whatever else would come, comes in this time

    def kind_of(body: bytes) -> str:
        for key in keys:  # sent to one of the subscriptions: only its keys decrypt it
            try:
                return key.decrypt(body)["kind"]
            except Exception:  # noqa: BLE001 - another subscription's keys
                continue
        raise AssertionError("no subscription's keys decrypt this message")

    kinds = Counter(kind_of(r.body) for r in service.at("one"))
    assert kinds["mention"] == 1 and kinds["start"] == 1
    assert kinds["turn"] <= 1 and sum(kinds.values()) == 2 + kinds["turn"]  # the first turn, if not Ann's
    await host.close()


async def add_passkey(http: httpx.AsyncClient, player: dict, passkey: SoftPasskey) -> None:
    made = (await http.post("/api/players/me/passkeys/options", headers=auth(player["token"]))).json()
    answer = {"challenge_id": made["challenge_id"], "credential": passkey.create(made["options"])}
    added = await http.post("/api/players/me/passkeys", json=answer, headers=auth(player["token"]))
    assert added.status_code == 201, added.text


async def sign_in(http: httpx.AsyncClient, passkey: SoftPasskey) -> httpx.Response:
    made = (await http.post("/api/passkeys/sign-in/options")).json()
    answer = {"challenge_id": made["challenge_id"], "credential": passkey.get(made["options"])}
    return await http.post("/api/passkeys/sign-in", json=answer)


async def test_a_player_past_the_device_or_subscription_cap_is_refused_and_nothing_changes(server, receivers):
    service, _ = receivers
    eve = await new_player(server.base, "Eve")
    site = server.base.replace("127.0.0.1", "localhost")  # a passkey's site is a host name, never an address
    passkey = SoftPasskey(site)
    async with httpx.AsyncClient(base_url=server.base, headers={"Host": site.split("//", 1)[1]}) as http:
        await add_passkey(http, eve, passkey)
        mine = await devices_of(server, eve, 20)
        code = (await http.post("/api/players/me/links", headers=auth(eve["token"]))).json()["code"]
        refused = await http.post("/api/players/link", json={"code": code})
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "too_many_devices", refused.text
        refused = await sign_in(http, passkey)
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "too_many_devices", refused.text
        listed = (await http.get("/api/players/me/devices", headers=auth(eve["token"]))).json()["devices"]
        assert len(listed) == 20
        kept = (await http.get("/api/players/me/passkeys", headers=auth(eve["token"]))).json()["passkeys"]
        assert kept[0]["last_used_at"] is None  # the refused sign-in left the passkey as it was
        for gone in [d["id"] for d in listed if not d["current"]][:2]:
            assert (await http.delete(f"/api/players/me/devices/{gone}", headers=auth(eve["token"]))).status_code == 204
        mine = [d for d in mine if (await http.get("/api/players/me", headers=auth(d["token"]))).status_code == 200]
        assert len(mine) == 18
        linked = await http.post("/api/players/link", json={"code": code})  # the refused code was not spent
        assert linked.status_code == 201, linked.text
        signed_in = await sign_in(http, passkey)
        assert signed_in.status_code == 201 and signed_in.json()["id"] == eve["id"], signed_in.text

        for i, device in enumerate(mine[:10]):
            assert (await subscribe(http, device, service.url(f"d{i}"))).status_code == 200
        eleventh = mine[10]
        refused = await subscribe(http, eleventh, service.url("d10"))
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "too_many_subscriptions"
        settings = await http.get("/api/devices/me/notifications", headers=auth(eleventh["token"]))
        assert settings.json()["push"] is False
        assert (await subscribe(http, mine[0], service.url("again"))).status_code == 200  # replacing is no more
        assert (await http.delete("/api/devices/me/push", headers=auth(mine[1]["token"]))).status_code == 204
        assert (await subscribe(http, eleventh, service.url("d10"))).status_code == 200
