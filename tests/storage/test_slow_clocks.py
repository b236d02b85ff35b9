"""Slow clocks are durable: a clock that runs out while its table is parked, or while no server
runs, still plays that one decision, once, and tells the player once; "Your tables" lists the
tables where it is your turn first, with the deadline, parked ones too (never loading them);
a player sits at no more slow tables than the cap. The application runs in this process (its
lifespan, as uvicorn runs it) on SQLite and on PostgreSQL, and stops and starts again on the
same database as a restart does; a recording channel counts the notifications.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager

import httpx
import orjson
import sqlalchemy as sa

from server.app import create_app
from server.config import Settings
from server.notify import Notifier
from server.notify.events import ClockRanOut
from server.rooms import Connection
from server.rooms import manager as manager_module

HOUR = 3600
DECISION_S = 3.0  # an hour a decision, scaled down to this


class Recorder:
    def __init__(self) -> None:
        self.events: list = []

    def offer(self, event) -> None:
        self.events.append(event)

    async def close(self) -> None:
        pass

    def of(self, kind) -> list:
        return [e for e in self.events if isinstance(e, kind)]


async def _noop_close(code: int, reason: str) -> None:
    return None


async def until(predicate, timeout: float = 30.0, what: str = "a condition") -> None:
    for _ in range(int(timeout / 0.01)):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{what} never came")


@asynccontextmanager
async def running(url: str, tmp_path, monkeypatch, **settings):
    """The application started on ``url`` (its tables restored), a client, and a recording
    channel on its notifier from the very start (a clock due at the restore is told too)."""
    seen = Recorder()

    def notifier() -> Notifier:
        made = Notifier()
        made.add(seen)
        return made

    monkeypatch.setattr(manager_module, "Notifier", notifier)
    defaults = {
        "bot_delay_ms": 0,
        "turn_timer_scale": DECISION_S / HOUR,
        "slow_clock_poll_s": 0.05,
        "reconnect_grace_s": 600,
        "spool_path": tmp_path / "spool.jsonl",
    }
    app = create_app(Settings(database_url=url, **{**defaults, **settings}))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://felt") as client:
            await until(lambda: app.state.rooms.restored, what="the restore")
            yield app, client, seen
            await app.state.writer.flush()


async def new_player(client: httpx.AsyncClient, name: str) -> dict:
    r = await client.post("/api/players", json={"name": name})
    assert r.status_code in (200, 201), r.text
    return r.json()


async def slow_table(app, client, player: dict, turn_timer: int = HOUR, start: bool = True):
    """A slow Oh Hell table of ``player`` and three bots, started: its room and the player's socket."""
    created = await client.post(
        "/api/rooms",
        json={"game": "oh_hell", "options": {"max_cards": 7, "rebound": False}, "seats": 4, "turn_timer": turn_timer},
        headers={"Authorization": f"Bearer {player['token']}"},
    )
    assert created.status_code == 201, created.text
    room = app.state.rooms.get(created.json()["code"])
    conn = Connection(player["id"], player["name"], _noop_close)
    await room.join(conn)
    for seat in (1, 2, 3):
        await room.set_bot(conn, seat, False)
    if start:
        await room.start(conn)
    return room, conn


