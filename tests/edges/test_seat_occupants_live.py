"""Who made each decision, through a real server on SQLite and on PostgreSQL: a late friend
takes a bot's seat mid-hand, and the live view (``room.seat_history``), the stored match
(``players[i].occupants``) and its replay credit the bot with its plays and the friend with
theirs."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest
from live_server import served_on
from ws_client import Client, choose, new_player, play_to_end

# The first replay starts the worker process that builds replays: seconds on a loaded machine.
REPLAY_WAIT_S = 60


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    with served_on(request.param, tmp_path_factory, "occupants", FELT_BOT_DELAY_MS="0") as live:
        yield live


async def until_seat_played(people: list[Client], seat: int, rng: random.Random) -> None:
    """The people play their turns until ``seat`` has made a decision this hand."""
    for _ in range(400):
        if any(e["seat"] == seat for e in people[0].game["log"]):
            return
        for person in people:
            if person.my_turn():
                v = person.v
                await person.send({"type": "act", "action": choose(person.game, rng), "v": v})
                await person.wait(lambda c, v=v: c.v > v or c.errors, what="a move")
                break
        else:
            await asyncio.sleep(0.02)
    raise AssertionError(f"seat {seat} never played")


async def stored(http, match_id: str) -> dict:
    for _ in range(200):
        got = await http.get(f"/api/matches/{match_id}")
        if got.status_code == 200:
            return got.json()
        await asyncio.sleep(0.05)
    raise AssertionError("the match was never stored")


async def short_table(http, host: dict, **body) -> str:
    """A new table of a short Oh Hell (two hands) hosted by ``host``; its code."""
    made = await http.post(
        "/api/rooms",
        json={"game": "oh_hell", "options": {"max_cards": 2, "rebound": False}, **body},
        headers={"Authorization": f"Bearer {host['token']}"},
    )
    assert made.status_code == 201, made.text
    return made.json()["code"]


async def test_a_late_friend_is_credited_only_with_the_decisions_after_taking_over(server):
    ana, dee = await new_player(server.base, "Ana"), await new_player(server.base, "Dee")
    async with httpx.AsyncClient(base_url=server.base, timeout=REPLAY_WAIT_S) as http:
        code = await short_table(http, ana, open_bot_seats=True)
        host = await Client(server.ws_base, code, ana["token"], "Ana").connect()
        for seat in (1, 2, 3):
            await host.send({"type": "bot", "seat": seat})
        await host.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="the bots")
        assert host.state["room"]["seat_history"] == []
        await host.send({"type": "start"})
        await host.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
        await until_seat_played([host], 2, random.Random(1))
        friend = await Client(server.ws_base, code, dee["token"], "Dee").connect()
        await friend.send({"type": "take_seat", "seat": 2})
        await friend.wait(lambda c: c.state["you"] == 2, what="the bot's seat")
        history = friend.state["room"]["seat_history"]
        assert [(h["seat"], h["name"], h["bot"], h["hand"]) for h in history] == [
            (2, "Bot 3", True, 0),
            (2, "Dee", False, 0),
        ]
        assert history[0]["at"] == 0 and history[1]["at"] > 0
        await play_to_end([host, friend], random.Random(2))
        match_id = host.state["result"]["match_id"]
        for c in (host, friend):
            await c.close()

        record = await stored(http, match_id)
        seat = record["players"][2]
        assert (seat["name"], seat["bot"]) == ("Bot 3", True)  # who sat there at the start
        bot, late = seat["occupants"]
        assert (bot["from"], bot["name"], bot["bot"], bot["level"]) == (0, "Bot 3", True, "easy")
        assert (late["name"], late["player_id"], late["bot"]) == ("Dee", dee["id"], False)
        cut = late["from"]
        assert any(a["seat"] == 2 for a in record["actions"][:cut]), "the bot's own plays come before"
        assert any(a["seat"] == 2 for a in record["actions"][cut:])
        assert [len(p["occupants"]) for p in record["players"]] == [1, 1, 2, 1]
        assert record["players"][0]["occupants"] == [
            {"from": 0, "name": "Ana", "player_id": ana["id"], "bot": False, "level": None}
        ]
        replay = (await http.get(f"/api/matches/{match_id}/replay")).json()
        assert replay["players"][2]["occupants"] == seat["occupants"]


async def test_the_bot_that_keeps_a_leavers_seat_is_credited_with_the_decisions_after_they_left(server):
    ana, rui = await new_player(server.base, "Ana"), await new_player(server.base, "Rui")
    headers = {"Authorization": f"Bearer {rui['token']}"}
    async with httpx.AsyncClient(base_url=server.base, timeout=REPLAY_WAIT_S) as http:
        code = await short_table(http, ana)
        host = await Client(server.ws_base, code, ana["token"], "Ana").connect()
        friend = await Client(server.ws_base, code, rui["token"], "Rui").connect()
        await friend.send({"type": "sit", "seat": 1})
        for seat in (2, 3):
            await host.send({"type": "bot", "seat": seat})
        await host.wait(lambda c: all(s["name"] for s in c.state["seats"]), what="a full table")
        await host.send({"type": "start"})
        await host.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
        await until_seat_played([host, friend], 1, random.Random(4))
        assert (await http.post(f"/api/tables/{code}/leave", headers=headers)).status_code == 204
        await host.wait(lambda c: c.state["seats"][1]["bot"], what="the bot in Rui's seat")
        assert [(h["name"], h["bot"]) for h in host.state["room"]["seat_history"]] == [("Rui", False), ("Bot 2", True)]
        await play_to_end([host], random.Random(5))
        match_id = host.state["result"]["match_id"]
        for c in (host, friend):
            await c.close()
        seat = (await stored(http, match_id))["players"][1]
        rui_then, bot = seat["occupants"]
        assert (rui_then["from"], rui_then["name"], rui_then["player_id"]) == (0, "Rui", rui["id"])
        assert (bot["name"], bot["bot"], bot["player_id"]) == ("Bot 2", True, None) and bot["from"] > 0
