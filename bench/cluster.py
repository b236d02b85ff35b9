"""Single-process mode against cluster mode (1 and 2 nodes behind HAProxy), and the cost of
the two ways to route a socket to a table's owner (docs/scaling.md).

    .venv/bin/python -m bench.cluster [--tables 24] [--seconds 15]

Every mode runs on one fresh PostgreSQL database (``TEST_DATABASE_URL``) and, in cluster
mode, the local Redis under a fresh key prefix. The load: ``--tables`` Oh Hell tables of four
real WebSocket clients; at each table the player to act plays a random legal card, waits
for its patch, then waits ``--pace-ms`` (human pace, spread so tables do not act together).
Figures per mode: moves, latency from ``act`` sent to its patch read (p50, p99), CPU seconds
per move of the Felt processes (nodes and their writer processes, from /proc), Redis
commands per move (``INFO commandstats``) and PostgreSQL transactions per move
(``pg_stat_database``). The nodes are pinned to core 0, HAProxy and the load to core 1.

Routing (``--routing``): the extra latency of one frame each way through HAProxy (the chosen
way: a TCP proxy hop) against a relay over Redis pub/sub (the other way: a frame published
by the node that holds the socket, read by the owner, and the answer published back),
measured as round trips of a 300-byte frame: direct, through HAProxy, and through Redis.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import os
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import psycopg
import redis
import websockets
from sqlalchemy.engine import make_url

from bench.common import tree_cpu
from bench.load import BENCH_SERVER_ENV

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

from cluster_harness import REDIS_URL, haproxy_config, wait_healthy  # noqa: E402
from live_server import free_port  # noqa: E402

DATABASE_SERVER = os.environ.get("TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@contextlib.contextmanager
def fresh_database(server_url: str = DATABASE_SERVER) -> Iterator[str]:
    """A new, empty database on the server of ``server_url`` (its URL), dropped afterwards."""
    name = f"felt_bench_{secrets.token_hex(4)}"
    with psycopg.connect(_libpq(server_url), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(_libpq(server_url), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Setup:
    """Felt in one mode: ``nodes`` processes, with (cluster) or without Redis and HAProxy; the
    nodes (and their writer workers) on core 0, HAProxy on core 1; the bench servers' settings
    (bench/load.py), whose limits one load client's address would otherwise meet."""

    def __init__(self, tmp: Path, database_url: str, nodes: int, cluster: bool, maxconn: int = 4000) -> None:
        self.tmp, self.database_url, self.cluster, self.maxconn = tmp, database_url, cluster, maxconn
        self.prefix = f"felt-bench-{secrets.token_hex(4)}:"
        self.procs: list[subprocess.Popen] = []
        self.ports = [free_port() for _ in range(nodes)]
        self.haproxy: subprocess.Popen | None = None

    def start(self) -> str:
        for i, port in enumerate(self.ports):
            folder = self.tmp / f"node{i}"
            folder.mkdir(exist_ok=True)
            env = {**os.environ, "DATABASE_URL": self.database_url, **BENCH_SERVER_ENV, "FELT_ACCESS_LOG": "false"}
            if self.cluster:
                env.update(FELT_REDIS_URL=REDIS_URL, FELT_REDIS_PREFIX=self.prefix, FELT_NODE_ID=f"b{i}")
            with open(folder / "server.log", "w") as log:  # the server writes to its own copy of the file
                proc = subprocess.Popen(
                    [
                        "taskset",
                        "-c",
                        "0",
                        sys.executable,
                        "-m",
                        "server",
                        "--port",
                        str(port),
                        "--log-level",
                        "warning",
                    ],
                    cwd=folder,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            self.procs.append(proc)
            wait_healthy(f"http://127.0.0.1:{port}", proc)
        if not self.cluster:
            return f"127.0.0.1:{self.ports[0]}"
        port = free_port()
        config = self.tmp / "haproxy.cfg"
        config.write_text(haproxy_config(port, [f"127.0.0.1:{p}" for p in self.ports], self.maxconn))
        self.haproxy = subprocess.Popen(
            ["taskset", "-c", "1", "haproxy", "-db", "-f", str(config)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_healthy(f"http://127.0.0.1:{port}", self.haproxy)
        time.sleep(1.5)  # HAProxy's checks mark every node up
        return f"127.0.0.1:{port}"

    @property
    def node_pids(self) -> list[int]:
        return [p.pid for p in self.procs]  # taskset runs exec: each is the node's Python process

    def cpu(self) -> float:
        """CPU seconds of the nodes and their writer workers."""
        return sum(tree_cpu(self.node_pids))

    def owners(self) -> dict[str, int]:
        """Tables per node, by the node each table's lease names (cluster mode)."""
        r = redis.Redis.from_url(REDIS_URL)
        keys = list(r.scan_iter(match=self.prefix + "lease:*", count=1000))
        held = collections.Counter(v.decode().rsplit(" ", 1)[0] for v in r.mget(keys) if v) if keys else {}
        r.close()
        return dict(sorted(held.items()))

    def stop(self) -> None:
        if self.haproxy is not None:
            self.haproxy.terminate()
            self.haproxy.wait(5)
        for proc in self.procs:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
        if self.cluster:
            r = redis.Redis.from_url(REDIS_URL)
            keys = list(r.scan_iter(match=self.prefix + "*", count=1000))
            if keys:
                r.delete(*keys)


async def _table(address: str, http: httpx.AsyncClient, seats: int = 4) -> list:
    people = [(await http.post(f"http://{address}/api/players", json={"name": f"B{i}"})).json() for i in range(seats)]
    r = await http.post(
        f"http://{address}/api/rooms",
        json={"game": "oh_hell", "options": {"max_cards": 7}},
        headers={"Authorization": f"Bearer {people[0]['token']}"},
    )
    code = r.json()["code"]
    sockets = []
    for i, person in enumerate(people):
        ws = await websockets.connect(f"ws://{address}/ws/rooms/{code}?token={person['token']}", compression=None)
        sockets.append(ws)
        await ws.recv()
        if i:
            await ws.send(orjson.dumps({"type": "sit", "seat": i}).decode())
    await sockets[0].send('{"type":"start"}')
    return sockets


async def _snapshot(ws) -> dict:
    """Ask for this socket's snapshot; the patches queued before it are read and skipped."""
    await ws.send('{"type":"resync"}')
    while True:
        frame = orjson.loads(await ws.recv())
        if frame["type"] == "snapshot":
            return frame


async def _play_table(sockets: list, pace_s: float, stop_at: float, latencies: list[float], rng: random.Random) -> None:
    """The host's snapshot says whose turn it is, that seat's snapshot its legal moves (two
    snapshots per move in every mode: the load generator keeps no views of its own)."""
    await asyncio.sleep(rng.random() * pace_s)
    while time.monotonic() < stop_at:
        game = (await _snapshot(sockets[0]))["state"]["game"]
        if not game or not game["to_act"]:
            return  # the match is over
        ws = sockets[game["to_act"][0]]
        frame = await _snapshot(ws)
        legal = frame["state"]["game"].get("legal")
        if not legal:
            await asyncio.sleep(0.01)
            continue
        sent = time.perf_counter()
        await ws.send(orjson.dumps({"type": "act", "action": rng.choice(legal), "v": frame["v"]}).decode())
        while True:
            reply = orjson.loads(await ws.recv())
            if (reply["type"] == "patch" and reply["v"] == frame["v"] + 1) or reply["type"] == "error":
                break
        if reply["type"] == "patch":
            latencies.append(time.perf_counter() - sent)
        await asyncio.sleep(pace_s)


def _redis_calls() -> int:
    stats = redis.Redis.from_url(REDIS_URL).info("commandstats")
    return sum(v["calls"] for v in stats.values())


def _pg_commits(database_url: str) -> int:
    name = make_url(database_url).database
    with psycopg.connect(_libpq(database_url)) as conn:
        return conn.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s", (name,)).fetchone()[0]


async def _measure(address: str, setup: Setup, tables: int, seconds: float, pace_s: float) -> dict:
    async with httpx.AsyncClient(timeout=30) as http:
        rooms = [await _table(address, http) for _ in range(tables)]
    await asyncio.sleep(1.0)
    latencies: list[float] = []
    cpu0, redis0, pg0 = setup.cpu(), _redis_calls(), _pg_commits(setup.database_url)
    stop_at = time.monotonic() + seconds
    await asyncio.gather(*(_play_table(s, pace_s, stop_at, latencies, random.Random(i)) for i, s in enumerate(rooms)))
    cpu, calls, commits = setup.cpu() - cpu0, _redis_calls() - redis0, _pg_commits(setup.database_url) - pg0
    for sockets in rooms:
        for ws in sockets:
            await ws.close()
    moves = len(latencies)
    latencies.sort()
    return {
        "moves": moves,
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p99_ms": round(latencies[int(moves * 0.99) - 1] * 1000, 2),
        "cpu_ms_per_move": round(cpu / moves * 1000, 3),
        "redis_per_move": round(calls / moves, 3),
        "pg_commits_per_move": round(commits / moves, 3),
    }


async def _routing(rounds: int = 2000) -> dict:
    """Round trips of a 300-byte frame: direct TCP, through HAProxy (TCP mode), through Redis pub/sub."""
    payload = b"x" * 299 + b"\n"

    async def echo(reader, writer):
        while line := await reader.readline():
            writer.write(line)
            await writer.drain()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    hport = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "tcp.cfg"
        cfg.write_text(
            f"defaults\n  mode tcp\n  timeout connect 2s\n  timeout client 30s\n  timeout server 30s\n"
            f"listen echo\n  bind 127.0.0.1:{hport}\n  server e 127.0.0.1:{port}\n"
        )
        proxy = subprocess.Popen(
            ["haproxy", "-db", "-f", str(cfg)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        await asyncio.sleep(0.5)
        out = {}
        try:
            for name, p in (("direct", port), ("haproxy", hport)):
                reader, writer = await asyncio.open_connection("127.0.0.1", p)
                times = []
                for _ in range(rounds):
                    t = time.perf_counter()
                    writer.write(payload)
                    await writer.drain()
                    await reader.readline()
                    times.append(time.perf_counter() - t)
                writer.close()
                out[name] = times
        finally:
            proxy.terminate()
            proxy.wait(5)
            server.close()
    out["redis_relay"] = await _redis_round_trips(rounds, payload)
    return {
        name: {
            "p50_us": round(statistics.median(t) * 1e6, 1),
            "p99_us": round(sorted(t)[int(len(t) * 0.99) - 1] * 1e6, 1),
        }
        for name, t in out.items()
    }


async def _redis_round_trips(rounds: int, payload: bytes) -> list[float]:
    """A frame published to the owner's channel, read there, the answer published back: what a
    relaying node adds to every client frame and every frame back (the owner is a task here,
    on its own connection, as it would be a process)."""
    from redis import asyncio as aioredis

    prefix = f"felt-bench-{secrets.token_hex(4)}:"
    owner_conn, edge_conn = aioredis.from_url(REDIS_URL), aioredis.from_url(REDIS_URL)
    owner_sub, edge_sub = owner_conn.pubsub(), edge_conn.pubsub()
    await owner_sub.subscribe(prefix + "owner")
    await edge_sub.subscribe(prefix + "edge")

    async def owner():
        async for message in owner_sub.listen():
            if message["type"] == "message":
                await owner_conn.publish(prefix + "edge", message["data"])

    task = asyncio.ensure_future(owner())
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        await edge_conn.publish(prefix + "owner", payload)
        while True:
            message = await edge_sub.get_message(timeout=5)
            if message and message["type"] == "message":
                break
        times.append(time.perf_counter() - t)
    task.cancel()
    for c in (owner_sub, edge_sub):
        await c.aclose()
    for c in (owner_conn, edge_conn):
        await c.aclose()
    return times


async def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cluster")
    parser.add_argument("--tables", type=int, default=24)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--pace-ms", type=float, default=250)
    parser.add_argument("--routing-only", action="store_true")
    args = parser.parse_args()
    print("routing (round trip of one 300-byte frame):", orjson.dumps(await _routing()).decode(), flush=True)
    if args.routing_only:
        return
    results = {}
    for label, nodes, cluster in (("single", 1, False), ("cluster-1", 1, True), ("cluster-2", 2, True)):
        with fresh_database() as url, tempfile.TemporaryDirectory() as tmp:
            setup = Setup(Path(tmp), url, nodes, cluster)
            try:
                address = setup.start()
                results[label] = await _measure(address, setup, args.tables, args.seconds, args.pace_ms / 1000)
            finally:
                setup.stop()
        print(label, orjson.dumps(results[label]).decode(), flush=True)
    single = results["single"]
    for label in ("cluster-1", "cluster-2"):
        r = results[label]
        print(
            f"{label}: CPU per move {r['cpu_ms_per_move'] / single['cpu_ms_per_move']:.2f}x single, "
            f"p50 {r['p50_ms'] - single['p50_ms']:+.2f} ms, p99 {r['p99_ms'] - single['p99_ms']:+.2f} ms"
        )


if __name__ == "__main__":
    asyncio.run(main())
