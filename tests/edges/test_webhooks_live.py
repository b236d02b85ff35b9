"""A group's webhook through a real server, on SQLite and on PostgreSQL (PROTOCOL §8).

A chat receiver the test runs on loopback (the server may reach it: FELT_OUTBOUND_ALLOW_PRIVATE
is on here, and only in tests): a group table's opening and its match's result line arrive in
both formats; a chat that answers 500 is tried again until it takes the message, one that
answers 404 is not, and the owner reads how the last delivery went; a chat that never answers
holds no table (its match plays to the end, its queue stays bounded and drops the oldest);
only the owner reads or sets the URL, and the URL is in no other answer and in no log line.
A server as deployed (the allowance off, one network allowed) refuses inside addresses in every
spelling when they are saved, lets a group's owner send a few test messages a minute, and its
chat shows people's names as typed: no markup, link or mention is made of them.
"""

from __future__ import annotations

import asyncio
import random
import re
import secrets

import httpx
import pytest
from chat_receiver import ChatReceiver
from live_server import served_on
from ws_client import Client, new_player, play_to_end

from server.storage import outbox
from server.storage.db import Database

SHORT = {"max_cards": 2, "rebound": False}  # a short Oh Hell
PUBLIC = "https://cards.example.org"  # the address links are written under (never fetched)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def server(request, tmp_path_factory):
    """It may reach loopback, waits between tries are a thousandth of the usual, links are
    absolute, and info lines (access lines included) are logged."""
    env = {"FELT_OUTBOUND_ALLOW_PRIVATE": "1", "FELT_WEBHOOK_BACKOFF_SCALE": "0.001", "FELT_PUBLIC_URL": PUBLIC}
    with served_on(request.param, tmp_path_factory, "webhooks", log_level="info", **env) as live:
        yield live


def auth(player: dict) -> dict:
    return {"Authorization": f"Bearer {player['token']}"}


async def new_group(http, owner, *members) -> str:
    r = await http.post("/api/groups", json={"name": "Tuesday cards"}, headers=auth(owner))
    assert r.status_code == 201, r.text
    group = r.json()
    invite = group["invite_url"].split("#invite=", 1)[1]
    for m in members:
        joined = await http.post(f"/api/groups/{group['code']}/join", json={"invite": invite}, headers=auth(m))
        assert joined.status_code == 200, joined.text
    return group["code"]


def secret_path() -> tuple[str, str]:
    secret = secrets.token_urlsafe(24)
    return secret, f"/api/webhooks/123/{secret}"


async def set_hook(http, code, owner, url, format="discord") -> dict:
    r = await http.put(f"/api/groups/{code}/webhook", json={"url": url, "format": format}, headers=auth(owner))
    assert r.status_code == 200, r.text
    return r.json()


async def open_table(http, code, host) -> str:
    r = await http.post("/api/rooms", json={"game": "oh_hell", "group": code, "options": SHORT}, headers=auth(host))
    assert r.status_code == 201, r.text
    return r.json()["code"]


async def play_table(server, room, host, friend) -> None:
    a = await Client(server.ws_base, room, host["token"], "host").connect()
    b = await Client(server.ws_base, room, friend["token"], "friend").connect()
    await b.send({"type": "sit", "seat": 1})
    for seat in (2, 3):
        await a.send({"type": "bot", "seat": seat})
    await a.wait(lambda c: all(s["name"] for s in c.state["seats"]), what="a full table")
    await a.send({"type": "start"})
    await a.wait(lambda c: c.state["room"]["status"] != "waiting", what="the start")
    await play_to_end([a, b], random.Random(5))
    await a.close()
    await b.close()


async def hook_state(http, code, owner, until, what: str) -> dict:
    """The owner's view of the webhook once ``until`` holds of it."""
    for _ in range(600):
        seen = (await http.get(f"/api/groups/{code}/webhook", headers=auth(owner))).json()
        if until(seen):
            return seen
        await asyncio.sleep(0.05)
    raise AssertionError(f"never {what}: {seen}")


def assert_unlogged(server, secret: str) -> None:
    text = (server.tmp / "server.log").read_text()
    assert "POST /api/groups" in text or "PUT /api/groups" in text  # access lines are there
    assert secret not in text


