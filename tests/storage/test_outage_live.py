"""A database outage through a real server (issue 19, item 8): while PostgreSQL refuses
connections every route answers a documented JSON 503 with Retry-After, a socket whose token
is not cached gets an ``unavailable`` frame and close 1013, and the log has no traceback."""

from __future__ import annotations

import httpx
import pytest
from live_server import LiveServer
from ws_client import Client, new_player, new_room

from server.rooms.seats import new_room_code

pytestmark = pytest.mark.postgres


def assert_unavailable(r: httpx.Response) -> None:
    assert r.status_code == 503, (r.request.url, r.status_code, r.text)
    assert r.headers["content-type"] == "application/json"
    assert r.json()["error"]["code"] == "unavailable" and r.json()["error"]["message"]
    assert int(r.headers["retry-after"]) >= 1


async def test_every_route_answers_503_json_while_postgres_refuses_connections(tmp_path, pg_databases):
    url = pg_databases.create()
    server = LiveServer(tmp_path, DATABASE_URL=url)
    try:
        host = await new_player(server.base, "Host")
        stranger = await new_player(server.base, "Stranger")  # never seen by the server since
        code = await new_room(server.base, host["token"], "ribs", {"target": 1})
        with pg_databases.refusing_connections(url):
            async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
                assert_unavailable(await http.get("/api/matches"))
                assert_unavailable(await http.get("/api/matches/0123456789abcdef"))
                assert_unavailable(await http.post("/api/players", json={"name": "Late"}))
                auth = {"Authorization": f"Bearer {stranger['token']}"}
                assert_unavailable(await http.post("/api/rooms", json={"game": "ribs"}, headers=auth))
                assert_unavailable(await http.get("/healthz"))
                # Every 503 says when to try again: a table not in memory, a known player's tables.
                assert_unavailable(await http.get(f"/api/rooms/{new_room_code()}"))
                host_auth = {"Authorization": f"Bearer {host['token']}"}
                assert_unavailable(await http.get("/api/tables", headers=host_auth))
            socket = Client(server.ws_base, code, stranger["token"], "stranger")
            with pytest.raises(AssertionError):
                await socket.connect()
            assert socket.errors and socket.errors[0]["code"] == "unavailable"
            assert socket.closed[0] == 1013
        async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
            assert (await http.get("/api/matches")).status_code == 200
            assert (await http.post("/api/players", json={"name": "Back"})).status_code == 201
        back = await Client(server.ws_base, code, stranger["token"], "stranger").connect()
        await back.close()
    finally:
        server.stop()
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]
    assert "the database is unavailable" in log
