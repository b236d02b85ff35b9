"""Private tables, spectators, "Play again" and chat limits, through a real server.

Issue 19 items 2, 3, 4 and 9 (chat): a private table's matches are its players' alone, a
finished room shows its chat and next table only to its players, spectators cannot lock
players out, "Play again" belongs to the players of the finished match, and chat limits are
per player and per room, not per socket.
"""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest
from live_server import LiveServer
from ws_client import Client, new_player, new_room, play_to_end

OPTIONS = {"max_cards": 2, "rebound": False}  # a short Oh Hell

# The first replay starts the worker process that builds replays: seconds on a loaded machine.
REPLAY_WAIT_S = 60


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    live = LiveServer(tmp_path_factory.mktemp("tables"), FELT_MAX_SPECTATORS_PER_ROOM="3")
    yield live
    live.stop()


def auth(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


async def table(server, private: bool) -> tuple[str, list[dict], list[Client]]:
    """A host and a friend seated (seats 0 and 1), bots in seats 2 and 3, not started."""
    host, friend = await new_player(server.base, "Host"), await new_player(server.base, "Friend")
    code = await new_room(server.base, host["token"], "oh_hell", OPTIONS, 4, private=private)
    a = await Client(server.ws_base, code, host["token"], "host").connect()
    b = await Client(server.ws_base, code, friend["token"], "friend").connect()
    await b.send({"type": "sit", "seat": 1})
    for seat in (2, 3):
        await a.send({"type": "bot", "seat": seat})
    await a.wait(lambda c: all(s["name"] for s in c.state["seats"]), what="a full table")
    return code, [host, friend], [a, b]


async def finish(clients: list[Client]) -> str:
    await clients[0].send({"type": "start"})
    await clients[0].wait(lambda c: c.state["room"]["status"] != "waiting", what="the start")
    await play_to_end(clients, random.Random(5))
    return clients[0].state["result"]["match_id"]


async def stored(http: httpx.AsyncClient, match_id: str, headers: dict) -> httpx.Response:
    for _ in range(300):
        answer = await http.get(f"/api/matches/{match_id}", headers=headers)
        if answer.status_code == 200:
            return answer
        await asyncio.sleep(0.05)
    raise AssertionError(f"match {match_id} was never readable for its player")


async def close_all(*clients: Client) -> None:
    for c in clients:
        await c.close()


async def test_a_private_tables_match_is_listed_and_readable_only_by_its_players(server):
    code, (host, friend), clients = await table(server, private=True)
    match_id = await finish(clients)
    stranger = await new_player(server.base, "Stranger")
    async with httpx.AsyncClient(base_url=server.base, timeout=REPLAY_WAIT_S) as http:
        record = (await stored(http, match_id, auth(friend))).json()
        assert record["private"] is True and record["room_code"] == code
        for headers in ({}, auth(stranger), {"Authorization": "Bearer not-a-token"}):
            assert (await http.get(f"/api/matches/{match_id}", headers=headers)).status_code == 404
            replay = await http.get(f"/api/matches/{match_id}/replay", headers=headers)
            assert replay.status_code == 404 and replay.json()["error"]["code"] == "not_found"
            listed = await http.get("/api/matches", params={"limit": 100}, headers=headers)
            assert match_id not in listed.text and code not in listed.text
            mine = await http.get("/api/matches", params={"player": host["id"]}, headers=headers)
            assert mine.json()["matches"] == []
            assert code not in (await http.get("/api/rooms", headers=headers)).text
        for player in (host, friend):
            page = (await http.get("/api/matches", params={"limit": 100}, headers=auth(player))).json()
            assert match_id in [m["id"] for m in page["matches"]]
            assert (await http.get(f"/api/matches/{match_id}/replay", headers=auth(player))).status_code == 200
    await close_all(*clients)


async def test_a_finished_rooms_chat_and_next_table_are_shown_only_to_its_players(server):
    code, (host, _), clients = await table(server, private=True)
    await clients[0].send({"type": "chat", "text": "secret plans"})
    await clients[1].wait(lambda c: c.state["chat"], what="the chat line")
    await finish(clients)
    async with httpx.AsyncClient(base_url=server.base) as http:
        again = await http.post(
            "/api/rooms", json={"game": "oh_hell", "private": True, "from": code}, headers=auth(host)
        )
    assert again.status_code == 201, again.text
    next_code = again.json()["code"]
    stranger = await new_player(server.base, "Stranger")
    watchers = [
        await Client(server.ws_base, code, None, "tokenless").connect(),
        await Client(server.ws_base, code, stranger["token"], "stranger").connect(),
    ]
    await clients[1].wait(lambda c: c.state["room"]["next"] == next_code, what="the next table")
    assert [line["text"] for line in clients[1].state["chat"]] == ["secret plans"]
    for w in watchers:
        assert w.state["room"]["status"] == "finished"
        assert w.state["chat"] == [] and w.state["room"]["next"] is None
        assert not any("secret plans" in f or next_code in f for f in w.frames)
    await close_all(*watchers, *clients)


async def test_spectators_have_their_own_cap_and_players_always_get_in(server):
    code, (host, friend), clients = await table(server, private=False)
    watchers = [await Client(server.ws_base, code, None, f"watcher{i}").connect() for i in range(3)]
    refused = Client(server.ws_base, code, None, "one too many")
    with pytest.raises(AssertionError):
        await refused.connect()
    assert refused.errors[-1]["code"] == "room_full" and refused.closed[0] == 1008
    tabs = [await Client(server.ws_base, code, p["token"], f"tab of {p['name']}").connect() for p in (host, friend) * 3]
    assert [t.state["you"] for t in tabs] == [0, 1] * 3
    await close_all(*tabs, *watchers, *clients)


async def test_only_the_players_of_a_private_table_can_chat(server):
    code, _, clients = await table(server, private=True)
    stranger = await new_player(server.base, "Stranger")
    for token in (None, stranger["token"]):
        watcher = await Client(server.ws_base, code, token, "watcher").connect()
        await watcher.send({"type": "chat", "text": "let me in"})
        error = await watcher.next_error()
        assert error["code"] == "players_only"
        await watcher.close()
    await clients[1].send({"type": "chat", "text": "hi"})
    await clients[0].wait(lambda c: [line["text"] for line in c.state["chat"]] == ["hi"], what="the friend's line")
    await close_all(*clients)


async def test_play_again_belongs_to_the_finished_matchs_players_and_the_hosts_choice_wins(server):
    code, (host, friend), clients = await table(server, private=False)
    stranger = await new_player(server.base, "Stranger")
    spectator = await Client(server.ws_base, code, stranger["token"], "stranger").connect()
    body = {"game": "oh_hell", "options": OPTIONS, "seats": 4, "from": code}
    async with httpx.AsyncClient(base_url=server.base) as http:
        early = await http.post("/api/rooms", json=body, headers=auth(friend))
        assert early.status_code == 409 and early.json()["error"]["code"] == "not_finished"
        await finish(clients)
        hijack = await http.post("/api/rooms", json=body, headers=auth(stranger))
        assert hijack.status_code == 403 and hijack.json()["error"]["code"] == "not_a_player"
        first = await http.post("/api/rooms", json=body, headers=auth(friend))
        assert first.status_code == 201
        await clients[0].wait(lambda c: c.state["room"]["next"] == first.json()["code"], what="the friend's table")
        twice = await http.post("/api/rooms", json=body, headers=auth(friend))
        assert twice.status_code == 409 and twice.json()["error"]["code"] == "next_exists"
        hosts = await http.post("/api/rooms", json=body, headers=auth(host))
        assert hosts.status_code == 201
        await clients[1].wait(lambda c: c.state["room"]["next"] == hosts.json()["code"], what="the host's table")
        again = await http.post("/api/rooms", json=body, headers=auth(host))
        assert again.status_code == 409 and again.json()["error"]["code"] == "next_exists"
        # The friend who opened it, and the match's two bots again.
        assert (await http.get(f"/api/rooms/{first.json()['code']}")).json()["taken"] == 3
    # Everyone who follows sits where they sat; the stranger only watches.
    follow = [
        await Client(server.ws_base, hosts.json()["code"], p["token"], f"{p['name']} follows").connect()
        for p in (friend, host, stranger)
    ]
    assert [f.state["you"] for f in follow] == [1, 0, None]
    await follow[0].wait(lambda c: [s["name"] for s in c.state["seats"]][:2] == ["Host", "Friend"], what="both seated")
    await close_all(*follow, spectator, *clients)


async def test_chat_is_limited_per_player_across_reconnects_and_per_room_for_spectators(server):
    code, (_, friend), clients = await table(server, private=False)
    said = 0
    for _ in range(4):  # reconnecting starts no new allowance
        tab = await Client(server.ws_base, code, friend["token"], "friend's tab").connect()
        for _ in range(5):
            await tab.send({"type": "chat", "text": f"line {said}"})
            said += 1
        await clients[0].wait(lambda c, n=said: len(c.state["chat"]) == n, what=f"{said} lines")
        await tab.close()
    tab = await Client(server.ws_base, code, friend["token"], "friend again").connect()
    await tab.send({"type": "chat", "text": "one more"})
    assert (await tab.next_error())["code"] == "rate_limited"
    # Spectators share one allowance per room, however many sockets or tokens they bring.
    before = len(clients[0].state["chat"])
    watchers = [
        await Client(server.ws_base, code, (await new_player(server.base, f"W{i}"))["token"], f"w{i}").connect()
        for i in range(3)
    ]
    for i in range(30):
        await watchers[i % 3].send({"type": "chat", "text": f"flood {i}"})
    await clients[0].wait(lambda c: len(c.state["chat"]) - before == 20, what="the spectators' 20 lines")
    for w in watchers:  # which sockets' lines came last is up to the scheduler; the sum is not
        await w.wait(lambda c: c.errors or c.state["chat"][-1]["text"].startswith("flood"), what="the answers")
    refusals = []
    for _ in range(200):
        refusals = [e["code"] for w in watchers for e in w.errors]
        if len(refusals) == 10:
            break
        await asyncio.sleep(0.02)
    assert refusals == ["rate_limited"] * 10
    await clients[0].send({"type": "chat", "text": "the host still speaks"})
    await clients[1].wait(lambda c: c.state["chat"][-1]["text"] == "the host still speaks", what="the host's line")
    assert len(clients[1].state["chat"]) - before == 21
    await close_all(tab, *watchers, *clients)
