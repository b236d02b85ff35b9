"""Groups through a real server, on SQLite and on PostgreSQL (PROTOCOL §8).

Create, list, join by invite, rotate it (the old one refused), remove a member, 404 for
outsiders on every group endpoint, saved rules used as a group table's defaults (and the
options a table used becoming them), group tables listed to members only, a finished
match at a group table counted in the standings of its season, and the night's recap: each
member's figures per game (points of different games never added), a partnership's best
hand credited to both partners, and its image drawn once per night's version and kept, with
a per-player rate.
"""

from __future__ import annotations

import asyncio
import io
import random
import re

import httpx
import pytest
from live_server import served_on
from PIL import Image
from ws_client import Client, new_player, new_room, play_to_end

SHORT = {"max_cards": 2, "rebound": False}  # a short Oh Hell
FIRST_DRAWING_S = 30  # the server's first recap image starts the process it is drawn in


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    # A recap image a minute and a half per player once the burst is spent: no token comes
    # back while a test runs, however slow the machine.
    with served_on(request.param, tmp_path_factory, "groups", FELT_RATE_RECAP_IMAGES_PER_MINUTE="0.6") as live:
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
    async with httpx.AsyncClient(base_url=server.base, timeout=FIRST_DRAWING_S) as http:
        code = (await new_group(http, ana))["code"]
        calls = [
            ("GET", f"/api/groups/{code}", None),
            ("GET", f"/api/groups/{code}/invite", None),
            ("POST", f"/api/groups/{code}/invite", None),
            ("POST", f"/api/groups/{code}/join", {"invite": "nope"}),
            ("PUT", f"/api/groups/{code}/rules/oh_hell", {"options": {}}),
            ("GET", f"/api/groups/{code}/standings?game=oh_hell", None),
            ("POST", f"/api/groups/{code}/seasons", {"season": 1}),
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
    async with httpx.AsyncClient(base_url=server.base, timeout=FIRST_DRAWING_S) as http:
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


async def test_an_invite_says_whose_group_it_is_before_anyone_joins(server):
    """Whoever holds the link reads the group's name and who invites, with no player yet; a
    wrong, rotated or malformed invite is refused and reading joins nobody."""
    (ana,) = await people(server, "Ana")
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = await new_group(http, ana, "Tuesday Club")
        code = group["code"]
        read = await http.post(f"/api/groups/{code}/invitation", json={"invite": invite_of(group)})
        assert read.status_code == 200, read.text
        assert read.json() == {"group": "Tuesday Club", "owner": "Ana"}
        assert (await http.patch("/api/players/me", json={"name": "Ana Paula"}, headers=auth(ana))).status_code == 200
        again = await http.post(f"/api/groups/{code}/invitation", json={"invite": invite_of(group)})
        assert again.json()["owner"] == "Ana Paula"  # the owner's name now
        for body in ({"invite": "nope"}, {"invite": invite_of(group) + "x"}):
            wrong = await http.post(f"/api/groups/{code}/invitation", json=body)
            assert wrong.status_code == 404 and "Tuesday" not in wrong.text
        assert (await http.post("/api/groups/aaaaaaaaaa/invitation", json={"invite": "x"})).status_code == 404
        for bad in ({}, {"invite": 5}, {"invite": "x" * 201}):
            assert (await http.post(f"/api/groups/{code}/invitation", json=bad)).status_code == 422
        await http.post(f"/api/groups/{code}/invite", headers=auth(ana))  # rotated: the old link says nothing
        assert (await http.post(f"/api/groups/{code}/invitation", json={"invite": invite_of(group)})).status_code == 404
        members = (await http.get(f"/api/groups/{code}", headers=auth(ana))).json()["members"]
        assert [m["name"] for m in members] == ["Ana Paula"]


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
        said = (await http.get(f"/api/groups/{code}", headers=auth(ana))).json()["rules_changes"]
        assert said["oh_hell"]["name"] == "Rui" and said["oh_hell"]["by"] == rui["id"]
        assert said["oh_hell"]["changes"] == [{"key": "max_cards", "value": 3, "before": None}]  # against the usual
        second = await group_room(http, rui, code, options={"max_cards": 4, "rebound": False})
        group = (await http.get(f"/api/groups/{code}", headers=auth(ana))).json()
        rules = group["rules"]["oh_hell"]
        assert rules["max_cards"] == 4 and rules["rebound"] is False
        # A table with other options changed the rules too, and says so.
        assert group["rules_changes"]["oh_hell"]["changes"] == [
            {"key": "rebound", "value": False, "before": True},
            {"key": "max_cards", "value": 4, "before": 3},
        ]
        # Saving the same rules, or rules refused, leaves the last change as it was.
        same = await http.put(f"/api/groups/{code}/rules/oh_hell", json={"options": rules}, headers=auth(rui))
        assert same.status_code == 200
        bad = {"options": {"hook": "x"}}
        refused = await http.put(f"/api/groups/{code}/rules/oh_hell", json=bad, headers=auth(rui))
        assert refused.status_code == 422
        after = (await http.get(f"/api/groups/{code}", headers=auth(ana))).json()
        assert after["rules_changes"] == group["rules_changes"] and after["rules"] == group["rules"]
        # Listed on the group and in each member's "Your tables", seated or not; nowhere else.
        codes = {first.json()["code"], second.json()["code"]}
        listed = (await http.get(f"/api/groups/{code}", headers=auth(rui))).json()["tables"]
        assert {t["code"] for t in listed} == codes
        # Each says whether the caller has a seat there: Rui sits at the table he opened only.
        assert {t["code"]: t["you_sit"] for t in listed} == {first.json()["code"]: False, second.json()["code"]: True}
        for member in (ana, rui):
            mine = (await http.get("/api/tables", headers=auth(member))).json()["tables"]
            assert {t["code"] for t in mine if t["group"] == code} == codes
        assert not codes & {t["code"] for t in (await http.get("/api/tables", headers=auth(eve))).json()["tables"]}
        lobby = (await http.get("/api/rooms")).text
        assert not any(c in lobby for c in codes)


async def test_tables_of_one_game_opened_at_once_by_a_groups_members_all_open(server):
    """Each saves its options as the group's first defaults for the game: one of them is kept,
    and none of the requests fails for it (in four groups, as two saves must meet)."""
    members = await people(server, "Ana", "Rui", "Eve", "Bea")
    options = [{"max_cards": 2 + i, "rebound": False} for i in range(len(members))]
    async with httpx.AsyncClient(base_url=server.base) as http:
        for _ in range(4):
            group = await new_group(http, members[0])
            for member in members[1:]:
                await joined(http, group, member)
            opened = await asyncio.gather(
                *(group_room(http, m, group["code"], options=o) for m, o in zip(members, options, strict=True))
            )
            assert [r.status_code for r in opened] == [201] * len(members), [r.text for r in opened]
            rules = (await http.get(f"/api/groups/{group['code']}", headers=auth(members[0]))).json()["rules"]
            assert {"max_cards": rules["oh_hell"]["max_cards"], "rebound": False} in options


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


async def play_group_table(
    server, http, code, host, friend, game="oh_hell", options=SHORT, seat=1, **extra
) -> tuple[str, str]:
    """A match at a group table (``extra``: more of its settings), played out by the host at
    seat 0, the friend at ``seat`` and bots elsewhere; its match id and its table's code."""
    room = (await group_room(http, host, code, game=game, options=options, **extra)).json()["code"]
    a = await Client(server.ws_base, room, host["token"], "host").connect()
    b = await Client(server.ws_base, room, friend["token"], "friend").connect()
    await b.send({"type": "sit", "seat": seat})
    for bot in {1, 2, 3} - {seat}:
        await a.send({"type": "bot", "seat": bot})
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
        group = await new_group(http, ana)
        code = group["code"]
        await joined(http, group, rui)
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
        close = {"season": 1}
        assert (await http.post(f"/api/groups/{code}/seasons", json=close, headers=auth(rui))).status_code == 403
        assert (await http.post(f"/api/groups/{code}/seasons", json=close, headers=auth(ana))).json()["number"] == 2
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
        image = await http.get(f"/api/groups/{code}/recap.png", headers=auth(ana), timeout=FIRST_DRAWING_S)
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


def side_nets(game: str, match: dict) -> dict[str, float]:
    """Each person's net in one match as the ledger counts it: their side's final score less
    the mean of the other sides' (partners, in Bid Whist, sit at seats 0 and 2, 1 and 3)."""
    side = (lambda seat: seat % 2) if game == "bid_whist" else (lambda seat: seat)
    scores = {side(p["seat"]): match["scores"][p["seat"]] for p in match["players"]}
    out = {}
    for p in match["players"]:
        if not p["bot"]:
            others = [v for k, v in scores.items() if k != side(p["seat"])]
            out[p["name"]] = scores[side(p["seat"])] - sum(others) / len(others)
    return out


async def test_the_recap_gives_figures_per_game_and_credits_a_partnerships_best_hand(server):
    ana, rui = await people(server, "Ana", "Rui")
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = await new_group(http, ana, "Whist and Hell")
        code = group["code"]
        await joined(http, group, rui)
        # Ana and Rui partners (seats 0 and 2) against two bots: a night of one game.
        await play_group_table(server, http, code, ana, rui, "bid_whist", {"target": 1}, seat=2)
        (whist,) = await stored_matches(http, code, ana, 1)
        night = (await http.get(f"/api/groups/{code}/recap", headers=auth(rui))).json()
        nets = side_nets("bid_whist", whist)
        rows = {m["name"]: m for m in night["members"]}
        for name in ("Ana", "Rui"):
            won = int(any(p["seat"] in whist["winners"] for p in whist["players"] if p["name"] == name))
            assert rows[name]["net"] == round(nets[name], 1)  # one game: a net of its points
            assert rows[name]["by_game"] == {"bid_whist": {"matches": 1, "wins": won, "net": round(nets[name], 1)}}
        # The partnership's hand is the partnership's, whichever seat is first.
        assert night["best_hand"]["names"] == ["Ana", "Rui"] and night["best_hand"]["name"] == "Ana & Rui"
        assert night["best_hand"]["game"] == "bid_whist"
        assert "Best hand: Ana & Rui, " in night["text"]

        # Then a short Oh Hell: the night mixes games, so no member has one net of both.
        await play_group_table(server, http, code, ana, rui)
        matches = await stored_matches(http, code, ana, 2)
        hell = next(m for m in matches if m["game"] == "oh_hell")
        night = (await http.get(f"/api/groups/{code}/recap", headers=auth(ana))).json()
        assert night["matches"] == 2
        for m in night["members"]:
            assert m["net"] is None and m["matches"] == 2 and set(m["by_game"]) == {"bid_whist", "oh_hell"}
            assert m["wins"] == sum(f["wins"] for f in m["by_game"].values())
            figures = m["by_game"]["oh_hell"]
            won = int(any(p["seat"] in hell["winners"] for p in hell["players"] if p["name"] == m["name"]))
            assert figures == {"matches": 1, "wins": won, "net": round(side_nets("oh_hell", hell)[m["name"]], 1)}
        per_game = r"^Ana: Bid Whist \d/1 won, net [+-][\d.]+; Oh Hell \d/1 won, net [+-][\d.]+$"
        assert re.search(per_game, night["text"], re.M)


async def drawn(http) -> float:
    """How many recap images the server has drawn (its metric)."""
    text = (await http.get("/metrics")).text
    return float(re.search(r"^felt_recap_images_drawn_total (\S+)$", text, re.M).group(1))


async def test_the_recap_image_is_drawn_once_per_night_and_each_player_may_ask_a_few_times(server):
    ana, rui, eva = await people(server, "Ana", "Rui", "Eva")
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = await new_group(http, ana, "Card night")
        code = group["code"]
        await joined(http, group, rui)
        await play_group_table(server, http, code, ana, rui)
        await stored_matches(http, code, ana, 1)
        png = f"/api/groups/{code}/recap.png"
        before = await drawn(http)
        first = await http.get(png, headers=auth(ana))
        assert first.status_code == 200 and first.headers["content-type"] == "image/png"
        image = Image.open(io.BytesIO(first.content))
        image.load()
        assert image.format == "PNG" and image.width == 1080 and image.height >= 640
        assert await drawn(http) == before + 1
        # The same night again, by anyone: the kept image, not drawn again.
        again = await http.get(png, headers=auth(rui))
        assert again.status_code == 200 and again.content == first.content
        assert await drawn(http) == before + 1
        # A new member changes the night's card: one drawing, shared by a burst of asks, and
        # the asks past the player's rate refused with Retry-After.
        await joined(http, group, eva)
        answers = await asyncio.gather(*(http.get(png, headers=auth(eva)) for _ in range(10)))
        statuses = sorted(r.status_code for r in answers)
        assert statuses == [200] * 4 + [429] * 6, statuses  # the default burst: 4
        refused = next(r for r in answers if r.status_code == 429)
        assert int(refused.headers["Retry-After"]) >= 1 and refused.json()["error"]["code"] == "rate_limited"
        assert len({r.content for r in answers if r.status_code == 200}) == 1
        assert await drawn(http) == before + 2
        # Other players are not held back by Eva's asks.
        assert (await http.get(png, headers=auth(rui))).status_code == 200
        assert await drawn(http) == before + 2


async def test_closing_a_season_twice_or_at_once_closes_one(server):
    """Ten closes of the season the owner saw, all at once, close it once and all answer the
    season that follows; sent again later, it closes nothing more. A close must name it."""
    ana, rui = await people(server, "Ana", "Rui")
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
        group = await new_group(http, ana)
        code = group["code"]
        await joined(http, group, rui)
        close = lambda body=None: http.post(f"/api/groups/{code}/seasons", json=body, headers=auth(ana))  # noqa: E731
        answers = await asyncio.gather(*(close({"season": 1}) for _ in range(10)))
        assert [a.status_code for a in answers] == [200] * 10, [a.text for a in answers]
        assert {(a.json()["number"], a.json()["started_at"]) for a in answers} == {(2, answers[0].json()["started_at"])}
        again = await close({"season": 1})
        assert again.status_code == 200 and again.json() == answers[0].json()
        seen = (await http.get(f"/api/groups/{code}", headers=auth(rui))).json()
        assert seen["season"]["number"] == 2 and seen["seasons"] == [1, 2]
        answers = await asyncio.gather(*(close({"season": 2}) for _ in range(10)))
        assert {(a.status_code, a.json()["number"]) for a in answers} == {(200, 3)}
        assert (await http.get(f"/api/groups/{code}", headers=auth(rui))).json()["seasons"] == [1, 2, 3]
        for wrong in (None, {}, {"season": 9}, {"season": 0}, {"season": "x"}):
            answer = await close(wrong)
            assert answer.status_code == 422, answer.text
        assert (await close({"season": 9})).json()["error"]["code"] == "bad_season"
        by_rui = await http.post(f"/api/groups/{code}/seasons", json={"season": 3}, headers=auth(rui))
        assert by_rui.status_code == 403
        assert (await http.get(f"/api/groups/{code}", headers=auth(ana))).json()["seasons"] == [1, 2, 3]


async def test_presence_names_only_the_tables_the_reader_may_open(server):
    """A member at a private table that is not the group's is "at a table", with no code (its
    code lets anyone in); a public table, the group's own table, and a private table the
    reader has a seat at are named."""
    ana, rui, eve = await people(server, "Ana", "Rui", "Eve")

    async def rui_seen(http, who=ana) -> dict:
        members = (await http.get(f"/api/groups/{code}", headers=auth(who))).json()["members"]
        return next({k: m[k] for k in ("online", "at_table", "table")} for m in members if m["name"] == "Rui")

    async def sits(room: str, player: dict) -> Client:
        c = await Client(server.ws_base, room, player["token"], player["name"]).connect()
        if c.state["you"] is None:
            await c.send({"type": "sit", "seat": next(i for i, s in enumerate(c.state["seats"]) if not s["name"])})
            await c.wait(lambda c: c.state["you"] is not None, what="a seat")
        return c

    async with httpx.AsyncClient(base_url=server.base) as http:
        group = await new_group(http, ana)
        code = group["code"]
        await joined(http, group, rui)

        private = await new_room(server.base, eve["token"], "oh_hell", SHORT, 4, private=True)
        at_private = await sits(private, rui)
        assert private not in (await http.get(f"/api/groups/{code}", headers=auth(ana))).text
        assert await rui_seen(http) == {"online": True, "at_table": True, "table": None}
        assert (await rui_seen(http, rui))["table"] == private, "Rui may open his own table"
        ana_too = await sits(private, ana)
        assert (await rui_seen(http))["table"] == private, "Ana has a seat there: she may open it anyway"
        await ana_too.close()
        await at_private.close()

        public = await new_room(server.base, eve["token"], "oh_hell", SHORT, 4)
        at_public = await sits(public, rui)
        assert await rui_seen(http) == {"online": True, "at_table": True, "table": public}
        await at_public.close()

        ours = (await group_room(http, rui, code, options=SHORT)).json()["code"]
        at_ours = await sits(ours, rui)
        assert await rui_seen(http) == {"online": True, "at_table": True, "table": ours}
        await at_ours.close()


async def test_a_player_owns_at_most_the_groups_the_setting_allows(server):
    """FELT_MAX_GROUPS_PER_PLAYER (20): the next is a 409 that makes nothing; joining others'
    groups is not owning, and another player still creates theirs."""
    ana, rui = await people(server, "Ana", "Rui")
    async with httpx.AsyncClient(base_url=server.base) as http:
        for i in range(20):
            await new_group(http, ana, f"Table {i}")
        refused = await http.post("/api/groups", json={"name": "One more"}, headers=auth(ana))
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "too_many_groups", refused.text
        assert "20" in refused.json()["error"]["message"]
        assert len((await http.get("/api/groups", headers=auth(ana))).json()["groups"]) == 20
        theirs = await new_group(http, rui, "Rui's")
        assert (await joined(http, theirs, ana))["role"] == "member"


def spawned_children(pid: int) -> set[int]:
    """The server's worker processes that multiprocessing "spawn"ed (not its resource tracker)."""
    from pathlib import Path

    found = set()
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text()
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, ValueError):
            continue
        spawned = int(stat.rsplit(")", 1)[1].split()[1]) == pid and b"spawn_main" in command
        if spawned and b"resource_tracker" not in command:
            found.add(int(proc.name))
    return found


