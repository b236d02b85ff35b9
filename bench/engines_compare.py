"""``python -m bench.engines_compare BASE_DIR [ROUNDS] [BUDGET_S]``: this tree's engines against
another checkout's (e.g. ``git worktree add /tmp/base main``), interleaved in the same run.

Each round runs ``bench.engines.bench_game`` for every game in a fresh process of each tree,
the order alternating; the figure per game is the median of the rounds' new/base ratios of
cards per CPU second (the machine is shared: a busy moment slows both sides of a round).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

from server.rules.games import game_names

_CODE = r"""
import gc, json
from bench.engines import bench_game
from server.app import GC_THRESHOLDS
gc.set_threshold(*GC_THRESHOLDS)
print(json.dumps({name: bench_game(name, %f, seed=%d)["cards_per_s"] for name in %r}))
"""


def _run(tree: str, budget: float, seed: int, names: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": tree}
    out = subprocess.run(
        [sys.executable, "-c", _CODE % (budget, seed, names)],
        cwd=tree, env=env, capture_output=True, text=True, check=True, timeout=600,
    )
    return json.loads(out.stdout)


def main() -> None:
    base = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    budget = float(sys.argv[3]) if len(sys.argv) > 3 else 0.6
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = game_names()
    runs: dict[str, list[dict[str, float]]] = {"base": [], "new": []}
    for r in range(rounds):
        order = [("base", base), ("new", here)]
        for label, tree in order if r % 2 == 0 else order[::-1]:
            runs[label].append(_run(tree, budget, r + 1, names))
    for name in names:
        ratios = [n[name] / b[name] for n, b in zip(runs["new"], runs["base"])]
        print(
            f"{name}: base {statistics.median(b[name] for b in runs['base']):,.0f} cards/s, "
            f"new {statistics.median(n[name] for n in runs['new']):,.0f} cards/s, "
            f"ratio median {statistics.median(ratios):.3f} ({', '.join(f'{x:.2f}' for x in ratios)})"
        )


if __name__ == "__main__":
    main()
