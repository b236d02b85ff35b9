"""A live table while replays are built: act→patch latency, ``/healthz`` latency, server memory.

``.venv/bin/python -m bench.replay_live`` starts a real server (SQLite in a temporary folder,
``FELT_REPLAY_QUEUE=20`` so that twenty requests at once all wait rather than get 503), stores
twenty 10-seat Ribs sessions to 30 (about 20,000 actions each, tests/edges/test_replay_live.py
makes them), and plays a live Oh Hell table (one person, three Easy bots) twice: first with no
replay asked for (the baseline), then while the twenty replays are asked for at once. Meanwhile
``/healthz`` is asked every 20 ms. It prints each phase's act→patch p50/p99/max, ``/healthz``
p50/p99, the server's resident memory (the peak of its samples) and the loaded/baseline
ratios; the target is a live p50 within twice the baseline. ``--json PATH`` writes the figures.
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
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "edges"))

from live_server import LiveServer
from test_replay_live import long_ribs_record, memory_kb
from ws_client import choose, host_with_bots, new_player, new_room

from server.storage import store
from server.storage.db import Database

REPLAYS = 20


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def live_acts(server: LiveServer, acts: int, until: asyncio.Future | None, rng: random.Random) -> list[float]:
    """Act→patch latencies (ms) of ``acts`` actions at live tables (a new one when one ends);
    with ``until``, keep going past ``acts`` until it is done (at least ``acts`` either way)."""
    host = await new_player(server.base, "Bench")
    took: list[float] = []
    while len(took) < acts or (until is not None and not until.done()):
        code = await new_room(server.base, host["token"], "oh_hell", {"max_cards": 5, "rebound": False})
        c = await host_with_bots(server.ws_base, code, host["token"])
        await c.send({"type": "start"})
        await c.wait(lambda c: c.state["room"]["status"] == "playing", 60, "the start")
        while c.state["room"]["status"] != "finished" and (
            len(took) < acts or (until is not None and not until.done())
        ):
            await c.wait(lambda c: c.my_turn() or c.state["room"]["status"] == "finished", 60, "a turn")
            if c.state["room"]["status"] == "finished":
                break
            v = c.v
            start = time.perf_counter()
            await c.send({"type": "act", "action": choose(c.game, rng), "v": v})
            await c.wait(lambda x, v=v: x.v > v or x.errors, 60, "the action's patch")
            took.append((time.perf_counter() - start) * 1000)
            assert not c.errors, c.errors
        await c.close()
    return took


async def health_probe(server: LiveServer, stop: asyncio.Event, latencies: list[float], rss: list[int]) -> None:
    async with httpx.AsyncClient(base_url=server.base, timeout=60) as http:
        while not stop.is_set():
            start = time.perf_counter()
            await http.get("/healthz")
            latencies.append((time.perf_counter() - start) * 1000)
            rss.append(memory_kb(server.proc.pid, "VmRSS"))
            await asyncio.sleep(0.02)


async def phase(server: LiveServer, acts: int, replay_ids: list[str]) -> dict:
    stop = asyncio.Event()
    health: list[float] = []
    rss: list[int] = []
    probe = asyncio.ensure_future(health_probe(server, stop, health, rss))
    until = None
    async with httpx.AsyncClient(base_url=server.base, timeout=600) as http:
        if replay_ids:
            until = asyncio.ensure_future(asyncio.gather(*(http.get(f"/api/matches/{m}/replay") for m in replay_ids)))
        start = time.monotonic()
        took = await live_acts(server, acts, until, random.Random(7))
        answers = await until if until is not None else []
        seconds = time.monotonic() - start
    stop.set()
    await probe
    assert all(a.status_code == 200 for a in answers), [a.status_code for a in answers]
    return {
        "acts": len(took),
        "seconds": round(seconds, 2),
        "act_p50_ms": statistics.median(took),
        "act_p99_ms": quantile(took, 0.99),
        "act_max_ms": max(took),
        "healthz_p50_ms": statistics.median(health),
        "healthz_p99_ms": quantile(health, 0.99),
        "rss_mb": max(rss) / 1024,
    }


def store_matches(url: str) -> list[str]:
    db = Database(url)
    ids = []
    try:
        with db.session() as session:
            for seed in range(100, 100 + REPLAYS):
                record = long_ribs_record(seed, target=30, least=0)
                store.save_match(session, record)
                ids.append(record["id"])
    finally:
        db.dispose()
    return ids


def report(label: str, m: dict) -> None:
    print(
        f"{label:22} {m['acts']:4} acts in {m['seconds']:6.1f} s: act→patch p50 {m['act_p50_ms']:6.2f} "
        f"p99 {m['act_p99_ms']:7.2f} max {m['act_max_ms']:7.2f} ms | /healthz p50 {m['healthz_p50_ms']:6.2f} "
        f"p99 {m['healthz_p99_ms']:7.2f} ms | RSS peak {m['rss_mb']:.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--acts", type=int, default=1000, help="live actions in the baseline phase (and at least as many under load)"
    )
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp), FELT_REPLAY_QUEUE=str(REPLAYS))
        try:
            ids = store_matches(f"sqlite:///{Path(tmp) / 'felt.db'}")
            baseline = asyncio.run(phase(server, args.acts, []))
            loaded = asyncio.run(phase(server, args.acts, ids))
        finally:
            server.stop()
    report("no replays", baseline)
    report(f"{REPLAYS} replays building", loaded)
    ratios = {key: loaded[key] / baseline[key] for key in ("act_p50_ms", "act_p99_ms", "healthz_p99_ms", "rss_mb")}
    print(
        "ratios (loaded / baseline): " + ", ".join(f"{k} {v:.2f}x" for k, v in ratios.items()),
        "| target act_p50 <= 2x:",
        "pass" if ratios["act_p50_ms"] <= 2 else "FAIL",
    )
    if args.json:
        args.json.write_bytes(
            orjson.dumps({"baseline": baseline, "loaded": loaded, "ratios": ratios}, option=orjson.OPT_INDENT_2)
        )


if __name__ == "__main__":
    main()
