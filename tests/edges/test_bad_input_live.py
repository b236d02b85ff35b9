"""Every malformed, oversized, illegal or unauthorised message or request gets a clear error
and changes nothing; repeated abuse closes the socket with 1008; the server stays up."""

from __future__ import annotations

import asyncio

import httpx
import orjson
import pytest
from live_server import LiveServer
from ws_client import Client, new_player, new_room


async def settled(c: Client) -> tuple[int, dict]:
    """Ask for a snapshot and return (version, state) once it arrives."""
    n = len(c.frames)
    await c.send({"type": "resync"})
    await c.wait(lambda c: any(orjson.loads(f)["type"] == "snapshot" for f in c.frames[n:]), what="a snapshot")
    return c.v, c.state


async def table(server, game="oh_hell", seats=3, options=None):
    host = await new_player(server.base, "Host")
    guest = await new_player(server.base, "Guest")
    code = await new_room(server.base, host["token"], game, options or {"max_cards": 2, "rebound": False}, seats)
    h = await Client(server.ws_base, code, host["token"], "host").connect()
    g = await Client(server.ws_base, code, guest["token"], "guest").connect()
    return code, h, g, host, guest


BAD_FRAMES = [
    ("not json", "bad_json"),
    ("[1, 2, 3]", "bad_frame"),
    ('"a string"', "bad_frame"),
    ("{}", "unknown_type"),
    ('{"type": "fly"}', "unknown_type"),
    ('{"type": 7}', "unknown_type"),
    ('{"type": "sit"}', "bad_frame"),
    ('{"type": "sit", "seat": "one"}', "bad_frame"),
    ('{"type": "sit", "seat": true}', "bad_frame"),
    ('{"type": "act", "action": "play"}', "bad_frame"),
    ('{"type": "act", "action": {"type": "bid", "value": 1}}', "bad_frame"),
    ('{"type": "chat", "text": 5}', "bad_frame"),
    ('{"type": "stand", "extra": 1}', "bad_frame"),
    ('{"type": "chat", "text": "' + "x" * 10000 + '"}', "too_large"),
]


@pytest.mark.parametrize("frame,code", BAD_FRAMES, ids=[c + ":" + f[:20] for f, c in BAD_FRAMES])
async def test_a_bad_frame_gets_an_error_frame_and_changes_nothing(live_server, frame, code):
    _, h, g, *_ = await table(live_server)
    v, before = await settled(h)
    await g.send(frame)
    err = await g.next_error()
    assert err["code"] == code and err["message"]
    v2, after = await settled(h)
    assert (v2, after) == (v, before)
    await h.close(), await g.close()


async def test_a_binary_frame_is_refused_like_a_text_frame(live_server):
    _, h, g, *_ = await table(live_server)
    await g.ws.send(b"\x00\x01binary")
    assert (await g.next_error())["code"] == "bad_json"
    await h.close(), await g.close()


async def test_three_bad_frames_in_a_row_close_the_socket_with_1008(live_server):
    _, h, g, *_ = await table(live_server)
    for _ in range(3):
        await g.send("nope")
    await g.wait(lambda c: c.closed is not None, what="the close")
    assert g.closed[0] == 1008
    assert len(g.errors) == 3
    # The server is still up and the room still answers.
    v, _ = await settled(h)
    assert v >= 1
    await h.close()


async def test_a_good_frame_between_bad_ones_resets_the_count(live_server):
    _, h, g, *_ = await table(live_server)
    for _ in range(4):
        await g.send("nope")
        await g.next_error()
        await g.send({"type": "ping"})
    await asyncio.sleep(0.2)
    assert g.closed is None
    await h.close(), await g.close()


async def test_room_rules_refuse_with_a_code_and_change_nothing(live_server):
    _, h, g, _, _ = await table(live_server)
    v, before = await settled(h)

    async def refused(client: Client, frame: dict, expected: str) -> None:
        await client.send(frame)
        err = await client.next_error()
        assert err["code"] == expected, err
        assert err["message"]
        assert await settled(h) == (v, before)

    await refused(g, {"type": "start"}, "not_host")
    await refused(g, {"type": "bot", "seat": 1}, "not_host")
    await refused(g, {"type": "sit", "seat": 0}, "seat_taken")
    await refused(g, {"type": "sit", "seat": 9}, "bad_seat")
    await refused(g, {"type": "sit", "seat": -1}, "bad_seat")
    await refused(g, {"type": "stand"}, "not_seated")
    await refused(h, {"type": "start"}, "not_full")
    await refused(h, {"type": "bot", "seat": 2, "remove": True}, "bad_seat")
    await refused(g, {"type": "act", "action": {"type": "bid", "value": 0}, "v": v}, "not_playing")
    await refused(g, {"type": "chat", "text": "   "}, "empty")
    await h.close(), await g.close()