async def test_a_tables_opening_and_its_result_line_reach_the_chat_in_both_formats(server):
    ana, rui = [await new_player(server.base, n) for n in ("Ana", "Rui")]
    secret, path = secret_path()
    async with ChatReceiver() as chat, httpx.AsyncClient(base_url=server.base) as http:
        code = await new_group(http, ana, rui)
        await set_hook(http, code, ana, chat.url(path), "discord")
        room = await open_table(http, code, ana)
        await play_table(server, room, ana, rui)
        await chat.until(lambda r: len(r) >= 2, what="the opening and the result")
        opened, result = chat.bodies()[:2]
        assert opened == {
            "content": f"Ana opened a new Oh Hell table. {PUBLIC}/r/{room}",
            "allowed_mentions": {"parse": []},
        }
        assert result["content"].startswith("Oh Hell: ") and " won · " in result["content"]
        assert "Ana" in result["content"] and "Rui" in result["content"] and "Bot 3" in result["content"]
        assert result["content"].endswith(f"{PUBLIC}/g/{code}")
        assert all(r["path"] == path and r["headers"]["content-type"] == "application/json" for r in chat.requests)

        await set_hook(http, code, ana, chat.url(path), "json")
        again = await open_table(http, code, rui)
        await play_table(server, again, rui, ana)
        await chat.until(lambda r: len(r) >= 4, what="the second table's opening and result")
        opened, result = chat.bodies()[2:4]
        group = {"code": code, "name": "Tuesday cards"}
        assert opened == {
            "event": "table_open",
            "group": group,
            "table": again,
            "text": "Rui opened a new Oh Hell table.",
            "url": f"{PUBLIC}/r/{again}",
        }
        assert result["event"] == "match_finished" and result["group"] == group and result["table"] == again
        assert result["text"].startswith("Oh Hell: ") and result["url"] == f"{PUBLIC}/g/{code}"
        assert len(chat.requests) == 4  # nothing else: no turn is told at a table this fast
        seen = await hook_state(http, code, ana, lambda h: h["last_ok_at"], "delivered")
        assert seen["last_failure"] is None
    assert_unlogged(server, secret)


async def test_the_chat_hears_who_changed_the_house_rules_and_what(server):
    """A member who changes the group's rules is named in the chat with each option changed,
    in players' words; saving the same rules again tells nothing."""
    ana, bea = [await new_player(server.base, n) for n in ("Ana", "Bea")]
    secret, path = secret_path()
    async with ChatReceiver() as chat, httpx.AsyncClient(base_url=server.base) as http:
        code = await new_group(http, ana, bea)
        await set_hook(http, code, ana, chat.url(path), "json")
        rules = f"/api/groups/{code}/rules/bid_whist"
        both, big = {"jokers": 2, "directions": True}, {"jokers": 1, "directions": True}
        for options in (both, both, big):
            saved = await http.put(rules, json={"options": options}, headers=auth(bea))
            assert saved.status_code == 200, saved.text
        await chat.until(lambda r: len(r) >= 2, what="two changes of the rules")
        first, second = chat.bodies()[:2]
        assert first == {
            "event": "rules_changed",
            "group": {"code": code, "name": "Tuesday cards"},
            "table": None,
            "text": "Bea changed the house rules of Bid Whist: Jokers: both jokers; Uptown and downtown: on.",
            "url": f"{PUBLIC}/g/{code}",
        }
        assert second["text"] == "Bea changed the house rules of Bid Whist: Jokers: the big joker."
        await asyncio.sleep(0.3)
        assert len(chat.requests) == 2  # the same rules again said nothing
    assert_unlogged(server, secret)


async def test_a_failing_chat_is_tried_again_and_the_owner_sees_the_last_failure(server):
    ana = await new_player(server.base, "Ana")
    secret, path = secret_path()
    async with ChatReceiver() as chat, httpx.AsyncClient(base_url=server.base) as http:
        code = await new_group(http, ana)
        await set_hook(http, code, ana, chat.url(path), "json")
        # Two 500s, then taken: three tries of the same message.
        chat.answers.extend([(500, {}), (500, {})])
        room = await open_table(http, code, ana)
        await chat.until(lambda r: len(r) == 3, what="three tries")
        assert len({r["body"] for r in chat.requests}) == 1 and room in chat.bodies()[0]["table"]
        await hook_state(http, code, ana, lambda h: h["last_ok_at"], "delivered")

        # 429 with Retry-After: tried again after it, and taken.
        chat.answers.append((429, {"Retry-After": "2"}))
        await open_table(http, code, ana)
        await chat.until(lambda r: len(r) == 5, what="the try after a 429")

        # A 404 says the URL is wrong: no second try; the owner reads the failure.
        chat.answers.append((404, {}))
        await open_table(http, code, ana)
        seen = await hook_state(http, code, ana, lambda h: h["last_failure"] == "404", "told of the 404")
        assert seen["last_failed_at"] and len(chat.requests) == 6

        # Always 500: four tries (1 s, 4 s, 16 s apart, scaled), then given up on.
        chat.default = (500, {})
        await open_table(http, code, ana)
        await hook_state(http, code, ana, lambda h: h["last_failure"] == "500", "told of the 500s")
        assert len(chat.requests) == 10
        metrics = (await http.get("/metrics")).text
        assert 'felt_webhook_deliveries_total{outcome="failed"}' in metrics
    assert_unlogged(server, secret)


