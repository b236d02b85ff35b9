"""Bid Whist's house options through a real server on loopback: a table created with jokers,
the thirteen-book game, directions and no trump plays to the end with a person and bots of
both levels; the person and a spectator receive exactly the engine's views, the options are
served to the lobby with their schema, and the stored match replays to the same scores."""

from __future__ import annotations

import random

import httpx
from test_rooms_live import close_all, dedupe, fetch_match, replay_states
from ws_client import Client, new_player, new_room, play_to_end

from server.games import get_game

OPTIONS = {
    "jokers": 2,
    "books": "thirteen",
    "directions": True,
    "no_trump": True,
    "sport_kitty": True,
    "game_to": 3,
    "joker_no_trump": "must_play",
}


async def test_the_lobby_lists_every_bid_whist_option_with_its_schema(live_server):
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        games = (await http.get("/api/games")).json()
    listing = games["games"] if isinstance(games, dict) else games
    bid_whist = next(g for g in listing if g["name"] == "bid_whist")
    schema = bid_whist["options"]
    props = schema["properties"]
    for key in (
        "target",
        "jokers",
        "joker_no_trump",
        "books",
        "min_bid",
        "game_to",
        "directions",
        "no_trump",
        "downtown_beats_uptown",
        "no_trump_double",
        "boston",
        "sport_kitty",
    ):
        assert key in props, key
    assert props["jokers"]["enum"] == [0, 1, 2] and props["boston"]["default"] == "wins"


async def test_a_house_options_table_plays_to_the_end_with_bots_and_sends_the_engines_views(live_server):
    engine = get_game("bid_whist")
    host = await new_player(live_server.base, "Host")
    code = await new_room(live_server.base, host["token"], "bid_whist", OPTIONS)
    c = await Client(live_server.ws_base, code, host["token"], "host").connect()
    watcher = await Client(live_server.ws_base, code, None, "spectator").connect()
    await c.send({"type": "bot", "seat": 1, "level": "strong"})
    await c.send({"type": "bot", "seat": 2})
    await c.send({"type": "bot", "seat": 3})
    await c.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="three bots")
    await c.send({"type": "start"})
    await c.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    await play_to_end([c], random.Random("house"), timeout=180)
    await watcher.wait(lambda w: w.state["room"]["status"] == "finished", what="the end")
    record = await fetch_match(live_server, c.state["result"]["match_id"])
    assert {k: record["options"][k] for k in OPTIONS} == OPTIONS
    states = replay_states(record)
    assert engine.outcome(states[-1])["scores"] == c.state["result"]["scores"]
    assert any(s.direction is not None for s in states) and any(len(s.kitty) == 6 for s in states)
    for client in (c, watcher):
        seat = client.state["you"]
        expected = dedupe([engine.view(s, seat) for s in states])
        assert dedupe([g for _, g in client.history]) == expected, f"{client.label}: views differ"
    await close_all(c, watcher)
