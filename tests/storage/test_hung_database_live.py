"""A database that hangs (accepts connections, never answers) through a real server.

PostgreSQL sits behind a proxy of the test's own that can be frozen (it keeps accepting and
forwards nothing, as a stopped database server does). While it is frozen the live table plays
on (its changes go to the spool), new sockets and every HTTP route answer, each 503 with
Retry-After; thawed, the spool is written to the database and the log has every version shown.
SQLite: a file locked by another process for longer than the deadline takes the same path.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path

import httpx
import psycopg
import pytest
from frozen_proxy import FrozenProxy
from live_server import LiveServer
from sqlalchemy.engine import make_url
from ws_client import Client, choose, host_with_bots, new_player, new_room

from server.rooms.seats import new_room_code

# Generous client timeouts: a route or a socket that hangs fails the test by running past
# them; one that answers (within the server's short deadlines) never comes near them.
ANSWER_S = 30.0
SETTINGS = {"FELT_DB_TIMEOUT_S": "1", "FELT_RECONNECT_GRACE_S": "30"}


async def _play(host: Client, rng: random.Random, moves: int) -> None:
    """Let the table advance ``moves`` versions: the host acts on its turns, bots on theirs."""
    target = host.v + moves
    while host.v < target:
        assert host.state["room"]["status"] != "finished", "the match ended: pick longer options"
        if host.my_turn():
            v = host.v
            await host.send({"type": "act", "action": choose(host.game, rng), "v": v})
            await host.wait(lambda c, v=v: c.v > v or c.errors, ANSWER_S, "the action's patch")
        else:
            v = host.v
            await host.wait(lambda c, v=v: c.v > v or c.my_turn() or c.errors, ANSWER_S, "the bots' moves")
        assert not host.errors, host.errors


def _assert_unavailable(r: httpx.Response) -> None:
    assert r.status_code == 503, (r.request.url, r.status_code, r.text)
    assert r.json()["error"]["code"] == "unavailable"
    assert int(r.headers["retry-after"]) >= 1, r.headers


async def _wait_for(condition, what: str, timeout: float = 120) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not await condition():
        assert asyncio.get_running_loop().time() < deadline, f"never: {what}"
        await asyncio.sleep(0.1)


def _spool_empty(server: LiveServer) -> bool:
    spool = server.tmp / "felt-spool.jsonl"
    return not spool.exists() or spool.stat().st_size == 0


async def _healthy(server: LiveServer) -> bool:
    async with httpx.AsyncClient(base_url=server.base, timeout=ANSWER_S) as http:
        return (await http.get("/healthz")).status_code == 200


async def _drained(server: LiveServer) -> None:
    async def done() -> bool:
        return _spool_empty(server) and await _healthy(server)

    await _wait_for(done, "the spool written to the database and /healthz 200")


async def _routes_answer_503_with_retry_after(server: LiveServer, stranger: dict) -> None:
    async with httpx.AsyncClient(base_url=server.base, timeout=ANSWER_S) as http:
        _assert_unavailable(await http.get("/healthz"))
        _assert_unavailable(await http.get("/api/matches"))
        _assert_unavailable(await http.get(f"/api/rooms/{new_room_code()}"))  # not in memory: the store is asked
        _assert_unavailable(await http.get("/api/tables", headers={"Authorization": f"Bearer {stranger['token']}"}))
        _assert_unavailable(await http.get("/healthz"))  # still answering, the calls above still waiting


async def _new_sockets_answer(server: LiveServer, code: str, host: dict, stranger: dict) -> None:
    """A known player's socket connects; one whose token must be looked up is refused (1013)."""
    again = await asyncio.wait_for(Client(server.ws_base, code, host["token"], "host again").connect(), ANSWER_S)
    await again.close()
    refused = Client(server.ws_base, code, stranger["token"], "stranger")
    with pytest.raises(AssertionError):
        await asyncio.wait_for(refused.connect(), ANSWER_S)
    assert refused.errors and refused.errors[0]["code"] == "unavailable", refused.errors
    assert refused.closed is not None and refused.closed[0] == 1013, refused.closed


def _pg_versions(url: str, code: str) -> list[int]:
    plain = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(plain) as conn:
        rows = conn.execute("SELECT version FROM table_log WHERE code = %s ORDER BY version", (code,)).fetchall()
    return [v for (v,) in rows]


def _sqlite_versions(path: Path, code: str) -> list[int]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute("SELECT version FROM table_log WHERE code = ? ORDER BY version", (code,)).fetchall()
    return [v for (v,) in rows]


def _assert_nothing_shown_was_lost(versions: list[int], shown: int, tmp_path: Path) -> None:
    """The log holds every version a client was shown, with no gap, and the server logged no traceback."""
    assert versions == list(range(1, len(versions) + 1)) and len(versions) >= shown, (shown, versions)
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]


