"""Rooms through a real server on loopback: whole games over real WebSockets, patches that
rebuild the snapshot, no hidden card in any frame, reconnects, bots and fair-deal seeds."""

from __future__ import annotations

import asyncio
import copy
import hashlib
import itertools
import random
import re

import httpx
import orjson
import pytest
from ws_client import Client, choose, new_player, new_room, play_to_end

from server.games import get_game

SHORT = {
    "oh_hell": {"max_cards": 3, "rebound": False},
    "bid_whist": {"target": 3},
    "tarbish": {"target": 120},
    "ribs": {"target": 1},
}
GAMES = list(SHORT)
CARD_TOKEN = re.compile(r'"((?:10|[2-9AKQJ])[SHDC])"')


async def seat_table(server, game: str, seats: int = 4, options: dict | None = None, spectator: bool = True):
    """A host and seats-1 friends seated, plus a spectator; returns (code, clients, spectator)."""
    players = [await new_player(server.base, f"P{i}") for i in range(seats)]
    code = await new_room(server.base, players[0]["token"], game, SHORT[game] if options is None else options, seats)
    clients = []
    for i, p in enumerate(players):
        c = await Client(server.ws_base, code, p["token"], f"seat{i}").connect()
        if i > 0:
            await c.send({"type": "sit", "seat": i})
            await c.wait(lambda c, i=i: c.state["you"] == i, what=f"seat {i}")
        clients.append(c)
    watcher = await Client(server.ws_base, code, None, "spectator").connect() if spectator else None
    return code, clients, watcher, players


async def start(clients: list[Client]) -> None:
    host = clients[0]
    await host.send({"type": "start"})
    for c in clients:
        await c.wait(lambda c: c.state["room"]["status"] != "waiting", what="the start")


async def fetch_match(server, match_id: str, timeout: float = 15) -> dict:
    async with httpx.AsyncClient(base_url=server.base) as http:
        for _ in range(int(timeout * 20)):
            r = await http.get(f"/api/matches/{match_id}")
            if r.status_code == 200:
                return r.json()
            await asyncio.sleep(0.05)
    raise AssertionError(f"match {match_id} was never stored")


def replay_states(record: dict) -> list:
    game = get_game(record["game"])
    state = game.new_game(
        players=len(record["players"]), options=record["options"], seed=int(record["seed"]), dealer=record["dealer"]
    )
    states = [state]
    for entry in record["actions"]:
        state = game.apply(state, entry["seat"], entry["action"])
        states.append(state)
    return states


def dedupe(views: list) -> list:
    out = []
    for v in views:
        if v is not None and (not out or out[-1] != v):
            out.append(v)
    return out


async def close_all(*clients) -> None:
    for c in clients:
        if c is not None:
            await c.close()


@pytest.mark.parametrize("game", GAMES)
async def test_four_clients_play_a_whole_game_and_patches_rebuild_the_snapshot(live_server, game):
    _, clients, watcher, _ = await seat_table(live_server, game)
    await start(clients)
    commitment = clients[0].state["room"]["commitment"]
    assert re.fullmatch(r"[0-9a-f]{64}", commitment)
    assert clients[0].state["room"]["seed"] is None, "the seed is revealed only when the match ends"
    await play_to_end(clients, random.Random(game))
    await watcher.wait(lambda c: c.state["room"]["status"] == "finished", what="the end")
    for c in [*clients, watcher]:
        patched, v = c.state, c.v
        await c.send({"type": "resync"})
        await c.wait(lambda c, v=v: c.frames and orjson.loads(c.frames[-1])["type"] == "snapshot", what="a snapshot")
        assert c.v == v, "a resync does not change the version"
        assert c.state == patched, f"{c.label}: the patched view differs from a fresh snapshot"
    result = clients[0].state["result"]
    assert result["seed"] == clients[0].state["room"]["seed"]
    assert hashlib.sha256(result["seed"].encode()).hexdigest() == commitment == result["commitment"]
    assert (
        get_game(game).outcome(replay_states(await fetch_match(live_server, result["match_id"]))[-1])["scores"]
        == result["scores"]
    )
    await close_all(*clients, watcher)