async def test_a_recap_card_is_drawn_again_after_its_worker_process_died(server):
    """A dead painter (killed, out of memory) breaks its process pool: the cards asked for
    while it was broken get 503 with Retry-After, and the next one is drawn by a new pool."""
    import os
    import signal

    ana, rui, eva = await people(server, "Ana", "Rui", "Eva")
    async with httpx.AsyncClient(base_url=server.base) as http:
        group = await new_group(http, ana, "Broken brushes")
        code = group["code"]
        await joined(http, group, rui)
        png = f"/api/groups/{code}/recap.png"
        before = spawned_children(server.proc.pid)
        assert (await http.get(png, headers=auth(ana), timeout=FIRST_DRAWING_S)).status_code == 200
        painters = spawned_children(server.proc.pid) - before or spawned_children(server.proc.pid)
        assert painters, "no worker process drew the card"
        for pid in painters:
            os.kill(pid, signal.SIGKILL)
        await joined(http, group, eva)  # a new night's version: the card is drawn again
        answers = []
        for asker in (rui, eva, ana):
            answer = await http.get(png, headers=auth(asker), timeout=FIRST_DRAWING_S)
            answers.append(answer.status_code)
            if answer.status_code == 200:
                assert answer.content.startswith(b"\x89PNG")
                break
            assert answer.status_code == 503 and answer.json()["error"]["code"] == "busy", answer.text
            assert int(answer.headers["Retry-After"]) >= 1
        assert answers[-1] == 200 and len(answers) <= 2, answers
