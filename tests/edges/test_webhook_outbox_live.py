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
import time

import httpx
import pytest
import sqlalchemy as sa
from chat_receiver import ChatReceiver
from live_server import free_port, served_on
from ws_client import new_player

from server.storage import outbox
from server.storage.db import Database
from server.storage.models import WebhookOutbox

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


async def next_try_at(server, at: float) -> None:
    """Every message in the server's outbox is tried next at ``at`` (written in its database)."""
    db = Database(server.env["DATABASE_URL"])

    def write() -> None:
        with db.session() as session:
            session.execute(sa.update(WebhookOutbox).values(next_at=at))

    try:
        await db.call(write)
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


ROUNDS = 6  # servers killed
TABLES = 3  # group tables opened at once in a round, the server killed as the last is acknowledged


@pytest.fixture(params=["sqlite", "postgres"])
def crowded(request, tmp_path_factory):
    """A server that lets one host open every table of the test (and open them at once)."""
    env = {
        "FELT_OUTBOUND_ALLOW_PRIVATE": "1",
        "FELT_PUBLIC_URL": PUBLIC,
        "FELT_MAX_OPEN_ROOMS_PER_PLAYER": str(ROUNDS * TABLES + 5),
        "FELT_RATE_ROOMS_BURST": str(ROUNDS * TABLES + 5),
    }
    with served_on(request.param, tmp_path_factory, "outbox-kill", **env) as live:
        yield live


async def test_a_group_table_acknowledged_is_announced_once_though_the_server_is_killed_at_once(crowded):
    """The 201 that opens a group's table means its opening is in the outbox: killed (SIGKILL)
    the moment the last table of a round is acknowledged, round after round, the server started
    again with the chat up sends every acknowledged opening, each exactly once."""
    server = crowded
    ana = await new_player(server.base, "Ana")
    port, path = free_port(), f"/api/webhooks/2/{secrets.token_urlsafe(16)}"
    acknowledged: list[str] = []
    async with httpx.AsyncClient(base_url=server.base) as http:
        code = await new_group(http, ana, f"http://127.0.0.1:{port}{path}")  # the chat is down meanwhile
    for round in range(ROUNDS):
        if round:
            server.start()
        async with httpx.AsyncClient(base_url=server.base) as http:
            acknowledged += await asyncio.gather(*(open_table(http, code, ana) for _ in range(TABLES)))
        server.kill()
        # The chat is down: a message tried in every round would be given up on after its
        # fourth try. Held while the server is down, it is not tried again (nor the group's
        # later messages, which wait behind it).
        await next_try_at(server, time.time() + 3600)
    kept = await the_outbox(server)
    assert sorted(r["message"]["table"] for r in kept) == sorted(acknowledged), "an acknowledged opening was lost"
    await next_try_at(server, 0.0)  # due at once

    async with ChatReceiver(port=port) as chat:
        server.start()
        await chat.until(lambda r: len(r) >= len(acknowledged), what="every acknowledged opening")
        await the_outbox(server, lambda rows: rows == [], "emptied")
        said = sorted(body["content"] for body in chat.bodies())
        assert said == sorted(opened(room)["content"] for room in acknowledged)  # each once
