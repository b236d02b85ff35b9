"""Taking an action back (``undo``, ``undo_answer``, the room option ``undo``) through a real
server over WebSockets, on SQLite and on PostgreSQL: the three modes, every refusal, the match
log and its replay showing the taken-back action, and a restart that keeps it taken back."""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest
from live_server import LiveServer, served_on
from ws_client import Client, new_player, play_to_end

OPTIONS = {"max_cards": 2, "rebound": False}  # a short Oh Hell: two hands
NAMES = ("Ann", "Bob", "Cid", "Dee")


async def open_table(
    server: LiveServer, undo: str | None, humans: int = 4, bots: int = 0, options: dict = OPTIONS
) -> tuple[str, list[Client]]:
    """A started Oh Hell table of ``humans`` people (their clients, by seat) and ``bots``."""
    players = [await new_player(server.base, name) for name in NAMES[:humans]]
    body = {"game": "oh_hell", "options": options, "seats": humans + bots, **({"undo": undo} if undo else {})}
    async with httpx.AsyncClient(base_url=server.base) as http:
        made = await http.post("/api/rooms", json=body, headers={"Authorization": f"Bearer {players[0]['token']}"})
        assert made.status_code == 201, made.text
    code = made.json()["code"]
    clients = [await Client(server.ws_base, code, p["token"], p["name"]).connect() for p in players]
    for seat, client in enumerate(clients[1:], 1):
        await client.send({"type": "sit", "seat": seat})
        await client.wait(lambda c, seat=seat: c.state["you"] == seat, what="seated")
    for seat in range(humans, humans + bots):
        await clients[0].send({"type": "bot", "seat": seat})
    await clients[0].send({"type": "start"})
    for client in clients:
        await client.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    return code, clients


async def settled(clients: list[Client]) -> None:
    """Every client has seen the newest version any of them has."""
    v = max(c.v for c in clients)
    for client in clients:
        await client.wait(lambda c: c.v >= v, what=f"version {v}")


def to_act(clients: list[Client]) -> Client:
    return clients[clients[0].game["to_act"][0]]


async def act(client: Client, action: dict | None = None) -> dict:
    """``client`` plays ``action`` (its first legal one by default); the action.

    The seat to act is read from one client's view, which may already hold a version the
    actor has not read yet (a card chosen ahead, played by the room right after the last
    action). Its first legal action is then refused as ``stale``: it is sent again once the
    actor has read that version."""
    for _ in range(3):
        chosen = action or client.game["legal"][0]
        v, errors = client.v, len(client.errors)
        await client.send({"type": "act", "action": chosen, "v": v})
        await client.wait(lambda c, v=v, errors=errors: c.v > v or len(c.errors) > errors, what="the action applied")
        if len(client.errors) == errors:
            return chosen
        assert action is None and client.errors[-1]["code"] == "stale", client.errors[-1]
        await client.wait(lambda c, v=v: c.v > v, what="the version the action was refused for")
    raise AssertionError(f"three stale refusals in a row: {client.errors[-3:]}")


async def refused(client: Client, frame: dict, code: str = "undo_refused") -> None:
    v = client.v
    await client.send(frame)
    error = await client.next_error()
    assert error["code"] == code, error
    await asyncio.sleep(0.05)
    assert client.v == v  # nothing changed


async def test_free_takes_the_action_back_at_once_and_only_once(server):
    _, clients = await open_table(server, "free")
    assert clients[0].state["room"]["undo"] == "free"
    bidder = to_act(clients)
    seat, v = bidder.state["you"], bidder.v
    await act(bidder)
    assert bidder.game["bids"][seat] is not None
    assert bidder.state["room"]["undoable"] == seat  # what a client offers the button by
    await bidder.send({"type": "undo"})
    await bidder.wait(lambda c: c.v > v + 1, what="the take-back")
    await settled(clients)
    for client in clients:
        assert client.game["bids"][seat] is None and client.game["to_act"] == [seat]
        assert client.state["room"]["undo_asked"] is None and client.state["room"]["undoable"] is None
    await refused(bidder, {"type": "undo"})  # the take-back is the last change: nothing more to take