async def waiting_in_outbox(server, code: str) -> list[dict]:
    """The group's messages waiting in the server's outbox, read from its database."""
    db = Database(server.env["DATABASE_URL"])

    def read() -> list[dict]:
        with db.session() as session:
            return outbox.queued(session, code)

    try:
        return await db.call(read)
    finally:
        db.dispose()


def metric(text: str, name: str) -> float:
    line = next(line for line in text.splitlines() if line.startswith(name + " "))
    return float(line.split()[1])


async def test_a_chat_that_never_answers_holds_no_table_and_its_queue_stays_bounded(server):
    ana, rui = [await new_player(server.base, n) for n in ("Ana", "Rui")]
    secret, path = secret_path()
    async with ChatReceiver() as chat, httpx.AsyncClient(base_url=server.base) as http:
        chat.hang = True
        code = await new_group(http, ana, rui)
        await set_hook(http, code, ana, chat.url(path))
        dropped_before = metric((await http.get("/metrics")).text, "felt_webhook_dropped_total")
        room = await open_table(http, code, ana)
        await chat.until(lambda r: len(r) == 1, what="the first message, which is never answered")
        await play_table(server, room, ana, rui)  # every move goes through while the chat hangs
        for _ in range(30):  # more messages than the group's queue holds
            await open_table(http, code, rui)
        # 32 messages (the opening, the result line, 30 openings): the group keeps 20 of them
        # (the one being tried and the 19 newest), the 12 others are dropped.
        for _ in range(600):
            text = (await http.get("/metrics")).text
            if metric(text, "felt_webhook_dropped_total") >= dropped_before + 12:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError(f"the queue never dropped 12: {text}")
        assert metric(text, "felt_webhook_dropped_total") == dropped_before + 12
        assert metric(text, "felt_webhook_queued") == 20  # one group's queue holds 20 messages
        assert len(await waiting_in_outbox(server, code)) == 20  # and so does its outbox
        assert len(chat.requests) == 1  # still the first message, still unanswered
        assert (await http.get("/healthz")).status_code == 200
    assert_unlogged(server, secret)


async def test_only_the_owner_reads_or_sets_the_webhook_and_no_other_answer_shows_it(server):
    ana, rui, eve = [await new_player(server.base, n) for n in ("Ana", "Rui", "Eve")]
    secret, path = secret_path()
    async with ChatReceiver() as chat, httpx.AsyncClient(base_url=server.base) as http:
        code = await new_group(http, ana, rui)
        base = f"/api/groups/{code}/webhook"
        none = (await http.get(base, headers=auth(ana))).json()
        assert none["url"] is None and none["format"] is None
        assert (await http.post(base + "/test", headers=auth(ana))).status_code == 409
        calls = [
            ("GET", base, None),
            ("GET", base + "?reveal=true", None),
            ("PUT", base, {"url": "https://chat.example.org/x", "format": "json"}),
            ("DELETE", base, None),
            ("POST", base + "/test", None),
        ]
        for method, url, body in calls:
            assert (await http.request(method, url, json=body, headers=auth(rui))).status_code == 403, url
            assert (await http.request(method, url, json=body, headers=auth(eve))).status_code == 404, url
            assert (await http.request(method, url, json=body)).status_code == 401, url
        saved = await set_hook(http, code, ana, chat.url(path))
        assert saved["masked"] and secret not in saved["url"] and saved["url"].startswith("http://127.0.0.1")
        assert secret not in (await http.get(base, headers=auth(ana))).text
        revealed = await http.get(base, params={"reveal": "true"}, headers=auth(ana))
        assert revealed.headers["cache-control"] == "no-store"
        assert revealed.json() == {**saved, "url": chat.url(path), "masked": False}
        for bad in ("ftp://chat.example.org/x", "http://user:pw@chat.example.org/x", "nope"):
            r = await http.put(base, json={"url": bad, "format": "json"}, headers=auth(ana))
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_url", (bad, r.text)
        assert (
            await http.put(base, json={"url": chat.url(path), "format": "xml"}, headers=auth(ana))
        ).status_code == 422

        tested = (await http.post(base + "/test", headers=auth(ana))).json()
        assert tested == {"delivered": True, "failure": None}
        assert chat.bodies() == [
            {
                "content": f"Felt: this chat will hear of the tables of Tuesday cards. {PUBLIC}/g/{code}",
                "allowed_mentions": {"parse": []},
            }
        ]
        room = await open_table(http, code, rui)
        await chat.until(lambda r: len(r) == 2, what="the table's opening")
        for who in (ana, rui):
            for url in (f"/api/groups/{code}", "/api/tables", f"/api/groups/{code}/matches", "/api/groups"):
                assert secret not in (await http.get(url, headers=auth(who))).text, url
        assert secret not in (await http.get(f"/api/rooms/{room}")).text
        assert secret not in (await http.get("/metrics")).text

        assert (await http.delete(base, headers=auth(ana))).status_code == 204
        assert (await http.get(base, headers=auth(ana))).json()["url"] is None
        await open_table(http, code, ana)  # no webhook: nothing is sent
        assert (await http.post(base + "/test", headers=auth(ana))).status_code == 409
        assert len(chat.requests) == 2
    assert_unlogged(server, secret)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def guarded(request, tmp_path_factory):
    """A server as deployed: inside addresses refused; 127.0.0.2 stands for an allowed one
    (FELT_OUTBOUND_ALLOW_NETWORKS), 127.0.0.1 for the inside. A group's test messages come back
    one in two minutes (not two a minute), so that a slow run never sees one come back."""
    env = {
        "FELT_OUTBOUND_ALLOW_NETWORKS": "127.0.0.2/32",
        "FELT_WEBHOOK_BACKOFF_SCALE": "0.001",
        "FELT_RATE_WEBHOOK_TESTS_PER_MINUTE": "0.5",
    }
    with served_on(request.param, tmp_path_factory, "guarded", log_level="info", **env) as live:
        yield live


