"""``python -m bench.engines_ir BASE_DIR [GAMES_PER_ENGINE]``: this tree's engines against another
checkout's, counted in machine instructions instead of seconds.

The same random games (seeded; ``PYTHONHASHSEED=0``) are played in each tree under valgrind's
callgrind, which counts the instructions executed inside the play loop only (the loop runs
inside ``functools.reduce``, the one function collection is switched on for, so imports and
start-up do not count; the objects they made are frozen out of the collector's way). A count
does not move with the machine's load, where CPU-second rates on the shared 2-core machine swing
by +-30% from one round to the next; it is a proxy
(it ignores cache misses and the allocator's locality), so the timed ``bench.engines_compare``
stays the figure of record. Needs ``valgrind`` on PATH (Debian package ``valgrind``).
Prints per game the instructions per card played in each tree and base/new (above 1: faster).
``FELT_BENCH_GAMES=tarbish,oh_hell`` counts only those games.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from server.games import game_names

_CODE = r"""
import functools, gc, json, random, sys
from server.games import get_game
gc.set_threshold(50_000, 20, 100)  # server.app.GC_THRESHOLDS, without importing the app
gc.collect()
gc.freeze()  # the imports' objects: a collection in the loop then costs what the games made
game, rng = get_game(sys.argv[1]), random.Random(11)
CARDS = {"play": 1, "ribs": 2, "pair": 2}

def one(cards, g):
    state = game.new_game(players=4, options={}, seed=rng.randrange(1 << 30), dealer=g % 4)
    while to_act := game.to_act(state):
        seat = to_act[0] if len(to_act) == 1 else rng.choice(to_act)
        action = rng.choice(game.legal_actions(state, seat))
        state = game.apply(state, seat, action)
        cards += CARDS.get(action.get("type"), 0)
    return cards

print(json.dumps(functools.reduce(one, range(int(sys.argv[2])), 0)))
"""


def count(tree: str, name: str, games: int) -> tuple[int, int]:
    """(cards played, instructions executed in the play loop) for ``games`` matches."""
    out = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            "--toggle-collect=functools_reduce",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            _CODE,
            name,
            str(games),
        ],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": tree, "PYTHONHASHSEED": "0"},
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    collected = re.search(r"Collected : ([\d,]+)", out.stderr)
    if collected is None:
        raise RuntimeError(f"callgrind printed no count: {out.stderr[-400:]}")
    return int(out.stdout.strip().splitlines()[-1]), int(collected.group(1).replace(",", ""))


def main() -> None:
    if shutil.which("valgrind") is None:
        sys.exit("bench.engines_ir needs valgrind on PATH (apt-get install valgrind)")
    base = sys.argv[1]
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    names = os.environ.get("FELT_BENCH_GAMES", ",".join(game_names())).split(",")
    counts = {(tree, name): count(tree, name, games) for name in names for tree in (base, here)}
    for name in names:
        (b_cards, b_ir), (n_cards, n_ir) = counts[(base, name)], counts[(here, name)]
        same = "" if b_cards == n_cards else f" (NOT the same games: {b_cards} vs {n_cards} cards)"
        print(
            f"{name}: base {b_ir / b_cards:,.0f} instructions/card, new {n_ir / n_cards:,.0f}, "
            f"base/new {(b_ir / b_cards) / (n_ir / n_cards):.3f}{same}"
        )


if __name__ == "__main__":
    main()
