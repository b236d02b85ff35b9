"""The room's two-part diff: what is shared once per action, what is each connection's own.

``fan_out`` (server/rooms/fanout.py) trusts ``Game.seat_keys``: every other key of a seat's view must equal
the public view's. These tests check that promise over random games of every engine, and
that every frame, applied to the connection's last view, gives exactly its new view:
seated players, a spectator, two tabs of one player, and a shared part that must be found
again when a connection's old view does not hold the same shared parts.
"""

from __future__ import annotations

import asyncio
import random

import jsonpatch
import orjson
import pytest

from server.config import Settings
from server.games import game_names, get_game
from server.rooms import Connection, RoomManager
from server.rooms.fanout import Kept, PatchFrames
from server.storage.writer import MemoryWriter


async def _closer(code: int, reason: str) -> None:
    pass


@pytest.mark.parametrize("name", game_names())
def test_every_key_but_the_seat_keys_is_the_public_views(name):
    game = get_game(name)
    assert game.seat_keys, f"{name} must say which view keys differ between seats"
    rng = random.Random(5)
    checked = 0
    for match in range(25):
        players = rng.choice(range(game.min_players, min(game.max_players, 7) + 1))
        state = game.new_game(players=players, options={}, seed=match, dealer=match % players)
        for _ in range(400):
            acting = game.to_act(state)
            public = game.view(state, None)
            shared = {k: v for k, v in public.items() if k not in game.seat_keys}
            for seat in range(players):
                view = game.view(state, seat)
                assert {k: v for k, v in view.items() if k not in game.seat_keys} == shared
                checked += 1
            if not acting:
                break
            seat = acting[0]
            state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
    assert checked > 10_000


async def _play_and_check(name: str, actions: int, seed: int) -> int:
    manager = RoomManager(Settings(bot_delay_ms=0, max_open_rooms_per_player=1000), MemoryWriter)
    room = manager.create(name, {}, 4, False, "p0", "Ann")
    players = [Connection(f"p{i}", f"P{i}", _closer, limit=100_000) for i in range(4)]
    second_tab = Connection("p2", "P2", _closer, limit=100_000)
    spectator = Connection(None, None, _closer, limit=100_000)
    conns = players + [second_tab, spectator]
    for c in players:
        await room.join(c)
    for i in (1, 2, 3):
        await room.sit(players[i], i)
    await room.join(second_tab)
    await room.join(spectator)
    await room.start(players[0])
    shown = {id(c): None for c in conns}
    for c in conns:  # each connection's own copy of what it was sent, patched frame by frame
        for raw in _drain(c):
            shown[id(c)] = _apply(shown[id(c)], raw)
    rng = random.Random(seed)
    frames = done = 0
    for _ in range(actions):
        if room.status != "playing":
            break
        done += 1
        seat = room.game.to_act(room.state)[0]
        action = rng.choice(room.game.legal_actions(room.state, seat))
        await room.act(players[seat], action, room.version)
        for c in conns:
            for raw in _drain(c):
                shown[id(c)] = _apply(shown[id(c)], raw)
                frames += 1
            assert shown[id(c)] == orjson.loads(orjson.dumps(room.sent_view(c)))
            assert set(c.view.game) <= set(room.game.seat_keys)  # a connection keeps only its own keys
            if c.player_id is None:
                assert shown[id(c)]["game"] == orjson.loads(orjson.dumps(room.game.view(room.state, None)))
            else:
                own = room.seat_of(c.player_id)
                assert shown[id(c)]["game"] == orjson.loads(orjson.dumps(room.game.view(room.state, own)))
    await room.close()
    return done, frames


def _drain(conn: Connection) -> list[dict]:
    out = []
    while not conn.queue.empty():
        out.append(orjson.loads(conn.queue.get_nowait()))
    return out


def _apply(view, frame: dict):
    if frame["type"] == "snapshot":
        return frame["state"]
    assert frame["type"] == "patch"
    return jsonpatch.apply_patch(view, frame["ops"])


@pytest.mark.parametrize("name", game_names())
def test_every_frame_turns_the_last_view_into_the_new_one(name):
    actions, frames = asyncio.run(_play_and_check(name, 300, seed=3))
    assert actions >= 100
    assert frames >= actions * 6  # one patch per connection per action (and the match's end)


def _view(game, room=None, you=0):
    parts = {"room": room or {"status": "playing"}, "seats": [], "chat": [], "result": None}
    return {**parts, "you": you, "me": None, "is_host": False, "preselect": None, "prefs": None, "game": game}


def test_the_shared_part_is_found_again_for_a_connection_with_other_old_parts():
    old_public = {"phase": "bidding", "trick": [], "hand": None}
    new_public = {"phase": "playing", "trick": [{"seat": 0, "card": "AS"}], "hand": None}
    room = {"status": "playing"}
    keys = ("hand",)
    frames = PatchFrames(7, new_public, keys)
    a_old = _view({**old_public, "hand": ["AS", "KS"]}, room=room)
    a_new = _view({**new_public, "hand": ["KS"]}, room=room)
    b_old = _view({**old_public, "hand": ["2C"]}, room={"status": "waiting"})  # other old parts
    b_new = _view({**new_public, "hand": ["2C"]}, room=room)
    a_kept, b_kept = Kept(a_old, old_public, keys), Kept(b_old, old_public, keys)
    assert a_kept.game == {"hand": ["AS", "KS"]} and a_kept.whole(keys) == a_old
    for old, kept, new in ((a_old, a_kept, a_new), (b_old, b_kept, b_new), (a_old, a_kept, a_new)):
        frame = orjson.loads(frames.frame(kept, new))
        assert frame["v"] == 7 and frame["type"] == "patch"
        assert jsonpatch.apply_patch(old, frame["ops"]) == new
    # b's frame carries the room part it lacked; a's does not.
    assert any(op["path"] == "/room/status" for op in orjson.loads(frames.frame(b_kept, b_new))["ops"])
    assert not any(op["path"].startswith("/room") for op in orjson.loads(frames.frame(a_kept, a_new))["ops"])


def test_without_seat_keys_or_before_the_game_the_whole_game_view_is_each_connections_own():
    old = _view({"hand": ["AS"], "secret": 1})
    new = _view({"hand": [], "secret": 2})
    kept = Kept(old, old["game"], None)
    assert kept.game is old["game"]
    frame = orjson.loads(PatchFrames(3, new["game"], None).frame(kept, new))
    assert jsonpatch.apply_patch(old, frame["ops"]) == new
    waiting = _view(None)
    started = _view({"hand": ["AS"], "phase": "bidding"})
    frame = orjson.loads(
        PatchFrames(4, {"hand": None, "phase": "bidding"}, ("hand",)).frame(Kept(waiting, None, ("hand",)), started)
    )
    assert frame["ops"] == [{"op": "replace", "path": "/game", "value": started["game"]}]
