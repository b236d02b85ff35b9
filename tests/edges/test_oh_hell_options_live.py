"""Oh Hell's house options through a real server on loopback: a table created with them plays
to the end over real WebSockets, every seat and the spectator receive exactly the engine's
views (so a blind_one seat never gets its own card while it bids, and the spectator never
gets a blind card), and the stored match replays to the same scores."""

from __future__ import annotations

import random

import orjson
from test_rooms_live import close_all, dedupe, fetch_match, replay_states, seat_table, start
from ws_client import play_to_end

from server.games import get_game

OPTIONS = {"max_cards": 2, "trump": "rotation", "blind_one": True, "scoring": "squared", "hook_last_hand": False}


async def test_a_blind_one_rotation_table_sends_every_seat_exactly_the_engines_views(live_server):
    engine = get_game("oh_hell")
    _, clients, watcher, _ = await seat_table(live_server, "oh_hell", options=OPTIONS)
    await start(clients)
    await play_to_end(clients, random.Random("blind"))
    await watcher.wait(lambda c: c.state["room"]["status"] == "finished", what="the end")
    record = await fetch_match(live_server, clients[0].state["result"]["match_id"])
    assert record["options"]["blind_one"] is True and record["options"]["trump"] == "rotation"
    states = replay_states(record)
    assert engine.outcome(states[-1])["scores"] == clients[0].state["result"]["scores"]
    blind_bidding = [s for s in states if s.deal.blind and s.phase.value == "bidding"]
    assert blind_bidding, "the 1-card hand was played blind"
    for c in [*clients, watcher]:
        seat = c.state["you"]
        expected = dedupe([engine.view(s, seat) for s in states])
        assert dedupe([g for _, g in c.history]) == expected, f"{c.label}: views differ from the engine's"
    for s in blind_bidding:
        held = engine.full_view(s)["hands"]
        for c in clients:
            seat = c.state["you"]
            view = engine.view(s, seat)
            assert (
                view["hand"] == []
                and held[seat][0] not in orjson.dumps({k: v for k, v in view.items() if k != "history"}).decode()
            )
        assert "blind_cards" not in engine.view(s, None)
    await close_all(*clients, watcher)
