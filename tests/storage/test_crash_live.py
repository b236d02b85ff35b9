"""The crash test: players keep playing while the server is killed and started again.

Four clients per room play random legal actions in a room of every game; the server is
killed (SIGKILL, or stopped with SIGTERM) at random moments (a fixed seed) and started again
on the same port and database each time; the clients reconnect by themselves. Afterwards:
every action a client saw applied is in its match's record, the record replays through the
engine to its own scores (so no action was applied twice or out of turn), every match
played to its end, and each table's log holds every version from 1 up, once.
"""

from __future__ import annotations

import asyncio
import contextlib
import random

import httpx
import pytest
import sqlalchemy as sa
import websockets
from live_server import LiveServer
from ws_client import Client, choose, new_player, new_room

from server.rules.replay import replay

# Long enough that the kills land mid-match, short enough for the suite.
OPTIONS = {
    "oh_hell": {"max_cards": 4, "rebound": True},
    "bid_whist": {"target": 5},
    "tarbish": {"target": 150},
    "ribs": {"target": 2},
}


class Player:
    """One seat's player: plays whenever it must, reconnects whenever the socket drops."""

    def __init__(self, server: LiveServer, code: str, token: str, seat: int, rng: random.Random) -> None:
        self.server, self.code, self.token, self.seat, self.rng = server, code, token, seat, rng
        self.acked: list[dict] = []  # actions this player saw applied, in order
        self.closes: list[int] = []
        self.finished: dict | None = None  # the room's result, once seen
        self._pending: tuple[dict, int] | None = None  # (action, errors seen before it was sent)
        self.paced = True  # False once the stops are over: the rest of the match is played at once

    def _settle(self, client: Client, applied: bool) -> None:
        """Decide the last action sent: applied unless an error answered it."""
        if self._pending is not None:
            action, errors = self._pending
            if applied and len(client.errors) == errors:
                self.acked.append(action)
            self._pending = None

    async def run(self) -> None:
        while self.finished is None:
            try:
                client = await Client(self.server.ws_base, self.code, self.token, f"seat {self.seat}").connect()
            except (TimeoutError, OSError, AssertionError, websockets.WebSocketException):
                await asyncio.sleep(0.05)  # the server is down or not ready: try again
                continue
            try:
                await self._play(client)
            finally:
                self._settle(client, applied=False)  # unknown: counted as not seen applied
                await client.close()
                if client.closed is not None:
                    self.closes.append(client.closed[0])

    async def _play(self, client: Client) -> None:
        while client.closed is None:
            state = client.state
            if state["room"]["status"] == "finished":
                self.finished = state["result"]
                return
            if not client.my_turn():
                client.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(client.changed.wait(), 1)
                continue
            # A person's pace (20-40 ms a move) while the stops go on: even the shortest match
            # outlasts the first few, which come after 0.1-0.9 s of play each. Afterwards only
            # the end of every match is checked, so it is played as fast as the server answers.
            await asyncio.sleep(self.rng.uniform(0.02, 0.04) if self.paced else 0)
            if client.closed is not None or not client.my_turn():
                continue
            before, v = client.game, client.v
            action = choose(client.game, self.rng)
            self._pending = (action, len(client.errors))
            try:
                await client.send({"type": "act", "action": action, "v": v})
            except websockets.ConnectionClosed:
                return
            await client.wait(
                lambda c, before=before: c.closed is not None or len(c.errors) > self._pending[1] or c.game != before,
                120,
                "the action's answer",
            )
            if client.closed is None:
                self._settle(client, applied=client.game != before)


async def _seat_rooms(server: LiveServer, rooms_per_game: int, seed: int) -> list[tuple[str, list[Player]]]:
    rng = random.Random(seed)
    tables = []
    for game, options in OPTIONS.items():
        for _ in range(rooms_per_game):
            people = [await new_player(server.base, f"P{i}") for i in range(4)]
            code = await new_room(server.base, people[0]["token"], game, options)
            clients = [await Client(server.ws_base, code, p["token"], f"p{i}").connect() for i, p in enumerate(people)]
            for seat in (1, 2, 3):
                await clients[seat].send({"type": "sit", "seat": seat})
            await clients[0].wait(lambda c: all(s["player_id"] for s in c.state["seats"]), what="four players")
            await clients[0].send({"type": "start"})
            await clients[0].wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
            for c in clients:
                await c.close()
            players = [Player(server, code, p["token"], i, random.Random(rng.random())) for i, p in enumerate(people)]
            tables.append((code, players))
    return tables


