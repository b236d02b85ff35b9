"""Seats through a real server on loopback: Play again keeps the bots, a player who left takes
their seat back from the bot, and a late friend takes over a bot's seat during play."""

from __future__ import annotations

import random

import httpx

from ws_client import Client, new_player, new_room, play_to_end

OPTIONS = {"max_cards": 3, "rebound": False}


def auth(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


async def bot_table(server, levels=("easy", "strong", "easy"), **room) -> tuple[str, dict, Client]:
    """A host at a four-seat Oh Hell table with bots of ``levels`` in seats 1 to 3, started."""
    host = await new_player(server.base, "Host")
    code = await new_room(server.base, host["token"], "oh_hell", OPTIONS, 4, **room)
    client = await Client(server.ws_base, code, host["token"], "host").connect()
    for seat, level in enumerate(levels, start=1):
        await client.send({"type": "bot", "seat": seat, "level": level})
    await client.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="the bots")
    await client.send({"type": "start"})
    await client.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    return code, host, client


async def test_play_again_at_a_table_with_bots_seats_the_same_bots_at_their_levels(live_server):
    code, host, client = await bot_table(live_server)
    await play_to_end([client], random.Random(1))
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        r = await http.post(
            "/api/rooms", json={"game": "oh_hell", "options": OPTIONS, "seats": 4, "from": code}, headers=auth(host)
        )
        assert r.status_code == 201, r.text
    again = await Client(live_server.ws_base, r.json()["code"], host["token"], "again").connect()
    seats = again.state["seats"]
    assert again.state["you"] == 0
    assert [(s["bot"], s["level"]) for s in seats] == [(False, None), (True, "easy"), (True, "strong"), (True, "easy")]
    await again.send({"type": "start"})  # every seat is filled: the host can start at once
    await again.wait(lambda c: c.state["room"]["status"] == "playing", what="the second match")
    await client.close()
    await again.close()
