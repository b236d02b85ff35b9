"""Seats through a real server on loopback: Play again keeps the bots, a player who left takes
their seat back from the bot, and a late friend takes over a bot's seat during play."""

from __future__ import annotations

import asyncio
import random

import httpx
from ws_client import Client, new_player, new_room, play_to_end

OPTIONS = {"max_cards": 3, "rebound": False}


def auth(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


async def bot_table(server, levels=("easy", "strong", "easy"), **room) -> tuple[str, dict, Client]:
    """A host at a four-seat Oh Hell table with bots of ``levels`` in seats 1 to 3, started."""
    host = await new_player(server.base, "Host")
    code = await new_room(server.base, host["token"], "oh_hell", OPTIONS, 4, **room)
    client = await Client(server.ws_base, code, host["token"], "host").connect()
    for seat, level in enumerate(levels, start=1):
        await client.send({"type": "bot", "seat": seat, "level": level})
    await client.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="the bots")
    await client.send({"type": "start"})
    await client.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    return code, host, client


async def listed(server, player: dict, code: str, left: bool | None) -> None:
    """Wait until GET /api/tables lists ``code`` to ``player`` with ``left`` (None: not listed)."""
    async with httpx.AsyncClient(base_url=server.base) as http:
        for _ in range(100):
            r = await http.get("/api/tables", headers=auth(player))
            assert r.status_code == 200, r.text
            rows = [t["left"] for t in r.json()["tables"] if t["code"] == code]
            if rows == ([] if left is None else [left]):
                return
            await asyncio.sleep(0.1)
    raise AssertionError(f"{code} listed as {rows}, not {left}")


async def test_play_again_at_a_table_with_bots_seats_the_same_bots_at_their_levels(live_server):
    code, host, client = await bot_table(live_server)
    await play_to_end([client], random.Random(1))
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        r = await http.post(
            "/api/rooms", json={"game": "oh_hell", "options": OPTIONS, "seats": 4, "from": code}, headers=auth(host)
        )
        assert r.status_code == 201, r.text
    again = await Client(live_server.ws_base, r.json()["code"], host["token"], "again").connect()
    seats = again.state["seats"]
    assert again.state["you"] == 0
    assert [(s["bot"], s["level"]) for s in seats] == [(False, None), (True, "easy"), (True, "strong"), (True, "easy")]
    await again.send({"type": "start"})  # every seat is filled: the host can start at once
    await again.wait(lambda c: c.state["room"]["status"] == "playing", what="the second match")
    await client.close()
    await again.close()


async def test_a_player_who_left_takes_their_seat_back_from_the_bot_and_plays_on(live_server):
    host = await new_player(live_server.base, "Host")
    friend = await new_player(live_server.base, "Friend")
    stranger = await new_player(live_server.base, "Stranger")
    code = await new_room(live_server.base, host["token"], "oh_hell", OPTIONS, 4)
    hosting = await Client(live_server.ws_base, code, host["token"], "host").connect()
    friendly = await Client(live_server.ws_base, code, friend["token"], "friend").connect()
    await friendly.send({"type": "sit", "seat": 1})
    await friendly.wait(lambda c: c.state["you"] == 1, what="the friend's seat")
    for seat in (2, 3):
        await hosting.send({"type": "bot", "seat": seat})
    await hosting.wait(lambda c: all(s["bot"] for s in c.state["seats"][2:]), what="the bots")
    await hosting.send({"type": "start"})
    await friendly.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        left = await http.post(f"/api/tables/{code}/leave", headers=auth(friend))
        assert left.status_code == 204, left.text
    await friendly.wait(lambda c: c.state["you"] is None, what="the bot in the friend's seat")
    assert friendly.state["seats"][1]["bot"] and friendly.state["seats"][1]["left_by"] == friend["id"]
    await listed(live_server, friend, code, left=True)  # "Your tables" keeps it, to take the seat back

    watcher = await Client(live_server.ws_base, code, stranger["token"], "stranger").connect()
    await watcher.send({"type": "reclaim"})
    assert (await watcher.next_error())["code"] == "no_seat", "only the player who left may take the seat back"
    await friendly.send({"type": "reclaim"})
    await friendly.wait(lambda c: c.state["you"] == 1, what="the seat taken back")
    seat = friendly.state["seats"][1]
    assert (seat["bot"], seat["player_id"], seat["name"], seat["left_by"]) == (False, friend["id"], "Friend", None)
    await listed(live_server, friend, code, left=False)
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        assert (await http.post(f"/api/tables/{code}/leave", headers=auth(friend))).status_code == 204
    await listed(live_server, friend, code, left=True)
    await friendly.send({"type": "reclaim"})
    await friendly.wait(lambda c: c.state["you"] == 1, what="the seat taken back again")
    await play_to_end([hosting, friendly], random.Random(2))
    await listed(live_server, friend, code, left=None)  # the match is over: nothing to take back
    await friendly.send({"type": "reclaim"})
    assert (await friendly.next_error())["code"] == "not_playing"
    for c in (hosting, friendly, watcher):
        await c.close()