async def test_off_refuses_every_take_back(server):
    _, clients = await open_table(server, "off")
    bidder = to_act(clients)
    await act(bidder)
    await refused(bidder, {"type": "undo"})


async def test_ask_waits_for_the_next_seat_who_may_decline_accept_or_act_instead(server):
    _, clients = await open_table(server, None)  # "ask" is the default
    assert clients[0].state["room"]["undo"] == "ask"
    bidder = to_act(clients)
    seat = bidder.state["you"]
    await act(bidder)
    await settled(clients)
    asked = to_act(clients)
    other = next(c for c in clients if c not in (bidder, asked))
    await refused(other, {"type": "undo"})  # not the last action's seat
    await refused(asked, {"type": "undo"})  # nor is the seat to act
    await refused(other, {"type": "undo_answer", "accept": True}, "not_asked")

    request = {"seat": asked.state["you"], "by": seat}
    await bidder.send({"type": "undo"})
    for client in clients:
        await client.wait(lambda c: c.state["room"]["undo_asked"] == request, what="the request shown")
    await refused(bidder, {"type": "undo"})  # one request at a time
    await asked.send({"type": "undo_answer", "accept": False})
    await bidder.wait(lambda c: c.state["room"]["undo_asked"] is None, what="the decline")
    assert bidder.game["bids"][seat] is not None  # declined: the bid stands

    await bidder.send({"type": "undo"})  # nobody acted since: it may be asked again
    await asked.wait(lambda c: c.state["room"]["undo_asked"] == request, what="asked again")
    await asked.send({"type": "undo_answer", "accept": True})
    await bidder.wait(lambda c: c.game["bids"][seat] is None and c.game["to_act"] == [seat], what="taken back")
    assert bidder.state["room"]["undo_asked"] is None

    await act(bidder)
    await settled(clients)
    await bidder.send({"type": "undo"})
    await asked.wait(lambda c: c.state["room"]["undo_asked"] == request, what="asked a third time")
    await act(asked)  # any other action ends the request
    await bidder.wait(lambda c: c.state["room"]["undo_asked"] is None, what="the request ended")
    assert bidder.game["bids"][seat] is not None
    await refused(bidder, {"type": "undo"})  # someone acted since

    while clients[0].game["phase"] == "bidding":  # the bid that ends the bidding shows the play
        await settled(clients)
        last_bidder = to_act(clients)
        await act(last_bidder)
    await settled(clients)
    assert clients[0].game["phase"] == "playing"
    await refused(last_bidder, {"type": "undo"})


@pytest.fixture(params=["sqlite", "postgres"])
def patient(request, tmp_path_factory):
    """A server whose players' seats wait for them a minute: none is played by a bot while
    the test reconnects them after a restart."""
    with served_on(request.param, tmp_path_factory, "undo_restart", FELT_RECONNECT_GRACE_S="60") as live:
        yield live


