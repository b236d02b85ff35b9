"""What a group's chat is told, and the channel that tells it, with a real database and a real
receiver on loopback: a turn only at slow tables (an hour or more a decision) and only for
players away from the table; a result line names the winners and the final scores by side;
names are escaped in the Discord format (no markup, link or mention made of them) and mentions
are off there besides; the owner's view of a URL hides its secret."""

from __future__ import annotations

import asyncio

import orjson
import pytest
from chat_receiver import ChatReceiver

from server.notify import Notifier
from server.notify.events import MatchFinished, TableOpened, YourTurn
from server.notify.outbound import Outbound
from server.notify.webhooks import Message, Webhooks, body_of, compose, discord_escaped, masked, result_line
from server.storage import groups, outbox, store
from server.storage.db import Database

HOOK = {"group": "abcdefghjk", "group_name": "Tuesday cards"}


def turn(clock_s: int, watching: frozenset[str] = frozenset(), players=("p1",), names=("Ana",)) -> YourTurn:
    return YourTurn("tbl", "bid_whist", "Rui", players, names, watching, None, clock_s, 7)


def test_a_turn_is_told_only_at_a_slow_table_and_only_for_players_away_from_it():
    assert compose(turn(120), HOOK, "") is None
    assert compose(turn(3599), HOOK, "") is None
    assert compose(turn(3600, frozenset({"p1"})), HOOK, "") is None
    told = compose(turn(86_400), HOOK, "https://cards.example.org")
    assert told == Message(
        "your_turn",
        "abcdefghjk",
        "Tuesday cards",
        "tbl",
        "Ana's turn at Rui's Bid Whist table (1 d to decide).",
        "https://cards.example.org/r/tbl",
        ("", "Ana", "'s turn at ", "Rui", "'s Bid Whist table (1 d to decide)."),
    )
    two = compose(turn(43_200, frozenset({"p2"}), ("p1", "p2", "p3"), ("Ana", "Bo", "Cy")), HOOK, "")
    assert two is not None and two.text.startswith("Ana & Cy's turn") and "(12 h to decide)" in two.text
    assert two.url == "/r/tbl"


def record(game: str, names: list[str | None], scores: list[int], winners: list[int]) -> dict:
    players = [
        {"seat": i, "name": n or f"Bot {i + 1}", "player_id": None if n is None else f"p{i}", "bot": n is None}
        for i, n in enumerate(names)
    ]
    return {"game": game, "players": players, "scores": scores, "winners": winners}


def test_a_result_line_names_the_winners_and_the_final_scores_by_side_best_first():
    whist = record("bid_whist", ["Ana", "Rui", "Eva", None], [3, 7, 3, 7], [1, 3])
    assert result_line(whist) == "Bid Whist: Rui & Bot 4 won · Rui & Bot 4 7, Ana & Eva 3"
    hell = record("oh_hell", ["Ana", "Rui", None], [18, 23, 9], [1])
    assert result_line(hell) == "Oh Hell: Rui won · Rui 23, Ana 18, Bot 3 9"
    tie = record("oh_hell", ["Ana", "Rui", None], [20, 20, 9], [0, 1])
    assert result_line(tie).startswith("Oh Hell: Ana & Rui won · ")
    finished = compose(MatchFinished("tbl", "oh_hell", hell), HOOK, "")
    assert finished is not None and finished.url == "/g/abcdefghjk" and finished.event == "match_finished"


def test_the_formats_and_the_masked_url():
    message = compose(TableOpened("tbl", "ribs", "@everyone"), HOOK, "")
    assert message is not None
    assert orjson.loads(body_of(message, "discord")) == {
        "content": "\\@everyone opened a new Ribs table. /r/tbl",  # shown as typed, pinging nobody
        "allowed_mentions": {"parse": []},  # and no name ever pings the chat
    }
    assert orjson.loads(body_of(message, "json")) == {
        "event": "table_open",
        "group": {"code": "abcdefghjk", "name": "Tuesday cards"},
        "table": "tbl",
        "text": "@everyone opened a new Ribs table.",
        "url": "/r/tbl",
    }
    secret = "https://discord.com/api/webhooks/1234567890/AbCdEfGhIjKlMnOpQrStUvWxYz"
    assert masked(secret) == "https://discord.com/…WxYz"


HOSTILE_NAMES = {
    "[Win](https://evil.io)": "\\[Win\\]\\(https\\:\\/\\/evil\\.io\\)",  # no masked link
    "https://evil.io": "https\\:\\/\\/evil\\.io",  # no link
    "@everyone": "\\@everyone",
    "@here": "\\@here",
    "<@123456789>": "\\<\\@123456789\\>",  # no mention of a member
    "<#42> <:x:7>": "\\<\\#42\\> \\<\\:x\\:7\\>",  # of a channel, of an emoji
    "**Ana** __b__": "\\*\\*Ana\\*\\* \\_\\_b\\_\\_",
    "~~x~~ ||y|| `z`": "\\~\\~x\\~\\~ \\|\\|y\\|\\| \\`z\\`",
    "# Big": "\\# Big",
    "> quote": "\\> quote",
    "- item": "\\- item",
    "1. item": "1\\. item",
    "\\o/": "\\\\o\\/",
    "Zoë O'Neil": "Zoë O\\'Neil",
    "Ana": "Ana",
}


def test_discord_shows_every_name_as_typed():
    for name, escaped in HOSTILE_NAMES.items():
        assert discord_escaped(name) == escaped, name


