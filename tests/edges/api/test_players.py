"""``POST /api/players`` on a tiny app holding only the players router and the error shape."""

from __future__ import annotations

import hashlib

import pytest
import sqlalchemy as sa

from server.edges.api import players
from server.storage import store

ROUTER = players.router


async def test_creating_a_player_answers_201_with_id_name_and_token(client, db):
    answer = await client.post("/api/players", json={"name": "  Ana "})
    assert answer.status_code == 201
    body = answer.json()
    assert set(body) == {"id", "name", "token"}
    assert body["name"] == "Ana"
    with db.session() as session:
        assert store.player_by_token(session, body["token"]).id == body["id"]


async def test_the_token_is_kept_only_as_its_sha256(client, db):
    body = (await client.post("/api/players", json={"name": "Bo"})).json()
    with db.engine.connect() as conn:
        stored = conn.execute(
            sa.text("SELECT token_hash FROM devices WHERE player_id = :id"), {"id": body["id"]}
        ).scalar()
    assert stored == hashlib.sha256(body["token"].encode()).hexdigest()
    assert stored != body["token"]


@pytest.mark.parametrize("name", ["", "    ", "x" * 25, "new\nline", "\x00"])
async def test_a_bad_name_is_refused_with_422_and_a_sentence(client, name):
    answer = await client.post("/api/players", json={"name": name})
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "invalid_name"
    assert error["message"].endswith(".")


@pytest.mark.parametrize("body", [{}, {"name": 5}, {"nom": "Ana"}, [], "Ana"])
async def test_a_malformed_body_is_refused_in_the_error_shape(client, body):
    answer = await client.post("/api/players", json=body)
    assert answer.status_code == 422
    assert set(answer.json()["error"]) == {"code", "message"}


async def test_the_openapi_document_describes_the_answer(client):
    app = client._transport.app  # type: ignore[attr-defined]
    schema = app.openapi()
    post = schema["paths"]["/api/players"]["post"]
    ok = post["responses"]["201"]["content"]["application/json"]["schema"]["$ref"]
    created = schema["components"]["schemas"][ok.rsplit("/", 1)[-1]]
    assert set(created["properties"]) == {"id", "name", "token"}
    assert "422" in post["responses"]
