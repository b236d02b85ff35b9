"""A slow clock survives a crash: a real server is killed while a slow table waits for Ann, the
deadline passes while no server runs, and the server started again plays that one decision
for her, once (counted in the table's stored log), on SQLite and on PostgreSQL.

An hour a decision is scaled down (FELT_TURN_TIMER_SCALE) to a few seconds; the reconnect grace
is long, so only the clock (never a dropped seat's bot) can play for her.
"""

from __future__ import annotations

import asyncio
import random
import time

import orjson
import sqlalchemy as sa
from live_server import LiveServer
from ws_client import Client, choose, host_with_bots, new_player, new_room

HOUR = 3600
DECISION_S = 6.0


def clock_turns(url: str, code: str) -> list[int]:
    """The seats the clock played for at table ``code``, as its stored log says."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as db:
            rows = db.execute(
                sa.text("SELECT data FROM table_log WHERE code = :code AND kind = 'act' ORDER BY version"),
                {"code": code},
            ).scalars()
            return [d["seat"] for d in map(orjson.loads, rows) if d.get("clock")]
    finally:
        engine.dispose()


async def test_a_slow_clock_that_runs_out_while_the_server_is_down_plays_once_after_the_restart(tmp_path, database_url):
    server = LiveServer(
        tmp_path,
        DATABASE_URL=database_url,
        FELT_TURN_TIMER_SCALE=str(DECISION_S / HOUR),
        FELT_RECONNECT_GRACE_S="600",
        FELT_SLOW_CLOCK_POLL_S="0.2",
    )
    try:
        ann = await new_player(server.base, "Ann")
        code = await new_room(server.base, ann["token"], "oh_hell", {"max_cards": 7, "rebound": False}, turn_timer=HOUR)
        host = await host_with_bots(server.ws_base, code, ann["token"], "ann")
        await host.send({"type": "start"})
        await host.wait(lambda c: c.my_turn(), what="Ann's first turn")
        deadline = host.state["room"]["deadline"]
        assert host.state["room"]["turn_timer"] == HOUR and deadline is not None
        await host.close()
        server.kill()  # a crash, before her time runs out
        assert time.time() * 1000 < deadline, "the machine was too slow to kill the server in time"
        await asyncio.sleep(max(0.0, deadline / 1000 - time.time()) + 0.3)  # no server while it passes
        assert clock_turns(database_url, code) == []

        server.start()
        back = await Client(server.ws_base, code, ann["token"], "back").connect()
        await back.wait(
            lambda c: (c.state["room"]["clock_played"] or {}).get("seat") == 0 or 0 in clock_turns(database_url, code),
            timeout=30,
            what="the clock playing for Ann",
        )
        # Her next turn comes at a later deadline: she plays it herself, before it runs out.
        await back.wait(
            lambda c: c.my_turn() and c.state["room"]["deadline"] != deadline, timeout=30, what="her next turn"
        )
        v = back.v
        await back.send({"type": "act", "action": choose(back.game, random.Random(1)), "v": v})
        await back.wait(lambda c: c.v > v or c.errors, what="her move")
        assert not back.errors, back.errors
        await back.close()
        assert clock_turns(database_url, code) == [0]
    finally:
        server.stop()
