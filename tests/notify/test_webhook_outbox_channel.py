"""The webhook channel over its outbox, with a real database (SQLite and PostgreSQL) and a real
receiver on loopback: two servers on one database send each waiting message once, each group's
in order; a message claimed by a server that died is sent once its claim runs out; a message
waiting for its next try goes to the webhook as it is then (a new URL, or nowhere once it was
removed); a database that is away delays the messages and loses none."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from contextlib import contextmanager
from dataclasses import asdict

import psycopg
from chat_receiver import ChatReceiver
from live_server import free_port

from server.notify.events import TableOpened, YourTurn
from server.notify.outbound import Outbound
from server.notify.webhooks import Message, Webhooks
from server.storage import groups, outbox, store
from server.storage.db import Database


def new_group(db: Database, name: str, url: str, table: str | None = None) -> str:
    with db.session() as session:
        owner, _ = store.create_player(session, "Ana")
        code = groups.create_group(session, owner.id, name)["code"]
        groups.save_webhook(session, code, url, "json")
        if table is not None:
            groups.link_table(session, code, table, "ribs")
    return code


def queue(db: Database, code: str, text: str) -> None:
    """A message queued as another server would have queued it."""
    message = Message("table_open", code, "Cards", None, text, f"/g/{code}")
    with db.session() as session:
        outbox.put(session, code, asdict(message), 0.0, 20)


def announce(node: Webhooks, code: str, opened: TableOpened) -> None:
    """A table of group ``code`` opened: its opening queued as the API queues it."""
    with node.db.session() as session:
        queued = node.announce(session, opened, code)
    node.announced(opened.table, code, queued)


SLOW_TURN = YourTurn("t1", "ribs", "Ana", ("p2",), ("Rui",), frozenset(), None, 3600, 3)


def waiting(db: Database) -> list[dict]:
    with db.session() as session:
        return outbox.queued(session)


async def until_outbox(db: Database, predicate, what: str) -> list[dict]:
    for _ in range(2000):
        rows = await db.call(waiting, db)
        if predicate(rows):
            return rows
        await asyncio.sleep(0.01)
    raise AssertionError(f"the outbox never {what}: {rows}")


async def until_counted(predicate, what: str) -> None:
    """A node counts a message just after its outbox row is done, so a test that read the
    emptied outbox may look at the count a moment before the node has made it."""
    for _ in range(2000):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"the node never counted {what}")


def channel(db: Database, outbound: Outbound, node: str, **options) -> Webhooks:
    return Webhooks(db, outbound, node=node, shared=True, sweep_s=0.05, backoff_scale=0.001, **options)


async def test_two_servers_on_one_database_send_each_message_once_in_each_groups_order(database):
    async with ChatReceiver() as chat:
        codes = [new_group(database, f"Group {n}", chat.url(f"/hook/{n}")) for n in range(5)]
        for n in range(4):
            for code in codes:
                queue(database, code, f"{code} {n}")
        outbound = Outbound(allow_private=True)
        nodes = [channel(database, outbound, name) for name in ("north", "south")]
        for node in nodes:
            node.start()
        await chat.until(lambda r: len(r) >= 20, what="the 20 messages")
        await until_outbox(database, lambda rows: rows == [], "emptied")
        texts = [b["text"] for b in chat.bodies()]
        assert sorted(texts) == sorted(f"{code} {n}" for code in codes for n in range(4))  # each once
        for code in codes:
            assert [t for t in texts if t.startswith(code)] == [f"{code} {n}" for n in range(4)]
        await until_counted(lambda: sum(node.sent for node in nodes) >= 20, "the 20 messages")
        assert sum(node.sent for node in nodes) == 20
        for node in nodes:
            await node.close()
        await outbound.aclose()


async def test_a_message_claimed_by_a_server_that_died_is_sent_once_its_claim_runs_out(database):
    async with ChatReceiver() as chat:
        code = new_group(database, "Tuesday cards", chat.url("/hook/x"))
        queue(database, code, "left behind")
        with database.session() as session:
            claimed = outbox.claim(session, code, "gone", 0.0, 0.0)  # claimed, and already run out
        assert isinstance(claimed, outbox.Pending)
        outbound = Outbound(allow_private=True)
        node = channel(database, outbound, "heir")
        node.start()
        await chat.until(lambda r: len(r) == 1, what="the message taken over")
        await until_outbox(database, lambda rows: rows == [], "emptied")
        await until_counted(lambda: node.sent + node.failed >= 1, "the message")
        assert [b["text"] for b in chat.bodies()] == ["left behind"] and node.sent == 1
        await node.close()
        await outbound.aclose()


async def test_a_message_waiting_for_its_next_try_goes_to_the_webhook_as_it_is_then(database):
    dead = f"http://127.0.0.1:{free_port()}/hook/old"  # nothing listens there
    async with ChatReceiver() as chat:
        moved = new_group(database, "Moved", dead, table="t1")
        removed = new_group(database, "Removed", dead, table="t2")
        outbound = Outbound(allow_private=True)
        node = channel(database, outbound, "only", backoff_s=(1000.0,))
        now = 1_800_000_000.0
        node._wall = lambda: now
        node.start()
        announce(node, moved, TableOpened("t1", "ribs", "Ana"))
        announce(node, removed, TableOpened("t2", "ribs", "Rui"))
        rows = await until_outbox(database, lambda rows: [r["tries"] for r in rows] == [1, 1], "tried each once")
        assert all("old" not in str(r["message"]) for r in rows)  # the outbox never holds the URL
        with database.session() as session:
            groups.save_webhook(session, moved, chat.url("/hook/new"), "discord")
            groups.delete_webhook(session, removed)
        now += 1000 * 0.001  # the next try is due
        await chat.until(lambda r: len(r) == 1, what="the message at the new URL")
        await until_outbox(database, lambda rows: rows == [], "emptied")
        assert chat.requests[0]["path"] == "/hook/new"
        assert chat.bodies()[0]["content"].startswith("Ana opened a new Ribs table.")  # the new format
        await until_counted(lambda: node.sent + node.failed >= 1, "the message")
        assert (node.sent, node.failed) == (1, 0)
        await node.close()
        await outbound.aclose()


@contextmanager
def outbox_locked(db: Database):
    """Another connection holds the outbox's lock (the table's writers wait, and give up)."""
    if db.is_sqlite:
        holder = sqlite3.connect(db.url.database, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            yield
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        return
    with psycopg.connect(db.url.set(drivername="postgresql").render_as_string(hide_password=False)) as holder:
        holder.execute("LOCK TABLE webhook_outbox IN ACCESS EXCLUSIVE MODE")
        yield
        holder.rollback()


async def test_a_database_that_is_away_delays_the_messages_and_loses_none(database, caplog):
    caplog.set_level(logging.WARNING, "felt.notify.webhooks")
    async with ChatReceiver() as chat:
        new_group(database, "Tuesday cards", chat.url("/hook/x"), table="t1")
        quick = Database(database.url.render_as_string(hide_password=False), timeout_s=0.3)
        outbound = Outbound(allow_private=True)
        node = Webhooks(quick, outbound, sweep_s=0.05)
        node.start()
        with outbox_locked(database):
            node.offer(SLOW_TURN)  # returns at once, as for every table
            for _ in range(1000):
                if "the database is away" in caplog.text:
                    break
                await asyncio.sleep(0.01)
            else:
                raise AssertionError("the outbox's write never failed")
            assert chat.requests == []
        await chat.until(lambda r: len(r) == 1, what="the message once the database is back")
        await until_outbox(database, lambda rows: rows == [], "emptied")
        await until_counted(lambda: node.sent + node.failed >= 1, "the message")
        assert chat.bodies()[0]["text"] == "Rui's turn at Ana's Ribs table (1 h to decide)." and node.sent == 1
        await node.close()
        await outbound.aclose()
        quick.dispose()