async def test_a_webhook_never_reaches_inside_addresses_named_resolved_or_redirected_to(guarded):
    ana = await new_player(guarded.base, "Ana")
    secret, path = secret_path()
    async with (
        ChatReceiver("127.0.0.1") as inside,
        ChatReceiver("127.0.0.2") as allowed,
        httpx.AsyncClient(base_url=guarded.base) as http,
    ):
        code = await new_group(http, ana)
        base = f"/api/groups/{code}/webhook"
        for literal in (inside.url(path), f"http://[::1]:{inside.port}{path}", "http://10.1.2.3/hook"):
            r = await http.put(base, json={"url": literal, "format": "json"}, headers=auth(ana))
            assert r.status_code == 422 and r.json()["error"]["code"] == "bad_url", literal
        # A name is judged where it leads, at every delivery: saved, then refused when sent.
        await set_hook(http, code, ana, f"http://localhost:{inside.port}{path}", "json")
        await open_table(http, code, ana)
        await hook_state(http, code, ana, lambda h: h["last_failure"] == "refused", "refused")
        tested = (await http.post(base + "/test", headers=auth(ana))).json()
        assert tested == {"delivered": False, "failure": "refused"}
        # An allowed address that redirects inside: the hop is refused.
        for target in (inside.url("/stolen"), f"http://localhost:{inside.port}/stolen"):
            allowed.default = (307, {"Location": target})
            await set_hook(http, code, ana, allowed.url(path), "json")
            before = len(allowed.requests)
            tested = (await http.post(base + "/test", headers=auth(ana))).json()
            assert tested == {"delivered": False, "failure": "refused"}
            assert len(allowed.requests) == before + 1
        assert inside.requests == []
        allowed.default = (204, {})
        assert (await http.post(base + "/test", headers=auth(ana))).json() == {"delivered": True, "failure": None}
    assert_unlogged(guarded, secret)


# Inside addresses as a URL may spell them: IPv6 forms of IPv4 ones, and numbers a resolver reads.
INSIDE_SPELLINGS = [
    "[64:ff9b::a9fe:a9fe]",  # NAT64 of 169.254.169.254
    "[64:ff9b::127.0.0.1]",
    "[64:ff9b:1::a9fe:a9fe]",
    "[2002:a9fe:a9fe::]",  # 6to4
    "[::127.0.0.1]",  # IPv4-compatible
    "[::ffff:169.254.169.254]",
    "[2001:0:a9fe:a9fe::f7f7:f7f7]",  # Teredo through 169.254.169.254
    "2130706433",
    "0x7f000001",
    "127.1",
    "0",
    "0177.0.0.1",
    "0xa9fea9fe",
    "169.254.43518",
]


