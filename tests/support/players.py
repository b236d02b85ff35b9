"""Players for the cluster tests: real WebSocket clients that reconnect through the balancer.

Each ``Player`` plays its seat with random legal moves, reconnects by itself when its socket
closes (as the browser client does), and keeps the actions the server acknowledged: an
``act`` is acknowledged when no error answered it before the ``pong`` of a ``ping`` sent right
behind it, and the patch of the version it made arrived. After a reconnect the snapshot's
version must never be behind what the player had seen.
"""

from __future__ import annotations

import asyncio
import random

import httpx
import orjson
import websockets
from ws_client import Client, choose, new_player

from server.log_entry import LogEntry
from server.rooms.table import open_table


class Player:
    def __init__(self, ws_base: str, code: str, token: str, label: str) -> None:
        self.ws_base, self.code, self.token, self.label = ws_base, code, token, label
        self.client: Client | None = None
        self.acked: list[tuple[int, int, dict]] = []  # (version, seat, action)
        self.reconnects = 0
        self.gaps: list[float] = []  # seconds from noticing a closed socket to the new snapshot
        self.seen_before: list[tuple[int, dict | None]] = []  # (v, game view) of earlier sockets
        self.last_v = 0

    async def connect(self, timeout: float = 20) -> Player:
        loop = asyncio.get_running_loop()
        began = loop.time()
        deadline = began + timeout
        while True:
            try:  # a node that was stopped holds a handshake: give up on it and try again
                client = await asyncio.wait_for(Client(self.ws_base, self.code, self.token, self.label).connect(), 5)
                break
            except (TimeoutError, OSError, AssertionError, websockets.WebSocketException):
                if loop.time() > deadline:
                    raise
                await asyncio.sleep(0.1)
        assert client.v >= self.last_v, f"{self.label}: the table went back from v{self.last_v} to v{client.v}"
        if self.client is not None:
            self.reconnects += 1
            self.gaps.append(loop.time() - began)
            self.seen_before += self.client.history
        self.client = client
        self.last_v = client.v
        return self

    @property
    def player_id(self) -> str:
        return self.client.state["me"]["id"]

    @property
    def gone(self) -> bool:
        return self.client is None or self.client.closed is not None

    async def drop(self) -> None:
        """Drop this player's socket at once, without a closing handshake (a client whose pings
        go unanswered does this)."""
        if self.client is not None:
            self.client.ws.transport.abort()
            await self.client.wait(lambda c: c.closed is not None, what="the socket to close")

    async def act(self, rng: random.Random) -> None:
        """Play one random legal move; keep it if the server acknowledged it."""
        c = self.client
        assert c is not None
        v, seat = c.v, c.state["you"]
        action = choose(c.game, rng)
        errors, frames = len(c.errors), len(c.frames)
        try:
            await c.send({"type": "act", "action": action, "v": v})
            await c.send({"type": "ping"})
        except websockets.ConnectionClosed:  # the node went away under us: not acknowledged
            await c.wait(lambda x: x.closed is not None, 20, "the reader to see the close")
            return
        await c.wait(lambda x: x.closed is not None or '{"type":"pong"}' in x.frames[frames:], 20, "the pong")
        if c.closed is not None or len(c.errors) > errors:
            c.errors.clear()  # stale or moved: nothing changed; the next snapshot tells
            return
        await c.wait(lambda x: x.closed is not None or x.v > v, 20, "the action's patch")
        if c.v > v:
            self.acked.append((v + 1, seat, action))
            self.last_v = max(self.last_v, c.v)


async def seat_players(base: str, ws_base: str, game: str, options: dict, seats: int = 4) -> tuple[str, list[Player]]:
    """A started table through the balancer with a host and friends in every seat."""
    return await bot_table(base, ws_base, game, options, humans=seats, seats=seats)


async def bot_table(
    base: str, ws_base: str, game: str, options: dict, humans: int, seats: int = 4
) -> tuple[str, list[Player]]:
    """A started table through the balancer: ``humans`` people in the first seats, Easy bots in the rest."""
    people = [await new_player(base, f"P{i}") for i in range(humans)]
    async with httpx.AsyncClient(base_url=base) as http:
        r = await http.post(
            "/api/rooms",
            json={"game": game, "options": options, "seats": seats},
            headers={"Authorization": f"Bearer {people[0]['token']}"},
        )
        assert r.status_code == 201, r.text
        code = r.json()["code"]
    players = []
    for i, person in enumerate(people):
        p = await Player(ws_base, code, person["token"], f"{code}/seat{i}").connect()
        if i > 0:
            await _settle(p, {"type": "sit", "seat": i}, lambda c, i=i: c.state["you"] == i, f"seat {i}")
        players.append(p)
    host = players[0]
    for seat in range(humans, seats):
        bot = {"type": "bot", "seat": seat}
        await _settle(host, bot, lambda c, seat=seat: c.state["seats"][seat]["bot"], f"a bot in seat {seat}")
    playing = lambda c: c.state["room"]["status"] == "playing"  # noqa: E731
    await _settle(host, {"type": "start"}, playing, "the start")
    for p in players:
        await _settle(p, None, playing, "the start")
    return code, players


