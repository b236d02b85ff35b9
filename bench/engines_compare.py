"""``python -m bench.engines_compare BASE_DIR [ROUNDS] [BURST_S]``: this tree's engines against
another checkout's (e.g. ``git clone -q . /tmp/base && git -C /tmp/base checkout -q 7487cf6``), interleaved in one run.

One long-lived worker process per tree runs ``bench.engines.bench_game`` in short bursts
(default 0.1 CPU-second each), the two trees taking turns game by game and round by round,
the order alternating. The machine is shared and its speed drifts over seconds (a round of
the old design, each tree playing 2 s of every game in a fresh process, swung from 0.58 to
1.06 on one tree against itself), so a burst this short sees the same machine as its pair.
Each game prints the median of the rounds' new/base ratios of cards per CPU second, their
interquartile range, and the pooled ratio (all cards over all CPU seconds of each tree).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

from server.games import game_names

_WORKER = r"""
import gc, json, sys
from bench.engines import bench_game
from server.app import GC_THRESHOLDS
gc.set_threshold(*GC_THRESHOLDS)
for line in sys.stdin:
    name, burst, seed = line.split()
    run = bench_game(name, float(burst), seed=int(seed))
    print(json.dumps([run["cards"], run["cpu_s"]]), flush=True)
"""


class _Worker:
    """One tree's engines in a process of their own, asked for one burst at a time."""

    def __init__(self, tree: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _WORKER],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": tree},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def burst(self, name: str, seconds: float, seed: int) -> tuple[int, float]:
        """(cards played, CPU seconds) of about ``seconds`` of random games of ``name``."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{name} {seconds} {seed}\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker stopped (exit {self.process.wait()})")
        cards, cpu = json.loads(line)
        return cards, cpu

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def main() -> None:
    base = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    burst = float(sys.argv[3]) if len(sys.argv) > 3 else 0.1
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = game_names()
    workers = {"base": _Worker(base), "new": _Worker(here)}
    try:
        for name in names:  # warm up: imports, tables, the interpreter's specialising
            for worker in workers.values():
                worker.burst(name, burst, 0)
        for name in names:
            ratios: list[float] = []
            totals = {label: [0, 0.0] for label in workers}
            for r in range(rounds):
                rates = {}
                for label in ("base", "new") if r % 2 == 0 else ("new", "base"):
                    cards, cpu = workers[label].burst(name, burst, r + 1)
                    rates[label] = cards / cpu
                    totals[label][0] += cards
                    totals[label][1] += cpu
                ratios.append(rates["new"] / rates["base"])
            (b_cards, b_cpu), (n_cards, n_cpu) = totals["base"], totals["new"]
            low, _, high = statistics.quantiles(ratios, n=4)
            print(
                f"{name}: base {b_cards / b_cpu:,.0f} cards/s, new {n_cards / n_cpu:,.0f} cards/s, "
                f"ratio median {statistics.median(ratios):.3f} (IQR {low:.3f}-{high:.3f}), "
                f"pooled {(n_cards / n_cpu) / (b_cards / b_cpu):.3f}, {rounds} rounds",
                flush=True,
            )
    finally:
        for worker in workers.values():
            worker.close()


if __name__ == "__main__":
    main()
