"""The turn timer through a real server: the deadline in the view, a bot playing a missed
turn, the seat marked away after two misses in a row, and the player taking it back.

The server runs with every timer scaled down (FELT_TURN_TIMER_SCALE) so that 30 s is 0.3 s.
"""

from __future__ import annotations

import sqlite3
import time

import httpx
import orjson
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
    await host.wait(
        lambda c: not c.state["seats"][0]["away"] or c.state["room"]["status"] == "finished",
        what="Ana back in her seat",
    )
    await host.close()


def _acts(server: LiveServer, code: str) -> list[dict]:
    """The table's ``act`` entries as the database keeps them."""
    with sqlite3.connect(server.tmp / "felt.db") as db:
        rows = db.execute("SELECT data FROM table_log WHERE code = ? AND kind = 'act' ORDER BY version", (code,))
        return [orjson.loads(data) for (data,) in rows]


async def test_a_turn_the_clock_played_says_so_in_the_log_and_in_the_view(timed_server):
    host, code = await _table_with_bots(timed_server, 30)
    await host.send({"type": "start"})
    await host.wait(lambda c: c.my_turn(), what="Ana's first turn")
    assert host.state["room"]["clock_played"] is None

    # Ana does nothing: the clock has a bot bid for her, and the view names that move.
    def clock_marks(c: Client) -> list:
        return [r["clock_played"] for r in c.rooms if r.get("clock_played")]

    await host.wait(lambda c: clock_marks(c), what="the clock's move shown")
    played = clock_marks(host)[0]
    assert played["seat"] == 0 and played["action"]["type"] == "bid"
    acts = _acts(timed_server, code)
    by_clock = [a for a in acts if a.get("clock")]
    assert by_clock and by_clock[0]["seat"] == 0 and by_clock[0]["action"] == played["action"]
    # Only the clock's moves carry the mark, not the bots' own.
    assert all(a["seat"] == 0 for a in by_clock) and any(a["seat"] != 0 and "clock" not in a for a in acts)
    # The next move that is not the clock's clears it from the view.
    marked = next(i for i, r in enumerate(host.rooms) if r.get("clock_played"))
    await host.wait(
        lambda c: len(c.rooms) > marked + 1 and any(not r.get("clock_played") for r in c.rooms[marked:]),
        what="the clock's mark cleared by the next move",
    )
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
        r = await http.post(
            "/api/rooms",
            json={"game": "oh_hell", "turn_timer": 45},
            headers={"Authorization": f"Bearer {ana['token']}"},
        )
    assert r.status_code == 422
    assert "turn_timer" in r.text
