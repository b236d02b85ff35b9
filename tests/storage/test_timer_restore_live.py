"""The turn timer survives a restart: a restored table's clock runs again for the seat to act.

The timer's deadline is not in the log (it is "now plus the table's seconds" whenever a turn
starts), so a restored table starts a fresh turn on the clock. Every timer is scaled down
(FELT_TURN_TIMER_SCALE) so that 30 s pass in 1.5 s, and the reconnect grace is long, so that
only the timer (never a dropped seat's bot) can play for the idle player.
"""

from __future__ import annotations

from live_server import LiveServer
from ws_client import Client, host_with_bots, new_player, new_room


async def test_a_restored_tables_turn_timer_fires_for_the_idle_seat(tmp_path):
    server = LiveServer(tmp_path, FELT_TURN_TIMER_SCALE="0.05", FELT_RECONNECT_GRACE_S="600")
    try:
        ann = await new_player(server.base, "Ann")
        options = {"max_cards": 3, "rebound": False}
        code = await new_room(server.base, ann["token"], "oh_hell", options, turn_timer=30)
        host = await host_with_bots(server.ws_base, code, ann["token"], "ann")
        await host.send({"type": "start"})
        await host.wait(lambda c: c.my_turn(), what="Ann's first turn")
        assert host.game["bids"][0] is None
        # Ann leaves: a table with nobody connected waits (no bot, no timer plays for her).
        await host.close()

        assert server.terminate() in (0, -15)
        server.start()
        back = await Client(server.ws_base, code, ann["token"], "back").connect()
        assert back.my_turn() and back.game["bids"][0] is None  # still her turn, untouched
        assert back.state["room"]["deadline"] is not None  # the clock runs again
        # Ann does nothing: the timer runs out and a bot bids for her (a first miss: not away).
        await back.wait(lambda c: c.game["bids"][0] is not None, timeout=30, what="a bid made for Ann")
        assert back.state["seats"][0]["away"] is False
        await back.close()
    finally:
        server.stop()
