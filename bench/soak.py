"""The soak: 10,000 sockets on one server, 9,000 idle and 1,000 playing, /healthz timed throughout.

``python -m bench.soak`` (defaults: 9,000 idle spectators in waiting rooms, 250 rooms of four
playing players, 60 s of open-loop play: every room acts once a second) prints one line per
phase and writes ``soak.json`` (to ``bench/results/`` with ``--write``, else to the ignored
``bench/results/local/``). ``--idle``, ``--rooms`` and ``--seconds`` scale it.

- Server: ``python -m server`` on core 0 (``taskset``), SQLite in a temporary folder, bots
  instant; per-address limits raised (every client here shares 127.0.0.1).
- Idle sockets: one process (``python -m bench.soak hold``, core 1) opens them as spectators
  of waiting rooms, 60 a room, and holds them.
- Playing sockets: ``bench/load_client.py`` (core 1), as in the load bench.
- Probe: a thread of this process asks ``GET /healthz`` on a new connection every 100 ms from
  the start to the end; each answer's latency (connect to last byte) is filed under the phase
  it was asked in: opening the idle sockets, opening the playing ones, play.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.common import ROOT, add_write_flag, pct, results_path, write_json
from bench.load import Client, _free_port, _kill, _taskset, _wait_port

PY = sys.executable
TARGET_MS = 50.0
PER_ROOM = 60


class Prober(threading.Thread):
    """Asks /healthz every ``every_s`` and files (phase, latency ms or None for a failure)."""

    def __init__(self, port: int, every_s: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.every_s = every_s
        self.phase = "start"
        self.samples: list[tuple[str, float | None]] = []
        self.stop_flag = threading.Event()

    def run(self) -> None:
        while not self.stop_flag.is_set():
            phase = self.phase
            t0 = time.perf_counter()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                conn.request("GET", "/healthz")
                ok = conn.getresponse().read() and True
                conn.close()
                self.samples.append((phase, (time.perf_counter() - t0) * 1000 if ok else None))
            except OSError:
                self.samples.append((phase, None))
            self.stop_flag.wait(self.every_s)

    def summary(self) -> dict:
        out = {}
        for phase in dict.fromkeys(p for p, _ in self.samples):
            got = [ms for p, ms in self.samples if p == phase]
            ok = [ms for ms in got if ms is not None]
            out[phase] = {
                "probes": len(got),
                "failed": len(got) - len(ok),
                "p50_ms": pct(ok, 50),
                "p99_ms": pct(ok, 99),
                "max_ms": max(ok) if ok else None,
                "over_50ms": sum(1 for ms in ok if ms >= TARGET_MS),
            }
        return out


def start_server(workdir: Path, port: int) -> subprocess.Popen:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"sqlite:///{workdir / 'soak.db'}",
        FELT_BOT_DELAY_MS="0",
        FELT_MAX_OPEN_ROOMS_PER_PLAYER="1000000",
        FELT_MAX_FRAMES_PER_SECOND="100000",
        FELT_FRAME_BURST="100000",
        FELT_RATE_PLAYERS_BURST="1000000",
        FELT_RATE_ROOMS_BURST="1000000",
        FELT_RATE_LOOKUPS_BURST="1000000",
        FELT_RATE_CONNECTS_BURST="1000000",
        FELT_RATE_TOKEN_CONNECTS_BURST="1000000",
        FELT_MAX_SOCKETS_PER_ADDRESS="1000000",
    )
    with open(workdir / "server.log", "w") as log:  # the server writes to its own copy of the file
        proc = subprocess.Popen(
            [*_taskset(0), PY, "-m", "server", "--port", str(port), "--log-level", "warning"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    _wait_port(port, proc)
    return proc


def run(idle: int, rooms: int, seconds: float, log=print) -> dict:
    workdir = Path(tempfile.mkdtemp(prefix="felt-soak-"))
    port = _free_port()
    server = holder = player = None
    prober = Prober(port)
    result: dict = {
        "plan": {"idle": idle, "playing_rooms": rooms, "playing_sockets": 4 * rooms, "seconds": seconds},
        "load_average_before": os.getloadavg(),
    }
    try:
        server = start_server(workdir, port)
        prober.start()
        prober.phase = "idle sockets opening"
        t0 = time.monotonic()
        with open(workdir / "hold.log", "w") as hold_log:
            holder = subprocess.Popen(
                [*_taskset(1), PY, "-m", "bench.soak", "hold", "--port", str(port), "--sockets", str(idle)],
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=hold_log,
                text=True,
            )
        ready = holder.stdout.readline().strip()
        if not ready.startswith("ready"):
            raise RuntimeError(f"the idle sockets did not open: {ready!r} (see {workdir / 'hold.log'})")
        log(f"  soak: {idle} idle sockets open ({time.monotonic() - t0:.1f}s)")
        prober.phase = "playing sockets opening"
        t0 = time.monotonic()
        player = Client("felt", port, workdir / "client.log", "oh_hell,bid_whist,tarbish,ribs")
        player.rpc({"cmd": "grow", "rooms": rooms, "start": True}, timeout=900)
        log(f"  soak: {4 * rooms} playing sockets open and started ({time.monotonic() - t0:.1f}s)")
        prober.phase = "play"
        played = player.rpc(
            {"cmd": "run", "mode": "open", "rooms": rooms, "seconds": seconds, "warmup": 1.0}, timeout=seconds + 120
        )
        result["play"] = {
            k: played.get(k) for k in ("actions", "actions_per_s", "p50_ms", "p99_ms", "lost", "order_errors")
        }
        holder.stdin.write("count\n")
        holder.stdin.flush()
        result["idle_still_open"] = int(holder.stdout.readline().split()[1])
    except Exception as err:
        result["error"] = repr(err)
        log(f"  soak: FAILED {err!r}")
    finally:
        prober.stop_flag.set()
        prober.join(15)
        if player is not None:
            player.stop()
        if holder is not None:
            _kill(holder)
        _kill(server)
        if os.environ.get("BENCH_KEEP"):
            result["workdir"] = str(workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    result["load_average_after"] = os.getloadavg()
    result["healthz"] = prober.summary()
    every = [ms for _, ms in prober.samples]
    result["healthz_all"] = {
        "probes": len(every),
        "failed": sum(1 for ms in every if ms is None),
        "max_ms": max((ms for ms in every if ms is not None), default=None),
        "over_50ms": sum(1 for ms in every if ms is not None and ms >= TARGET_MS),
    }
    return result


# ---- the idle-socket holder (a process of its own) ------------------------------------------


async def hold(port: int, sockets: int) -> None:
    from bench.wsclient import http_json, ws_connect

    status, player = await http_json("127.0.0.1", port, "POST", "/api/players", {"name": "Idle host"})
    assert status == 201, player
    codes = []
    for _ in range((sockets + PER_ROOM - 1) // PER_ROOM):
        status, body = await http_json("127.0.0.1", port, "POST", "/api/rooms", {"game": "ribs"}, player["token"])
        assert status == 201, body
        codes.append(body["code"])
    held = []
    gate = asyncio.Semaphore(64)

    async def one(i: int):
        async with gate:
            return await ws_connect("127.0.0.1", port, f"/ws/rooms/{codes[i // PER_ROOM]}", lambda ws, data: None)

    held = await asyncio.gather(*(one(i) for i in range(sockets)))
    sys.stdout.write(f"ready {len(held)}\n")
    sys.stdout.flush()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        if line.strip() == b"count":
            open_now = sum(1 for ws in held if not ws.transport.is_closing())
            sys.stdout.write(f"open {open_now}\n")
            sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__.split("\n")[0])
    parser.add_argument("mode", nargs="?", default="run", choices=["run", "hold"])
    parser.add_argument("--idle", type=int, default=9000)
    parser.add_argument("--rooms", type=int, default=250)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--port", type=int)
    parser.add_argument("--sockets", type=int)
    add_write_flag(parser)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.mode == "hold":
        asyncio.run(hold(args.port, args.sockets))
        return
    result = run(args.idle, args.rooms, args.seconds)
    result["when"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    path = results_path("soak.json", args.write)
    write_json(path, result)
    for phase, s in result["healthz"].items():
        print(
            f"  healthz during {phase}: {s['probes']} probes, {s['failed']} failed, p50 {s['p50_ms'] or 0:.1f} ms, "
            f"p99 {s['p99_ms'] or 0:.1f} ms, max {s['max_ms'] or 0:.1f} ms, {s['over_50ms']} at 50 ms or more"
        )
    if "play" in result:
        print(f"  play: {result['play']}; idle sockets still open: {result.get('idle_still_open')}")
    print(f"  load average before {result['load_average_before']}, after {result['load_average_after']}")
    print(f"  written to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