def test_names_in_every_message_are_escaped_for_discord_and_plain_in_json():
    hook = {"group": "abcdefghjk", "group_name": "[G](https://g.io)"}
    hell = record("oh_hell", ["[Win](https://evil.io)", "@everyone", None], [18, 23, 9], [1])
    messages = [
        compose(TableOpened("tbl", "ribs", "<@1>"), hook, ""),
        compose(turn(86_400, names=("*Ana*",)), hook, ""),
        compose(MatchFinished("tbl", "oh_hell", hell), hook, ""),
        Webhooks(None, None).test_message("abcdefghjk", "[G](https://g.io)"),  # type: ignore[arg-type]
    ]
    # Each message as Discord gets it (the link after it) and as JSON's text.
    assert [(orjson.loads(body_of(m, "discord"))["content"], m.text) for m in messages if m is not None] == [
        ("\\<\\@1\\> opened a new Ribs table. /r/tbl", "<@1> opened a new Ribs table."),
        (
            "\\*Ana\\*'s turn at Rui's Bid Whist table (1 d to decide). /r/tbl",
            "*Ana*'s turn at Rui's Bid Whist table (1 d to decide).",
        ),
        (
            "Oh Hell: \\@everyone won · \\@everyone 23, \\[Win\\]\\(https\\:\\/\\/evil\\.io\\) 18, Bot 3 9"
            " /g/abcdefghjk",
            "Oh Hell: @everyone won · @everyone 23, [Win](https://evil.io) 18, Bot 3 9",
        ),
        (
            "Felt: this chat will hear of the tables of \\[G\\]\\(https\\:\\/\\/g\\.io\\). /g/abcdefghjk",
            "Felt: this chat will hear of the tables of [G](https://g.io).",
        ),
    ]
    assert all(orjson.loads(body_of(m, "json"))["text"] == m.text for m in messages if m is not None)


def test_a_message_queued_without_its_parts_is_escaped_whole():
    queued = Message("table_open", "abcdefghjk", "Cards", "tbl", "[Win](https://evil.io) opened a table.", "/r/tbl")
    content = orjson.loads(body_of(queued, "discord"))["content"]
    assert content == "\\[Win\\]\\(https\\:\\/\\/evil\\.io\\) opened a table\\. /r/tbl"


async def delivered(db: Database, code: str) -> dict:
    """The group's webhook once its delivery is stored (the lane stores it after the reply)."""

    def read() -> dict | None:
        with db.session() as session:
            return groups.webhook_of(session, code)

    for _ in range(1000):
        hook = await db.call(read)
        if hook is not None and hook["last_ok_at"] is not None:
            return hook
        await asyncio.sleep(0.01)
    raise AssertionError("the delivery was never stored")


async def test_a_slow_turn_reaches_the_group_of_its_table_through_the_notifier(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'felt.db'}")
    db.upgrade()
    async with ChatReceiver() as chat:
        with db.session() as session:
            owner, _ = store.create_player(session, "Rui")
            code = groups.create_group(session, owner.id, "Tuesday cards")["code"]
            groups.link_table(session, code, "tbl", "bid_whist")
            groups.save_webhook(session, code, chat.url("/hook/s3cret"), "json")
        outbound = Outbound(allow_private=True)
        webhooks = Webhooks(db, outbound, backoff_scale=0.001)
        webhooks.start()
        notifier = Notifier()
        notifier.add(webhooks)
        notifier.publish(turn(60))  # a fast table's turn: not for the chat
        notifier.publish(TableOpened("other", "ribs", "Eve"))  # a table of no group
        notifier.publish(turn(3600, players=("p2",), names=("Ana",)))
        await chat.until(lambda r: len(r) == 1, what="the slow turn")
        told = chat.bodies()[0]
        assert told["event"] == "your_turn" and told["text"].startswith("Ana's turn at Rui's Bid Whist table")
        assert told["group"] == {"code": code, "name": "Tuesday cards"}
        hook = await delivered(db, code)
        assert hook["last_failure"] is None and webhooks.sent == 1 and webhooks.queued() == 0
        await webhooks.close()
        await outbound.aclose()
    db.dispose()


async def test_a_tables_opening_is_queued_with_its_link_to_the_group_and_only_then(tmp_path):
    """A room is opened before the API links it to its group: its opening is written to the
    outbox in the link's transaction (rolled back, nothing is queued); the event the room
    published is not routed, so the chat hears of the table once."""
    db = Database(f"sqlite:///{tmp_path / 'felt.db'}")
    db.upgrade()
    async with ChatReceiver() as chat:
        with db.session() as session:
            owner, _ = store.create_player(session, "Rui")
            code = groups.create_group(session, owner.id, "Tuesday cards")["code"]
            groups.save_webhook(session, code, chat.url("/hook/s3cret"), "json")
        outbound = Outbound(allow_private=True)
        webhooks = Webhooks(db, outbound, sweep_s=0.05)
        webhooks.start()
        opened = TableOpened("late", "ribs", "Rui")
        webhooks.offer(opened)  # as the room publishes it, before the link
        with pytest.raises(RuntimeError), db.session() as session:
            groups.link_table(session, code, "late", "ribs")
            assert webhooks.announce(session, opened, code) == (1, 0)
            raise RuntimeError("the link fails")
        with db.session() as session:
            assert outbox.queued(session) == [] and groups.group_of_table(session, "late") is None
            groups.link_table(session, code, "late", "ribs")
            queued = webhooks.announce(session, opened, code)
        webhooks.announced("late", code, queued)
        await chat.until(lambda r: len(r) == 1, what="the opening")
        await asyncio.sleep(0.3)  # the sweep looked again meanwhile: nothing more
        assert chat.bodies()[0]["text"] == "Rui opened a new Ribs table." and len(chat.requests) == 1
        await webhooks.close()
        await outbound.aclose()
    db.dispose()
