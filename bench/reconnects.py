"""Reconnect storms: what a socket opened and closed again costs the server once it is gone.

``python -m bench.reconnects [--connects N] [--mode seated|anonymous] [--source DIR]`` starts
``python -m server`` (of DIR, another checkout, to compare; this one by default) (SQLite in a
temporary folder, per-address limits lifted so that one client can storm it), makes a table with
two players, and opens and closes N sockets to it one after another: the seated guest's token
again and again, or anonymous spectators. It prints:

- the server's resident memory before and after (after a warm-up of 200, and 2 s of quiet),
  per connect;
- the objects a full collection then finds unreachable (cycles the server made and the
  collector tender froze: they stay until the next full collection, minutes later), counted
  by a SIGUSR1 handler the bench installs in the server process;
- the table log's rows the storm added;
- a chat line's round trip at the host (sent to its patch back), p50, alone and during the storm.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import orjson
import websockets

from bench.common import ROOT, pct

# The server, with a SIGUSR1 handler that runs a full collection and writes what it found.
SERVER = """
import gc, runpy, signal, sys
out = sys.argv.pop()
def count(*_):
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    open(out, "w").write(str(found))
signal.signal(signal.SIGUSR1, count)
sys.argv = ["server"] + sys.argv[1:]
runpy.run_module("server", run_name="__main__")
"""
LIFTED = {
    "FELT_RATE_CONNECTS_BURST": "100000000",
    "FELT_RATE_TOKEN_CONNECTS_BURST": "100000000",
    "FELT_MAX_SOCKETS_PER_ADDRESS": "1000000",
    "FELT_ACCESS_LOG": "0",
}


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def post(http: httpx.AsyncClient, path: str, body: dict, token: str | None = None) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = await http.post(path, json=body, headers=headers)
    r.raise_for_status()
    return r.json()


async def chat_round_trips(ws, stop: asyncio.Event, times: list[float]) -> None:
    """The host says a line every 20 ms and times each until its patch comes back."""
    n = 0
    while not stop.is_set():
        n += 1
        text = f"line {n}"
        began = time.perf_counter()
        await ws.send(orjson.dumps({"type": "chat", "text": text}).decode())
        while f'"{text}"' not in await asyncio.wait_for(ws.recv(), 30):
            pass
        times.append((time.perf_counter() - began) * 1000)
        await asyncio.sleep(0.02)


async def storm(url: str, n: int) -> float:
    began = time.perf_counter()
    for _ in range(n):
        ws = await websockets.connect(url, compression=None)
        await ws.recv()
        await ws.close()
    return time.perf_counter() - began


async def run(connects: int, mode: str, workdir: Path, source: Path) -> None:
    port = 20000 + os.getpid() % 20000
    counted = workdir / "unreachable"
    env = {
        **os.environ,
        "PYTHONPATH": str(source),
        "DATABASE_URL": f"sqlite:///{workdir / 'felt.db'}",
        "FELT_CHAT_PER_MINUTE": "1000000",
        "FELT_MAX_FRAMES_PER_SECOND": "1000",
        "FELT_FRAME_BURST": "1000",
        **LIFTED,
    }
    with open(workdir / "server.log", "w") as log:  # the server writes to its own copy of the file
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, "--port", str(port), "--log-level", "warning", str(counted)],
            cwd=workdir,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=base) as http:
            for _ in range(600):
                try:
                    if (await http.get("/healthz")).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                await asyncio.sleep(0.1)
            host = await post(http, "/api/players", {"name": "Host"})
            guest = await post(http, "/api/players", {"name": "Guest"})
            code = (await post(http, "/api/rooms", {"game": "ribs", "options": {"target": 1}}, host["token"]))["code"]
        watch = await websockets.connect(f"{ws_base}/ws/rooms/{code}?token={host['token']}", compression=None)
        await watch.recv()
        seated = f"{ws_base}/ws/rooms/{code}?token={guest['token']}"
        ws = await websockets.connect(seated, compression=None)
        await ws.recv()
        await ws.send('{"type":"sit","seat":1}')
        await ws.close()
        url = seated if mode == "seated" else f"{ws_base}/ws/rooms/{code}"
        await storm(url, 200)
        await asyncio.sleep(2)
        quiet: list[float] = []
        stop = asyncio.Event()
        timer = asyncio.get_running_loop().create_task(chat_round_trips(watch, stop, quiet))
        await asyncio.sleep(3)
        stop.set()
        await timer
        rows_before = _rows(workdir, code)
        rss_before = resident_mb(proc.pid)
        during: list[float] = []
        stop = asyncio.Event()
        timer = asyncio.get_running_loop().create_task(chat_round_trips(watch, stop, during))
        took = await storm(url, connects)
        stop.set()
        await timer
        await asyncio.sleep(2)
        rss_after = resident_mb(proc.pid)
        chat_rows = len(during)
        rows = _rows(workdir, code) - rows_before - chat_rows
        proc.send_signal(signal.SIGUSR1)
        for _ in range(100):
            if counted.exists() and counted.read_text():
                break
            await asyncio.sleep(0.1)
        await watch.close()
        print(f"{mode}: {connects} connects in {took:.1f} s ({connects / took:.0f}/s)")
        print(
            f"  resident {rss_before:.1f} -> {rss_after:.1f} MB: "
            f"{(rss_after - rss_before) * 1024 / connects:.1f} KB per connect"
        )
        print(f"  unreachable objects a full collection then found: {counted.read_text()}")
        print(f"  table log rows added by the storm (chat lines not counted): {rows}")
        print(
            f"  a chat line's round trip, p50: {pct(quiet, 50):.1f} ms alone, {pct(during, 50):.1f} ms during the storm"
        )
    finally:
        proc.terminate()
        proc.wait(30)


def _rows(workdir: Path, code: str) -> int:
    with sqlite3.connect(workdir / "felt.db") as db:
        return db.execute("SELECT count(*) FROM table_log WHERE code = ?", (code,)).fetchone()[0]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.reconnects", description=__doc__.split("\n")[0])
    parser.add_argument("--connects", type=int, default=3000)
    parser.add_argument("--mode", choices=("seated", "anonymous"), default="seated")
    parser.add_argument("--source", type=Path, default=ROOT, help="the checkout whose server to run (to compare)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="felt-reconnects-") as tmp:
        asyncio.run(run(args.connects, args.mode, Path(tmp), args.source.resolve()))


if __name__ == "__main__":
    main()