async def test_game_rules_refuse_out_of_turn_stale_and_illegal_actions(live_server):
    _, h, g, _, _ = await table(live_server)
    await g.send({"type": "sit", "seat": 1})
    await h.send({"type": "bot", "seat": 2})
    await h.wait(lambda c: c.state["seats"][1]["player_id"] and c.state["seats"][2]["bot"], what="seats filled")
    await h.send({"type": "start"})
    await h.wait(lambda c: c.state["room"]["status"] == "playing", what="start")
    await g.wait(lambda c: c.v == h.v, what="guest in step")
    # Whoever is not to act tries to act.
    acting = h.game["to_act"][0]
    idle = g if acting == 0 else h
    waiting = h if acting == 0 else g
    if acting in (0, 1):
        v, before = await settled(h)
        await idle.send({"type": "act", "action": waiting.game["legal"][0], "v": v})
        assert (await idle.next_error())["code"] == "not_your_turn"
        await waiting.send({"type": "act", "action": {"type": "bid", "value": 99}, "v": v})
        err = await waiting.next_error()
        assert (err["code"] == "illegal" and "99" in err["message"]) or err["message"]
        await waiting.send({"type": "act", "action": waiting.game["legal"][0], "v": v - 1})
        assert (await waiting.next_error())["code"] == "stale"
        await waiting.send({"type": "act", "action": {"type": "warp"}, "v": v})
        assert (await waiting.next_error())["code"] == "illegal"
        assert await settled(h) == (v, before)
    await h.close(), await g.close()


async def test_chat_is_length_and_rate_limited_and_kept_in_the_room_view(live_server):
    _, h, g, *_ = await table(live_server)
    await g.send({"type": "chat", "text": "hello <b>there</b>"})
    await h.wait(lambda c: c.state["chat"], what="the chat line")
    line = h.state["chat"][-1]
    assert line["text"] == "hello <b>there</b>" and line["name"] == "Guest"
    await g.send({"type": "chat", "text": "y" * 301})
    assert (await g.next_error())["code"] == "too_long"
    for i in range(25):
        await g.send({"type": "chat", "text": f"line {i}"})
    await g.wait(lambda c: any(e["code"] == "rate_limited" for e in c.errors), what="the chat rate limit")
    await h.close(), await g.close()


async def test_unknown_room_and_unknown_token_are_refused(live_server):
    c = Client(live_server.ws_base, "NOSUCHRM", None, "lost")
    with pytest.raises(AssertionError):
        await c.connect()
    assert c.errors and c.errors[0]["code"] == "not_found"
    player = await new_player(live_server.base, "Real")
    code = await new_room(live_server.base, player["token"], "ribs", {"target": 1})
    c = Client(live_server.ws_base, code, "forged-token", "forged")
    with pytest.raises(AssertionError):
        await c.connect()
    assert c.errors[0]["code"] == "unauthorized" and c.closed[0] == 1008


async def test_http_requests_that_are_malformed_or_unauthorised_get_json_errors(live_server):
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        player = (await http.post("/api/players", json={"name": "Ana"})).json()
        auth = {"Authorization": f"Bearer {player['token']}"}
        cases = [
            (http.post("/api/rooms", json={"game": "oh_hell"}), 401),
            (http.post("/api/rooms", json={"game": "oh_hell"}, headers={"Authorization": "Bearer nope"}), 401),
            (http.post("/api/rooms", json={"game": "chess"}, headers=auth), 422),
            (http.post("/api/rooms", json={"game": "oh_hell", "options": {"scoring": "golf"}}, headers=auth), 422),
            (http.post("/api/rooms", json={"game": "oh_hell", "options": {"colour": 1}}, headers=auth), 422),
            (http.post("/api/rooms", json={"game": "oh_hell", "seats": 9}, headers=auth), 422),
            (http.post("/api/rooms", json={"game": "bid_whist", "seats": 5}, headers=auth), 422),
            (http.post("/api/rooms", content=b"{not json", headers={**auth, "content-type": "application/json"}), 400),
            (http.post("/api/players", json={"name": ""}), 422),
            (http.post("/api/players", json={"name": "x" * 25}), 422),
            (http.post("/api/players", json={}), 422),
            (http.get("/api/rooms/ZZZZZZZZ"), 404),
            (http.get("/api/matches/not-a-match"), 404),
            (http.get("/api/nothing-here"), 404),
        ]
        for request, status in cases:
            r = await request
            assert r.status_code == status, (r.request.url, r.text)
            body = r.json()
            assert set(body) == {"error"} and body["error"]["code"] and body["error"]["message"]
        assert (await http.get("/healthz")).json() == {"ok": True}