async def _disrupt(server: LiveServer, kills: int, how: str, seed: int, playing: list[asyncio.Task]) -> int:
    """Stop the server ``kills`` times at random moments and start it again; returns how many landed."""
    rng = random.Random(seed)
    done = 0
    for _ in range(kills):
        await asyncio.sleep(rng.uniform(0.1, 0.9))
        if all(t.done() for t in playing):
            break
        if how == "kill":
            await asyncio.to_thread(server.kill)
        else:
            # uvicorn ends by raising the signal it caught again: -15 is its clean exit.
            assert await asyncio.to_thread(server.terminate) in (0, -15), "the server did not stop cleanly"
        await asyncio.to_thread(server.start)
        done += 1
    return done


async def _fetch(server: LiveServer, match_id: str) -> dict:
    async with httpx.AsyncClient(base_url=server.base) as http:
        for _ in range(400):
            r = await http.get(f"/api/matches/{match_id}")
            if r.status_code == 200:
                return r.json()
            await asyncio.sleep(0.05)
    raise AssertionError(f"match {match_id} was never stored")


def _is_subsequence(part: list, whole: list) -> bool:
    it = iter(whole)
    return all(any(x == y for y in it) for x in part)


def _log_versions(url: str, code: str) -> list[int]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text("SELECT version FROM table_log WHERE code = :c ORDER BY version"), {"c": code})
            return [r[0] for r in rows]
    finally:
        engine.dispose()


async def _crash_and_check(tmp_path, database_url: str, how: str, kills: int, rooms_per_game: int, seed: int) -> None:
    server = LiveServer(tmp_path, DATABASE_URL=database_url, FELT_RECONNECT_GRACE_S="5")
    try:
        tables = await _seat_rooms(server, rooms_per_game, seed)
        playing = [asyncio.get_running_loop().create_task(p.run()) for _, ps in tables for p in ps]
        landed = await _disrupt(server, kills, how, seed, playing)
        for _, players in tables:
            for p in players:
                p.paced = False
        await asyncio.wait_for(asyncio.gather(*playing), 600)
        assert landed >= min(kills, 3), f"only {landed} of {kills} stops landed mid-match"
        for code, players in tables:
            result = players[0].finished
            assert result is not None and all(p.finished == result for p in players), f"{code}: not finished alike"
            record = await _fetch(server, result["match_id"])
            replay(record)  # raises unless every action replays legally to the stored scores
            assert record["scores"] == result["scores"]
            for p in players:
                mine = [a["action"] for a in record["actions"] if a["seat"] == p.seat]
                assert _is_subsequence(p.acked, mine), f"{code} seat {p.seat}: an acknowledged action is missing"
            versions = await asyncio.to_thread(_log_versions, database_url, code)
            assert versions == list(range(1, len(versions) + 1)), f"{code}: the log has gaps or repeats"
            if how == "term":
                assert all(c != 1006 for p in players for c in p.closes), "a socket was dropped without a close"
        acked = sum(len(p.acked) for _, ps in tables for p in ps)
        assert acked > 50
    finally:
        server.stop()


@pytest.mark.timeout(900)  # restarts are slow on a loaded shared machine
@pytest.mark.parametrize("how", ["kill", "term"])
async def test_nothing_acknowledged_is_lost_when_the_server_is_stopped_mid_match(tmp_path, database_url, how):
    await _crash_and_check(tmp_path, database_url, how, kills=3, rooms_per_game=1, seed=14)


# The full count. Each restart costs a new process (several seconds on a busy machine), so
# the twenty SIGKILLs run on SQLite and the twenty SIGTERMs on PostgreSQL; the default test
# above runs both signals on both databases.
@pytest.mark.slow
@pytest.mark.timeout(1800)  # twenty restarts: about a minute idle, over five under a load of 20
@pytest.mark.parametrize(("backend", "how"), [("sqlite", "kill"), ("postgres", "term")])
async def test_twenty_stops_at_random_moments_lose_nothing(request, tmp_path, backend, how):
    url = f"sqlite:///{tmp_path / 'felt.db'}" if backend == "sqlite" else request.getfixturevalue("pg_database").url
    await _crash_and_check(tmp_path, url, how, kills=20, rooms_per_game=2, seed=1914)
