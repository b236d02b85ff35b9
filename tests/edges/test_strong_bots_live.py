"""Strong bots at a real table: the host picks the level, the bots think in a worker process,
the table and the stored match say which level each bot seat played."""

from __future__ import annotations

import asyncio
import os
import random
import signal

import httpx
import pytest
from live_server import LiveServer
from ws_client import Client, choose, new_player, new_room, play_to_end


@pytest.fixture(scope="module")
def thinking_server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("strong")
    server = LiveServer(folder, FELT_BOT_THINK_MS="5", FELT_BOT_WORKERS="1")
    server.log_path = folder / "server.log"
    yield server
    server.stop()


async def stored_matches(server, player_id: str, game: str) -> list[dict]:
    async with httpx.AsyncClient(base_url=server.base) as http:
        for _ in range(600):
            r = await http.get("/api/matches", params={"player": player_id, "game": game})
            if r.json()["matches"]:
                return r.json()["matches"]
            await asyncio.sleep(0.05)
    return []


async def test_a_person_plays_a_whole_match_with_strong_and_easy_bots(thinking_server):
    host = await new_player(thinking_server.base, "Host")
    code = await new_room(thinking_server.base, host["token"], "oh_hell", {"max_cards": 2, "rebound": False})
    c = await Client(thinking_server.ws_base, code, host["token"], "host").connect()
    await c.send({"type": "bot", "seat": 1, "level": "strong"})
    await c.send({"type": "bot", "seat": 2})
    await c.send({"type": "bot", "seat": 3, "level": "strong"})
    await c.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="three bots")
    assert [s["level"] for s in c.state["seats"]] == [None, "strong", "easy", "strong"]
    await c.send({"type": "start"})
    await c.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    await play_to_end([c], random.Random(3), timeout=120)
    assert c.state["room"]["status"] == "finished"
    strong_moves = [v for _, v in c.history if v and v.get("log") and v["log"][-1]["seat"] in (1, 3)]
    assert strong_moves, "the Strong bots never moved"
    # They thought in the worker pool: no decision fell back to the Easy bot.
    assert "Strong bot" not in thinking_server.log_path.read_text()
    matches = await stored_matches(thinking_server, host["id"], "oh_hell")
    assert [(p["bot"], p["level"]) for p in matches[0]["players"]] == [
        (False, None),
        (True, "strong"),
        (True, "easy"),
        (True, "strong"),
    ]
    await c.close()


async def test_bots_alone_finish_a_partnership_match_with_strong_bots(thinking_server):
    host = await new_player(thinking_server.base, "Host")
    code = await new_room(thinking_server.base, host["token"], "tarbish", {"target": 60})
    c = await Client(thinking_server.ws_base, code, host["token"], "host").connect()
    for seat in (1, 2, 3):
        await c.send({"type": "bot", "seat": seat, "level": "strong"})
    await c.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="three bots")
    await c.send({"type": "start"})
    await c.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    await play_to_end([c], random.Random(5), timeout=120)
    assert c.state["room"]["status"] == "finished"
    await c.close()


async def test_an_unknown_bot_level_is_refused_and_changes_nothing(thinking_server):
    host = await new_player(thinking_server.base, "Host")
    code = await new_room(thinking_server.base, host["token"], "ribs", {"target": 1})
    c = await Client(thinking_server.ws_base, code, host["token"], "host").connect()
    await c.send({"type": "bot", "seat": 1, "level": "grandmaster"})
    error = await c.next_error()
    assert error["code"] and error["message"]
    assert not c.state["seats"][1]["bot"]
    await c.close()


async def test_a_stop_while_strong_bots_think_logs_no_bot_errors(tmp_path):
    """SIGTERM while a Strong bot thinks, sent to the server's whole process group as a
    service manager or a terminal does (its bot workers get it too): a stop is not an error,
    the log has no ERROR line and no traceback about the bots."""
    server = LiveServer(tmp_path, FELT_BOT_THINK_MS="1500", FELT_BOT_WORKERS="1", log_level="info", preexec=os.setsid)
    try:
        host = await new_player(server.base, "Host")
        code = await new_room(server.base, host["token"], "tarbish", {"target": 60})
        c = await Client(server.ws_base, code, host["token"], "host").connect()
        for seat in (1, 2, 3):
            await c.send({"type": "bot", "seat": seat, "level": "strong"})
        await c.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="three bots")
        await c.send({"type": "start"})
        rng = random.Random(8)

        # Play until a Strong bot has moved (its worker is up) and another one is thinking now.
        def strong_moved(c) -> bool:
            return any(v and v.get("log") and v["log"][-1]["seat"] in (1, 2, 3) for _, v in c.history)

        while not (strong_moved(c) and c.game and set(c.game["to_act"]) & {1, 2, 3}):
            v = c.v
            if c.my_turn():
                await c.send({"type": "act", "action": choose(c.game, rng), "v": v})
            await c.wait(lambda x, v=v: x.v > v or x.errors, 60, "the next move")
            assert not c.errors, c.errors
        os.killpg(server.proc.pid, signal.SIGTERM)
        assert server.proc.wait(60) in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it stopped for
        await c.close()
        log = (tmp_path / "server.log").read_text()
        assert "Felt" in log  # the log is the one this server wrote (info level)
        bad = [
            line
            for line in log.splitlines()
            if " ERROR " in line
            or "Traceback" in line
            or ("bot" in line.lower() and ("failed" in line or "badly" in line))
        ]
        assert not bad, "\n".join(bad) + "\n" + log[-3000:]
    finally:
        server.stop()
