"""Issue 19 item 9 through a real server: canonical actions are stored, the OpenAPI document
says what the server enforces, malformed JSON gets a documented error, ``HEAD /`` answers,
and every answer carries the security headers."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest
from ws_client import Client, choose, new_player, new_room

from server.games import game_names, get_game

NOTE = '<img src=x onerror="alert(1)">'


async def test_actions_with_extra_fields_are_stored_as_the_canonical_action(live_server):
    host = await new_player(live_server.base, "Host")
    code = await new_room(live_server.base, host["token"], "oh_hell", {"max_cards": 2, "rebound": False}, 4)
    me = await Client(live_server.ws_base, code, host["token"], "host").connect()
    for seat in (1, 2, 3):
        await me.send({"type": "bot", "seat": seat})
    await me.wait(lambda c: all(s["name"] for s in c.state["seats"]), what="a full table")
    await me.send({"type": "start"})
    rng = random.Random(3)
    while me.state["room"]["status"] != "finished":
        if me.my_turn():
            v = me.v
            await me.send({"type": "act", "v": v, "action": {**choose(me.game, rng), "note": NOTE, "seat": 2}})
            await me.wait(lambda c, v=v: c.v > v or c.errors, what="the action's patch")
            assert not me.errors, me.errors
        else:
            await me.wait(lambda c: c.my_turn() or c.state["room"]["status"] == "finished", what="my turn")
    match_id = me.state["result"]["match_id"]
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        for _ in range(300):
            answer = await http.get(f"/api/matches/{match_id}")
            if answer.status_code == 200:
                break
            await asyncio.sleep(0.05)
    record = answer.json()
    mine = [a["action"] for a in record["actions"] if a["seat"] == 0]
    assert mine, "the host acted"
    for action in mine:
        assert set(action) <= {"type", *get_game("oh_hell").action_fields[action["type"]]}, action
    assert NOTE not in answer.text
    await me.close()


def test_the_openapi_document_says_what_the_server_enforces(live_server):
    schema = httpx.get(f"{live_server.base}/openapi.json").json()
    parts = schema["components"]["schemas"]
    assert parts["NewPlayer"]["properties"]["name"]["maxLength"] == 24
    assert parts["CreateRoom"]["properties"]["game"]["enum"] == sorted(game_names())
    for path in ("/api/players", "/api/rooms"):
        responses = schema["paths"][path]["post"]["responses"]
        assert {"400", "422"} <= set(responses)
        assert responses["400"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorResponse")
    too_long = httpx.post(f"{live_server.base}/api/players", json={"name": "N" * 25})
    assert too_long.status_code == 422 and too_long.json()["error"]["code"] == "invalid_name"


@pytest.mark.parametrize("body", [b'{"name": ', b"{'name': 'Ana'}", b"\xff\xfe", b'{"name": "Ana"'])
def test_a_malformed_json_body_is_a_documented_400(live_server, body):
    token = httpx.post(f"{live_server.base}/api/players", json={"name": "Ana"}).json()["token"]
    for path, headers in (("/api/players", {}), ("/api/rooms", {"Authorization": f"Bearer {token}"})):
        answer = httpx.post(
            live_server.base + path, content=body, headers={"Content-Type": "application/json", **headers}
        )
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["code"] == "bad_json"


@pytest.mark.parametrize(
    "path", ["/", "/history", "/r/ABCDEFGH", "/static/js/room.js", "/api/games", "/healthz", "/api/nothing"]
)
def test_every_answer_carries_the_security_headers(live_server, path):
    answer = httpx.get(live_server.base + path)
    csp = answer.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert answer.headers["x-frame-options"] == "DENY"
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert answer.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize("path", ["/", "/history", "/r/ABCDEFGH", "/matches/0123456789abcdef"])
def test_head_answers_the_pages(live_server, path):
    answer = httpx.head(live_server.base + path)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
