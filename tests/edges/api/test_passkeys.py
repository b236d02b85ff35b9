"""Passkeys over HTTP, the parts a browser is not needed for: the options, and every refusal
(an unknown, reused or someone else's challenge, an answer that is not a credential) is a 400
``passkey_refused``, never a 500. Adding and using a real passkey: tests/web/test_linked_devices.py."""

from __future__ import annotations

import httpx
import pytest
from fastapi import APIRouter, FastAPI

from server.config import Settings
from server.edges.api import passkeys, players
from server.edges.api.errors import install_error_handlers

ROUTER = APIRouter()
ROUTER.include_router(players.router)
ROUTER.include_router(passkeys.router)


@pytest.fixture
async def client(db):
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(ROUTER, prefix="/api")
    app.state.db = db
    app.state.settings = Settings()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost:8000") as client:
        yield client


async def player(client, name="Ana") -> dict:
    body = (await client.post("/api/players", json={"name": name})).json()
    return {"Authorization": f"Bearer {body['token']}", "id": body["id"]}


async def test_the_options_name_the_host_as_relying_party_and_the_player_as_user(client):
    ana = await player(client)
    made = await client.post("/api/players/me/passkeys/options", headers={"Authorization": ana["Authorization"]})
    assert made.status_code == 200
    options = made.json()["options"]
    assert options["rp"] == {"name": "Felt", "id": "localhost"}
    assert options["user"]["name"] == "Ana"
    assert options["authenticatorSelection"]["residentKey"] == "required"
    sign_in = (await client.post("/api/passkeys/sign-in/options")).json()
    assert sign_in["options"]["rpId"] == "localhost" and sign_in["challenge_id"] != made.json()["challenge_id"]


@pytest.mark.parametrize("credential", [{}, {"id": "x", "rawId": "x", "type": "public-key", "response": {}}, {"id": 5}])
async def test_answers_that_are_no_credential_are_refused_with_400(client, credential):
    ana = await player(client)
    auth = {"Authorization": ana["Authorization"]}
    handle = (await client.post("/api/players/me/passkeys/options", headers=auth)).json()["challenge_id"]
    added = await client.post(
        "/api/players/me/passkeys", json={"challenge_id": handle, "credential": credential}, headers=auth
    )
    assert added.status_code == 400 and added.json()["error"]["code"] == "passkey_refused"
    again = await client.post(
        "/api/players/me/passkeys", json={"challenge_id": handle, "credential": credential}, headers=auth
    )
    assert again.status_code == 400
    handle = (await client.post("/api/passkeys/sign-in/options")).json()["challenge_id"]
    signed = await client.post("/api/passkeys/sign-in", json={"challenge_id": handle, "credential": credential})
    assert signed.status_code == 400 and signed.json()["error"]["code"] == "passkey_refused"


async def test_a_challenge_made_for_one_player_is_refused_to_another(client):
    ana, bo = await player(client), await player(client, "Bo")
    handle = (
        await client.post("/api/players/me/passkeys/options", headers={"Authorization": ana["Authorization"]})
    ).json()["challenge_id"]
    answer = await client.post(
        "/api/players/me/passkeys",
        json={"challenge_id": handle, "credential": {"id": "x"}},
        headers={"Authorization": bo["Authorization"]},
    )
    assert answer.status_code == 400
    assert (await client.get("/api/players/me/passkeys", headers={"Authorization": bo["Authorization"]})).json() == {
        "passkeys": []
    }