def clock_turns(url: str, code: str) -> list[int]:
    """The seats the clock played for at table ``code``, as its stored log says."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as db:
            rows = db.execute(
                sa.text("SELECT data FROM table_log WHERE code = :code AND kind = 'act' ORDER BY version"),
                {"code": code},
            ).scalars()
            return [d["seat"] for d in map(orjson.loads, rows) if d.get("clock")]
    finally:
        engine.dispose()


async def play_her_next_turn(app, code: str, player: dict, deadline: int) -> None:
    """The player comes back and plays her next turn herself (a turn armed after ``deadline``)."""
    room = app.state.rooms.get(code)
    assert room is not None
    conn = Connection(player["id"], player["name"], _noop_close)
    await room.join(conn)
    table = room.table
    await until(lambda: 0 in table.people_to_act() and table.clock.deadline != deadline, what="her next turn")
    await room.act(conn, table.game.legal_actions(table.state, 0)[0], room.version)


async def test_a_slow_clock_that_runs_out_while_its_table_is_parked_plays_once(database_url, tmp_path, monkeypatch):
    async with running(database_url, tmp_path, monkeypatch) as (app, client, seen):
        ann = await new_player(client, "Ann")
        room, conn = await slow_table(app, client, ann)
        code, table = room.code, room.table
        await until(lambda: 0 in table.people_to_act(), what="Ann's turn")
        deadline = table.clock.deadline
        await room.leave(conn)
        await room.retire("park")  # out of memory, as the sweep parks a table nobody looks at
        assert app.state.rooms.get(code) is None and time.time() * 1000 < deadline
        await until(lambda: seen.of(ClockRanOut), what="the clock running out")
        told = seen.of(ClockRanOut)
        assert [(e.table, e.player_id, e.away) for e in told] == [(code, ann["id"], False)]
        await play_her_next_turn(app, code, ann, deadline)
        await app.state.writer.flush()
        assert clock_turns(database_url, code) == [0]
        assert len(seen.of(ClockRanOut)) == 1


async def test_a_slow_clock_that_runs_out_while_no_server_runs_plays_once_after_the_start(
    database_url, tmp_path, monkeypatch
):
    async with running(database_url, tmp_path, monkeypatch) as (app, client, _seen):
        ann = await new_player(client, "Ann")
        room, _conn = await slow_table(app, client, ann)
        code, table = room.code, room.table
        await until(lambda: 0 in table.people_to_act(), what="Ann's turn")
        deadline = table.clock.deadline
    # The server is down while the deadline passes (waiting for the time, not for an event).
    await asyncio.sleep(max(0.0, deadline / 1000 - time.time()) + 0.2)
    assert clock_turns(database_url, code) == []
    async with running(database_url, tmp_path, monkeypatch) as (app, client, seen):
        await until(lambda: seen.of(ClockRanOut), what="the clock running out")
        await play_her_next_turn(app, code, ann, deadline)
        await app.state.writer.flush()
        assert clock_turns(database_url, code) == [0]
        assert [(e.table, e.player_id) for e in seen.of(ClockRanOut)] == [(code, ann["id"])]


async def test_your_tables_lists_your_turns_first_with_the_deadline_parked_ones_too(
    database_url, tmp_path, monkeypatch
):
    # No clock is due here: the poller looks too seldom to race the parking with a row not yet
    # written (it would bring the table back, as it must for a row that says a bot is to play).
    async with running(database_url, tmp_path, monkeypatch, slow_clock_poll_s=3600) as (app, client, _seen):
        ann = await new_player(client, "Ann")
        mine, conn = await slow_table(app, client, ann, turn_timer=3 * 24 * HOUR)
        await until(lambda: 0 in mine.table.people_to_act(), what="Ann's turn")
        deadline = mine.table.clock.deadline
        await mine.leave(conn)
        await mine.retire("park")
        newer, _ = await slow_table(app, client, ann, start=False)  # newest, not started: nobody's turn
        await app.state.writer.flush()
        r = await client.get("/api/tables", headers={"Authorization": f"Bearer {ann['token']}"})
        assert r.status_code == 200, r.text
        listed = [(t["code"], t["status"], t["your_turn"], t["deadline"], t["turn_timer"]) for t in r.json()["tables"]]
        assert listed == [
            (mine.code, "parked", True, deadline, 3 * 24 * HOUR),
            (newer.code, "waiting", False, None, HOUR),
        ]
        assert app.state.rooms.get(mine.code) is None  # listing loaded nothing


async def test_a_player_may_sit_at_no_more_slow_tables_than_the_cap(database_url, tmp_path, monkeypatch):
    async with running(database_url, tmp_path, monkeypatch, max_slow_tables_per_player=2) as (app, client, _seen):
        ann = await new_player(client, "Ann")
        first, conn = await slow_table(app, client, ann, start=False)
        await first.leave(conn)
        await first.retire("park")  # parked tables count too
        await slow_table(app, client, ann, start=False)
        await app.state.writer.flush()
        body = {"game": "oh_hell", "options": {}, "seats": 4, "turn_timer": 24 * HOUR}
        auth = {"Authorization": f"Bearer {ann['token']}"}
        refused = await client.post("/api/rooms", json=body, headers=auth)
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "too_many_slow_tables", refused.text
        fast = await client.post("/api/rooms", json={**body, "turn_timer": 60}, headers=auth)
        assert fast.status_code == 201, fast.text


async def test_a_seat_taken_here_counts_before_the_store_has_it(database_url, tmp_path, monkeypatch):
    async with running(database_url, tmp_path, monkeypatch, max_slow_tables_per_player=2) as (app, client, _seen):
        from server.rooms import RoomError

        bob, ann = await new_player(client, "Bob"), await new_player(client, "Ann")
        await slow_table(app, client, ann, start=False)  # her own: one of her two
        first, _ = await slow_table(app, client, bob, start=False)
        second, _ = await slow_table(app, client, bob, start=False)
        for room in (first, second):
            await room.set_bot(Connection(bob["id"], "Bob", _noop_close), 1, True)
        await app.state.writer.flush()
        her = Connection(ann["id"], "Ann", _noop_close)
        await first.join(her)
        await second.join(her)
        await first.sit(her, 1)
        # No wait for the writer: the table held here says she sits at it, whatever the store says yet.
        try:
            await second.sit(her, 1)
        except RoomError as refused:
            assert refused.code == "too_many_slow_tables"
        else:
            raise AssertionError("a third slow seat was given past the cap of two")
        assert second.seat_of(ann["id"]) is None
