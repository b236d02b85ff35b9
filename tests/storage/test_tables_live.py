"""Tables that outlive a process, through a real server: parked tables, "Your tables", the
spool during a database outage, and a start while the database is down."""

from __future__ import annotations

import asyncio
import random
import sqlite3

import httpx
import psycopg
from live_server import LiveServer
from sqlalchemy.engine import make_url
from ws_client import Client, host_with_bots, new_player, new_room, play_to_end


async def _my_tables(server: LiveServer, token: str) -> dict[str, str]:
    async with httpx.AsyncClient(base_url=server.base) as http:
        r = await http.get("/api/tables", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        return {t["code"]: t["status"] for t in r.json()["tables"]}


async def _wait_status(server: LiveServer, token: str, code: str, status: str) -> None:
    for _ in range(400):
        if (await _my_tables(server, token)).get(code) == status:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"table {code} never became {status}: {await _my_tables(server, token)}")


async def _bot_table(server: LiveServer, token: str, game: str, options: dict) -> tuple[str, Client]:
    code = await new_room(server.base, token, game, options)
    return code, await host_with_bots(server.ws_base, code, token)


async def test_a_table_left_empty_is_parked_survives_a_restart_and_resumes_where_it_stood(tmp_path):
    server = LiveServer(tmp_path, FELT_ROOM_IDLE_CLOSE_S="0.5")
    try:
        ann = await new_player(server.base, "Ann")
        code, host = await _bot_table(server, ann["token"], "oh_hell", {"max_cards": 3})
        await host.send({"type": "start"})
        await host.wait(lambda c: c.my_turn(), what="Ann's turn")
        left = host.game
        await host.close()
        await _wait_status(server, ann["token"], code, "parked")
        assert server.terminate() in (0, -15)
        server.start()
        assert (await _my_tables(server, ann["token"]))[code] == "parked"
        back = await Client(server.ws_base, code, ann["token"], "back").connect()  # opening the link
        assert back.state["room"]["status"] == "playing" and back.state["you"] == 0
        # Nobody played while the table was empty: the game is exactly where Ann left it.
        assert back.game == left
        await _wait_status(server, ann["token"], code, "playing")
        await play_to_end([back], random.Random(3))
        assert back.state["result"]["match_id"]
        await back.close()
    finally:
        server.stop()


async def test_the_host_closes_a_waiting_table_and_a_player_leaves_one(tmp_path):
    server = LiveServer(tmp_path)
    try:
        ann, bob = await new_player(server.base, "Ann"), await new_player(server.base, "Bob")
        first = await new_room(server.base, ann["token"], "ribs")
        second = await new_room(server.base, ann["token"], "ribs")
        sitter = await Client(server.ws_base, second, bob["token"], "bob").connect()
        await sitter.send({"type": "sit", "seat": 1})
        await sitter.wait(lambda c: c.state["you"] == 1, what="Bob seated")
        assert set(await _my_tables(server, ann["token"])) == {first, second}
        await _wait_status(server, bob["token"], second, "waiting")
        async with httpx.AsyncClient(base_url=server.base) as http:
            bob_auth = {"Authorization": f"Bearer {bob['token']}"}
            ann_auth = {"Authorization": f"Bearer {ann['token']}"}
            refused = await http.post(f"/api/tables/{second}/close", headers=bob_auth)
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_host"
            assert (await http.post(f"/api/tables/{second}/leave", headers=bob_auth)).status_code == 204
            await sitter.wait(lambda c: c.state["you"] is None, what="Bob's seat empty")
            assert (await http.post(f"/api/tables/{first}/close", headers=ann_auth)).status_code == 204
            assert (await http.get(f"/api/rooms/{first}")).status_code == 404
        assert set(await _my_tables(server, ann["token"])) == {second}
        assert await _my_tables(server, bob["token"]) == {}
        await sitter.close()
    finally:
        server.stop()