async def create(server, player: dict, **body) -> str:
    async with httpx.AsyncClient(base_url=server.base) as http:
        r = await http.post(
            "/api/rooms", json={"game": "oh_hell", "options": OPTIONS, "seats": 4, **body}, headers=auth(player)
        )
        assert r.status_code == 201, r.text
        return r.json()["code"]


async def host_and_bots(server, **body) -> tuple[str, Client, dict]:
    host = await new_player(server.base, "Host")
    code = await create(server, host, **body)
    hosting = await Client(server.ws_base, code, host["token"], "host").connect()
    for seat in (1, 2, 3):
        await hosting.send({"type": "bot", "seat": seat})
    await hosting.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="the bots")
    await hosting.send({"type": "start"})
    await hosting.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    return code, hosting, host


async def test_at_a_table_with_open_bot_seats_a_late_friend_takes_a_bots_seat_and_plays(live_server):
    code, hosting, _ = await host_and_bots(live_server, open_bot_seats=True)
    assert hosting.state["room"]["open_bot_seats"] is True
    late = await new_player(live_server.base, "Late")
    friend = await Client(live_server.ws_base, code, late["token"], "late").connect()
    nameless = await Client(live_server.ws_base, code, None, "nameless").connect()
    await nameless.send({"type": "take_seat", "seat": 2})
    assert (await nameless.next_error())["code"] == "unauthorized"
    await friend.send({"type": "take_seat", "seat": 0})
    assert (await friend.next_error())["code"] == "seat_taken", "a person's seat is not a bot's"
    friend.errors.clear()
    await friend.send({"type": "take_seat", "seat": 2})
    await friend.wait(lambda c: c.state["you"] == 2, what="the bot's seat")
    assert friend.state["seats"][2]["name"] == "Late" and not friend.state["seats"][2]["bot"]
    await play_to_end([hosting, friend], random.Random(3))
    for c in (hosting, friend, nameless):
        await c.close()


async def test_without_open_bot_seats_the_host_answers_each_request_for_a_bots_seat(live_server):
    code, hosting, _ = await host_and_bots(live_server)
    assert hosting.state["room"]["open_bot_seats"] is False
    late, other = await new_player(live_server.base, "Late"), await new_player(live_server.base, "Other")
    friend = await Client(live_server.ws_base, code, late["token"], "late").connect()
    stranger = await Client(live_server.ws_base, code, other["token"], "other").connect()
    await friend.send({"type": "take_seat", "seat": 3})
    await hosting.wait(lambda c: c.state["room"]["seat_requests"], what="the request")
    assert hosting.state["room"]["seat_requests"] == [{"player_id": late["id"], "seat": 3, "name": "Late"}]
    assert friend.state["you"] is None, "asked, not yet seated"
    await stranger.send({"type": "take_seat", "seat": 1})
    await hosting.wait(lambda c: len(c.state["room"]["seat_requests"]) == 2, what="the second request")
    await friend.send({"type": "allow_seat", "player_id": late["id"]})
    assert (await friend.next_error())["code"] == "not_host"
    friend.errors.clear()
    await hosting.send({"type": "allow_seat", "player_id": other["id"], "allow": False})
    await hosting.send({"type": "allow_seat", "player_id": late["id"]})
    await friend.wait(lambda c: c.state["you"] == 3, what="the seat the host allowed")
    assert hosting.state["room"]["seat_requests"] == [] and stranger.state["you"] is None
    await play_to_end([hosting, friend], random.Random(4))
    for c in (hosting, friend, stranger):
        await c.close()