@pytest.mark.postgres
async def test_a_frozen_postgres_never_stalls_a_table_and_loses_nothing_shown(tmp_path, pg_databases):
    url = pg_databases.create()
    upstream = make_url(url)
    proxy = FrozenProxy(upstream.host or "127.0.0.1", upstream.port or 5432)
    server = LiveServer(tmp_path, DATABASE_URL=proxy.url_for(url), **SETTINGS)
    rng = random.Random(7)
    try:
        host = await new_player(server.base, "Host")
        stranger = await new_player(server.base, "Stranger")  # its token is never cached
        code = await new_room(server.base, host["token"], "oh_hell", {"max_cards": 7})
        seat = await host_with_bots(server.ws_base, code, host["token"])
        await seat.send({"type": "start"})
        await _play(seat, rng, 5)
        proxy.freeze()
        await _play(seat, rng, 20)  # shown: durable in the spool
        await _routes_answer_503_with_retry_after(server, stranger)
        await _new_sockets_answer(server, code, host, stranger)
        await _play(seat, rng, 10)
        proxy.thaw()
        await _play(seat, rng, 5)
        await _drained(server)
        shown = seat.v
        await seat.close()
    finally:
        server.stop()
        proxy.close()
    _assert_nothing_shown_was_lost(_pg_versions(url, code), shown, tmp_path)


async def test_a_sqlite_file_locked_past_the_deadline_spools_and_play_goes_on(tmp_path):
    server = LiveServer(tmp_path, **SETTINGS)
    rng = random.Random(8)
    try:
        host = await new_player(server.base, "Host")
        code = await new_room(server.base, host["token"], "oh_hell", {"max_cards": 7})
        seat = await host_with_bots(server.ws_base, code, host["token"])
        await seat.send({"type": "start"})
        await _play(seat, rng, 5)
        holder = sqlite3.connect(tmp_path / "felt.db", isolation_level=None, timeout=30)
        try:
            holder.execute("BEGIN EXCLUSIVE")
            await _play(seat, rng, 20)  # past the deadline many times over: spooled, shown
            assert not _spool_empty(server)
            holder.execute("COMMIT")
        finally:
            holder.close()
        await _play(seat, rng, 5)
        await _drained(server)
        shown = seat.v
        await seat.close()
    finally:
        server.stop()
    _assert_nothing_shown_was_lost(_sqlite_versions(tmp_path / "felt.db", code), shown, tmp_path)


def _redis_url() -> str:
    redis = pytest.importorskip("redis")
    url = "redis://127.0.0.1:6379/0"
    try:
        redis.Redis.from_url(url, socket_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at {url} does not answer: {exc}")
    return url


async def _refused_until_outage(seat: Client) -> None:
    """Chat until a change is refused: the node knows the database does not answer."""

    async def refused() -> bool:
        if seat.closed is None and not seat.errors:
            await seat.send({"type": "chat", "text": "anyone there?"})
            await asyncio.sleep(0.25)
        return seat.closed is not None

    await _wait_for(refused, "a change to be refused")
    assert [e["code"] for e in seat.errors] == ["unavailable"], seat.errors
    assert seat.closed[0] == 1013, seat.closed


async def _reconnect(server: LiveServer, code: str, token: str) -> Client:
    for _ in range(600):
        try:
            return await asyncio.wait_for(Client(server.ws_base, code, token, "host").connect(), ANSWER_S)
        except AssertionError:  # refused (1013) while the node still counts an outage
            await asyncio.sleep(0.1)
    raise AssertionError("never reconnected")


@pytest.mark.postgres
async def test_without_a_spool_a_frozen_postgres_is_an_outage_and_play_resumes_after(tmp_path, pg_databases):
    redis_url = _redis_url()
    url = pg_databases.create()
    upstream = make_url(url)
    proxy = FrozenProxy(upstream.host or "127.0.0.1", upstream.port or 5432)
    server = LiveServer(
        tmp_path,
        DATABASE_URL=proxy.url_for(url),
        FELT_REDIS_URL=redis_url,
        FELT_REDIS_PREFIX=f"felt-test-{new_room_code().lower()}:",
        FELT_NODE_ID="n1",
        **SETTINGS,
    )
    rng = random.Random(9)
    try:
        host = await new_player(server.base, "Host")
        code = await new_room(server.base, host["token"], "oh_hell", {"max_cards": 7})
        seat = await host_with_bots(server.ws_base, code, host["token"])
        await seat.send({"type": "start"})
        await _play(seat, rng, 5)
        proxy.freeze()
        await _refused_until_outage(seat)
        async with httpx.AsyncClient(base_url=server.base, timeout=ANSWER_S) as http:
            _assert_unavailable(await http.get("/healthz"))
        assert _spool_empty(server), "a node of a cluster never spools"
        proxy.thaw()
        seat = await _reconnect(server, code, host["token"])
        await _play(seat, rng, 5)
        shown = seat.v
        await seat.close()
    finally:
        server.stop()
        proxy.close()
    _assert_nothing_shown_was_lost(_pg_versions(url, code), shown, tmp_path)


@pytest.mark.postgres
async def test_a_server_started_while_postgres_hangs_serves_503_then_restores(tmp_path, pg_databases):
    url = pg_databases.create()
    upstream = make_url(url)
    proxy = FrozenProxy(upstream.host or "127.0.0.1", upstream.port or 5432)
    proxy.freeze()
    server = LiveServer(tmp_path, healthy=False, DATABASE_URL=proxy.url_for(url), **SETTINGS)
    try:
        async with httpx.AsyncClient(base_url=server.base, timeout=ANSWER_S) as http:
            _assert_unavailable(await http.get("/healthz"))
            _assert_unavailable(await http.get("/api/matches"))
        proxy.thaw()
        await _wait_for(lambda: _healthy(server), "/healthz 200 once the database answers")
        host = await new_player(server.base, "Host")
        code = await new_room(server.base, host["token"], "ribs", {"target": 1})
        seat = await host_with_bots(server.ws_base, code, host["token"])
        await seat.close()
    finally:
        server.stop()
        proxy.close()
    log = (tmp_path / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]
