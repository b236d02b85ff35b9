"""A player's devices over HTTP: link codes (once, 10 minutes, rate-limited), the QR code, the
list of devices, revoking one (its token refused at once, its sockets closed), renaming."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from server import players as players_module
from server.config import Settings
from server.edges.api import players
from server.edges.api.errors import install_error_handlers
from server.edges.guard import ClientAddresses
from server.limits import MemoryRateLimiter, rates_from
from server.players import CLOSE_REVOKED, DeviceSockets
from server.storage import devices

ROUTER = players.router
FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
PHONE = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36"
)


@pytest.fixture
async def app(db):
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(ROUTER, prefix="/api")
    app.state.db = db
    app.state.device_sockets = DeviceSockets()
    app.state.addresses = ClientAddresses([])
    app.state.settings = Settings(rate_links_burst=4, rate_links_per_minute=0.01)
    app.state.limiter = MemoryRateLimiter(rates_from(app.state.settings))
    return app


@pytest.fixture
async def client(app):
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://felt") as client:
        yield client


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def new_player(client, name="Ana", agent=FIREFOX) -> dict:
    answer = await client.post("/api/players", json={"name": name}, headers={"User-Agent": agent})
    assert answer.status_code == 201
    return answer.json()


async def link(client, token: str, agent=PHONE) -> dict:
    made = await client.post("/api/players/me/links", headers=bearer(token))
    assert made.status_code == 201
    answer = await client.post("/api/players/link", json={"code": made.json()["code"]}, headers={"User-Agent": agent})
    assert answer.status_code == 201
    return answer.json()


async def test_a_link_code_makes_a_new_device_of_the_same_player_once(client):
    ana = await new_player(client)
    made = await client.post("/api/players/me/links", headers=bearer(ana["token"]))
    assert made.status_code == 201
    body = made.json()
    code = body["code"]
    expires = datetime.fromisoformat(body["expires_at"])
    assert timedelta(minutes=9) < expires - datetime.now(UTC) <= timedelta(minutes=10)
    assert body["url"] == f"/link?code={code}"
    assert body["qr_svg"] == players.qr_svg(f"http://felt/link?code={code}")
    assert body["qr_svg"].startswith("<svg")
    linked = await client.post("/api/players/link", json={"code": code.lower()})
    assert linked.status_code == 201
    phone = linked.json()
    assert set(phone) == {"id", "name", "token"}
    assert (phone["id"], phone["name"]) == (ana["id"], "Ana") and phone["token"] != ana["token"]
    for token in (ana["token"], phone["token"]):
        me = await client.get("/api/players/me", headers=bearer(token))
        assert me.status_code == 200 and me.json()["id"] == ana["id"]
    again = await client.post("/api/players/link", json={"code": code})
    assert again.status_code == 404 and again.json()["error"]["code"] == "link_code_unknown"


async def test_wrong_used_and_expired_codes_answer_alike(client, monkeypatch):
    ana = await new_player(client)
    code = (await client.post("/api/players/me/links", headers=bearer(ana["token"]))).json()["code"]
    later = datetime.now(UTC) + timedelta(minutes=10, seconds=1)
    monkeypatch.setattr(devices, "_now", lambda: later)
    expired = await client.post("/api/players/link", json={"code": code})
    wrong = await client.post("/api/players/link", json={"code": "ABCD2345"})
    malformed = await client.post("/api/players/link", json={"code": "not a code at all"})
    answers = [expired, wrong, malformed]
    assert [a.status_code for a in answers] == [404, 404, 404]
    assert len({a.text for a in answers}) == 1
    assert "10 minutes" in expired.json()["error"]["message"]


async def test_guessing_codes_is_rate_limited_per_address_even_for_a_right_code(client):
    ana = await new_player(client)
    code = (await client.post("/api/players/me/links", headers=bearer(ana["token"]))).json()["code"]
    tries = [await client.post("/api/players/link", json={"code": "ABCD2345"}) for _ in range(4)]
    assert [t.status_code for t in tries] == [404] * 4
    refused = await client.post("/api/players/link", json={"code": code})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    assert refused.json()["error"]["code"] == "rate_limited"


async def test_making_a_code_needs_a_token(client):
    answer = await client.post("/api/players/me/links")
    assert answer.status_code == 401


async def test_the_devices_are_listed_with_labels_and_the_current_one_marked(client):
    ana = await new_player(client)
    phone = await link(client, ana["token"])
    listed = (await client.get("/api/players/me/devices", headers=bearer(phone["token"]))).json()["devices"]
    assert [d["label"] for d in listed] == ["Firefox on Linux", "Chrome on Android"]
    assert [d["current"] for d in listed] == [False, True]
    assert set(listed[0]) == {"id", "name", "label", "created_at", "last_seen_at", "current"}


async def test_a_revoked_device_is_refused_at_once_and_its_sockets_are_closed(client, app):
    ana = await new_player(client)
    phone = await link(client, ana["token"])
    assert (await client.get("/api/players/me", headers=bearer(phone["token"]))).status_code == 200  # cached now
    phone_device = (await client.get("/api/players/me", headers=bearer(phone["token"]))).json()["device"]
    closed: list = []

    async def closer(code: int, reason: str) -> None:
        closed.append((code, reason))

    app.state.device_sockets.add(phone_device, closer)
    gone = await client.delete(f"/api/players/me/devices/{phone_device}", headers=bearer(ana["token"]))
    assert gone.status_code == 204
    assert closed == [(CLOSE_REVOKED, players_module.REVOKED_REASON)]
    refused = await client.get("/api/players/me", headers=bearer(phone["token"]))
    assert refused.status_code == 401
    assert (await client.get("/api/players/me", headers=bearer(ana["token"]))).status_code == 200
    again = await client.delete(f"/api/players/me/devices/{phone_device}", headers=bearer(ana["token"]))
    assert again.status_code == 404


async def test_nobody_revokes_another_players_device(client):
    ana = await new_player(client)
    bo = await new_player(client, "Bo")
    anas = (await client.get("/api/players/me", headers=bearer(ana["token"]))).json()["device"]
    answer = await client.delete(f"/api/players/me/devices/{anas}", headers=bearer(bo["token"]))
    assert answer.status_code == 404
    assert (await client.get("/api/players/me", headers=bearer(ana["token"]))).status_code == 200


async def test_renaming_answers_the_new_name_on_every_device_at_once(client):
    ana = await new_player(client)
    phone = await link(client, ana["token"])
    assert (await client.get("/api/players/me", headers=bearer(phone["token"]))).json()["name"] == "Ana"
    renamed = await client.patch("/api/players/me", json={"name": "  Ana Maria "}, headers=bearer(ana["token"]))
    assert renamed.status_code == 200 and renamed.json()["name"] == "Ana Maria"
    assert (await client.get("/api/players/me", headers=bearer(phone["token"]))).json()["name"] == "Ana Maria"
    bad = await client.patch("/api/players/me", json={"name": "   "}, headers=bearer(ana["token"]))
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_name"


@pytest.mark.parametrize(
    "agent, label",
    [
        (FIREFOX, "Firefox on Linux"),
        (PHONE, "Chrome on Android"),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 "
            "Version/17.5 Mobile/15E148 Safari/604.1",
            "Safari on iPhone",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36 Edg/126.0",
            "Edge on Windows",
        ),
        ("curl/8.5", ""),
        ("", ""),
    ],
)
def test_a_device_is_labelled_from_its_user_agent(agent, label):
    assert players.device_label(agent) == label


@pytest.mark.parametrize("device_id", ["nul%00byte", "x" * 65, "..%2Fetc", "%00"])
async def test_a_malformed_device_id_is_simply_not_found(client, device_id):
    ana = await new_player(client)
    answer = await client.delete(f"/api/players/me/devices/{device_id}", headers=bearer(ana["token"]))
    assert answer.status_code == 404


async def test_a_socket_let_in_just_before_its_device_was_revoked_is_not_counted():
    sockets = DeviceSockets()
    closed: list = []

    async def closer(code: int, reason: str) -> None:
        closed.append(code)

    assert sockets.add("phone", closer)
    assert await sockets.revoked("phone", "f" * 64) == 1 and closed == [CLOSE_REVOKED]
    assert not sockets.add("phone", closer), "a revoked device's late socket is refused, to be closed"
    assert sockets.held("phone") == 0
