"""A scaled-down soak through a real server (issue 19): 1,000 idle sockets and 100 playing
ones, with /healthz asked throughout and answered every time. The full soak (10,000 sockets,
timed) is ``python -m bench.soak`` (bench/README.md); this one asserts no timing."""

from __future__ import annotations

import asyncio
import random
import resource

import httpx
import pytest
from ws_client import Client, new_player, new_room, play_to_end

pytestmark = pytest.mark.slow

IDLE = 1000
PLAYING_ROOMS = 25  # four players each: 100 playing sockets
PER_ROOM = 50  # idle spectators per waiting room (the per-room cap is 64)


@pytest.fixture(autouse=True)
def _enough_descriptors():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = IDLE + 4 * PLAYING_ROOMS + 256
    if hard < needed:
        pytest.skip(f"the open-file limit ({hard}) is below the {needed} this soak needs")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, needed), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def idle_sockets(base: str, ws_base: str) -> list[Client]:
    host = await new_player(base, "Idle host")
    rooms = [await new_room(base, host["token"], "ribs", {"target": 1}) for _ in range(IDLE // PER_ROOM)]
    sockets: list[Client] = []
    for code in rooms:
        batch = [Client(ws_base, code, None, f"idle-{code}") for _ in range(PER_ROOM)]
        sockets += await asyncio.gather(*(c.connect() for c in batch))
    return sockets


async def playing_table(base: str, ws_base: str, seed: int) -> int:
    players = [await new_player(base, f"Soak{seed}-{i}") for i in range(4)]
    code = await new_room(base, players[0]["token"], "oh_hell", {"max_cards": 3, "rebound": False}, 4)
    clients = [await Client(ws_base, code, p["token"], f"soak{seed}-{i}").connect() for i, p in enumerate(players)]
    for i, c in enumerate(clients[1:], start=1):
        await c.send({"type": "sit", "seat": i})
        await c.wait(lambda c, i=i: c.state["you"] == i, what=f"seat {i}")
    await clients[0].send({"type": "start"})
    for c in clients:
        await c.wait(lambda c: c.state["room"]["status"] == "playing", what="the start")
    await play_to_end(clients, random.Random(seed), timeout=240)
    for c in clients:
        await c.close()
    return 4


async def test_healthz_is_answered_throughout_with_1000_idle_and_100_playing_sockets(live_server):
    answers: list[int] = []
    done = asyncio.Event()

    async def probe() -> None:
        async with httpx.AsyncClient(base_url=live_server.base, timeout=30) as http:
            while not done.is_set():
                try:
                    answers.append((await http.get("/healthz")).status_code)
                except httpx.HTTPError as err:
                    answers.append(-1)
                    print("healthz failed:", err)
                await asyncio.sleep(0.05)

    prober = asyncio.get_running_loop().create_task(probe())
    idle: list[Client] = []
    try:
        idle = await idle_sockets(live_server.base, live_server.ws_base)
        played = await asyncio.gather(
            *(playing_table(live_server.base, live_server.ws_base, s) for s in range(PLAYING_ROOMS))
        )
        assert sum(played) == 4 * PLAYING_ROOMS
        assert all(c.closed is None for c in idle), "an idle socket was dropped"
    finally:
        done.set()
        await prober
        await asyncio.gather(*(c.close() for c in idle))
    assert len(answers) >= 10, "too few probes to tell"
    assert answers.count(200) == len(answers), f"{len(answers) - answers.count(200)} of {len(answers)} probes failed"
