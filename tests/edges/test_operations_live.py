"""What operators see, through a real server (issue 19, items 7 and 10): no log line carries
a player's token, JSON logs are one object a line, and /metrics moves as play happens."""

from __future__ import annotations

import contextlib
import random

import httpx
import orjson
from live_server import LiveServer
from prometheus_client.parser import text_string_to_metric_families
from ws_client import Client, new_player, new_room, play_to_end


async def scrape(base: str) -> dict[tuple[str, tuple], float]:
    """Every sample of /metrics as {(name, sorted labels): value}."""
    async with httpx.AsyncClient(base_url=base) as http:
        r = await http.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


async def test_no_log_line_carries_a_player_token(tmp_path):
    server = LiveServer(tmp_path, log_level="info", FELT_ACCESS_LOG="true")
    try:
        p = await new_player(server.base, "Secret")
        code = await new_room(server.base, p["token"], "ribs", {"target": 1})
        c = await Client(server.ws_base, code, p["token"], "secret").connect()
        await c.close()
        forged = Client(server.ws_base, code, "forged-" + p["token"][::-1], "forged")
        with contextlib.suppress(AssertionError):
            await forged.connect()
        async with httpx.AsyncClient(base_url=server.base) as http:
            await http.get(f"/api/rooms/{code}", params={"token": p["token"]})
            await http.get("/api/nothing", params={"a": "1", "token": p["token"]})
    finally:
        server.stop()
    log = (tmp_path / "server.log").read_text()
    assert f"/ws/rooms/{code}" in log and "[redacted]" in log, "the access lines are missing"
    assert p["token"] not in log
    assert p["token"][::-1] not in log


async def test_no_log_line_carries_a_device_link_code(tmp_path):
    """The link page's address carries a one-time code that adds a device to the player: a
    log reader must not be able to redeem it before the device it was made for."""
    server = LiveServer(tmp_path, log_level="info", FELT_ACCESS_LOG="true")
    try:
        p = await new_player(server.base, "Linker")
        async with httpx.AsyncClient(base_url=server.base) as http:
            link = (await http.post("/api/players/me/links", headers={"Authorization": f"Bearer {p['token']}"})).json()
            assert (await http.get(link["url"])).status_code == 200
            assert (await http.get("/link", params={"next": "1", "code": link["code"]})).status_code == 200
    finally:
        server.stop()
    log = (tmp_path / "server.log").read_text()
    assert "/link?code=[redacted]" in log, "the access line is missing"
    assert link["code"] not in log


async def test_json_logs_are_one_object_a_line_without_tokens(tmp_path):
    server = LiveServer(tmp_path, log_level="info", FELT_LOG_FORMAT="json")
    try:
        p = await new_player(server.base, "Json")
        code = await new_room(server.base, p["token"], "ribs", {"target": 1})
        c = await Client(server.ws_base, code, p["token"], "json").connect()
        await c.close()
    finally:
        server.stop()
    lines = [line for line in (tmp_path / "server.log").read_text().splitlines() if line.strip()]
    entries = [orjson.loads(line) for line in lines]  # every line parses
    assert all({"time", "level", "logger", "message"} <= set(e) for e in entries)
    assert any(f"/ws/rooms/{code}" in e["message"] for e in entries)
    assert not any(p["token"] in line for line in lines)


async def test_metrics_count_sockets_actions_latency_refusals_and_rooms(live_server):
    before = await scrape(live_server.base)
    host = await new_player(live_server.base, "Metered")
    code = await new_room(live_server.base, host["token"], "oh_hell", {"max_cards": 2, "rebound": False}, 3)
    c = await Client(live_server.ws_base, code, host["token"], "metered").connect()
    watcher = await Client(live_server.ws_base, code, None, "watcher").connect()
    during = await scrape(live_server.base)
    assert during[("felt_sockets_open", ())] == before[("felt_sockets_open", ())] + 2
    assert during[("felt_rooms", (("state", "waiting"),))] >= 1
    await watcher.send("not json")
    await watcher.next_error()
    for seat in (1, 2):
        await c.send({"type": "bot", "seat": seat})
    await c.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="bots")
    await c.send({"type": "start"})
    await c.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    await play_to_end([c], random.Random(7))
    match_id = c.state["result"]["match_id"]
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        for _ in range(200):
            if (await http.get(f"/api/matches/{match_id}")).status_code == 200:
                break
        record = (await http.get(f"/api/matches/{match_id}")).json()
        misses = await scrape(live_server.base)
        await http.get("/api/rooms/NOSUCHRM")
    after = await scrape(live_server.base)

    def moved(name: str, labels: tuple = ()) -> float:
        return after.get((name, labels), 0) - before.get((name, labels), 0)

    mine = sum(1 for a in record["actions"] if a["seat"] == c.state["you"])
    assert moved("felt_actions_applied_total") >= len(record["actions"])  # bots' moves count too
    assert moved("felt_action_seconds_count") >= mine  # one observation per action a socket sent
    assert moved("felt_action_seconds_sum") > 0
    assert moved("felt_refusals_total", (("code", "bad_json"), ("edge", "ws"))) == 1
    not_found = (("code", "not_found"), ("edge", "http"))
    assert after[("felt_refusals_total", not_found)] == misses.get(("felt_refusals_total", not_found), 0) + 1
    assert after[("felt_rooms", (("state", "finished"),))] >= 1
    assert after[("felt_writer_backlog", ())] == 0
    assert after[("felt_gc_frozen_objects", ())] > 0  # the collector tender has frozen the live heap
    assert after[("felt_gc_full_collections_total", ())] >= 1  # the one at the start, at least
    assert after[("felt_gc_last_full_seconds", ())] > 0
    assert moved("felt_database_errors_total", (("where", "request"),)) == 0
    await c.close(), await watcher.close()
    final = await scrape(live_server.base)
    assert final[("felt_sockets_open", ())] == before[("felt_sockets_open", ())]
