"""Spades through a real server: a table of one player and three Easy bots plays a whole match
over WebSockets, and a blind nil keeps its ``blind`` field all the way from the socket to the
engine (the room passes only the fields an action type has)."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import quote

import httpx
from live_server import LiveServer
from ws_client import host_with_bots, new_player, new_room

OPTIONS = {"blind_nil": True, "lose_at": -300}
BLIND_NIL = {"type": "bid", "value": 0, "blind": True}


def decide(view: dict) -> dict:
    """Bid everything (the team sinks fast), a blind nil whenever offered, the first card."""
    legal = view["legal"]
    if BLIND_NIL in legal:
        return BLIND_NIL
    if legal[0]["type"] == "bid":
        return {"type": "bid", "value": 13}
    return legal[0]


async def play_a_match(server: LiveServer, ann: dict) -> tuple[int, dict]:
    """One match to its end: how often Ann was offered a blind nil, and her last game view."""
    code = await new_room(server.base, ann["token"], "spades", OPTIONS, 4)
    host = await host_with_bots(server.ws_base, code, ann["token"], "Ann")
    await host.send({"type": "start"})
    blind_views = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 60
    while host.state["room"]["status"] != "finished":
        assert loop.time() < deadline, "the match did not finish in time"
        if not host.my_turn():
            await host.wait(lambda c: c.my_turn() or c.state["room"]["status"] == "finished", 20, "Ann's turn")
            continue
        game = host.game
        if BLIND_NIL in game["legal"]:
            assert game["hand"] == [] and game["hand_counts"][0] == 13
            blind_views += 1
        v = host.v
        await host.send({"type": "act", "action": decide(game), "v": v})
        await host.wait(lambda c, v=v: c.v > v or c.errors, 10, "the action's patch")
        assert not host.errors, host.errors
    game = host.game
    await host.close()
    return blind_views, game


async def test_a_spades_match_with_a_blind_nil_through_the_socket(tmp_path):
    server = LiveServer(tmp_path)
    try:
        ann = await new_player(server.base, "Ann")
        # Bidding 13 every hand sinks Ann's team 100 behind in nearly every match, but not in
        # all: when the bots' team sinks as fast, nobody is behind by 100. Another match then.
        for _ in range(5):
            blind_views, game = await play_a_match(server, ann)
            if blind_views:
                break
        assert blind_views >= 1, "five matches and Ann's team was never 100 behind"
        blind_hands = [entry for entry in game["history"] if entry["blind_nil"][0]]
        assert len(blind_hands) == blind_views
        assert all(entry["bids"][0] == 0 for entry in blind_hands)
        assert game["phase"] == "over"
    finally:
        server.stop()


async def test_the_spades_rules_page_opens_bidding_at_blind_nil_when_the_table_plays_it(live_server):
    options = quote(json.dumps({"blind_nil": True}))
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        plain = (await http.get("/api/rules/spades")).json()
        house = (await http.get(f"/api/rules/spades?options={options}")).json()
    assert plain["phases"] == {"bidding": "bidding", "playing": "play", "over": "scoring"}
    assert house["phases"]["bidding"].startswith("blind-nil") and house["phases"]["bidding"] in house["html"]
    assert [o["key"] for o in house["options"]] == ["blind_nil"] and house["note"] is None