async def test_a_spectator_who_joins_the_next_game_sits_in_a_bots_seat_at_play_again(live_server):
    code, hosting, host = await host_and_bots(live_server)
    late = await new_player(live_server.base, "Late")
    friend = await Client(live_server.ws_base, code, late["token"], "late").connect()
    await friend.send({"type": "join_next"})
    await hosting.wait(lambda c: c.state["room"]["joining"], what="the spectator joining")
    assert hosting.state["room"]["joining"] == [{"player_id": late["id"], "name": "Late"}]
    await play_to_end([hosting], random.Random(5))
    host_id = host["id"]
    next_code = await create(live_server, host, **{"from": code})
    await friend.wait(lambda c: c.state["room"]["next"] == next_code, what="the next table, shown to who joins it")
    again = await Client(live_server.ws_base, next_code, late["token"], "again").connect()
    assert again.state["you"] == 1
    seats = again.state["seats"]
    assert [(s["player_id"], s["bot"]) for s in seats] == [
        (host_id, False),
        (late["id"], False),
        (None, True),
        (None, True),
    ]
    for c in (hosting, friend, again):
        await c.close()


async def test_seats_handed_over_during_play_are_the_same_when_the_table_is_rebuilt_from_its_log():
    from server.config import Settings
    from server.rooms import Connection, RoomManager
    from server.rooms.table import fold
    from server.storage.writer import MemoryWriter

    async def closer(code: int, reason: str) -> None:
        pass

    manager = RoomManager(Settings(bot_delay_ms=60_000), MemoryWriter)
    room = manager.create("oh_hell", OPTIONS, 4, False, "p0", "Ann")
    ann, ben, cy, di = (Connection(f"p{i}", name, closer) for i, name in enumerate(("Ann", "Ben", "Cy", "Di")))
    await room.join(ann)
    await room.join(ben)
    await room.sit(ben, 1)
    for seat in (2, 3):
        await room.set_bot(ann, seat, False)
    await room.start(ann)
    await room.leave_table("p1")
    for conn in (cy, di):
        await room.join(conn)
    await room.takeover.take_seat(cy, 2)  # asked: the host has not said yes
    await room.takeover.take_seat(di, 3)
    await room.takeover.allow_seat(ann, "p3", True)
    await room.takeover.join_next(ben)
    rebuilt = fold(manager.writer.entries(room.code))
    seats = [(s.player_id, s.name, s.bot, s.left_by) for s in rebuilt.seats]
    assert seats == [
        ("p0", "Ann", False, None),
        (None, "Ben", True, "p1"),
        (None, "Bot 3", True, None),
        ("p3", "Di", False, None),
    ]
    assert seats == [(s.player_id, s.name, s.bot, s.left_by) for s in room.seats]
    assert rebuilt.seat_requests == room.table.seat_requests == {"p2": {"player_id": "p2", "seat": 2, "name": "Cy"}}
    assert rebuilt.joining == room.table.joining == {"p1": "Ben"}
    await room.takeover.reclaim(ben)
    assert fold(manager.writer.entries(room.code)).seat_of("p1") == 1
    await room.close()
