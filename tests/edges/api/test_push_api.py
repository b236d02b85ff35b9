"""The Web Push endpoints over HTTP (docs/protocol.md, Web Push): the public VAPID key, and a
device's subscription and notification kinds, which only its own token reads and writes; a
subscription is checked strictly before it is kept."""

from __future__ import annotations

import base64
import os

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi import FastAPI

from server.config import Settings
from server.edges.api import push
from server.edges.api.errors import install_error_handlers
from server.notify.push import VapidKeys
from server.storage import devices, store


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def browser_keys() -> dict:
    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )
    return {"p256dh": b64url(point), "auth": b64url(os.urandom(16))}


def subscription(**change) -> dict:
    sub = {"endpoint": "https://push.example.com/send/abc123", "expirationTime": None, "keys": browser_keys()}
    sub.update(change)
    return sub


@pytest.fixture
async def http(db):
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(push.router, prefix="/api")
    app.state.db = db
    app.state.settings = Settings()
    app.state.vapid = VapidKeys(db)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://felt") as client:
        yield client


def player_with_devices(db, count: int = 2) -> tuple[str, list[tuple[str, str]]]:
    """A player and its devices as (id, token)."""
    with db.session() as session:
        player, token = store.create_player(session, "Ana")
        first = devices.by_token(session, token)
        assert first is not None
        made = [(first[1].id, token)]
        for _ in range(count - 1):
            device, more = devices.add_device(session, player.id, "Phone")
            made.append((device.id, more))
        return player.id, made


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def test_the_public_key_is_the_servers_and_stays_the_same(http):
    first = (await http.get("/api/push/key")).json()["key"]
    point = base64.urlsafe_b64decode(first + "=")
    assert len(point) == 65 and point[0] == 4
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    assert (await http.get("/api/push/key")).json()["key"] == first


async def test_a_device_subscribes_sets_its_kinds_and_unsubscribes_with_its_own_token(http, db):
    _, [(laptop, laptop_token), (phone, _)] = player_with_devices(db)
    assert (await http.put("/api/devices/me/push", json=subscription())).status_code == 401
    answer = await http.put(f"/api/devices/{laptop}/push", json=subscription(lang="pt"), headers=auth(laptop_token))
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"push": True, "kinds": {"turn": True, "start": True, "mention": True, "clock": True}}
    changed = await http.put(
        "/api/devices/me/notifications", json={"kinds": {"turn": False}}, headers=auth(laptop_token)
    )
    assert changed.json()["kinds"] == {"turn": False, "start": True, "mention": True, "clock": True}
    again = await http.put(
        "/api/devices/me/notifications", json={"kinds": {"clock": False}}, headers=auth(laptop_token)
    )
    assert again.json()["kinds"] == {"turn": False, "start": True, "mention": True, "clock": False}
    unknown = await http.put(
        "/api/devices/me/notifications", json={"kinds": {"cards": True}}, headers=auth(laptop_token)
    )
    assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "invalid_kind"
    # Another device of the same player neither reads nor writes this one's.
    for method, path, body in (
        ("GET", f"/api/devices/{phone}/notifications", None),
        ("PUT", f"/api/devices/{phone}/push", subscription()),
        ("DELETE", f"/api/devices/{phone}/push", None),
    ):
        refused = await http.request(method, path, json=body, headers=auth(laptop_token))
        assert refused.status_code == 403, (method, path)
    assert (await http.delete("/api/devices/me/push", headers=auth(laptop_token))).status_code == 204
    mine = await http.get("/api/devices/me/notifications", headers=auth(laptop_token))
    assert mine.json() == {"push": False, "kinds": {"turn": False, "start": True, "mention": True, "clock": False}}


BAD = [
    {"endpoint": "http://push.example.com/send/abc"},  # not https
    {"endpoint": "https://127.0.0.1/send"},  # loopback
    {"endpoint": "https://10.1.2.3/send"},  # private
    {"endpoint": "https://user:secret@push.example.com/send"},
    {"endpoint": "ftp://push.example.com/send"},
    {"endpoint": "https://push.example.com/" + "a" * 2100},
    {"keys": {"p256dh": b64url(b"\x04" + b"\x01" * 64), "auth": b64url(os.urandom(16))}},  # not on the curve
    {"keys": {"p256dh": b64url(os.urandom(33)), "auth": b64url(os.urandom(16))}},
    {"keys": {"p256dh": browser_keys()["p256dh"], "auth": b64url(os.urandom(8))}},
    {"keys": {"p256dh": browser_keys()["p256dh"], "auth": "not base64url!!!!!!!!"}},
    {"keys": {"p256dh": browser_keys()["p256dh"]}},
    {"keys": {**browser_keys(), "extra": "x"}},
    {"lang": "xx"},
    {"surprise": 1},
]


@pytest.mark.parametrize("change", BAD)
async def test_a_subscription_that_is_not_one_is_refused(http, db, change):
    _, [(_, token)] = player_with_devices(db, 1)
    answer = await http.put("/api/devices/me/push", json=subscription(**change), headers=auth(token))
    assert answer.status_code == 422, answer.text
    mine = await http.get("/api/devices/me/notifications", headers=auth(token))
    assert mine.json()["push"] is False


async def test_a_revoked_devices_token_is_refused_and_its_subscription_gone(http, db):
    player, [(_, laptop_token), (phone, phone_token)] = player_with_devices(db)
    assert (await http.put("/api/devices/me/push", json=subscription(), headers=auth(phone_token))).status_code == 200
    with db.session() as session:
        assert devices.revoke_device(session, player, phone)
    from server.players import forget_token

    forget_token(devices.hash_secret(phone_token))
    assert (await http.get("/api/devices/me/notifications", headers=auth(phone_token))).status_code == 401
    from server.storage import push as push_store

    with db.session() as session:
        assert push_store.subscription_of(session, phone) is None
    assert (await http.get("/api/devices/me/notifications", headers=auth(laptop_token))).status_code == 200
