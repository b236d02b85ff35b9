"""The webhook outbox on both backends: only a group's first message is claimed, by one node at
a time; a claim that ran out is taken over (and the late node's outcome no longer counts); the
retry schedule is kept; the group's bound drops the oldest but never the message being sent;
a single server starting again ends the claims its earlier processes left."""

from __future__ import annotations

import threading

import sqlalchemy as sa

from server.storage import groups, outbox, store
from server.storage.db import Database
from server.storage.outbox import Pending

NOW = 1_800_000_000.0


def a_group(db: Database, name: str = "Tuesday cards") -> str:
    with db.session() as session:
        owner, _ = store.create_player(session, "Ana")
        return groups.create_group(session, owner.id, name)["code"]


def put(db: Database, group: str, text: str, now: float = NOW, bound: int = 20) -> tuple[int, int]:
    with db.session() as session:
        return outbox.put(session, group, {"text": text}, now, bound)


def claim(db: Database, group: str, node: str, now: float = NOW, lease_s: float = 30.0):
    with db.session() as session:
        return outbox.claim(session, group, node, now, lease_s)


def texts(db: Database, group: str | None = None) -> list[str]:
    with db.session() as session:
        return [row["message"]["text"] for row in outbox.queued(session, group)]


def test_only_a_groups_first_message_is_claimed_by_one_node_and_its_retry_schedule_is_kept(db):
    group, other = a_group(db), a_group(db, "Friday cards")
    for text in ("first", "second"):
        put(db, group, text)
    put(db, other, "elsewhere")
    first = claim(db, group, "a")
    assert isinstance(first, Pending) and first.message == {"text": "first"} and first.tries == 0
    assert claim(db, group, "b") == 0.0  # node a sends the group's first message: b waits
    assert isinstance(claim(db, other, "b"), Pending)  # another group is not held up
    with db.session() as session:
        outbox.later(session, first, "a", NOW + 10)
    assert claim(db, group, "b", NOW + 4) == 6.0  # not due yet, for anyone
    again = claim(db, group, "b", NOW + 10)
    assert isinstance(again, Pending) and again.id == first.id and again.tries == 1
    with db.session() as session:
        outbox.done(session, again, "b")
    second = claim(db, group, "a", NOW + 11)
    assert isinstance(second, Pending) and second.message == {"text": "second"}
    with db.session() as session:
        outbox.done(session, second, "a")
    assert claim(db, group, "a", NOW + 12) is None
    assert texts(db) == ["elsewhere"]


def test_a_claim_that_ran_out_is_taken_over_and_the_late_node_no_longer_counts(db):
    group = a_group(db)
    put(db, group, "result")
    late = claim(db, group, "dead", lease_s=30)
    assert isinstance(late, Pending)
    assert claim(db, group, "alive", NOW + 30) == 0.0  # the lease still holds at its end
    taken = claim(db, group, "alive", NOW + 31)
    assert isinstance(taken, Pending) and taken.id == late.id
    with db.session() as session:
        outbox.done(session, late, "dead")
        outbox.later(session, late, "dead", NOW + 1000)
    assert texts(db, group) == ["result"]  # neither the late delete nor the late reschedule
    with db.session() as session:
        row = outbox.queued(session, group)[0]
        assert (row["tries"], row["claimed_by"]) == (0, "alive")
        outbox.done(session, taken, "alive")
    assert texts(db, group) == []


def test_the_bound_drops_the_oldest_messages_but_never_the_one_being_sent(db):
    group = a_group(db)
    assert put(db, group, "1", bound=3) == (1, 0)
    assert isinstance(claim(db, group, "a"), Pending)
    assert [put(db, group, str(n), bound=3) for n in range(2, 6)] == [(2, 0), (3, 0), (3, 1), (3, 1)]
    assert texts(db, group) == ["1", "4", "5"]


def test_a_single_server_starting_again_ends_every_claim_but_its_own(db):
    group, other = a_group(db), a_group(db, "Friday cards")
    put(db, group, "left behind")
    put(db, other, "mine")
    assert isinstance(claim(db, group, "earlier"), Pending)
    assert isinstance(claim(db, other, "now"), Pending)
    with db.session() as session:
        assert outbox.due_groups(session, NOW, 10) == []  # both are being sent
        assert outbox.release(session, None, but="now") == 1
        assert outbox.due_groups(session, NOW, 10) == [group]
        assert outbox.release(session, "now") == 1
        assert outbox.due_groups(session, NOW, 10) == [group, other]


def test_nodes_claiming_at_the_same_moment_on_postgresql_one_wins(pg_db):
    group = a_group(pg_db)
    put(pg_db, group, "once")
    start = threading.Barrier(8)
    won: dict[str, object] = {}

    def race(node: str) -> None:
        start.wait()
        won[node] = claim(pg_db, group, node)

    threads = [threading.Thread(target=race, args=(f"node-{n}",)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [node for node, got in won.items() if isinstance(got, Pending)]
    assert len(winners) == 1 and sorted(v for v in won.values() if not isinstance(v, Pending)) == [0.0] * 7
    with pg_db.session() as session:
        holder = session.execute(sa.text("SELECT claimed_by FROM webhook_outbox")).scalar_one()
    assert holder == winners[0]


def test_a_message_written_again_under_its_key_is_queued_once(db):
    group = a_group(db)
    with db.session() as session:
        assert outbox.put(session, group, {"text": "once"}, NOW, 20, key="k1") == (1, 0)
    with db.session() as session:
        assert outbox.put(session, group, {"text": "once"}, NOW, 20, key="k1") == (1, 0)
    assert texts(db, group) == ["once"]