async def test_the_log_and_replay_keep_the_taken_back_action_and_a_restart_respects_it(patient):
    server = patient
    code, clients = await open_table(server, "free")
    bidder = to_act(clients)
    seat = bidder.state["you"]
    taken = await act(bidder)
    await bidder.send({"type": "undo"})
    await bidder.wait(lambda c: c.game["bids"][seat] is None, what="taken back")
    await settled(clients)
    v = bidder.v
    for client in clients:
        await client.close()
    server.terminate()  # a clean stop: the log is flushed; the next start restores the table
    server.start()
    tokens = [c.url.rsplit("token=", 1)[1] for c in clients]
    clients = [
        await Client(server.ws_base, code, token, name).connect() for token, name in zip(tokens, NAMES, strict=True)
    ]
    for client in clients:
        assert client.v == v
        assert client.game["bids"][seat] is None and client.game["to_act"] == [seat]
    await play_to_end(clients, random.Random(3))
    match_id = clients[0].state["result"]["match_id"]
    auth = {"Authorization": f"Bearer {tokens[0]}"}
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
        record = (await http.get(f"/api/matches/{match_id}", headers=auth)).json()
        assert record["actions"][:2] == [
            {"seat": seat, "action": taken},
            {"seat": seat, "action": {"type": "take_back"}},
        ]
        for _ in range(100):
            answer = await http.get(f"/api/matches/{match_id}/replay", headers=auth)
            if answer.status_code == 200:
                break
            await asyncio.sleep(0.2)
        assert answer.status_code == 200, answer.text
    replay = answer.json()
    assert replay["count"] == len(record["actions"]) == len(replay["steps"])
    step = replay["steps"][1]
    assert step["action"] == {"type": "take_back"} and step["seat"] == seat
    # The step back undoes the bid: its patch puts the seat's bid back to nothing.
    assert any(op["path"].endswith(f"/bids/{seat}") and op.get("value") is None for op in step["ops"])


async def test_a_bot_agrees_at_once(tmp_path):
    server = LiveServer(tmp_path, FELT_BOT_DELAY_MS="1500")
    try:
        _, (ann,) = await open_table(server, "ask", humans=1, bots=3, options={"max_cards": 3, "rebound": False})
        await ann.wait(lambda c: c.my_turn(), timeout=30, what="Ann's bid")
        await act(ann)
        await ann.wait(lambda c: c.game["phase"] == "playing" and c.my_turn(), timeout=30, what="Ann's card")
        card = ann.game["legal"][0]
        before = list(ann.game["hand"])
        await act(ann, card)
        await ann.send({"type": "undo"})
        await ann.wait(lambda c: c.game["hand"] == before and c.my_turn(), what="taken back at once")
        assert all(room["undo_asked"] is None for room in ann.rooms)
        await ann.close()
    finally:
        server.stop()


async def room_undo(server: LiveServer, code: str, token: str) -> str:
    client = await Client(server.ws_base, code, token, "looker").connect()
    try:
        return client.state["room"]["undo"]
    finally:
        await client.close()


async def test_the_option_is_checked_remembered_by_the_group_and_kept_by_play_again(server):
    ana = await new_player(server.base, "Ana")
    auth = {"Authorization": f"Bearer {ana['token']}"}
    async with httpx.AsyncClient(base_url=server.base) as http:
        bad = await http.post("/api/rooms", json={"game": "oh_hell", "undo": "sometimes"}, headers=auth)
        assert bad.status_code == 422
        group = (await http.post("/api/groups", json={"name": "Tuesdays"}, headers=auth)).json()["code"]
        body = {"game": "oh_hell", "seats": 3, "options": {"max_cards": 1, "rebound": False}, "group": group}
        first = (await http.post("/api/rooms", json={**body, "undo": "free"}, headers=auth)).json()["code"]
        assert await room_undo(server, first, ana["token"]) == "free"
        second = (await http.post("/api/rooms", json=body, headers=auth)).json()["code"]
        assert await room_undo(server, second, ana["token"]) == "free"  # the group's last choice
        alone = {"game": "oh_hell", "seats": 3, "options": {"max_cards": 1, "rebound": False}, "undo": "off"}
        played = (await http.post("/api/rooms", json=alone, headers=auth)).json()["code"]
    host = await Client(server.ws_base, played, ana["token"], "Ana").connect()
    for seat in (1, 2):
        await host.send({"type": "bot", "seat": seat})
    await host.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="two bots")
    await host.send({"type": "start"})
    await play_to_end([host], random.Random(1))
    async with httpx.AsyncClient(base_url=server.base) as http:
        again = await http.post("/api/rooms", json={"game": "oh_hell", "seats": 3, "from": played}, headers=auth)
        assert again.status_code == 201, again.text
    assert await room_undo(server, again.json()["code"], ana["token"]) == "off"
    await host.close()
