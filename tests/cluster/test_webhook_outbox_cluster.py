"""A group's webhook message on two nodes behind HAProxy (PostgreSQL, Redis): the node trying it
is killed while the chat has not answered; once that node's claim runs out, the other node
sends the message, once, with the same body, and the outbox is empty after.
"""

from __future__ import annotations

import asyncio
import os
import secrets

import httpx
import psycopg
import pytest
from chat_receiver import ChatReceiver
from cluster_harness import Cluster, cluster_settings, require_services
from sqlalchemy.engine import make_url
from ws_client import new_player

from server.config import normalize_database_url


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):
    require_services()
    url = normalize_database_url(os.environ["TEST_DATABASE_URL"])
    settings = {**cluster_settings(), "FELT_OUTBOUND_ALLOW_PRIVATE": "1"}
    cluster = Cluster(tmp_path_factory.mktemp("outbox"), url, n=2, **settings)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


def outbox_rows(cluster: Cluster) -> list[tuple[int, str | None, int]]:
    """``(id, claimed_by, tries)`` of every message waiting, oldest first."""
    libpq = make_url(cluster.database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(libpq) as conn:
        return conn.execute("SELECT id, claimed_by, tries FROM webhook_outbox ORDER BY id").fetchall()


async def until(predicate, what: str, timeout: float = 120.0):
    for _ in range(int(timeout / 0.1)):
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


async def test_a_message_whose_node_died_mid_try_is_sent_once_by_the_other_node(two_nodes):
    cluster, path = two_nodes, f"/api/webhooks/1/{secrets.token_urlsafe(16)}"
    async with ChatReceiver() as chat, httpx.AsyncClient(base_url=cluster.base) as http:
        chat.hang = True  # the first try is never answered
        ana = await new_player(cluster.base, "Ana")
        auth = {"Authorization": f"Bearer {ana['token']}"}
        code = (await http.post("/api/groups", json={"name": "Tuesday cards"}, headers=auth)).json()["code"]
        r = await http.put(f"/api/groups/{code}/webhook", json={"url": chat.url(path), "format": "json"}, headers=auth)
        assert r.status_code == 200, r.text
        r = await http.post("/api/rooms", json={"game": "ribs", "group": code}, headers=auth)
        assert r.status_code == 201, r.text
        room = r.json()["code"]
        await chat.until(lambda r: len(r) == 1, what="the first try")
        [(_id, claimed_by, tries)] = outbox_rows(cluster)
        assert claimed_by is not None and tries == 0  # claimed for the try that hangs
        holder = claimed_by.split("/", 1)[0]
        cluster.node(holder).kill()
        chat.hang = False  # the chat answers from now on

        await chat.until(lambda r: len(r) == 2, timeout=120, what="the try by the other node")
        await until(lambda: outbox_rows(cluster) == [], "the outbox to empty")
        first, second = chat.requests
        assert first["body"] == second["body"] and chat.bodies()[1]["table"] == room
        assert len(chat.requests) == 2
