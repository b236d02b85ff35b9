"""Watchers the table chooses (room options ``watchers`` and ``watch_delay``), through a real
server on SQLite and on PostgreSQL: who gets in without a seat, and that a watcher kept one
trick (or hand) behind is never sent a card of the unfinished trick (or hand)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx
import orjson
import pytest
import websockets
from ws_client import Client, choose, new_player, play_to_end

SHORT = {"max_cards": 3, "rebound": False}  # a short Oh Hell: three hands


def auth(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


async def open_table(server, player: dict, game: str = "oh_hell", **body: Any) -> httpx.Response:
    payload = {"game": game, "options": SHORT if game == "oh_hell" else {}, **body}
    async with httpx.AsyncClient(base_url=server.base) as http:
        return await http.post("/api/rooms", json=payload, headers=auth(player))


async def table_code(server, player: dict, **body: Any) -> str:
    answer = await open_table(server, player, **body)
    assert answer.status_code == 201, answer.text
    return answer.json()["code"]


async def seated_with_bots(server, player: dict, code: str, bots=(1, 2, 3)) -> Client:
    host = await Client(server.ws_base, code, player["token"], "host").connect()
    for seat in bots:
        await host.send({"type": "bot", "seat": seat})
    await host.wait(lambda c: all(c.state["seats"][s]["bot"] for s in bots), what="the bots")
    return host


async def refused(server, code: str, token: str | None, label: str) -> dict:
    """A socket the table does not let in: its one frame is ``no_watchers``, then close 1008."""
    url = f"{server.ws_base}/ws/rooms/{code}" + (f"?token={token}" if token else "")
    async with websockets.connect(url) as ws:
        frame = orjson.loads(await ws.recv())
        await ws.wait_closed()
        assert ws.close_code == 1008, ws.close_code
    assert frame["type"] == "error" and frame["code"] == "no_watchers", (label, frame)
    return frame


async def test_bad_values_are_refused_naming_the_option_and_good_ones_come_back(server):
    ana = await new_player(server.base, "Ana")
    for field, value in (("watchers", "friends"), ("watch_delay", "minute"), ("watchers", 3)):
        answer = await open_table(server, ana, **{field: value})
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["code"] == "bad_options" and field in answer.json()["error"]["message"]
    code = await table_code(server, ana, watchers="members", watch_delay="hand")
    host = await Client(server.ws_base, code, ana["token"], "ana").connect()
    assert (host.state["room"]["watchers"], host.state["room"]["watch_delay"]) == ("members", "hand")
    async with httpx.AsyncClient(base_url=server.base) as http:
        summary = (await http.get(f"/api/rooms/{code}")).json()
    assert (summary["watchers"], summary["watch_delay"]) == ("members", "hand")
    plain = await Client(server.ws_base, await table_code(server, ana), ana["token"], "plain").connect()
    assert (plain.state["room"]["watchers"], plain.state["room"]["watch_delay"]) == ("everyone", "none")
    await host.close()
    await plain.close()


async def test_everyone_lets_anyone_with_the_link_watch(server):
    ana, eve = await new_player(server.base, "Ana"), await new_player(server.base, "Eve")
    code = await table_code(server, ana, watchers="everyone")
    host = await seated_with_bots(server, ana, code)
    stranger = await Client(server.ws_base, code, eve["token"], "eve").connect()
    nameless = await Client(server.ws_base, code, None, "nameless").connect()
    assert stranger.state["you"] is None and nameless.state["you"] is None
    for c in (host, stranger, nameless):
        await c.close()


async def test_nobody_refuses_every_socket_without_a_seat_but_a_players_other_tabs(server):
    ana, eve = await new_player(server.base, "Ana"), await new_player(server.base, "Eve")
    code = await table_code(server, ana, watchers="nobody")
    host = await seated_with_bots(server, ana, code, bots=(1, 2))
    # A free seat: Eve may sit, so she gets in; once the table is full and starts she is sent away.
    early = await Client(server.ws_base, code, eve["token"], "eve early").connect()
    await host.send({"type": "bot", "seat": 3})
    await host.wait(lambda c: c.state["seats"][3]["bot"], what="the last bot")
    await refused(server, code, eve["token"], "eve")
    await refused(server, code, None, "nameless")
    second_tab = await Client(server.ws_base, code, ana["token"], "ana's second tab").connect()
    assert second_tab.state["you"] == 0
    await host.send({"type": "start"})
    await early.wait(lambda c: c.closed is not None, what="being sent away at the start")
    assert early.closed[0] == 1008 and early.errors[-1]["code"] == "no_watchers"
    await second_tab.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    assert second_tab.closed is None and second_tab.game["hand"] is not None
    await refused(server, code, eve["token"], "eve during play")
    for c in (host, second_tab):
        await c.close()


async def test_members_at_a_table_of_no_group_is_its_players_own_tabs(server):
    ana, rui, eve = [await new_player(server.base, n) for n in ("Ana", "Rui", "Eve")]
    code = await table_code(server, ana, watchers="members", seats=4)
    host = await seated_with_bots(server, ana, code, bots=(2, 3))
    friend = await Client(server.ws_base, code, rui["token"], "rui").connect()
    await friend.send({"type": "sit", "seat": 1})
    await host.wait(lambda c: c.state["seats"][1]["player_id"] == rui["id"], what="Rui seated")
    await refused(server, code, eve["token"], "eve")
    rui_tab = await Client(server.ws_base, code, rui["token"], "rui's second tab").connect()
    assert rui_tab.state["you"] == 1
    for c in (host, friend, rui_tab):
        await c.close()


async def new_group(http: httpx.AsyncClient, owner: dict, *members: dict) -> str:
    made = await http.post("/api/groups", json={"name": "Friday cards"}, headers=auth(owner))
    assert made.status_code == 201, made.text
    group = made.json()
    invite = group["invite_url"].split("#invite=", 1)[1]
    for member in members:
        joined = await http.post(f"/api/groups/{group['code']}/join", json={"invite": invite}, headers=auth(member))
        assert joined.status_code == 200, joined.text
    return group["code"]


async def test_members_at_a_groups_table_is_its_members_and_the_group_remembers_the_choice(server):
    ana, rui, eve = [await new_player(server.base, n) for n in ("Ana", "Rui", "Eve")]
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = await new_group(http, ana, rui)
    code = await table_code(server, ana, group=group, watchers="members", watch_delay="trick")
    host = await seated_with_bots(server, ana, code)
    member = await Client(server.ws_base, code, rui["token"], "rui").connect()
    assert member.state["you"] is None and member.state["room"]["watch_delay"] == "trick"
    await refused(server, code, eve["token"], "eve")
    await refused(server, code, None, "nameless")
    # The group's next table of the game starts with the same choices; a new choice replaces them.
    again = await table_code(server, ana, group=group)
    async with httpx.AsyncClient(base_url=server.base) as http:
        summary = (await http.get(f"/api/rooms/{again}")).json()
        assert (summary["watchers"], summary["watch_delay"]) == ("members", "trick")
        changed = await table_code(server, rui, group=group, watchers="nobody", watch_delay="hand")
        assert (await http.get(f"/api/rooms/{changed}")).json()["watchers"] == "nobody"
        later = (await http.get(f"/api/rooms/{await table_code(server, ana, group=group)}")).json()
        assert (later["watchers"], later["watch_delay"]) == ("nobody", "hand")
        shown = (await http.get(f"/api/groups/{group}", headers=auth(rui))).json()["table_rules"]
        assert shown["oh_hell"] == {"watchers": "nobody", "watch_delay": "hand"}
        other_game = (await http.get(f"/api/rooms/{await table_code(server, ana, group=group, game='ribs')}")).json()
        assert (other_game["watchers"], other_game["watch_delay"]) == ("everyone", "none")
    for c in (host, member):
        await c.close()


async def test_play_again_keeps_the_watcher_options(server):
    ana = await new_player(server.base, "Ana")
    code = await table_code(server, ana, watchers="nobody", watch_delay="hand")
    host = await seated_with_bots(server, ana, code)
    await host.send({"type": "start"})
    await play_to_end([host], random.Random(7))
    again = await table_code(server, ana, **{"from": code})
    follower = await Client(server.ws_base, again, ana["token"], "again").connect()
    assert (follower.state["room"]["watchers"], follower.state["room"]["watch_delay"]) == ("nobody", "hand")
    await refused(server, again, None, "nameless at the next table")
    for c in (host, follower):
        await c.close()


def plays(log: list[dict]) -> list[str]:
    """The cards played in a move log (a list of cards counts each; hidden cards are None)."""
    out: list[str] = []
    for entry in log:
        action = entry["action"]
        if "card" in action:
            out.append(action["card"])
        elif "cards" in action and action["type"] in ("ribs", "pair"):
            out.extend(action["cards"] or [None, None])
    return out


def settled(log: list[dict]) -> int:
    """How many of a move log's entries end at its last completed trick."""
    ends = [i + 1 for i, entry in enumerate(log) if "won" in entry]
    return ends[-1] if ends else 0