async def test_the_room_cap_per_player_is_enforced_with_429(tmp_path):
    server = LiveServer(tmp_path, FELT_MAX_OPEN_ROOMS_PER_PLAYER="2")
    try:
        async with httpx.AsyncClient(base_url=server.base) as http:
            player = (await http.post("/api/players", json={"name": "Busy"})).json()
            auth = {"Authorization": f"Bearer {player['token']}"}
            for _ in range(2):
                assert (await http.post("/api/rooms", json={"game": "ribs"}, headers=auth)).status_code == 201
            r = await http.post("/api/rooms", json={"game": "ribs"}, headers=auth)
            assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_rooms"
    finally:
        server.stop()


async def test_public_rooms_are_listed_while_waiting_and_private_rooms_never(live_server):
    p = await new_player(live_server.base, "Lister")
    public = await new_room(live_server.base, p["token"], "tarbish", {}, private=False)
    hidden = await new_room(live_server.base, p["token"], "tarbish", {}, private=True)
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        codes = [r["code"] for r in (await http.get("/api/rooms")).json()["rooms"]]
        assert public in codes and hidden not in codes
        summary = (await http.get(f"/api/rooms/{hidden}")).json()
        assert summary["private"] is True and summary["status"] == "waiting" and summary["taken"] == 1


async def test_a_flood_of_frames_is_rate_limited_and_then_closed(tmp_path):
    server = LiveServer(tmp_path, FELT_MAX_FRAMES_PER_SECOND="10", FELT_FRAME_BURST="10")
    try:
        p = await new_player(server.base, "Flood")
        code = await new_room(server.base, p["token"], "ribs", {"target": 1})
        c = await Client(server.ws_base, code, p["token"], "flood").connect()
        for _ in range(10):  # ten a second are always allowed
            await c.send({"type": "ping"})
        await asyncio.sleep(1.1)
        assert not c.errors and c.closed is None
        for _ in range(40):
            await c.send({"type": "ping"})
        await c.wait(lambda c: c.closed is not None, what="the close")
        assert any(e["code"] == "rate_limited" for e in c.errors)
        assert c.closed[0] == 1008
    finally:
        server.stop()


async def test_an_option_past_its_maximum_gets_a_422_naming_it_and_opens_no_room(live_server):
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        player = (await http.post("/api/players", json={"name": "Maxima"})).json()
        auth = {"Authorization": f"Bearer {player['token']}"}
        games = {g["name"]: g for g in (await http.get("/api/games")).json()}
        assert games["ribs"]["options"]["properties"]["target"]["maximum"] == 30
        r = await http.post("/api/rooms", json={"game": "ribs", "options": {"target": 99}, "seats": 10}, headers=auth)
        assert r.status_code == 422 and "'target'" in r.json()["error"]["message"]
        listed = (await http.get("/api/rooms")).json()["rooms"]
        assert not [room for room in listed if room["host_name"] == "Maxima"]
        r = await http.post("/api/rooms", json={"game": "ribs", "options": {"target": 30}, "seats": 10}, headers=auth)
        assert r.status_code == 201


@pytest.mark.parametrize(
    "name",
    [
        "Bot",
        "Bot 2",
        "bot 3",
        "BOT-4",
        "Strong bot 1",
        "Robô 2",
        "robo forte",
        "Seat 3",
        "Lugar 1",
        "Ｂｏｔ ２",
        "\ufdfd" * 24,
        "\ufdfd",
        "Ana \ufdfa",
        "x\u0300\u0301\u0302\u0303\u0304y",
        "Ana\u202eB",
        "Ana\u200bB",
        "Ana\u3000B",
        "Ana  B",
        "\U00012219",
        "\ue000",
    ],
)
async def test_names_that_pass_for_a_bot_or_take_over_the_layout_are_refused(live_server, name):
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        answer = await http.post("/api/players", json={"name": name})
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid_name" and error["message"].endswith("."), error


@pytest.mark.parametrize(
    "name",
    ["Ana María", "李小龍", "O'Brien-Smith", "Zoë 😀", "👍🏽", "Nguyễn Thị", "ที่", "Botafogo", "Robot 9000", "Ａｎａ"],
)
async def test_names_in_any_script_with_accents_and_emoji_are_kept(live_server, name):
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        answer = await http.post("/api/players", json={"name": f" {name} "})
    assert answer.status_code == 201, answer.text
    assert answer.json()["name"] == name
