"""An old link to a table that finished and has closed since: GET /api/rooms/{code} answers
404 (there is no open room), and GET /api/rooms/{code}/match names the match played there so
the page can open its record; a private table's match only to its own players."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest
from live_server import LiveServer
from ws_client import Client, new_player, new_room, play_to_end

OPTIONS = {"max_cards": 2, "rebound": False}  # a short Oh Hell


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # Tables nobody is connected to close (finished) or park within a second.
    live = LiveServer(
        tmp_path_factory.mktemp("old-links"), FELT_ROOM_IDLE_CLOSE_S="0.5", FELT_FINISHED_ROOM_CLOSE_S="0.5"
    )
    yield live
    live.stop()


def auth(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


async def finished_and_closed(server: LiveServer, private: bool) -> tuple[str, str, dict]:
    """A short match of a player and three bots, played to the end and left: (code, match id, player)."""
    ann = await new_player(server.base, "Ann")
    code = await new_room(server.base, ann["token"], "oh_hell", OPTIONS, 4, private=private)
    me = await Client(server.ws_base, code, ann["token"], "ann").connect()
    for seat in (1, 2, 3):
        await me.send({"type": "bot", "seat": seat})
    await me.wait(lambda c: all(s["name"] for s in c.state["seats"]), what="a full table")
    await me.send({"type": "start"})
    await me.wait(lambda c: c.state["room"]["status"] != "waiting", what="the start")
    await play_to_end([me], random.Random(3))
    match_id = me.state["result"]["match_id"]
    await me.close()
    async with httpx.AsyncClient(base_url=server.base) as http:
        for _ in range(600):
            answer = await http.get(f"/api/rooms/{code}", headers=auth(ann))
            if answer.status_code == 404:  # closed
                return code, match_id, ann
            await asyncio.sleep(0.05)
    raise AssertionError(f"table {code} never closed")


async def played_at(http: httpx.AsyncClient, code: str, headers: dict | None = None) -> str | None:
    answer = await http.get(f"/api/rooms/{code}/match", headers=headers or {})
    assert answer.status_code == 200, answer.text
    return answer.json()["match_id"]


async def test_an_old_link_to_a_finished_table_names_its_match(server):
    code, match_id, _ = await finished_and_closed(server, private=False)
    async with httpx.AsyncClient(base_url=server.base) as http:
        assert (await http.get(f"/api/rooms/{code}")).status_code == 404
        assert await played_at(http, code) == match_id
        assert (await http.get(f"/api/matches/{match_id}")).status_code == 200
        assert await played_at(http, "ZZZZ2345") is None  # never a table
        assert await played_at(http, "not a code") is None


async def test_a_private_tables_old_link_names_its_match_to_its_players_only(server):
    code, match_id, ann = await finished_and_closed(server, private=True)
    stranger = await new_player(server.base, "Stranger")
    async with httpx.AsyncClient(base_url=server.base) as http:
        assert await played_at(http, code, auth(ann)) == match_id
        assert await played_at(http, code) is None
        assert await played_at(http, code, auth(stranger)) is None
