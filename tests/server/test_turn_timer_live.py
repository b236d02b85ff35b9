"""The turn timer through a real server: the deadline in the view, a bot playing a missed
turn, the seat marked away after two misses in a row, and the player taking it back.

The server runs with every timer scaled down (FELT_TURN_TIMER_SCALE) so that 30 s is 0.3 s.
"""

from __future__ import annotations

import time

import httpx
import pytest

from live_server import LiveServer
from ws_client import Client, host_with_bots, new_player, new_room

SCALE = 0.01


@pytest.fixture(scope="module")
def timed_server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("timer"), FELT_TURN_TIMER_SCALE=str(SCALE))
    yield server
    server.stop()


async def _table_with_bots(server, turn_timer: int) -> tuple[Client, str]:
    ana = await new_player(server.base, "Ana")
    options = {"max_cards": 3, "rebound": False}
    code = await new_room(server.base, ana["token"], "oh_hell", options, turn_timer=turn_timer)
    return await host_with_bots(server.ws_base, code, ana["token"], "ana"), code


async def test_a_missed_turn_is_played_by_a_bot_and_two_in_a_row_mark_the_seat_away(timed_server):
    host, _ = await _table_with_bots(timed_server, 30)
    assert host.state["room"]["turn_timer"] == 30
    assert host.state["room"]["deadline"] is None  # no clock before the match
    await host.send({"type": "start"})
    await host.wait(lambda c: c.my_turn(), what="Ana's first turn")
    deadline = host.state["room"]["deadline"]
    now_ms = time.time() * 1000
    assert deadline is not None and 0 < deadline - now_ms <= 30_000 * SCALE + 50

    # Ana does nothing: a bot bids for her, and her seat is not away yet.
    await host.wait(lambda c: c.game["bids"][0] is not None, what="a bid made for Ana")
    assert host.state["seats"][0]["away"] is False
    # She misses her next turn as well: now the seat is away and the bot plays on.
    await host.wait(lambda c: c.state["seats"][0]["away"], what="Ana's seat marked away")
    assert host.state["room"]["deadline"] is None or 0 not in host.game["to_act"]

    # "I'm back": sitting in her own seat again takes it back from the bot.
    await host.send({"type": "sit", "seat": 0})
    await host.wait(lambda c: not c.state["seats"][0]["away"] or c.state["room"]["status"] == "finished",
                    what="Ana back in her seat")
    await host.close()


async def test_acting_in_time_keeps_the_seat_and_a_table_without_timer_has_no_deadline(timed_server):
    host, _ = await _table_with_bots(timed_server, 0)
    await host.send({"type": "start"})
    await host.wait(lambda c: c.my_turn(), what="Ana's first turn")
    assert host.state["room"]["deadline"] is None
    await host.close()

    host, _ = await _table_with_bots(timed_server, 120)
    await host.send({"type": "start"})
    await host.wait(lambda c: c.my_turn(), what="Ana's first turn")
    first = host.state["room"]["deadline"]
    await host.send({"type": "act", "v": host.v, "action": host.game["legal"][0]})
    await host.wait(lambda c: c.state["room"]["deadline"] != first, what="a new deadline")
    assert host.state["seats"][0]["away"] is False
    await host.close()


async def test_only_the_offered_timers_are_accepted(timed_server):
    ana = await new_player(timed_server.base, "Ana")
    async with httpx.AsyncClient(base_url=timed_server.base) as http:
        r = await http.post("/api/rooms", json={"game": "oh_hell", "turn_timer": 45},
                            headers={"Authorization": f"Bearer {ana['token']}"})
    assert r.status_code == 422
    assert "turn_timer" in r.text
