"""``python -m bench.durable [--quick]``: what the write-ahead table log costs at human pace.

Three servers side by side, all pinned to core 0 (``taskset``), each with its own load
client on core 1 (``bench/load_client.py``): Felt with the table log (as it runs), the same
Felt with the log off (``FELT_TABLE_LOG=0``, a setting that exists for this bench only), and
the bare FastAPI broadcast server. Every room plays at 1 move a second (the open loop: each
room acts once a second at its own offset). At one level (2,500 rooms; 300 with ``--quick``)
each repeat runs the three back to back, in a rotating order, and each ratio is the median
of the repeats' ratios.

Figures: p50 and p99 latency of a move (from its frame being written to the room's last
socket reading its patch) with the log, against the same server without it (in ms added)
and against the bare server; server CPU per move with the log (the server process and its
writer worker, which does the database work) against without; and the longest event-loop
block of the server with the log while the rooms play (``FELT_LOOP_MONITOR=1``: a 1 ms
ticker in the server, each gap bounded by the loop thread's own CPU time, so a shared
machine's other processes are not counted; read from ``/healthz``).

Prints one line per figure and merges them into latest.json under "durable" (bench/results/
with ``--write``, else the ignored bench/results/local/).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.common import ROOT, add_write_flag, figure, line, median, merge_results, results_path, tree_cpu
from bench.load import BENCH_SERVER_ENV, PY, Client, _free_port, _kill, _taskset, _wait_port

GAMES = "oh_hell,bid_whist,tarbish,ribs"


class Target:
    """One server (and its load client)."""

    def __init__(self, name: str, workdir: Path, env: dict | None, module: str = "server") -> None:
        self.name = name
        self.port = _free_port()
        self.log = open(workdir / f"{name}-server.log", "w")  # noqa: SIM115 (closed by stop(), with the server)
        if env is None:  # the bare server
            cmd, kind = [PY, "-m", "bench.bare_server"], "bare"
            full_env = dict(os.environ)
        else:
            cmd, kind = [PY, "-m", module], "felt"  # bench/loop_turns.py runs an instrumented one
            full_env = {
                **os.environ,
                "DATABASE_URL": f"sqlite:///{workdir / (name + '.db')}",
                "FELT_SPOOL_PATH": str(workdir / f"{name}-spool.jsonl"),
                **BENCH_SERVER_ENV,
                **env,
            }
        self.proc = subprocess.Popen(
            [*_taskset(0), *cmd, "--port", str(self.port), "--log-level", "warning"],
            cwd=ROOT,
            env=full_env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        _wait_port(self.port, self.proc, 60)
        self.kind = kind
        self.client = Client(kind, self.port, workdir / f"{name}-client.log", GAMES)

    def cpu(self) -> tuple[float, float]:
        """The server process's CPU seconds, and its children's (the writer's worker)."""
        return tree_cpu([self.proc.pid])

    def loop_block_ms(self) -> float | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=10) as res:
                return json.loads(res.read()).get("loop_block_max_ms")
        except OSError:
            return None

    def stop(self) -> None:
        self.client.stop()
        _kill(self.proc)
        self.log.close()


def _run(t: Target, rooms: int, seconds: float, warmup: float, seed: int) -> dict:
    if t.kind == "felt":
        t.loop_block_ms()  # reset the monitor
    s0, w0 = t.cpu()
    out = t.client.rpc(
        {
            "cmd": "run",
            "mode": "open",
            "rooms": rooms,
            "seconds": seconds,
            "warmup": warmup,
            "seed": seed,
            "drain": 5.0,
        },
        timeout=seconds + warmup + 120,
    )
    s1, w1 = t.cpu()
    moves = out["actions_total"]
    out["server_cpu_us_per_move"] = (s1 - s0 + w1 - w0) / moves * 1e6 if moves else None
    out["worker_cpu_us_per_move"] = (w1 - w0) / moves * 1e6 if moves else None  # part of the figure above
    out["loop_block_max_ms"] = t.loop_block_ms() if t.kind == "felt" else None
    return out