def cards_in(value: Any) -> list[str]:
    """Every card a frame carries under a ``card`` or ``cards`` key, anywhere."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "card" and isinstance(inner, str):
                found.append(inner)
            elif key == "cards" and isinstance(inner, list):
                found += [c for c in inner if isinstance(c, str)]
            else:
                found += cards_in(inner)
    elif isinstance(value, list):
        for inner in value:
            found += cards_in(inner)
    return found


def check_watcher(delay: str, host: Client, watcher: Client) -> int:
    """Compare the watcher's view at every version with the table as its player saw it then;
    answers how many versions the watcher was shown behind the table."""
    live = dict(host.history)
    behind = 0
    for v, seen in watcher.history:
        truth = live.get(v)
        if truth is None or seen is None:
            continue
        finished = not truth["to_act"]
        if delay == "none" or finished:
            assert seen["log"] == truth["log"] and seen["trick"] == truth["trick"], v
            continue
        assert len(seen["history"]) == len(truth["history"]), v  # a new deal is shown at once
        assert seen["log"] == truth["log"][: len(seen["log"])], v  # the same hand, cut short
        if delay == "trick":
            assert not seen["trick"], (v, seen["trick"])
            assert not plays(seen["log"][settled(truth["log"]) :]), (v, seen["log"])
            assert len(seen["log"]) >= settled(truth["log"]), v  # a completed trick is shown at once
        else:
            assert not plays(seen["log"]) and not seen["trick"] and not seen.get("last_trick"), v
        behind += seen["log"] != truth["log"]
    return behind


def check_frames(delay: str, host: Client, watcher: Client) -> None:
    """No frame the watcher was sent carries a card beyond what the delay allows at its version."""
    live = dict(host.history)
    for raw in watcher.frames:
        frame = orjson.loads(raw)
        truth = live.get(frame.get("v"))
        if frame["type"] != "patch" or truth is None or not truth["to_act"]:
            continue
        allowed: set[str] = set()
        if delay == "trick":  # the completed tricks, and the cards shown from hands before the lead
            allowed = set(plays(truth["log"][: settled(truth["log"])])) | set(cards_in(truth.get("revealed")))
        carried = set(cards_in(frame["ops"]))
        assert carried <= allowed, (delay, frame["v"], carried - allowed)


async def watched_game(server, delay: str, game: str, seed: int) -> tuple[Client, Client]:
    ana, eve = await new_player(server.base, "Ana"), await new_player(server.base, "Eve")
    code = await table_code(server, ana, game=game, watch_delay=delay)
    host = await seated_with_bots(server, ana, code)
    watcher = await Client(server.ws_base, code, eve["token"], "eve").connect()
    second_tab = await Client(server.ws_base, code, ana["token"], "ana's second tab").connect()
    await host.send({"type": "start"})
    await host.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    rng, said = random.Random(seed), False
    deadline = asyncio.get_running_loop().time() + 120
    while host.state["room"]["status"] != "finished":
        assert asyncio.get_running_loop().time() < deadline, "the game did not finish in time"
        if host.my_turn():
            if not said and host.game["trick"]:  # mid-trick: the chat line reaches the watcher at once
                said = True
                await host.send({"type": "chat", "text": "nice lead"})
                await host.wait(lambda c: c.state["chat"], what="the chat line")
                await watcher.wait(lambda c: c.v >= host.v, what="the chat version")
                assert watcher.state["chat"][-1]["text"] == "nice lead"
                if delay != "none":  # and the trick it was said in is still held back
                    assert not watcher.game["trick"]
                assert second_tab.game["trick"] == host.game["trick"]
            v = host.v
            await host.send({"type": "act", "action": choose(host.game, rng), "v": v})
            await host.wait(lambda c, v=v: c.v > v or c.errors, what="the action's patch")
            assert not host.errors, host.errors
        else:
            await asyncio.sleep(0.005)
    await watcher.wait(lambda c: c.v == host.v, what="the last version")
    assert watcher.state["result"] == host.state["result"]  # the match over: everything is shown
    assert watcher.game["history"] == host.game["history"] and watcher.game["log"] == host.game["log"]
    await second_tab.close()
    return host, watcher


async def test_watchers_kept_a_trick_or_a_hand_behind_never_see_a_card_sooner(server):
    for delay in ("trick", "hand", "none"):
        for game, seed in (("oh_hell", 1), ("oh_hell", 2), ("tarbish", 3), ("bid_whist", 4)):
            if delay == "none" and seed > 1:
                continue
            host, watcher = await watched_game(server, delay, game, seed)
            behind = check_watcher(delay, host, watcher)
            if delay == "none":  # live: the frames carry the trick's cards as they are played
                assert behind == 0
                with pytest.raises(AssertionError):
                    check_frames("trick", host, watcher)
            else:
                check_frames(delay, host, watcher)
                assert behind > 10, (delay, game, behind)  # it really was held back
            await host.close()
            await watcher.close()