@pytest.mark.parametrize("game", GAMES)
async def test_every_frame_equals_the_engines_own_view_and_carries_no_hidden_card(live_server, game):
    engine = get_game(game)
    for round_no in range(4):
        _, clients, watcher, _ = await seat_table(live_server, game)
        await start(clients)
        await play_to_end(clients, random.Random(f"{game}:{round_no}"))
        await watcher.wait(lambda c: c.state["room"]["status"] == "finished", what="the end")
        record = await fetch_match(live_server, clients[0].state["result"]["match_id"])
        states = replay_states(record)
        for c in [*clients, watcher]:
            seat = c.state["you"]
            expected = dedupe([engine.view(s, seat) for s in states])
            seen = dedupe([g for _, g in c.history])
            assert seen == expected, f"{c.label}: the views sent differ from the engine's views for that seat"
            if game == "ribs":
                continue  # bare ranks repeat across hands: the exact-view equality above is the proof
            full = [engine.full_view(s) for s in states]
            visible_cards = set()
            for s in states:
                visible_cards |= set(CARD_TOKEN.findall(orjson.dumps(engine.view(s, seat)).decode()))
            for raw in c.frames:
                leaked = set(CARD_TOKEN.findall(raw)) - visible_cards
                assert not leaked, f"{c.label} received {sorted(leaked)} it may never see"
            # And at each step: no card another seat holds in this seat's view, outside `revealed` (cards
            # shown on purpose) and `history` (earlier hands: their cards are dealt again).
            for s_index, s in enumerate(states):
                view = engine.view(s, seat)
                shown = set(
                    CARD_TOKEN.findall(
                        orjson.dumps({k2: v for k2, v in view.items() if k2 not in ("revealed", "history")}).decode()
                    )
                )
                for other, hand in enumerate(full[s_index]["hands"]):
                    if other != seat:
                        assert not shown & set(hand), f"{c.label} sees {shown & set(hand)} held by seat {other}"
        await close_all(*clients, watcher)


async def test_a_spectator_sees_no_hand_and_has_no_legal_actions(live_server):
    _, clients, watcher, _ = await seat_table(live_server, "oh_hell")
    await start(clients)
    await watcher.wait(lambda c: c.game is not None, what="the watcher to see the game")  # its own socket may lag
    assert watcher.state["you"] is None and watcher.state["me"] is None
    assert watcher.game["hand"] is None and watcher.game["legal"] == []
    await watcher.send({"type": "act", "action": {"type": "bid", "value": 0}, "v": watcher.v})
    err = await watcher.next_error()
    assert err["code"] == "not_seated"
    await close_all(*clients, watcher)


async def test_two_tabs_of_one_player_share_the_seat_and_every_patch(live_server):
    host = await new_player(live_server.base, "Tabs")
    code = await new_room(live_server.base, host["token"], "oh_hell", SHORT["oh_hell"], 3)
    a = await Client(live_server.ws_base, code, host["token"], "tab-a").connect()
    b = await Client(live_server.ws_base, code, host["token"], "tab-b").connect()
    for seat in (1, 2):
        await a.send({"type": "bot", "seat": seat})
    await a.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="two bots")
    await a.send({"type": "start"})
    await a.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    await play_to_end([a], random.Random(3))
    await b.wait(lambda c: c.v == a.v, what="tab b to catch up")
    assert a.state["you"] == b.state["you"] == 0
    assert a.state == b.state
    assert [v for v, _ in b.history] == list(range(b.history[0][0], b.v + 1)), "every version, in order"
    await close_all(a, b)


async def test_reconnecting_with_the_same_token_gives_back_the_seat_and_the_current_state(live_server):
    code, clients, _, players = await seat_table(live_server, "tarbish", spectator=False)
    await start(clients)
    leaving = clients[2]
    await leaving.close()
    for c in clients[:2]:
        await c.wait(lambda c: not c.state["seats"][2]["connected"], what="seat 2 shown disconnected")
    back = await Client(live_server.ws_base, code, players[2]["token"], "seat2-again").connect()
    assert back.state["you"] == 2
    assert back.state["seats"][2]["connected"] and not back.state["seats"][2]["away"]
    assert back.game["hand"] is not None and len(back.game["hand"]) > 0
    await clients[0].wait(lambda c: c.state["seats"][2]["connected"], what="seat 2 back")
    await close_all(clients[0], clients[1], clients[3], back)


