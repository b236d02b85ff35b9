"""``python -m bench.loop_turns [--rooms N] [--seconds S] [--no-log]``: what makes the loop's long turns.

One Felt server (``bench/turns_server.py``: the standard asyncio loop, every turn timed in
the loop thread's CPU time) under ``bench/durable.py``'s load: N rooms (300) each acting once
a second. Prints how many turns took each 0.1 ms of CPU, and the longest turns with the
callbacks that ran in them, grouped (a room socket's receive loop is ``run_asgi``, a
connection's sender ``RoomSocket._sender``, the table log's writer ``DatabaseWriter._run``).
The timing itself slows every callback; read the shapes, not the microseconds.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

from bench.durable import Target


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.loop_turns", description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--no-log", action="store_true", help="the table log off (FELT_TABLE_LOG=0)")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="felt-bench-turns-"))
    out = workdir / "turns.json"
    os.environ["FELT_TURNS_OUT"] = str(out)
    env = {"FELT_TABLE_LOG": "0"} if args.no_log else {}
    target = Target("turns", workdir, env, module="bench.turns_server")
    try:
        target.client.rpc({"cmd": "grow", "rooms": args.rooms, "start": True}, timeout=1800)
        target.proc.send_signal(signal.SIGUSR1)
        run = target.client.rpc(
            {
                "cmd": "run",
                "mode": "open",
                "rooms": args.rooms,
                "seconds": args.seconds,
                "warmup": 1.0,
                "seed": 1,
                "drain": 5.0,
            },
            timeout=args.seconds + 200,
        )
        target.proc.send_signal(signal.SIGUSR2)
        for _ in range(100):
            if out.exists() and out.stat().st_size:
                break
            time.sleep(0.1)
        report = json.loads(out.read_text())
    finally:
        target.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    print(
        f"{run['actions_total']} moves, {run['actions_per_s']:.0f}/s, p50 {run['p50_ms']:.2f} ms; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    total = sum(n for _, n in report["turns_by_0.1ms"])
    over = sum(n for bucket, n in report["turns_by_0.1ms"] if bucket >= 10)
    print(f"turns: {total}, of which over 1 ms of CPU: {over}")
    print("turns by CPU (0.1 ms buckets, 100 = 10 ms or more):", report["turns_by_0.1ms"])
    for turn in report["longest"]:
        print(f"  {turn['cpu_ms']} ms, {turn['callbacks']} callbacks: {turn['top']}")
    print("callbacks by name (CPU):")
    for name, row in report["callbacks_by_name"].items():
        print(f"  {name}: {row}")
    slow = report["callbacks_over_0.5ms"]
    print(f"longest single callbacks (CPU ms), {len(slow)} shown of those over 0.5 ms:", slow)


if __name__ == "__main__":
    main()