async def _settle(p: Player, message: dict | None, done, what: str) -> None:
    """One step of a table's setup on ``p``'s socket: send ``message`` (unless ``done`` already
    holds) and wait until ``done``. A socket the cluster closes meanwhile (its table handed to
    another node: 1012, "reconnect") is reconnected and the step looked at again, as a client does."""
    for _ in range(5):
        c = p.client
        if c.closed is None and done(c):
            return
        if c.closed is None:
            try:
                if message is not None:
                    await c.send(message)
                await c.wait(lambda x: x.closed is not None or done(x), 20, what)
            except websockets.ConnectionClosed:
                pass
            if c.closed is None and done(c):
                return
        await p.connect()
    raise AssertionError(f"{p.label}: {what}: the socket kept closing")


async def _nap(players: list[Player], seconds: float) -> None:
    """Pause as a person does, but wake at once when a socket closes (to reconnect)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end and not any(p.gone for p in players):
        waits = [asyncio.ensure_future(p.client.changed.wait()) for p in players]
        for p in players:
            p.client.changed.clear()
        await asyncio.wait(waits, timeout=max(0.0, end - loop.time()), return_when=asyncio.FIRST_COMPLETED)
        for w in waits:
            w.cancel()


async def play(players: list[Player], rng: random.Random, timeout: float = 90, until=None, pace_s: float = 0.0) -> None:
    """Play on (reconnecting as needed) until the match is over, or ``until()`` is true;
    ``pace_s``: a pause after each move, as people take (0.5 to 1.5 times it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        for p in players:
            if p.gone:
                await p.connect()
        states = [p.client.state for p in players]
        if all(s["room"]["status"] == "finished" for s in states):
            return
        if until is not None and until():
            return
        newest = max(p.client.v for p in players)
        turn = next((p for p in players if p.client.my_turn() and p.client.v == newest), None)
        if turn is not None:
            await turn.act(rng)
            if pace_s:
                await _nap(players, pace_s * rng.uniform(0.5, 1.5))
            continue
        assert loop.time() < deadline, "the match did not finish in time"
        waits = [asyncio.ensure_future(p.client.changed.wait()) for p in players]
        for p in players:
            p.client.changed.clear()
        await asyncio.wait(waits, timeout=0.2, return_when=asyncio.FIRST_COMPLETED)
        for w in waits:
            w.cancel()


def check_acknowledged(players: list[Player], log: list[tuple[int, str, dict]]) -> int:
    """Every acknowledged action is in the table's log at its version; returns how many."""
    by_version = {v: (kind, data) for v, kind, data in log}
    count = 0
    for p in players:
        for version, seat, action in p.acked:
            assert by_version.get(version) == ("act", {"seat": seat, "action": action}), (
                f"{p.label}: the acknowledged action at v{version} is not in the log: {by_version.get(version)}"
            )
            count += 1
    return count


def check_seen(players: list[Player], code: str, entries: list[tuple[int, str, dict, float]]) -> int:
    """Every version a player was shown is the log's: the table is rebuilt from its log entry
    by entry, as a node restores it, and at each version a player saw, the game view of the
    player's seat must equal what the player was shown then. Returns the versions checked."""
    shown: dict[int, list[tuple[Player, dict]]] = {}
    for p in players:
        for v, game in p.client.history:
            shown.setdefault(v, []).append((p, game))
        for v, game in p.seen_before:
            shown.setdefault(v, []).append((p, game))
    room = open_table(code, entries[0][2])
    checked = 0
    for version, kind, data, at in entries:
        room.apply(LogEntry(code, version, kind, data, at))
        for p, game in shown.pop(version, ()):
            seat = room.seat_of(p.player_id)
            want = None if room.state is None else room.game.view(room.state, seat) if seat is not None else None
            if game is not None and seat is not None:
                assert orjson.loads(orjson.dumps(want)) == game, (
                    f"{p.label}: v{version} shown is not the log's ({kind})"
                )
                checked += 1
    assert not shown, f"versions shown that the log lacks: {sorted(shown)[:5]}"
    return checked