async def test_matches_finished_while_postgres_refuses_connections_survive_a_stop(tmp_path, pg_database):
    server = LiveServer(tmp_path, DATABASE_URL=pg_database.url)
    try:
        ann = await new_player(server.base, "Ann")
        tables = []
        for i in range(6):
            game, options = [("ribs", {"target": 2}), ("oh_hell", {"max_cards": 3})][i % 2]
            code, host = await _bot_table(server, ann["token"], game, options)
            watcher = await Client(server.ws_base, code, None, "watcher").connect()  # bots play for a watcher
            tables.append((code, host, watcher))
        pg_database.refuse_connections(True)
        async with httpx.AsyncClient(base_url=server.base) as http:
            assert (await http.get("/healthz")).status_code == 503
        for _code, host, _watcher in tables:
            await host.send({"type": "start"})
            await host.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
            await host.send({"type": "leave"})  # a bot keeps Ann's seat for good
        results = []
        for _code, host, watcher in tables:
            await watcher.wait(lambda c: c.state["room"]["status"] == "finished", 120, "the bots' match end")
            results.append(watcher.state["result"])
            await host.close()
            await watcher.close()
        assert server.terminate() in (0, -15)
        pg_database.refuse_connections(False)
        server.start()
        async with httpx.AsyncClient(base_url=server.base) as http:
            for result in results:
                r = await http.get(f"/api/matches/{result['match_id']}")
                assert r.status_code == 200, f"match {result['match_id']} was lost"
                assert r.json()["scores"] == result["scores"]
    finally:
        pg_database.refuse_connections(False)
        server.stop()


async def test_the_server_starts_while_the_database_is_down_and_becomes_healthy_when_it_is_back(tmp_path, pg_database):
    pg_database.refuse_connections(True)
    server = LiveServer(tmp_path, healthy=False, DATABASE_URL=pg_database.url)
    try:
        async with httpx.AsyncClient(base_url=server.base) as http:
            r = await http.get("/healthz")
            assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"
            pg_database.refuse_connections(False)
            for _ in range(400):
                if (await http.get("/healthz")).status_code == 200:
                    break
                await asyncio.sleep(0.05)
            assert (await http.get("/healthz")).status_code == 200
            assert (await http.post("/api/players", json={"name": "Ann"})).status_code in (200, 201)
    finally:
        pg_database.refuse_connections(False)
        server.stop()


class _WritesHeld:
    """Hold the database's write lock on the table log (SQLite: the whole file) until released."""

    def __init__(self, database_url: str) -> None:
        url = make_url(database_url)
        if url.get_backend_name() == "sqlite":
            self.conn = sqlite3.connect(url.database, isolation_level=None)
            self.conn.execute("BEGIN IMMEDIATE")
        else:
            self.conn = psycopg.connect(url.set(drivername="postgresql").render_as_string(hide_password=False))
            self.conn.execute("LOCK TABLE table_log IN EXCLUSIVE MODE")

    def release(self) -> None:
        self.conn.rollback()
        self.conn.close()


async def test_a_new_tables_201_waits_until_it_is_durable_and_survives_a_crash_right_after(tmp_path, database_url):
    """``POST /api/rooms`` answers 201 only once the table's first entry is durable: not while
    the database cannot commit, and every table answered survives a SIGKILL the moment after."""
    server = LiveServer(tmp_path, DATABASE_URL=database_url)
    try:
        ann = await new_player(server.base, "Ann")
        held = _WritesHeld(database_url)
        creates = [asyncio.ensure_future(new_room(server.base, ann["token"], "oh_hell")) for _ in range(6)]
        await asyncio.sleep(1.0)
        answered = [task for task in creates if task.done()]
        held.release()
        assert answered == [], "a 201 came before the new table's first entry was durable"
        codes = await asyncio.gather(*creates)
        server.kill()  # SIGKILL the moment the last answer is in
        server.start()
        tables = await _my_tables(server, ann["token"])
        assert {code: tables.get(code) for code in codes} == {code: "waiting" for code in codes}
        client = await Client(server.ws_base, codes[-1], ann["token"], "ann").connect()
        assert client.state["room"]["status"] == "waiting" and client.state["seats"][0]["name"] == "Ann"
        await client.close()
    finally:
        server.stop()
