"""A table's rules travel with it: the lobby's listing, the room's summary, the stored match, its
history entry and its replay all carry the options the table was created with (the client's
rules summary is built from them)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from server.config import Settings
from server.games import get_game

HOUSE = {
    "oh_hell": {"max_cards": 2, "rebound": False, "trump": "rotation", "scoring": "squared"},
    "tarbish": {"target": 60, "no_trump": True, "dealer_forced": False},
}


async def _noop_close(code: int, reason: str) -> None:
    return None


async def play_out(app, room, host) -> None:
    """Host stands, four bots sit, the match plays to its end and is written down."""
    from server.rooms import Connection

    conn = Connection(host["id"], "Host", _noop_close)
    await room.join(conn)
    await room.stand(conn)
    for seat in range(4):
        await room.set_bot(conn, seat, False)
    await room.start(conn)
    for _ in range(3000):
        if room.status == "finished":
            break
        await asyncio.sleep(0.01)
    assert room.status == "finished"
    await app.state.writer.flush()


@pytest.mark.parametrize("game_name", list(HOUSE))
async def test_the_options_of_a_table_reach_its_listing_its_match_its_history_and_its_replay(tmp_path, game_name):
    from server.app import create_app

    full = get_game(game_name).parse_options(HOUSE[game_name]).model_dump(mode="json")
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path / 'app.db'}", bot_delay_ms=0))
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://felt") as client,
    ):
        host = (await client.post("/api/players", json={"name": "Host"})).json()
        created = await client.post(
            "/api/rooms",
            json={"game": game_name, "options": HOUSE[game_name], "seats": 4},
            headers={"Authorization": f"Bearer {host['token']}"},
        )
        assert created.status_code == 201, created.text
        code = created.json()["code"]
        listed = (await client.get("/api/rooms")).json()["rooms"]
        assert [r["options"] for r in listed if r["code"] == code] == [full]
        assert (await client.get(f"/api/rooms/{code}")).json()["options"] == full

        await play_out(app, app.state.rooms.get(code), host)
        mine = (await client.get("/api/matches", params={"player": host["id"]})).json()["matches"]
        assert mine == []  # the host stood up: only the bots played
        page = (await client.get("/api/matches", params={"game": game_name})).json()["matches"]
        assert len(page) == 1 and page[0]["options"] == full
        match_id = page[0]["id"]
        assert (await client.get(f"/api/matches/{match_id}")).json()["options"] == full
        assert (await client.get(f"/api/matches/{match_id}/replay")).json()["options"] == full
        schema = client._transport.app.openapi()["components"]["schemas"]  # type: ignore[attr-defined]
        assert "options" in schema["MatchSummary"]["properties"]
