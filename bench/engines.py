"""Engines: random whole games per CPU second per game, hands and cards played per second,
and Oh Hell hands per second beside OpenSpiel's ``oh_hell`` random playouts.

Each game plays uniformly random legal actions (``to_act`` / ``legal_actions`` / ``apply``)
from ``new_game`` until ``to_act`` is empty, 4 players and default options. Rates divide by
this thread's CPU time (``time.thread_time``), not wall time, so that other processes on the
shared machine do not count against the engine; wall rates are kept beside them. The engines
run under the collector thresholds the server sets (``server.app.GC_THRESHOLDS``), as they do
in production: with Python's default (a young collection every 700 new containers), a Bid
Whist discard's 1,820 enumerated actions alone set off several collections.
"""

from __future__ import annotations

import gc
import random
import time

from bench.common import figure, median
from server.app import GC_THRESHOLDS
from server.games import game_names, get_game

CARD_ACTIONS = {"play": 1, "ribs": 2, "pair": 2}


def bench_game(name: str, budget_s: float, seed: int = 1) -> dict:
    game = get_game(name)
    rng = random.Random(seed)
    games = hands = cards = actions = 0
    c0, w0 = time.thread_time(), time.perf_counter()
    while games == 0 or time.thread_time() - c0 < budget_s:
        state = game.new_game(players=4, options={}, seed=rng.randrange(1 << 30), dealer=games % 4)
        n_actions = 0
        while n_actions < 200_000:
            to_act = game.to_act(state)
            if not to_act:
                break
            seat = to_act[0] if len(to_act) == 1 else rng.choice(to_act)
            action = rng.choice(game.legal_actions(state, seat))
            state = game.apply(state, seat, action)
            cards += CARD_ACTIONS.get(action.get("type"), 0)
            n_actions += 1
        actions += n_actions
        hands += len(game.hand_records(state))
        games += 1
    cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
    return {
        "games": games,
        "hands": hands,
        "cards": cards,
        "actions": actions,
        "cpu_s": cpu,
        "wall_s": wall,
        "games_per_s": games / cpu,
        "hands_per_s": hands / cpu,
        "cards_per_s": cards / cpu,
        "actions_per_s": actions / cpu,
        "cards_per_s_wall": cards / wall,
    }


def bench_openspiel(budget_s: float, seed: int = 1) -> dict:
    try:
        import pyspiel
    except ImportError as err:
        return {"error": f"open-spiel is not installed ({type(err).__name__}: {err})"}
    game = pyspiel.load_game(
        "oh_hell", {"players": 4, "num_cards_per_suit": 13, "num_suits": 4, "num_tricks_fixed": 10}
    )
    rng = random.Random(seed)
    hands = actions = 0
    c0, w0 = time.thread_time(), time.perf_counter()
    while hands == 0 or time.thread_time() - c0 < budget_s:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                actions += 1
        hands += 1
    cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
    cards = hands * 10 * 4
    return {
        "hands": hands,
        "cards": cards,
        "actions": actions,
        "cpu_s": cpu,
        "wall_s": wall,
        "hands_per_s": hands / cpu,
        "cards_per_s": cards / cpu,
        "version": getattr(pyspiel, "__version__", None),
    }


def _total(parts: list[dict]) -> dict:
    """Several runs of one game as one: counts and CPU seconds summed, rates recomputed."""
    out = {k: sum(p[k] for p in parts) for k in ("hands", "cards", "actions", "cpu_s", "wall_s")}
    if "games" in parts[0]:
        out["games"] = sum(p["games"] for p in parts)
        out["games_per_s"] = out["games"] / out["cpu_s"]
    out["hands_per_s"] = out["hands"] / out["cpu_s"]
    out["cards_per_s"] = out["cards"] / out["cpu_s"]
    out["cards_per_s_wall"] = out["cards"] / out["wall_s"]
    return out


def run_engines(quick: bool, log=print, rounds: int = 5) -> tuple[dict, list[dict]]:
    """Every engine (and OpenSpiel) for a slice of the budget, ``rounds`` times in turn.

    A ratio is taken within each round (the machine is shared: a busy moment slows the
    engines of one round together) and the figure is the median of the rounds' ratios.
    """
    budget = (0.75 if quick else 6.0) / rounds
    names = game_names()
    parts: dict[str, list[dict]] = {name: [] for name in names}
    spiel: list[dict] = []
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        for r in range(rounds):
            for name in names:
                parts[name].append(bench_game(name, budget, seed=r + 1))
            spiel.append(bench_openspiel(budget, seed=r + 1))
    finally:
        gc.set_threshold(*before)
    raw: dict = {"gc_thresholds": list(GC_THRESHOLDS), "rounds": rounds}
    for name in names:
        raw[name] = r_ = _total(parts[name])
        r_["round_ratios_to_oh_hell"] = [
            p["cards_per_s"] / o["cards_per_s"] for p, o in zip(parts[name], parts["oh_hell"], strict=True)
        ]
        log(
            f"  engine {name}: {r_['games_per_s']:.2f} games/s, {r_['hands_per_s']:.1f} hands/s, "
            f"{r_['cards_per_s']:,.0f} cards/s"
        )
    if any("error" in s_ for s_ in spiel):
        raw["openspiel_oh_hell"] = ops = next(s_ for s_ in spiel if "error" in s_)
    else:
        raw["openspiel_oh_hell"] = ops = _total(spiel)
        ops["version"] = spiel[0].get("version")
        ops["round_hands_ratios"] = [
            o["hands_per_s"] / s_["hands_per_s"] for o, s_ in zip(parts["oh_hell"], spiel, strict=True)
        ]
    figs: list[dict] = []
    oh = raw["oh_hell"]
    for name in game_names():
        r = raw[name]
        figs.append(figure(f"engine.{name}.games_per_s", r["games_per_s"], "games/CPU-s", hands_per_s=r["hands_per_s"]))
        if name != "oh_hell":
            ratio = median(r["round_ratios_to_oh_hell"])
            figs.append(
                figure(
                    f"engine.{name}.cards_per_s",
                    r["cards_per_s"],
                    "cards/CPU-s",
                    baseline=oh["cards_per_s"],
                    ratio=ratio,
                    target=">= Oh Hell's cards/s",
                    passed=ratio >= 1.0,
                    note=f"median of {rounds} rounds' ratios",
                )
            )
        else:
            figs.append(figure("engine.oh_hell.cards_per_s", r["cards_per_s"], "cards/CPU-s"))
    if "error" in ops:
        figs.append(
            figure(
                "engine.oh_hell.hands_per_s_vs_openspiel",
                oh["hands_per_s"],
                "hands/CPU-s",
                target=">= OpenSpiel's hands/s",
                passed=None,
                note=ops["error"],
            )
        )
    else:
        ratio = median(ops["round_hands_ratios"])
        figs.append(
            figure(
                "engine.oh_hell.hands_per_s_vs_openspiel",
                oh["hands_per_s"],
                "hands/CPU-s",
                baseline=ops["hands_per_s"],
                ratio=ratio,
                target=">= OpenSpiel's hands/s",
                passed=ratio >= 1.0,
                note=f"median of {rounds} rounds; our hands average 5.3 tricks (10..1..10), OpenSpiel's 10",
            )
        )
        figs.append(
            figure(
                "engine.oh_hell.cards_per_s_vs_openspiel",
                oh["cards_per_s"],
                "cards/CPU-s",
                baseline=ops["cards_per_s"],
                ratio=oh["cards_per_s"] / ops["cards_per_s"],
            )
        )
    return raw, figs