async def test_inside_addresses_in_every_spelling_are_refused_when_saved_and_nothing_is_kept(guarded):
    ana = await new_player(guarded.base, "Ana")
    async with ChatReceiver("127.0.0.2") as allowed, httpx.AsyncClient(base_url=guarded.base) as http:
        code = await new_group(http, ana)
        base = f"/api/groups/{code}/webhook"
        await set_hook(http, code, ana, allowed.url("/kept"), "json")
        for host in INSIDE_SPELLINGS:
            for url in (f"http://{host}/hook", f"https://{host}:8443/hook"):
                r = await http.put(base, json={"url": url, "format": "discord"}, headers=auth(ana))
                assert r.status_code == 422 and r.json()["error"]["code"] == "bad_url", (url, r.text)
        kept = (await http.get(base, params={"reveal": "true"}, headers=auth(ana))).json()
        assert kept["url"] == allowed.url("/kept") and kept["format"] == "json"
        # A public address written as a number is a public address.
        assert (await set_hook(http, code, ana, "https://134744072/hook"))["format"] == "discord"
    assert allowed.requests == []


async def test_a_groups_owner_sends_a_few_test_messages_then_gets_429_with_retry_after(guarded):
    ana, rui = [await new_player(guarded.base, n) for n in ("Ana", "Rui")]
    async with ChatReceiver("127.0.0.2") as chat, httpx.AsyncClient(base_url=guarded.base) as http:
        code, other = await new_group(http, ana, rui), await new_group(http, ana)
        for group in (code, other):
            await set_hook(http, group, ana, chat.url(f"/{group}"), "json")
        test = f"/api/groups/{code}/webhook/test"
        for _ in range(10):  # a member is refused before anything is counted
            assert (await http.post(test, headers=auth(rui))).status_code == 403
        for _ in range(5):  # FELT_RATE_WEBHOOK_TESTS_BURST
            assert (await http.post(test, headers=auth(ana))).json() == {"delivered": True, "failure": None}
        refused = await http.post(test, headers=auth(ana))
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited", refused.text
        assert "group" in refused.json()["error"]["message"]
        assert 60 <= int(refused.headers["retry-after"]) <= 120  # one in two minutes
        assert (await http.post(test, headers=auth(ana))).status_code == 429
        assert len(chat.requests) == 5  # the refused ones sent nothing
        # Another group's chat is its own: its owner may test it.
        tested = await http.post(f"/api/groups/{other}/webhook/test", headers=auth(ana))
        assert tested.json() == {"delivered": True, "failure": None}
        assert [r["path"] for r in chat.requests] == [f"/{code}"] * 5 + [f"/{other}"]


async def test_names_reach_a_discord_chat_escaped_and_a_json_chat_as_typed(guarded):
    host = await new_player(guarded.base, "[Win](https://evil.io)")
    friend = await new_player(guarded.base, "@everyone")
    async with ChatReceiver("127.0.0.2") as chat, httpx.AsyncClient(base_url=guarded.base) as http:
        r = await http.post("/api/groups", json={"name": "@here **Cards**"}, headers=auth(host))
        assert r.status_code == 201, r.text
        code, invite = r.json()["code"], r.json()["invite_url"].split("#invite=", 1)[1]
        joined = await http.post(f"/api/groups/{code}/join", json={"invite": invite}, headers=auth(friend))
        assert joined.status_code == 200, joined.text
        await set_hook(http, code, host, chat.url("/discord"), "discord")
        assert (await http.post(f"/api/groups/{code}/webhook/test", headers=auth(host))).json()["delivered"]
        room = await open_table(http, code, host)
        await play_table(guarded, room, host, friend)
        await chat.until(lambda r: len(r) >= 3, what="the test, the opening and the result")
        test, opened, result = (b["content"] for b in chat.bodies()[:3])
        link = "\\[Win\\]\\(https\\:\\/\\/evil\\.io\\)"
        assert test == f"Felt: this chat will hear of the tables of \\@here \\*\\*Cards\\*\\*. /g/{code}"
        assert opened == f"{link} opened a new Oh Hell table. /r/{room}"
        assert result.startswith("Oh Hell: ") and link in result and "\\@everyone" in result
        for content in (test, opened, result):  # no mark of markup but escaped ones
            assert re.search(r"(?<!\\)[\[\]()@<>*]", content) is None, content
        assert all(b["allowed_mentions"] == {"parse": []} for b in chat.bodies())

        await set_hook(http, code, host, chat.url("/json"), "json")
        await open_table(http, code, friend)
        await chat.until(lambda r: len(r) >= 4, what="the opening in json")
        assert chat.bodies()[3]["text"] == "@everyone opened a new Oh Hell table."
        assert chat.bodies()[3]["group"]["name"] == "@here **Cards**"