def run(quick: bool, log=print, rooms: int | None = None, reps: int | None = None) -> tuple[dict, list[dict]]:
    level, repeats, seconds, warmup = (300, 2, 3.0, 1.0) if quick else (2500, 3, 8.0, 2.0)
    rooms, reps = rooms or level, reps or repeats
    workdir = Path(tempfile.mkdtemp(prefix="felt-bench-durable-"))
    targets: list[Target] = []
    raw: dict = {"rooms": rooms, "repeats": reps, "seconds": seconds, "runs": []}
    try:
        targets = [
            Target("log", workdir, {"FELT_LOOP_MONITOR": "1"}),
            Target("nolog", workdir, {"FELT_TABLE_LOG": "0", "FELT_LOOP_MONITOR": "1"}),
            Target("bare", workdir, None),
        ]
        for t in targets:
            t0 = time.monotonic()
            t.client.rpc({"cmd": "grow", "rooms": rooms, "start": t.kind == "felt"}, timeout=1800)
            log(f"  durable: {rooms} rooms open on {t.name} ({time.monotonic() - t0:.0f} s)")
        for rep in range(reps):
            order = targets[rep % 3 :] + targets[: rep % 3]
            pair = {}
            for t in order:
                r = _run(t, rooms, seconds, warmup, seed=rep + 1)
                r.update(target=t.name, rep=rep)
                raw["runs"].append(r)
                pair[t.name] = r
                log(
                    f"  durable rep {rep} {t.name:5s}: {r['actions_per_s']:.0f} moves/s p50 {r['p50_ms'] or 0:.2f} "
                    f"p99 {r['p99_ms'] or 0:.2f} ms cpu {r['server_cpu_us_per_move'] or 0:.0f} us/move "
                    f"(worker {r['worker_cpu_us_per_move'] or 0:.0f}) "
                    f"loop block {r['loop_block_max_ms'] or 0:.2f} ms lost {r['lost']}"
                )
    finally:
        for t in targets:
            t.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    return raw, _figures(raw)


def _figures(raw: dict) -> list[dict]:
    runs = raw["runs"]

    def per_rep(target: str, key: str) -> list:
        return [r[key] for r in sorted((r for r in runs if r["target"] == target), key=lambda r: r["rep"])]

    def med(target: str, key: str) -> float | None:
        vals = [v for v in per_rep(target, key) if v is not None]
        return median(vals) if vals else None

    def added(key: str) -> float | None:
        pairs = [
            (a - b)
            for a, b in zip(per_rep("log", key), per_rep("nolog", key), strict=True)
            if a is not None and b is not None
        ]
        return median(pairs) if pairs else None

    def ratio(a: str, b: str, key: str) -> float | None:
        pairs = [x / y for x, y in zip(per_rep(a, key), per_rep(b, key), strict=True) if x and y]
        return median(pairs) if pairs else None

    n = raw["rooms"]
    p50_add, p99_add = added("p50_ms"), added("p99_ms")
    cpu_ratio = ratio("log", "nolog", "server_cpu_us_per_move")
    block = max((v for v in per_rep("log", "loop_block_max_ms") if v is not None), default=None)
    lost = sum(r["lost"] + r["undelivered"] for r in runs if r["target"] != "bare")
    return [
        figure(
            f"durable.p50_added_ms_{n}_rooms",
            p50_add,
            "ms",
            baseline=med("nolog", "p50_ms"),
            target="<= +2 ms",
            passed=None if p50_add is None else p50_add <= 2.0,
            note=f"log on: median p50 {med('log', 'p50_ms')} ms",
        ),
        figure(
            f"durable.p99_added_ms_{n}_rooms",
            p99_add,
            "ms",
            baseline=med("nolog", "p99_ms"),
            target="<= +5 ms",
            passed=None if p99_add is None else p99_add <= 5.0,
            note=f"log on: median p99 {med('log', 'p99_ms')} ms",
        ),
        figure(
            f"durable.p50_vs_bare_{n}_rooms",
            med("log", "p50_ms"),
            "ms",
            baseline=med("bare", "p50_ms"),
            ratio=ratio("log", "bare", "p50_ms"),
        ),
        figure(
            f"durable.p99_vs_bare_{n}_rooms",
            med("log", "p99_ms"),
            "ms",
            baseline=med("bare", "p99_ms"),
            ratio=ratio("log", "bare", "p99_ms"),
        ),
        figure(
            f"durable.cpu_us_per_move_{n}_rooms",
            med("log", "server_cpu_us_per_move"),
            "us",
            baseline=med("nolog", "server_cpu_us_per_move"),
            ratio=cpu_ratio,
            target="<= 1.35x log off",
            passed=None if cpu_ratio is None else cpu_ratio <= 1.35,
            note="server process + its writer worker; baseline: the same server with the log off",
        ),
        figure(
            f"durable.loop_block_max_ms_{n}_rooms",
            block,
            "ms",
            baseline=max((v for v in per_rep("nolog", "loop_block_max_ms") if v is not None), default=None),
            target="< 1 ms",
            passed=None if block is None else block < 1.0,
            note="the longest the loop ran without yielding (its own CPU time); baseline: log off",
        ),
        figure("durable.lost_frames", lost, "frames", target="0", passed=lost == 0),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.durable", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="300 rooms instead of 2,500")
    parser.add_argument("--rooms", type=int, help="this many rooms instead")
    parser.add_argument("--repeats", type=int, help="this many repeats (2 with --quick, else 3)")
    add_write_flag(parser)
    args = parser.parse_args(argv)
    raw, figures = run(args.quick, rooms=args.rooms, reps=args.repeats)
    for f in figures:
        print(line(f), flush=True)
    merge_results(
        {"durable": {"raw": raw, "figures": figures, "quick": args.quick, "loadavg": os.getloadavg()}}, args.write
    )
    print(f"results in {results_path('latest.json', args.write).relative_to(ROOT)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
