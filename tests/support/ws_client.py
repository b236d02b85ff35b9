"""A test client for Felt's WebSocket protocol that checks every frame as it arrives.

Patches are applied with the ``jsonpatch`` library (an independent implementation), and
versions must arrive one by one in order; every raw frame is kept for leak checks.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import random
from typing import Any

import httpx
import jsonpatch
import orjson
import websockets


async def new_player(base: str, name: str) -> dict:
    async with httpx.AsyncClient(base_url=base) as http:
        r = await http.post("/api/players", json={"name": name})
        assert r.status_code in (200, 201), r.text
        return r.json()


async def linked_device(base: str, player: dict) -> dict:
    """A further device of ``player`` (linked with a one-time code): ``{"id", "name", "token"}``."""
    async with httpx.AsyncClient(base_url=base) as http:
        made = await http.post("/api/players/me/links", headers={"Authorization": f"Bearer {player['token']}"})
        assert made.status_code == 201, made.text
        linked = await http.post("/api/players/link", json={"code": made.json()["code"]})
        assert linked.status_code == 201, linked.text
        return linked.json()


async def new_room(
    base: str,
    token: str,
    game: str,
    options: dict | None = None,
    seats: int | None = None,
    private: bool = False,
    turn_timer: int = 0,
) -> str:
    body: dict[str, Any] = {"game": game, "options": options or {}, "private": private}
    if seats is not None:
        body["seats"] = seats
    if turn_timer:
        body["turn_timer"] = turn_timer
    async with httpx.AsyncClient(base_url=base) as http:
        r = await http.post("/api/rooms", json=body, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 201, r.text
        return r.json()["code"]


class Client:
    """One socket: keeps the view current from snapshot + patches and records every frame."""

    def __init__(self, ws_base: str, code: str, token: str | None = None, label: str = "") -> None:
        self.url = f"{ws_base}/ws/rooms/{code}" + (f"?token={token}" if token else "")
        self.label = label
        self.ws: Any = None
        self.state: dict | None = None
        self.v: int | None = None
        self.frames: list[str] = []
        self.errors: list[dict] = []
        self.history: list[tuple[int, dict]] = []  # (v, game view) for every version
        self.rooms: list[dict] = []  # the room part of the view at every version
        self.changed = asyncio.Event()
        self.closed: tuple[int, str] | None = None
        self._reader: asyncio.Task | None = None

    async def connect(self) -> Client:
        self.ws = await websockets.connect(self.url, max_size=2**22, compression=None)
        self._reader = asyncio.get_running_loop().create_task(self._read())
        await self.wait(lambda c: c.state is not None or c.closed is not None, what="the first snapshot")
        assert self.state is not None, f"{self.label}: refused: {self.errors} {self.closed}"
        return self

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                self.frames.append(raw)
                frame = orjson.loads(raw)
                kind = frame["type"]
                if kind == "snapshot":
                    self.state, self.v = frame["state"], frame["v"]
                elif kind == "patch":
                    assert self.v is not None, "a patch before the snapshot"
                    assert frame["v"] == self.v + 1, f"{self.label}: version {frame['v']} after {self.v}"
                    self.state = jsonpatch.apply_patch(self.state, frame["ops"])
                    self.v = frame["v"]
                elif kind == "error":
                    self.errors.append(frame)
                    self.changed.set()
                    continue
                else:
                    continue
                self.history.append((self.v, copy.deepcopy(self.state.get("game"))))
                self.rooms.append(copy.deepcopy(self.state.get("room")))
                self.changed.set()
        except websockets.ConnectionClosed as closed:
            self.closed = (closed.code, closed.reason)
        else:
            self.closed = (self.ws.close_code, self.ws.close_reason or "")
        finally:
            if self.closed is None:
                self.closed = (self.ws.close_code or 1006, "")
            self.changed.set()

    async def send(self, frame: dict | str) -> None:
        await self.ws.send(frame if isinstance(frame, str) else orjson.dumps(frame).decode())

    async def wait(self, predicate, timeout: float = 10, what: str = "a condition") -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not predicate(self):
            remaining = deadline - asyncio.get_running_loop().time()
            if remaining <= 0:
                raise AssertionError(
                    f"{self.label}: timed out waiting for {what}; v={self.v}, errors={self.errors[-3:]}"
                )
            self.changed.clear()
            if predicate(self):
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), remaining)

    async def next_error(self, timeout: float = 5) -> dict:
        seen = len(self.errors)
        await self.wait(lambda c: len(c.errors) > seen or c.closed is not None, timeout, "an error frame")
        assert len(self.errors) > seen, f"no error frame (closed: {self.closed})"
        return self.errors[-1]

    @property
    def game(self) -> dict | None:
        return self.state["game"] if self.state else None

    def my_turn(self) -> bool:
        g = self.game
        return bool(g and self.state["you"] is not None and self.state["you"] in g["to_act"] and g["legal"])

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.wait([self._reader], timeout=5)


async def host_with_bots(ws_base: str, code: str, token: str, label: str = "host") -> Client:
    """The host of a new four-seat table connected, with bots in seats 1 to 3."""
    host = await Client(ws_base, code, token, label).connect()
    for seat in (1, 2, 3):
        await host.send({"type": "bot", "seat": seat})
    await host.wait(lambda c: all(s["bot"] for s in c.state["seats"][1:]), what="three bots")
    return host


def choose(view: dict, rng: random.Random) -> dict:
    """A random legal action from a view (expanding a compact "choose N cards" entry)."""
    option = rng.choice(view["legal"])
    if "count" in option and "cards" not in option:
        cards = rng.sample(list(view["hand"]), option["count"])
        return {"type": option["type"], "cards": cards}
    return option


async def play_to_end(clients: list[Client], rng: random.Random, timeout: float = 60, on_turn=None) -> None:
    """Every seated client acts (randomly, legally) whenever it must, until the room finishes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        states = [c.state for c in clients]
        if all(s and s["room"]["status"] == "finished" for s in states):
            return
        moved = False
        for c in clients:
            if c.my_turn() and c.v == max(x.v for x in clients):
                if on_turn is not None:
                    await on_turn(c)
                v = c.v
                await c.send({"type": "act", "action": choose(c.game, rng), "v": v})
                await c.wait(lambda x, v=v: x.v > v or x.errors, 10, "the action's patch")
                assert not c.errors, c.errors
                moved = True
                break
        if not moved:
            if loop.time() > deadline:
                raise AssertionError("the game did not finish in time")
            await asyncio.sleep(0.005)
