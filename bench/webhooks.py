"""A dead group webhook costs a table nothing: move latency at a group table whose webhook never
answers, against one whose group has no webhook, on the same server, turn about.

``python -m bench.webhooks [--rounds 4]``: a real server (loopback receivers allowed), two groups,
one with a webhook to a receiver that accepts the request and never answers; 30 tables of each
are opened first, so the dead chat's queue is full. Each round plays one Oh Hell match at a
table of each group (the host against three bots, bots acting at once), while a table of that
group opens every ``--open-every`` seconds (each one more message for its chat, dropped).
Latency: from the host's action sent to its patch received.
Prints the median and p99 of each and their difference, and first what publishing one event
costs the table's own path (the channel's ``offer`` into a full queue).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from chat_receiver import ChatReceiver
from live_server import LiveServer
from ws_client import choose, host_with_bots, new_player


async def group_of(http: httpx.AsyncClient, owner: dict, name: str) -> str:
    r = await http.post("/api/groups", json={"name": name}, headers={"Authorization": f"Bearer {owner['token']}"})
    return r.json()["code"]


async def one_match(
    server: LiveServer, http: httpx.AsyncClient, owner: dict, group: str, seed: int, every: float
) -> list[float]:
    auth = {"Authorization": f"Bearer {owner['token']}"}
    room = (await http.post("/api/rooms", json={"game": "oh_hell", "group": group}, headers=auth)).json()["code"]
    host = await host_with_bots(server.ws_base, room, owner["token"])
    await host.send({"type": "start"})
    await host.wait(lambda c: c.state["room"]["status"] != "waiting", what="the start")
    rng, took = random.Random(seed), []
    stop = asyncio.Event()

    async def open_tables() -> None:
        while every and not stop.is_set():
            await http.post("/api/rooms", json={"game": "oh_hell", "group": group}, headers=auth)
            await asyncio.sleep(every)

    opener = asyncio.create_task(open_tables())
    try:
        while host.state["room"]["status"] != "finished":
            if not host.my_turn():
                await host.wait(lambda c: c.my_turn() or c.state["room"]["status"] == "finished", 30, "a turn")
                continue
            v = host.v
            started = time.perf_counter()
            await host.send({"type": "act", "action": choose(host.game, rng), "v": v})
            await host.wait(lambda c, v=v: c.v > v, 10, "the patch")
            took.append(time.perf_counter() - started)
    finally:
        stop.set()
        await opener
        await host.close()
    return took


def summary(label: str, values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p50, p99 = statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    print(f"{label:>16}: {len(values)} moves, median {p50 * 1e3:.3f} ms, p99 {p99 * 1e3:.3f} ms")
    return p50, p99


def offer_cost(count: int = 200_000) -> None:
    """What the table's own path pays for the webhooks: ``Notifier.publish`` of a turn at a slow
    table (so the channel takes it) with the channel's inbox full, in microseconds a turn."""
    from server.notify import Notifier
    from server.notify.events import YourTurn
    from server.notify.webhooks import Webhooks

    webhooks = Webhooks(None, None, inbox=1000)  # type: ignore[arg-type] # never started: nothing is sent
    notifier = Notifier()
    notifier.add(webhooks)
    turns = [
        YourTurn(f"t{i % 500}", "oh_hell", "Ana", (f"p{i}",), ("Bo",), frozenset(), None, 86_400, i)
        for i in range(count)
    ]
    started = time.perf_counter()
    for turn in turns:
        notifier.publish(turn)
    took = time.perf_counter() - started
    print(f"{'publish':>16}: {took / count * 1e6:.2f} us a slow turn into a full queue ({webhooks.dropped} dropped)")


async def main(rounds: int, every: float) -> None:
    offer_cost()
    tmp = Path(tempfile.mkdtemp(prefix="felt-bench-webhooks-"))
    server = LiveServer(
        tmp, FELT_OUTBOUND_ALLOW_PRIVATE="1", FELT_BOT_DELAY_MS="0", FELT_MAX_OPEN_ROOMS_PER_PLAYER="100000"
    )
    try:
        async with ChatReceiver() as dead, httpx.AsyncClient(base_url=server.base, timeout=30) as http:
            dead.hang = True
            owner = await new_player(server.base, "Ana")
            hooked, plain = await group_of(http, owner, "Dead chat"), await group_of(http, owner, "No chat")
            auth = {"Authorization": f"Bearer {owner['token']}"}
            r = await http.put(
                f"/api/groups/{hooked}/webhook", json={"url": dead.url("/hook"), "format": "json"}, headers=auth
            )
            assert r.status_code == 200, r.text
            for group in (hooked, plain):  # the dead chat's queue full before the first move
                for _ in range(30):
                    await http.post("/api/rooms", json={"game": "oh_hell", "group": group}, headers=auth)
            times: dict[str, list[float]] = {"dead webhook": [], "no webhook": []}
            for i in range(rounds):
                order = [("dead webhook", hooked), ("no webhook", plain)]
                for label, group in order if i % 2 == 0 else order[::-1]:
                    times[label] += await one_match(server, http, owner, group, i, every)
            metrics = (await http.get("/metrics")).text
        dead_p50, dead_p99 = summary("dead webhook", times["dead webhook"])
        none_p50, none_p99 = summary("no webhook", times["no webhook"])
        median_ms, p99_ms = (dead_p50 - none_p50) * 1e3, (dead_p99 - none_p99) * 1e3
        print(f"{'difference':>16}: median {median_ms:+.3f} ms, p99 {p99_ms:+.3f} ms")
        kept = ("felt_webhook_dropped_total", "felt_webhook_queued")
        chat = ", ".join(line for line in metrics.splitlines() if line.startswith(kept))
        print(f"{'chat':>16}: {len(dead.requests)} request(s) reached the dead chat; {chat}")
    finally:
        server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--open-every", type=float, default=0.05, help="seconds between tables opened (0: none)")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.open_every))
