"""Oh Hell bid-making on a fixed set of single hands: a quick, paired A/B for the Strong bot.

    .venv/bin/python -m bench.oh_hell_bids --hands 1000 --samples 48 --out /tmp/after.json
    .venv/bin/python -m bench.oh_hell_bids --hands 1000 --samples 48 --against /tmp/before.json

Hand ``i`` is the first hand of a 4-player match with seed ``40_000 + i``: sizes 1-5 in turn
(``max_cards``, standard scoring), the dealer and the one Strong seat rotating independently
of the size. The three other seats are Easy bots. Every hand is played once with the bot of
the tree this runs in; ``--samples`` fixes the Strong bot's sampled deals per decision (never
a time budget), so a run gives the same hands on any machine. It prints the share of bids the
Strong seat made (95% Wilson interval), its points a hand, the Easy seats' bids made, and the
CPU per Strong decision. ``--first N`` starts at hand ``N`` (a later set of hands, disjoint
from the first ``N``). ``--out`` keeps every hand's result; ``--against`` a file from
another tree (the same hands and samples) prints the paired difference: both bots play the
same deals, so the difference's interval is much narrower than either share's. The figures
go to ``bots.json`` under ``oh_hell_bids``: ``bench/results/`` with ``--write``, else the
ignored ``bench/results/local/``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Callable
from typing import Any

from bench.bots import wilson
from bench.common import add_write_flag, merge_results, results_path
from server.bots import get_bot
from server.bots.base import Bot
from server.games import get_game

PLAYERS = 4


def hand_setup(i: int) -> tuple[int, int, int]:
    """Hand ``i``'s size, dealer and Strong seat (the last two rotate independently of the size)."""
    return 1 + i % 5, (i // 5) % PLAYERS, (i // 20) % PLAYERS


def play_hand(i: int, samples: int, make_strong: Callable[..., Bot] | None = None) -> dict[str, Any]:
    """Hand ``i`` played out: the Strong seat's bid, tricks, points and CPU."""
    size, dealer, strong = hand_setup(i)
    options = {"max_cards": size, "rebound": False}
    game = get_game("oh_hell")
    state = game.new_game(players=PLAYERS, options=options, seed=40_000 + i, dealer=dealer)
    make = make_strong or (
        lambda rng, options, samples: get_bot(
            "oh_hell",
            rng,
            level="strong",
            options=options,
            samples=samples,
            easy_seats=[s for s in range(PLAYERS) if s != strong],
        )
    )
    bots = [
        make(random.Random(i), options, samples) if s == strong else get_bot("oh_hell", random.Random(i * 97 + s))
        for s in range(PLAYERS)
    ]
    cpu, decisions = 0.0, 0
    while game.to_act(state) and not game.view(state, None)["history"]:
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        started = time.process_time()
        action = bots[seat].choose(view, view["legal"])
        if seat == strong:
            cpu, decisions = cpu + time.process_time() - started, decisions + 1
        state = game.apply(state, seat, action)
    entry = game.view(state, None)["history"][0]
    made = [entry["bids"][s] == entry["tricks_won"][s] for s in range(PLAYERS)]
    return {
        "hand": i,
        "size": size,
        "seat": strong,
        "bid": entry["bids"][strong],
        "taken": entry["tricks_won"][strong],
        "made": made[strong],
        "points": entry["scores"][strong],
        "easy_made": sum(made) - made[strong],
        "cpu": cpu,
        "decisions": decisions,
    }


def summary(results: list[dict], samples: int, log=print) -> dict[str, Any]:
    """The run's figures (printed, and returned for ``bots.json``)."""
    n = len(results)
    made = sum(r["made"] for r in results)
    low, high = wilson(made, n)
    over = sum(r["taken"] > r["bid"] for r in results)
    points = [r["points"] for r in results]
    mean = sum(points) / n
    sd = math.sqrt(sum((p - mean) ** 2 for p in points) / max(1, n - 1))
    cpu = 1000 * sum(r["cpu"] for r in results) / max(1, sum(r["decisions"] for r in results))
    log(
        f"oh_hell_bids: {n} hands, Strong ({samples} samples) made {made}/{n} = {made / n:.1%} "
        f"(95% {low:.1%}-{high:.1%}; {over} over, {n - made - over} under); "
        f"{mean:.2f} points a hand (+-{1.96 * sd / math.sqrt(n):.2f}); "
        f"the Easy seats made {sum(r['easy_made'] for r in results) / (3 * n):.1%}; "
        f"{cpu:.1f} ms of CPU per Strong decision"
    )
    return {
        "hands": n,
        "samples": samples,
        "made": made,
        "made_share": made / n,
        "made_interval": [low, high],
        "over": over,
        "points_per_hand": mean,
        "easy_made_share": sum(r["easy_made"] for r in results) / (3 * n),
        "cpu_ms_per_decision": cpu,
    }


def paired(results: list[dict], before: list[dict], log=print) -> None:
    """This run minus ``before``, hand by hand, with normal 95% intervals of the mean difference."""
    pairs = [(a, b) for a, b in zip(results, before, strict=False) if a["hand"] == b["hand"]]
    n = len(pairs)
    for key in ("made", "points"):
        diffs = [float(a[key]) - float(b[key]) for a, b in pairs]
        mean = sum(diffs) / n
        sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / max(1, n - 1))
        half = 1.96 * sd / math.sqrt(n)
        unit = " points" if key == "points" else ""
        shown = (lambda x: f"{x:+.2f}") if key == "points" else (lambda x: f"{100 * x:+.1f}")
        log(
            f"paired, {key}: {shown(mean)}{unit or ' percentage points'} over {n} hands "
            f"(95% {shown(mean - half)} to {shown(mean + half)})"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.oh_hell_bids")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument(
        "--first", type=int, default=0, help="the first hand's number (hands first .. first + hands - 1)"
    )
    parser.add_argument("--samples", type=int, default=48)
    parser.add_argument("--out", help="write every hand's result here (JSON)")
    parser.add_argument("--against", help="a file written by --out on another tree: print the paired difference")
    add_write_flag(parser)
    args = parser.parse_args(argv)
    results = [play_hand(i, args.samples) for i in range(args.first, args.first + args.hands)]
    figures = summary(results, args.samples)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"samples": args.samples, "hands": results}, f)
    if args.against:
        with open(args.against) as f:
            before = json.load(f)
        paired(results, before["hands"])
    merge_results({"oh_hell_bids": figures}, args.write, "bots.json")
    print(f"results in {results_path('bots.json', args.write)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
