"""Proven claims: how long the claim search (server/rules/claims.py) takes, per game, with
13, 9 and 5 cards in each hand (a game's largest hand where it deals fewer: Bid Whist 12,
Tarabish 9).

Positions are random deals played at random to the first card played with no hand holding more
than that; each seat claims there in turn, so claims that are certain, refuted at once and
hard to settle are all timed. The figures are the p50 and p99 of one claim's CPU time (on a
shared machine the wall time measures the neighbours: it is in the note), and how many claims
were certain or hit the node budget (those are refused). Target: p99 under 50 ms at the
largest hand (the budget bounds the worst case).

    .venv/bin/python -m bench.claims [--quick]
"""

from __future__ import annotations

import argparse
import random
import time

from bench.common import figure, pct
from server.games import get_game
from server.rules.claims import NODE_BUDGET, ClaimSearch, OverBudget

# (game, players, options, hand sizes)
CASES = [
    ("oh_hell", 3, {"max_cards": 13, "start": "high"}, (13, 9, 5)),
    ("bid_whist", 4, None, (12, 9, 5)),
    ("tarbish", 4, None, (9, 5)),
    ("spades", 4, None, (13, 9, 5)),
]


def position(game, players: int, options, size: int, seed: int):
    """A random deal played at random to the first card played with no hand holding more than
    ``size`` cards (Bid Whist's trick play starts with the declarer's lead)."""
    rng = random.Random(seed)
    state = game.new_game(players, options, seed=seed)
    while True:
        play = game.trick_play(state)
        if play is not None and max(map(len, play.hands)) <= size:
            return state
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))


def time_claim(game, state, claimant: int) -> tuple[float, float, str]:
    """One claim's wall and CPU time (s) and its answer: certain, refused, or over the budget."""
    play = game.trick_play(state)
    search = ClaimSearch(game, play.sides[claimant], NODE_BUDGET)
    started, cpu = time.perf_counter(), time.process_time()
    try:
        answer = "certain" if search.wins(state, play) else "refused"
        if answer == "certain":
            search.line(state, play)
    except OverBudget:  # the claim is refused
        answer = "budget"
    return time.perf_counter() - started, time.process_time() - cpu, answer


def run_claims(quick: bool, log=print) -> tuple[dict, list[dict]]:
    deals = 8 if quick else 60
    raw: dict = {}
    figs: list[dict] = []
    for name, players, options, sizes in CASES:
        game = get_game(name)
        for size in sizes:
            times, cpus, answers = [], [], []
            for seed in range(deals):
                state = position(game, players, options, size, 1000 + seed)
                for claimant in range(players):
                    took, cpu, answer = time_claim(game, state, claimant)
                    times.append(took * 1000)
                    cpus.append(cpu * 1000)
                    answers.append(answer)
            p50, p99 = pct(cpus, 50), pct(cpus, 99)
            counts = {a: answers.count(a) for a in ("certain", "refused", "budget")}
            raw[f"{name}.{size}"] = {"wall_ms": times, "cpu_ms": cpus, **counts}
            note = (
                f"{len(times)} claims: {counts['certain']} certain, {counts['refused']} refused, "
                f"{counts['budget']} over the budget; wall p99 {pct(times, 99):.1f} ms"
            )
            target = {"target": "< 50", "passed": p99 < 50} if size == max(sizes) else {}
            figs.append(figure(f"claims.{name}.{size}.p99", p99, "ms CPU", note=note, **target))
            figs.append(figure(f"claims.{name}.{size}.p50", p50, "ms CPU"))
    return raw, figs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    from bench.common import line

    for fig in run_claims(args.quick)[1]:
        print(line(fig))


if __name__ == "__main__":
    main()
