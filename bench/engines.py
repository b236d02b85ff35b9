"""Engines: random whole games per CPU second per game, hands and cards played per second,
and Oh Hell hands per second beside OpenSpiel's ``oh_hell`` random playouts.

Each game plays uniformly random legal actions (``to_act`` / ``legal_actions`` / ``apply``)
from ``new_game`` until ``to_act`` is empty, 4 players and default options. Rates divide by
this thread's CPU time (``time.thread_time``), not wall time, so that other processes on the
shared machine do not count against the engine; wall rates are kept beside them.
"""

from __future__ import annotations

import random
import time

from bench.common import figure
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
        "games": games, "hands": hands, "cards": cards, "actions": actions, "cpu_s": cpu, "wall_s": wall,
        "games_per_s": games / cpu, "hands_per_s": hands / cpu, "cards_per_s": cards / cpu,
        "actions_per_s": actions / cpu, "cards_per_s_wall": cards / wall,
    }


def bench_openspiel(budget_s: float, seed: int = 1) -> dict:
    try:
        import pyspiel
    except Exception as err:
        return {"error": f"open-spiel is not installed ({type(err).__name__}: {err})"}
    game = pyspiel.load_game("oh_hell", {"players": 4, "num_cards_per_suit": 13, "num_suits": 4, "num_tricks_fixed": 10})
    rng = random.Random(seed)
    hands = actions = 0
    c0, w0 = time.thread_time(), time.perf_counter()
    while hands == 0 or time.thread_time() - c0 < budget_s:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                actions += 1
        hands += 1
    cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
    cards = hands * 10 * 4
    return {"hands": hands, "cards": cards, "actions": actions, "cpu_s": cpu, "wall_s": wall,
            "hands_per_s": hands / cpu, "cards_per_s": cards / cpu, "version": getattr(pyspiel, "__version__", None)}


def run_engines(quick: bool, log=print) -> tuple[dict, list[dict]]:
    budget = 0.5 if quick else 6.0
    raw: dict = {}
    for name in game_names():
        raw[name] = bench_game(name, budget)
        r = raw[name]
        log(f"  engine {name}: {r['games_per_s']:.2f} games/s, {r['hands_per_s']:.1f} hands/s, {r['cards_per_s']:,.0f} cards/s")
    raw["openspiel_oh_hell"] = ops = bench_openspiel(budget)
    figs: list[dict] = []
    oh = raw["oh_hell"]
    for name in game_names():
        r = raw[name]
        figs.append(figure(f"engine.{name}.games_per_s", r["games_per_s"], "games/CPU-s", hands_per_s=r["hands_per_s"]))
        if name != "oh_hell":
            ratio = r["cards_per_s"] / oh["cards_per_s"]
            figs.append(figure(f"engine.{name}.cards_per_s", r["cards_per_s"], "cards/CPU-s", baseline=oh["cards_per_s"],
                               ratio=ratio, target=">= Oh Hell's cards/s", passed=ratio >= 1.0))
        else:
            figs.append(figure("engine.oh_hell.cards_per_s", r["cards_per_s"], "cards/CPU-s"))
    if "error" in ops:
        figs.append(figure("engine.oh_hell.hands_per_s_vs_openspiel", oh["hands_per_s"], "hands/CPU-s",
                           target=">= OpenSpiel's hands/s", passed=None, note=ops["error"]))
    else:
        ratio = oh["hands_per_s"] / ops["hands_per_s"]
        figs.append(figure("engine.oh_hell.hands_per_s_vs_openspiel", oh["hands_per_s"], "hands/CPU-s",
                           baseline=ops["hands_per_s"], ratio=ratio, target=">= OpenSpiel's hands/s", passed=ratio >= 1.0,
                           note="our hands average 5.3 tricks (10..1..10); OpenSpiel's are 10"))
        figs.append(figure("engine.oh_hell.cards_per_s_vs_openspiel", oh["cards_per_s"], "cards/CPU-s",
                           baseline=ops["cards_per_s"], ratio=oh["cards_per_s"] / ops["cards_per_s"]))
    return raw, figs
