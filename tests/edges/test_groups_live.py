"""Groups through a real server, on SQLite and on PostgreSQL (PROTOCOL §8).

Create, list, join by invite, rotate it (the old one refused), remove a member, 404 for
outsiders on every group endpoint, saved rules used as a group table's defaults (and the
options a table used becoming them), group tables listed to members only, and a finished
match at a group table counted in the standings of its season.
"""

from __future__ import annotations

import asyncio
import random

import httpx
import pytest
from live_server import served_on
from ws_client import Client, new_player, play_to_end

SHORT = {"max_cards": 2, "rebound": False}  # a short Oh Hell


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    with served_on(request.param, tmp_path_factory, "groups") as live:
        yield live


def auth(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


async def people(server, *names):
    return [await new_player(server.base, n) for n in names]


async def new_group(http, owner, name="Tuesday cards") -> dict:
    r = await http.post("/api/groups", json={"name": name}, headers=auth(owner))
    assert r.status_code == 201, r.text
    return r.json()


def invite_of(group: dict) -> str:
    return group["invite_url"].split("#invite=", 1)[1]


async def joined(http, group, player) -> dict:
    r = await http.post(f"/api/groups/{group['code']}/join", json={"invite": invite_of(group)}, headers=auth(player))
    assert r.status_code == 200, r.text
    return r.json()


async def test_create_list_get_and_join_by_invite(server):
    ana, rui = await people(server, "Ana", "Rui")
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = await new_group(http, ana)
        code = group["code"]
        assert group["url"] == f"/g/{code}" and group["invite_url"].startswith(f"/g/{code}#invite=")
        listed = (await http.get("/api/groups", headers=auth(ana))).json()
        assert listed == {"groups": [{"code": code, "name": "Tuesday cards", "role": "owner"}]}
        seen = await joined(http, group, rui)
        assert [(m["name"], m["role"]) for m in seen["members"]] == [("Ana", "owner"), ("Rui", "member")]
        assert seen["season"]["number"] == 1 and seen["tables"] == [] and seen["rules"] == {}
        assert invite_of(group) not in (await http.get(f"/api/groups/{code}", headers=auth(rui))).text
        # A member's page visit shows them online to the others.
        members = (await http.get(f"/api/groups/{code}", headers=auth(ana))).json()["members"]
        assert all(m["online"] for m in members)
        assert (await http.get("/api/groups", headers=auth(rui))).json()["groups"][0]["role"] == "member"


async def test_every_group_endpoint_is_404_to_outsiders(server):
    ana, eve = await people(server, "Ana", "Eve")
    async with httpx.AsyncClient(base_url=server.base) as http:
        code = (await new_group(http, ana))["code"]
        calls = [
            ("GET", f"/api/groups/{code}", None),
            ("GET", f"/api/groups/{code}/invite", None),
            ("POST", f"/api/groups/{code}/invite", None),
            ("POST", f"/api/groups/{code}/join", {"invite": "nope"}),
            ("PUT", f"/api/groups/{code}/rules/oh_hell", {"options": {}}),
            ("GET", f"/api/groups/{code}/standings?game=oh_hell", None),
            ("POST", f"/api/groups/{code}/seasons", None),
            ("GET", f"/api/groups/{code}/matches", None),
            ("DELETE", f"/api/groups/{code}/members/{ana['id']}", None),
            ("GET", f"/api/groups/{code}/standings.csv?game=ribs", None),
            ("GET", f"/api/groups/{code}/export.json", None),
            ("GET", f"/api/groups/{code}/recap", None),
            ("GET", f"/api/groups/{code}/recap.png", None),
            ("POST", "/api/rooms", {"game": "oh_hell", "group": code}),
        ]
        for method, path, body in calls:
            for who in (eve, ana):
                if who is ana and method != "GET":
                    continue  # the owner's writes are tested elsewhere; here, that reads work
                r = await http.request(method, path, json=body, headers=auth(who))
                expected = 200 if who is ana else 404
                assert r.status_code == expected, (method, path, r.status_code, r.text)
        other = "zzzzzzzzzz"
        assert (await http.get(f"/api/groups/{other}", headers=auth(ana))).status_code == 404
        assert (await http.get(f"/api/groups/{code}")).status_code == 401


async def test_a_rotated_invite_is_refused_and_a_removed_member_sees_nothing(server):
    ana, rui, eva = await people(server, "Ana", "Rui", "Eva")
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = await new_group(http, ana)
        code = group["code"]
        await joined(http, group, rui)
        assert (await http.post(f"/api/groups/{code}/invite", headers=auth(rui))).status_code == 403
        fresh = (await http.post(f"/api/groups/{code}/invite", headers=auth(ana))).json()
        assert fresh["invite_url"] != group["invite_url"]
        assert (await http.get(f"/api/groups/{code}/invite", headers=auth(rui))).json() == fresh
        old = await http.post(f"/api/groups/{code}/join", json={"invite": invite_of(group)}, headers=auth(eva))
        assert old.status_code == 404
        await joined(http, fresh | {"code": code}, eva)
        assert (await http.delete(f"/api/groups/{code}/members/{eva['id']}", headers=auth(rui))).status_code == 403
        assert (await http.delete(f"/api/groups/{code}/members/{ana['id']}", headers=auth(ana))).status_code == 409
        assert (await http.delete(f"/api/groups/{code}/members/{eva['id']}", headers=auth(ana))).status_code == 204
        assert (await http.get(f"/api/groups/{code}", headers=auth(eva))).status_code == 404
        assert (await http.delete(f"/api/groups/{code}/members/{rui['id']}", headers=auth(rui))).status_code == 204
        members = (await http.get(f"/api/groups/{code}", headers=auth(ana))).json()["members"]
        assert [m["name"] for m in members] == ["Ana"]


async def group_room(http, player, code, game="oh_hell", options=None, **extra) -> httpx.Response:
    body = {"game": game, "group": code, **extra}
    if options is not None:
        body["options"] = options
    return await http.post("/api/rooms", json=body, headers=auth(player))


async def test_saved_rules_are_a_group_tables_defaults_and_the_last_used_options_become_them(server):
    ana, rui, eve = await people(server, "Ana", "Rui", "Eve")
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = await new_group(http, ana)
        code = group["code"]
        await joined(http, group, rui)
        bad = await http.put(
            f"/api/groups/{code}/rules/oh_hell", json={"options": {"max_cards": 99}}, headers=auth(rui)
        )
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "bad_options"
        saved = await http.put(
            f"/api/groups/{code}/rules/oh_hell", json={"options": {"max_cards": 3}}, headers=auth(rui)
        )
        assert saved.status_code == 200 and saved.json()["options"]["max_cards"] == 3
        first = await group_room(http, ana, code)
        assert first.status_code == 201, first.text
        summary = (await http.get(f"/api/rooms/{first.json()['code']}")).json()
        assert summary["options"]["max_cards"] == 3 and summary["private"] is True
        # A table with other options: they are the group's defaults from now on.
        second = await group_room(http, rui, code, options={"max_cards": 4, "rebound": False})
        rules = (await http.get(f"/api/groups/{code}", headers=auth(ana))).json()["rules"]["oh_hell"]
        assert rules["max_cards"] == 4 and rules["rebound"] is False
        # Listed on the group and in each member's "Your tables", seated or not; nowhere else.
        codes = {first.json()["code"], second.json()["code"]}
        listed = (await http.get(f"/api/groups/{code}", headers=auth(rui))).json()["tables"]
        assert {t["code"] for t in listed} == codes
        for member in (ana, rui):
            mine = (await http.get("/api/tables", headers=auth(member))).json()["tables"]
            assert {t["code"] for t in mine if t["group"] == code} == codes
        assert not codes & {t["code"] for t in (await http.get("/api/tables", headers=auth(eve))).json()["tables"]}
        lobby = (await http.get("/api/rooms")).text
        assert not any(c in lobby for c in codes)


async def stored_matches(http, code, player, count) -> list[dict]:
    for _ in range(300):
        found = (await http.get(f"/api/groups/{code}/matches", headers=auth(player))).json()["matches"]
        if len(found) >= count:
            return found
        await asyncio.sleep(0.05)
    raise AssertionError("the group's match was never stored")


async def group_of_two(http, owner, member) -> str:
    """A new group of ``owner``'s that ``member`` joined; its code."""
    group = await new_group(http, owner)
    await joined(http, group, member)
    return group["code"]


async def play_group_table(server, http, code, host, friend, **extra) -> tuple[str, str]:
    """A short Oh Hell of group ``code`` (``extra``: more of its settings) played out by
    ``host`` and ``friend`` with two bots; its match id and its table's code."""
    room = (await group_room(http, host, code, options=SHORT, **extra)).json()["code"]
    a = await Client(server.ws_base, room, host["token"], "host").connect()
    b = await Client(server.ws_base, room, friend["token"], "friend").connect()
    await b.send({"type": "sit", "seat": 1})
    for seat in (2, 3):
        await a.send({"type": "bot", "seat": seat})
    await a.wait(lambda c: all(s["name"] for s in c.state["seats"]), what="a full table")
    await a.send({"type": "start"})
    await a.wait(lambda c: c.state["room"]["status"] != "waiting", what="the start")
    await play_to_end([a, b], random.Random(7))
    match_id = a.state["result"]["match_id"]
    await a.close()
    await b.close()
    return match_id, room


async def test_a_finished_group_match_counts_in_its_season_and_a_closed_season_is_frozen(server):
    ana, rui = await people(server, "Ana", "Rui")
    async with httpx.AsyncClient(base_url=server.base) as http:
        code = await group_of_two(http, ana, rui)
        match_id, room = await play_group_table(server, http, code, ana, rui)
        again = await http.post("/api/rooms", json={"game": "oh_hell", "from": room}, headers=auth(rui))
        assert again.status_code == 201, again.text  # "Play again" keeps the group
        listed = (await http.get(f"/api/groups/{code}", headers=auth(ana))).json()["tables"]
        assert [t["code"] for t in listed] == [again.json()["code"]]
        assert [m["id"] for m in await stored_matches(http, code, rui, 1)] == [match_id]
        table = (await http.get(f"/api/groups/{code}/standings", params={"game": "oh_hell"}, headers=auth(rui))).json()
        assert table["season"] == 1
        assert sorted(r["name"] for r in table["rows"]) == ["Ana", "Rui"]  # the bots are not ranked
        assert all(r["matches"] == 1 for r in table["rows"])
        assert table["head_to_head"][0]["matches"] == 1
        assert (await http.post(f"/api/groups/{code}/seasons", headers=auth(rui))).status_code == 403
        assert (await http.post(f"/api/groups/{code}/seasons", headers=auth(ana))).json()["number"] == 2
        ask = lambda season: http.get(  # noqa: E731
            f"/api/groups/{code}/standings", params={"game": "oh_hell", "season": season}, headers=auth(ana)
        )
        assert (await ask("")).json()["rows"] == [] and (await ask("2")).json()["season"] == 2
        assert (await ask("1")).json()["rows"] == table["rows"]
        assert (await ask("all")).json()["rows"] == table["rows"]
        assert (await ask("x")).status_code == 422
        sheet = await http.get(
            f"/api/groups/{code}/standings.csv", params={"game": "oh_hell", "season": "1"}, headers=auth(rui)
        )
        assert sheet.headers["content-type"].startswith("text/csv")
        lines = sheet.text.splitlines()
        assert lines[0].startswith("player_id,name,matches,wins") and len(lines) == 3
        assert {line.split(",")[1] for line in lines[1:]} == {"Ana", "Rui"}
        dump = (await http.get(f"/api/groups/{code}/export.json", headers=auth(ana))).json()
        assert dump["group"]["code"] == code and [m["id"] for m in dump["matches"]] == [match_id]
        assert dump["matches"][0]["actions"] and dump["matches"][0]["seed"]
        night = (await http.get(f"/api/groups/{code}/recap", headers=auth(rui))).json()
        assert night["matches"] == 1 and {m["name"] for m in night["members"]} == {"Ana", "Rui"}
        assert night["text"].startswith("Tuesday cards · ") and "Oh Hell" in night["text"]
        image = await http.get(f"/api/groups/{code}/recap.png", headers=auth(ana))
        assert image.headers["content-type"] == "image/png" and image.content.startswith(b"\x89PNG")


async def test_a_group_table_has_the_clock_asked_for_and_play_again_keeps_it_and_the_group(server):
    ana, rui = await people(server, "Ana", "Rui")
    async with httpx.AsyncClient(base_url=server.base) as http:
        code = await group_of_two(http, ana, rui)
        slow = await group_room(http, ana, code, options=SHORT, turn_timer=86400, seats=3, open_bot_seats=True)
        assert slow.status_code == 201, slow.text
        made = (await http.get(f"/api/rooms/{slow.json()['code']}")).json()
        assert (made["turn_timer"], made["seats"], made["private"]) == (86400, 3, True)
        assert (await group_room(http, ana, code, turn_timer=45)).status_code == 422  # no such clock
        assert (await group_room(http, ana, code, seats=9)).status_code == 422
        # A timed table of the group, played out; "Play again" asks for the clock it had.
        _, room = await play_group_table(server, http, code, ana, rui, turn_timer=30)
        assert (await http.get(f"/api/rooms/{room}")).json()["turn_timer"] == 30
        again = await http.post(
            "/api/rooms",
            json={"game": "oh_hell", "options": SHORT, "from": room, "turn_timer": 30},
            headers=auth(rui),
        )
        assert again.status_code == 201, again.text
        new = again.json()["code"]
        assert (await http.get(f"/api/rooms/{new}")).json()["turn_timer"] == 30
        listed = (await http.get(f"/api/groups/{code}", headers=auth(ana))).json()["tables"]
        assert new in {t["code"] for t in listed}
