"""``GET /api/tables`` says at which tables it is your turn (``your_turn``), through a real
server: the lobby's "Your tables" lists those first and tells a player in another tab."""

from __future__ import annotations

import random

import httpx
from live_server import LiveServer
from ws_client import Client, new_player, new_room, play_to_end

OPTIONS = {"max_cards": 2, "rebound": False}  # a short Oh Hell


async def your_turns(server: LiveServer, player: dict) -> dict[str, bool]:
    async with httpx.AsyncClient(base_url=server.base) as http:
        r = await http.get("/api/tables", headers={"Authorization": f"Bearer {player['token']}"})
        assert r.status_code == 200, r.text
        return {t["code"]: t["your_turn"] for t in r.json()["tables"]}


async def test_your_turn_follows_the_decision_from_one_player_to_the_other(tmp_path):
    server = LiveServer(tmp_path)
    try:
        ann, bob = await new_player(server.base, "Ann"), await new_player(server.base, "Bob")
        code = await new_room(server.base, ann["token"], "oh_hell", OPTIONS, 4)
        waiting = await new_room(server.base, ann["token"], "ribs")
        a = await Client(server.ws_base, code, ann["token"], "Ann").connect()
        b = await Client(server.ws_base, code, bob["token"], "Bob").connect()
        await b.send({"type": "sit", "seat": 1})
        await b.wait(lambda c: c.state["you"] == 1, what="Bob seated")
        for seat in (2, 3):
            await a.send({"type": "bot", "seat": seat})
        await a.wait(lambda c: all(s["bot"] for s in c.state["seats"][2:]), what="two bots")
        assert await your_turns(server, ann) == {code: False, waiting: False}  # nothing in play yet
        assert await your_turns(server, bob) == {code: False}
        await a.send({"type": "start"})
        checked = []

        async def on_turn(client: Client) -> None:
            mover, other = (ann, bob) if client is a else (bob, ann)
            assert (await your_turns(server, mover)) == {code: True, **({waiting: False} if mover is ann else {})}
            assert (await your_turns(server, other))[code] is False
            checked.append(client.label)

        await play_to_end([a, b], random.Random(5), on_turn=on_turn)
        assert {"Ann", "Bob"} <= set(checked)
        await a.close()
        await b.close()
    finally:
        server.stop()
