"""A group's webhook messages survive the server's stop or crash, through a real server on
SQLite and on PostgreSQL and a real chat receiver on loopback.

Messages queued while the chat is down (waiting for their next try) are in the database's
outbox when the server is killed (SIGKILL) or stopped (SIGTERM); started again, with the chat
back, the server sends each exactly once, in order, with the body it would have sent; a
message delivered is gone from the outbox and not sent again after another restart.
"""

from __future__ import annotations

import asyncio
import secrets

import httpx
import pytest
from chat_receiver import ChatReceiver
from live_server import free_port, served_on
from ws_client import new_player

from server.storage import outbox
from server.storage.db import Database

PUBLIC = "https://cards.example.org"


@pytest.fixture(params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    """It may reach loopback; the waits between tries are the real ones (1 s, 4 s, 16 s), long
    enough that a message queued is still waiting when the test stops the server."""
    env = {"FELT_OUTBOUND_ALLOW_PRIVATE": "1", "FELT_PUBLIC_URL": PUBLIC}
    with served_on(request.param, tmp_path_factory, "outbox", log_level="info", **env) as live:
        yield live


def auth(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


async def new_group(http: httpx.AsyncClient, owner: dict, url: str) -> str:
    r = await http.post("/api/groups", json={"name": "Tuesday cards"}, headers=auth(owner))
    assert r.status_code == 201, r.text
    code = r.json()["code"]
    r = await http.put(f"/api/groups/{code}/webhook", json={"url": url, "format": "discord"}, headers=auth(owner))
    assert r.status_code == 200, r.text
    return code


async def open_table(http: httpx.AsyncClient, code: str, host: dict) -> str:
    r = await http.post("/api/rooms", json={"game": "ribs", "group": code}, headers=auth(host))
    assert r.status_code == 201, r.text
    return r.json()["code"]


def opened(room: str, who: str = "Ana") -> dict:
    return {"content": f"{who} opened a new Ribs table. {PUBLIC}/r/{room}", "allowed_mentions": {"parse": []}}


async def the_outbox(server, until=lambda rows: True, what: str = "") -> list[dict]:
    """The server's outbox, read from its database, once ``until`` holds of it."""
    db = Database(server.env["DATABASE_URL"])

    def read() -> list[dict]:
        with db.session() as session:
            return outbox.queued(session)

    try:
        for _ in range(1200):
            rows = await db.call(read)
            if until(rows):
                return rows
            await asyncio.sleep(0.05)
        raise AssertionError(f"the outbox never {what}: {rows}")
    finally:
        db.dispose()


@pytest.mark.parametrize("stop", ["kill", "terminate"])
async def test_messages_queued_while_the_chat_is_down_arrive_once_after_a_restart(server, stop):
    ana = await new_player(server.base, "Ana")
    port, path = free_port(), f"/api/webhooks/1/{secrets.token_urlsafe(16)}"
    async with httpx.AsyncClient(base_url=server.base) as http:
        code = await new_group(http, ana, f"http://127.0.0.1:{port}{path}")  # nothing listens there
        rooms = [await open_table(http, code, ana) for _ in range(2)]
    before = await the_outbox(server, lambda rows: len(rows) == 2 and rows[0]["tries"] >= 1, "tried the first")
    if stop == "kill":
        server.kill()
    else:
        assert server.terminate() in (0, -15)
    kept = await the_outbox(server)
    assert [r["id"] for r in kept] == [r["id"] for r in before]
    assert [r["message"]["table"] for r in kept] == rooms and all(r["group"] == code for r in kept)
    assert kept[0]["tries"] >= before[0]["tries"] and kept[1]["tries"] == 0  # the schedule is kept
    assert path not in str(kept)  # the outbox never holds the URL

    async with ChatReceiver(port=port) as chat:
        server.start()
        await chat.until(lambda r: len(r) >= 2, what="the two messages after the restart")
        await the_outbox(server, lambda rows: rows == [], "emptied")
        assert chat.bodies() == [opened(rooms[0]), opened(rooms[1])]  # once each, in order
        assert all(r["path"] == path for r in chat.requests)

        # Delivered is gone: another restart sends nothing again, only what is new.
        assert server.terminate() in (0, -15)
        server.start()
        async with httpx.AsyncClient(base_url=server.base) as http:
            third = await open_table(http, code, ana)
        await chat.until(lambda r: len(r) >= 3, what="the third table's opening")
        await the_outbox(server, lambda rows: rows == [], "emptied again")
        assert chat.bodies() == [opened(rooms[0]), opened(rooms[1]), opened(third)]
    assert path not in (server.tmp / "server.log").read_text()  # the URL's secret is never logged