async def test_a_dropped_seat_is_played_by_a_bot_after_the_grace_period_and_reclaimed(live_server):
    code, clients, _, players = await seat_table(
        live_server, "oh_hell", options={"max_cards": 5, "rebound": False}, spectator=False
    )
    await start(clients)
    gone = clients[1]
    await gone.close()
    others = [clients[0], clients[2], clients[3]]
    await others[0].wait(lambda c: c.state["seats"][1]["away"], 5, "seat 1 handed to a bot")
    # The others play; the bot plays seat 1 whenever it is its turn.
    rng = random.Random(7)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20

    def bot_moves() -> int:
        h = [g for _, g in others[0].history if g]
        return sum(1 for g1, g2 in itertools.pairwise(h) if g1["to_act"] == [1] and g2["to_act"] != [1])

    while loop.time() < deadline and bot_moves() < 2 and others[0].state["room"]["status"] == "playing":
        acted = False
        for c in others:
            if c.my_turn() and c.v == max(o.v for o in others):
                v = c.v
                await c.send({"type": "act", "action": choose(c.game, rng), "v": v})
                await c.wait(lambda x, v=v: x.v > v, what="a patch")
                acted = True
        if not acted:
            await asyncio.sleep(0.01)
    assert bot_moves() >= 1, "the bot never played the dropped seat"
    back = await Client(live_server.ws_base, code, players[1]["token"], "seat1-again").connect()
    assert back.state["you"] == 1 and not back.state["seats"][1]["away"]
    await others[0].wait(lambda c: not c.state["seats"][1]["away"], what="seat 1 reclaimed")
    await close_all(*others, back)


async def test_bots_never_play_on_alone_and_resume_when_the_host_is_back(live_server):
    host = await new_player(live_server.base, "Host")
    code = await new_room(live_server.base, host["token"], "bid_whist", {"target": 5})
    c = await Client(live_server.ws_base, code, host["token"], "host").connect()
    for seat in (1, 2, 3):
        await c.send({"type": "bot", "seat": seat})
    await c.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="three bots")
    await c.send({"type": "start"})
    await c.wait(lambda c: c.my_turn(), what="the host's turn")
    left_at = copy.deepcopy(c.game)
    await c.close()
    # The grace period (0.4 s here) passes with nobody connected: a bot takes the host's seat,
    # but the table is empty, so nobody plays. A spectator's arrival would wake the bots, so
    # the host comes back and finds the game exactly where they left it.
    await asyncio.sleep(1.0)
    back = await Client(live_server.ws_base, code, host["token"], "host").connect()
    assert back.game["history"] == left_at["history"]
    assert back.game["hand_counts"] == left_at["hand_counts"]
    assert back.game["to_act"] == left_at["to_act"]
    await play_to_end([back], random.Random(7))
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        for _ in range(600):
            r = await http.get("/api/matches", params={"player": host["id"], "game": "bid_whist"})
            if r.json()["matches"]:
                break
            await asyncio.sleep(0.05)
    assert len(r.json()["matches"]) == 1, "the match was not recorded"
    await back.close()


async def test_a_client_that_stops_reading_does_not_delay_the_others(live_server):
    """A socket that never reads is cut off; the table's pace is the same as without it."""
    import socket

    async def timed_game(with_stalled: bool) -> float:
        host = await new_player(live_server.base, "Pace")
        code = await new_room(live_server.base, host["token"], "oh_hell", {"max_cards": 10, "rebound": False}, 4)
        c = await Client(live_server.ws_base, code, host["token"], "pace").connect()
        for seat in (1, 2, 3):
            await c.send({"type": "bot", "seat": seat})
        await c.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="bots")
        stalled = None
        if with_stalled:
            # A raw socket with a tiny receive buffer that completes the handshake, then never reads.
            stalled = socket.socket()
            stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            stalled.connect(("127.0.0.1", live_server.port))
            stalled.sendall(
                (
                    f"GET /ws/rooms/{code} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            await asyncio.sleep(0.3)
        loop = asyncio.get_running_loop()
        began = loop.time()
        rng = random.Random(1)
        await c.send({"type": "start"})
        await play_to_end([c], rng, timeout=60)
        took = loop.time() - began
        if stalled is not None:
            stalled.close()
        await c.close()
        return took

    base = min([await timed_game(False) for _ in range(2)])
    slow = await timed_game(True)
    assert slow < base * 3 + 0.5, f"a stalled reader slowed the table: {slow:.2f}s against {base:.2f}s"
