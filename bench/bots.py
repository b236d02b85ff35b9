"""How strong the Strong bots are, how fast they search, and that they never block the server.

    .venv/bin/python -m bench.bots --jobs 2         # every part (Bid Whist alone ~8 min here)
    .venv/bin/python -m bench.bots --quick          # fewer matches (wider intervals)
    .venv/bin/python -m bench.bots --only oh_hell --samples 24
    .venv/bin/python -m bench.bots --only bid_whist --length default --duplicate --jobs 2  # each seed both ways round

Parts (each match has fixed seeds; the Strong seats rotate so each seat position is used):

- ``oh_hell``: one Strong bot against three Easy bots, 4 players: share of matches won (par
  25%, co-winners count as wins) and of its bids made, beside the Easy bots' own bids made.
- ``bid_whist``, ``tarbish``: a team of two Strong bots against two Easy bots: matches won.
- ``ribs4``, ``ribs6``: one Strong bot against Easy bots at 4 and 6 seats: matches won
  against par (1/N).
- ``openspiel``: one Strong bot against three of OpenSpiel's ISMCTS bots (``pyspiel.ISMCTSBot``
  with random rollouts), the same CPU per decision: the ISMCTS simulation count and the Strong
  sample count are each calibrated here to take ``--think-ms`` of CPU a decision, 5-card hands
  of Oh Hell played on both engines at once (the same deal, every action applied to both, their
  turns and scores checked equal; OpenSpiel's scoring is Felt's ``basic``): the share of hands
  the Strong bot wins (co-winners count, which lifts a player as strong as its rivals above 25%;
  also split between co-winners, par exactly 25%). ``--control`` plays each hand again with an
  ISMCTS bot in the Strong seat and pairs the two: what a player as strong as the rivals wins
  from that seat is the fair share. ``--hands N`` sets the count, ``--jobs`` plays hands in
  parallel (the counts are calibrated once, then fixed). Needs ``open-spiel`` in the venv
  (``.venv/bin/pip install open-spiel``).
- ``playouts``: hands played out per second per game by the Strong bot's rollouts (sample a
  state from a real view, apply an action, let the Easy bots finish the hand).
- ``loop``: many tables of Strong bots in one process's ``RoomManager`` (the server's own
  rooms, bot delay, worker pool): the event loop's longest block, measured by a 1 ms ticker.

Every share is given with its 95% Wilson interval. In the match parts a Strong bot searches a
fixed number of sampled deals per decision (``SAMPLES`` per game, or ``--samples``), never a
time budget: the server's budget (``FELT_BOT_THINK_MS``) buys fewer deals on a loaded machine,
which made earlier figures depend on who else was running. Each part prints the CPU its
Strong decisions took, which says what the count costs here. ``--samples 0`` measures the
time budget instead (``--think-ms``), as ``openspiel`` and ``loop`` always do. Each part's
last run goes to ``bots.json``: in ``bench/results/`` with ``--write``, else in the ignored
``bench/results/local/``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.common import add_write_flag, merge_results, results_path
from server.bots import get_bot
from server.bots.strong import StrongBot
from server.games import get_game
from server.rules.sampling import sample_state

# Sampled deals per Strong decision in the match parts: a fixed amount of search, so the
# figures do not depend on the machine's load. Per game, about what the server's 150 ms buys
# here (a Ribs decision weighs every pair of its hand, ~30 candidates a deal); each part
# prints the CPU its decisions took (docs/decisions/0013: why counts, not a clock).
SAMPLES = {"oh_hell": 96, "bid_whist": 40, "tarbish": 48, "ribs": 6}

MATCHES = {  # game part -> (game, players, options, matches in full mode, in quick mode, strong seats)
    "oh_hell": ("oh_hell", 4, {"max_cards": 5}, 80, 24, "one"),
    "bid_whist": ("bid_whist", 4, {"target": 11}, 60, 16, "team"),
    "tarbish": ("tarbish", 4, {"target": 300}, 60, 16, "team"),
    "ribs4": ("ribs", 4, {"target": 3}, 60, 16, "one"),
    "ribs6": ("ribs", 6, {"target": 3}, 48, 12, "one"),
}
# The options above shorten the matches (a compute shortcut); ``--length default`` plays the
# games' own defaults instead (Oh Hell up to 10 cards, Bid Whist to 21, Tarabish to 500, Ribs
# to 5 game points), the honest measure: a longer match leaves less to the luck of the deal.


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share ``wins / n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def play_match(
    name: str, players: int, options: dict, seed: int, strong: set[int], think_ms: float, samples: int | None = None
) -> dict:
    """One whole match; returns its outcome, the Strong seats' decisions and the CPU they took,
    and, for Oh Hell, bids made per seat."""
    game = get_game(name)
    state = game.new_game(players=players, options=options, seed=seed, dealer=seed % players)
    bots = [
        get_bot(
            name,
            random.Random(seed * 97 + s),
            level="strong" if s in strong else "easy",
            options=options,
            think_ms=think_ms,
            samples=samples,
            easy_seats=[e for e in range(players) if e not in strong],
        )
        for s in range(players)
    ]
    decisions, cpu = 0, 0.0
    while game.to_act(state):
        seat = game.to_act(state)[0]
        view, legal = game.view(state, seat), game.legal_actions(state, seat)
        started = time.process_time()
        action = bots[seat].choose(view, legal)
        if seat in strong:
            decisions, cpu = decisions + 1, cpu + time.process_time() - started
        state = game.apply(state, seat, action)
    made, bids = [0] * players, [0] * players
    for hand in game.view(state, None)["history"] if name == "oh_hell" else []:
        for s in range(players):
            if hand["bids"][s] is not None:
                bids[s] += 1
                made[s] += hand["bids"][s] == hand["tricks_won"][s]
    return {"outcome": game.outcome(state), "made": made, "bids": bids, "decisions": decisions, "cpu": cpu}


def _play_one(args: tuple) -> dict:
    return play_match(*args)


class _Serial:
    """``ProcessPoolExecutor``'s ``map`` in this process (one job)."""

    def __enter__(self) -> _Serial:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    @staticmethod
    def map(function, items):
        return map(function, items)


def run_matches(
    part: str,
    quick: bool,
    think_ms: float,
    samples: int | None = None,
    jobs: int = 1,
    log=print,
    default_length: bool = False,
    matches: int | None = None,
    duplicate: bool = False,
) -> dict:
    """The part's matches: how often the Strong side wins (and, in Oh Hell, makes its bids).

    With ``samples`` the Strong bots search that many deals per decision whatever the clock
    says, so the result does not depend on the machine's load and matches may run in ``jobs``
    processes at once (the same figures as one process); the CPU per decision is reported to
    say what the count costs here.

    ``duplicate`` (the team parts): each seed is played twice, the Strong pair in seats 0 and 2
    and then in 1 and 3, the same cards and first dealer both times, so the luck of a seed's
    deals falls on both teams alike (played once, a seed's cards favour one team's seats, and
    the bench's figure inherits that luck)."""
    name, players, options, full, short, side = MATCHES[part]
    options = {} if default_length else options
    count = matches or (short if quick else full)
    duplicate = duplicate and side == "team"
    if duplicate and count % 2:
        count += 1  # whole pairs
    made = bids = easy_made = easy_bids = decisions = 0
    cpu = 0.0
    started = time.perf_counter()
    args = []
    for m in range(count):
        first = m % (2 if side == "team" else players)
        strong = {first, first + 2} if side == "team" else {first}
        seed = 10_000 + (m // 2 if duplicate else m)
        args.append((name, players, options, seed, strong, think_ms, samples))
    results, won = [], []  # won[m]: the Strong side is among match m's winners
    with ProcessPoolExecutor(max_workers=jobs) if jobs > 1 and samples is not None else _Serial() as pool:
        for m, result in enumerate(pool.map(_play_one, args)):
            results.append(result)
            won.append(any(s in result["outcome"]["winners"] for s in args[m][4]))
            # Each match as it ends: a long run cut short can still be read.
            log(
                f"  {part} match {m} (seed {args[m][3]}, Strong {sorted(args[m][4])}): "
                f"{'won' if won[m] else 'lost'}; {result['decisions']} Strong decisions, {result['cpu']:.1f} s CPU"
            )
    wins = sum(won)
    for (_, _, _, _, strong, _, _), result in zip(args, results, strict=True):
        decisions, cpu = decisions + result["decisions"], cpu + result["cpu"]
        for s in range(players):
            if s in strong:
                made, bids = made + result["made"][s], bids + result["bids"][s]
            else:
                easy_made, easy_bids = easy_made + result["made"][s], easy_bids + result["bids"][s]
    par = 0.5 if side == "team" else 1 / players
    low, high = wilson(wins, count)
    budget = f"{samples} samples" if samples is not None else f"{think_ms:g} ms"
    out = {
        "matches": count,
        "options": options,
        "think_ms": None if samples else think_ms,
        "samples": samples,
        "wins": wins,
        "share": wins / count,
        "interval": [low, high],
        "par": par,
        "decisions": decisions,
        "cpu_ms_per_decision": 1000 * cpu / max(1, decisions),
        "seconds": time.perf_counter() - started,
        "jobs": jobs if samples is not None else 1,
    }
    if duplicate:  # per seed: won with both seatings, with one, with neither
        pairs = [won[i] + won[i + 1] for i in range(0, count, 2)]
        out.update(
            duplicate=True,
            seeds=count // 2,
            seeds_won_twice=pairs.count(2),
            seeds_won_once=pairs.count(1),
            seeds_won_never=pairs.count(0),
        )
        log(
            f"{part}: {count // 2} seeds played both ways round: the Strong pair won both matches of "
            f"{pairs.count(2)}, one of {pairs.count(1)}, neither of {pairs.count(0)}"
        )
    log(
        f"{part} {options or '(defaults)'}: Strong {'team ' if side == 'team' else ''}({budget}) "
        f"won {wins}/{count} = {wins / count:.1%} "
        f"(95% {low:.1%}-{high:.1%}; par {par:.0%}) in {out['seconds']:.0f} s; "
        f"{out['cpu_ms_per_decision']:.1f} ms of CPU per Strong decision ({decisions} decisions)"
    )
    if bids:
        low, high = wilson(made, bids)
        out.update(
            bids=bids,
            made=made,
            made_share=made / bids,
            made_interval=[low, high],
            easy_made_share=easy_made / max(1, easy_bids),
        )
        log(
            f"{part}: Strong made {made}/{bids} bids = {made / bids:.1%} (95% {low:.1%}-{high:.1%}); "
            f"the Easy bots {easy_made / max(1, easy_bids):.1%}"
        )
    return out


def run_playouts(seconds: float, log=print) -> dict:
    """Hands played out per second by the Strong bot's rollouts, per game."""
    out = {}
    for name, players in (("oh_hell", 4), ("bid_whist", 4), ("tarbish", 4), ("ribs", 4)):
        game = get_game(name)
        views = []
        state = game.new_game(players=players, options={}, seed=3, dealer=0)
        easy = [get_bot(name, random.Random(s)) for s in range(players)]
        while game.to_act(state) and len(views) < 40:
            seat = game.to_act(state)[0]
            view, legal = game.view(state, seat), game.legal_actions(state, seat)
            views.append((seat, view, legal))
            state = game.apply(state, seat, easy[seat].choose(view, legal))
        bot = StrongBot(name, random.Random(0))
        rng = random.Random(1)
        done = 0
        started = time.perf_counter()
        while time.perf_counter() - started < seconds:
            seat, view, legal = views[done % len(views)]
            world = sample_state(get_game(name), {}, view, seat, rng)
            bot._play_out(world, seat, rng.choice(legal), rng.getrandbits(32))
            done += 1
        rate = done / (time.perf_counter() - started)
        out[name] = rate
        log(f"playouts: {name} {rate:.0f} sampled hands played out per second")
    return out


# OpenSpiel's oh_hell: a card is rank * 4 + suit, ranks 2..A, suits C D S H; a bid b is 52 + b.
_OS_SUITS = "CDSH"
_OS_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def _os_card(card: str) -> int:
    return _OS_RANKS.index(card[:-1]) * 4 + _OS_SUITS.index(card[-1])


def _os_action(action: dict) -> int:
    return 52 + action["value"] if action["type"] == "bid" else _os_card(action["card"])


def _felt_action(code: int) -> dict:
    if code >= 52:
        return {"type": "bid", "value": code - 52}
    return {"type": "play", "card": _OS_RANKS[code // 4] + _OS_SUITS[code % 4]}


def _ismcts_bots(pyspiel, sims: int, seed: int) -> list:
    return [
        pyspiel.ISMCTSBot(
            seed * 4 + p,
            pyspiel.RandomRolloutEvaluator(1, seed * 4 + p),
            2.0,
            sims,
            -1,
            pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            False,
            False,
        )
        for p in range(4)
    ]


def play_openspiel_hand(pyspiel, hand: int, sims: int, samples: int, control: bool = False) -> dict:
    """One hand of 5 cards on both engines at once: the Strong seat on Felt's view, the three
    others OpenSpiel's ISMCTS on OpenSpiel's state; every action is applied to both.
    ``control``: an ISMCTS bot sits in the Strong seat too (the same deal and the same three
    rivals), which measures the share a player as strong as them wins from that seat."""
    options = {"max_cards": 5, "rebound": False, "scoring": "basic"}  # basic = OpenSpiel's scoring
    game = get_game("oh_hell")
    deck = [r + s for s in "SHDC" for r in ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")]
    random.Random(hand).shuffle(deck)
    dealer, strong = hand % 4, (hand // 4) % 4
    state = game.new_game(players=4, options=options, seed=hand, dealer=dealer, decks=[deck])
    hands = {(dealer + 1 + k) % 4: deck[k:20:4] for k in range(4)}
    spiel = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 5}).new_initial_state()
    spiel.apply_action(5)  # the number of tricks (its only outcome here), then the dealer
    spiel.apply_action(dealer)
    for i in range(20):  # OpenSpiel deals card i to player i % 4
        spiel.apply_action(_os_card(hands[i % 4][i // 4]))
    spiel.apply_action(_os_card(deck[20]))
    # The others are no Easy bots: the table says so, as a Felt table does (``easy_seats``).
    bot = get_bot("oh_hell", random.Random(hand), level="strong", options=options, samples=samples, easy_seats=[])
    others = _ismcts_bots(pyspiel, sims, hand)
    while not spiel.is_terminal():
        seat = game.to_act(state)[0]
        assert spiel.current_player() == seat, "the two engines disagree on whose turn it is"
        if seat == strong and not control:
            action = bot.choose(game.view(state, seat), game.legal_actions(state, seat))
            code = _os_action(action)
        else:
            code = others[seat].step(spiel)
            action = _felt_action(code)
        for other in others:
            if other is not others[seat]:
                other.inform_action(spiel, seat, code)
        state = game.apply(state, seat, action)
        spiel.apply_action(code)
    scores = game.view(state, None)["history"][0]["scores"]
    assert [int(x) for x in spiel.returns()] == scores, "the two engines scored the hand differently"
    return {"strong": strong, "scores": scores}


def _hand_shares(result: dict) -> tuple[int, float]:
    """The hand won by the watched seat, as a count (co-winners each count a whole win) and as a
    split share (a win shared by k co-winners counts 1/k, so four equal players average 25%)."""
    scores, seat = result["scores"], result["strong"]
    top = max(scores)
    if scores[seat] != top:
        return 0, 0.0
    return 1, 1 / scores.count(top)


def _openspiel_one(args: tuple) -> dict:
    import pyspiel

    return play_openspiel_hand(pyspiel, *args)


def run_openspiel(
    quick: bool, think_ms: float, log=print, control: bool = False, jobs: int = 1, hands: int | None = None
) -> dict:
    """One Strong bot against three of OpenSpiel's ISMCTS bots, as much time per decision.

    ``control``: each hand is also played with an ISMCTS bot in the Strong seat (the same deal
    and rivals), so the Strong bot's share is paired with what a fourth ISMCTS bot wins from
    that seat: the fair share, which co-winners lift above 25%. The counts are calibrated once,
    then fixed, so hands may be played in ``jobs`` processes at once."""
    try:
        import pyspiel
    except ImportError as err:
        log(f"openspiel: not measured: open-spiel is not installed ({err})")
        return {"error": str(err)}
    sims = _ismcts_sims(pyspiel, think_ms)
    samples = _strong_samples(think_ms)
    count = hands or (40 if quick else 120)
    started = time.perf_counter()
    sides = (False, True) if control else (False,)
    args = [(20_000 + hand, sims, samples, side) for hand in range(count) for side in sides]
    with ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else _Serial() as pool:
        results = list(pool.map(_openspiel_one, args))
    wins = {side: [_hand_shares(r) for a, r in zip(args, results, strict=True) if a[3] == side] for side in sides}
    won, split = sum(w for w, _ in wins[False]), sum(f for _, f in wins[False])
    low, high = wilson(won, count)
    log(
        f"openspiel: Strong ({samples} samples) against three ISMCTS bots ({sims} simulations), each about "
        f"{think_ms:g} ms of CPU a decision here, "
        f"won {won}/{count} hands = {won / count:.1%} (95% {low:.1%}-{high:.1%}; co-winners count, so a "
        f"player as strong as ISMCTS wins over 25%: --control measures it), split between co-winners "
        f"{split / count:.1%} (par 25%) "
        f"in {time.perf_counter() - started:.0f} s"
    )
    out = {
        "hands": count,
        "wins": won,
        "share": won / count,
        "interval": [low, high],
        "split_share": split / count,
        "ismcts_simulations": sims,
        "strong_samples": samples,
        "think_ms": think_ms,
        "version": getattr(pyspiel, "__version__", None),
    }
    if control:
        c_won, c_split = sum(w for w, _ in wins[True]), sum(f for _, f in wins[True])
        diffs = [a[0] - b[0] for a, b in zip(wins[False], wins[True], strict=True)]
        mean = sum(diffs) / count
        error = (sum((d - mean) ** 2 for d in diffs) / max(1, count - 1) / count) ** 0.5
        low, high = wilson(c_won, count)
        log(
            f"openspiel control: an ISMCTS bot in the same seat on the same hands won {c_won}/{count} = "
            f"{c_won / count:.1%} (95% {low:.1%}-{high:.1%}), split {c_split / count:.1%}; Strong minus "
            f"control, paired: {mean:+.1%} (95% {mean - 1.96 * error:+.1%} to {mean + 1.96 * error:+.1%})"
        )
        out["control"] = {
            "wins": c_won,
            "share": c_won / count,
            "interval": [low, high],
            "split_share": c_split / count,
            "paired_difference": mean,
            "paired_interval": [mean - 1.96 * error, mean + 1.96 * error],
        }
    return out


def _ismcts_sims(pyspiel, think_ms: float) -> int:
    """The simulation count that makes an ISMCTS decision take ``think_ms`` of CPU here, on
    average over every decision of a few 5-card hands (bids and plays)."""
    spent, decisions = 0.0, 0
    for hand in range(3):
        spiel = pyspiel.load_game("oh_hell", {"players": 4, "num_tricks_fixed": 5}).new_initial_state()
        rng = random.Random(hand)
        while spiel.is_chance_node():
            spiel.apply_action(rng.choice(spiel.legal_actions()))
        bots = _ismcts_bots(pyspiel, 400, hand)
        while not spiel.is_terminal():
            started = time.process_time()
            code = bots[spiel.current_player()].step(spiel)
            spent, decisions = spent + time.process_time() - started, decisions + 1
            for p, other in enumerate(bots):
                if p != spiel.current_player():
                    other.inform_action(spiel, spiel.current_player(), code)
            spiel.apply_action(code)
    return max(10, int(400 * think_ms / 1000 / (spent / decisions)))


def _strong_samples(think_ms: float) -> int:
    """The sample count that makes a Strong decision take ``think_ms`` of CPU here, on average
    over every decision of a few 5-card hands (a fixed count, as the ISMCTS side's: a wall-clock
    budget on a loaded machine would give the Strong side less than its rival's fixed count)."""
    game = get_game("oh_hell")
    options = {"max_cards": 5, "rebound": False, "scoring": "basic"}
    spent, decisions = 0.0, 0
    for hand in range(3):
        state = game.new_game(players=4, options=options, seed=hand, dealer=hand)
        bots = [
            get_bot("oh_hell", random.Random(s), level="strong", options=options, samples=32, easy_seats=[])
            for s in range(4)
        ]
        while game.view(state, None)["hand_number"] == 1:
            seat = game.to_act(state)[0]
            started = time.process_time()
            action = bots[seat].choose(game.view(state, seat), game.legal_actions(state, seat))
            spent, decisions = spent + time.process_time() - started, decisions + 1
            state = game.apply(state, seat, action)
    return max(4, int(32 * think_ms / 1000 / (spent / decisions)))


async def _loop_block(tables: int, seconds: float, think_ms: float, delay_ms: int) -> dict:
    from server.app import GC_THRESHOLDS, CollectorTender
    from server.config import Settings
    from server.rooms import Connection, RoomManager
    from server.storage.writer import MemoryWriter

    async def closer(code: int, reason: str) -> None:
        pass

    settings = Settings(
        bot_delay_ms=delay_ms,
        bot_think_ms=think_ms,
        bot_workers=1,
        max_open_rooms_per_player=1_000_000,
        send_queue_limit=1_000_000,
    )
    manager = RoomManager(settings, MemoryWriter)  # the table log kept in memory, not on a disk
    hosts = []
    names = ("oh_hell", "bid_whist", "tarbish", "ribs")
    for t in range(tables):
        room = manager.create(names[t % 4], {}, 4, False, f"h{t}", "Host")
        host = Connection(f"h{t}", "Host", closer, limit=1_000_000)
        await room.join(host)
        for seat in (1, 2, 3):
            await room.set_bot(host, seat, False, "strong")
        hosts.append((room, host, get_bot(room.game.name, random.Random(t))))
    for room, host, _ in hosts:
        await room.start(host)
    # The server's own collector regime (server/app.py): young collections rarely, survivors frozen.
    tender = CollectorTender()
    tender.full_pass()
    gc.set_threshold(*GC_THRESHOLDS)
    collector = asyncio.get_running_loop().create_task(tender.run())
    ticks = moves = 0
    started = time.perf_counter()
    with LongestCallback() as longest:
        while time.perf_counter() - started < seconds:
            longest.skip = True  # the bench's own step: the hosts' moves stand for people's frames
            moves += await _host_moves(hosts)
            await asyncio.sleep(0.001)
            ticks += 1
            if longest.armed is False and time.perf_counter() - started > 2:
                longest.arm()  # after the worker process has started and the first tables moved
    bot_moves = sum(room.version for room, _, _ in hosts) - moves
    collector.cancel()
    await manager.close()
    return {
        "tables": tables,
        "seconds": seconds,
        "think_ms": think_ms,
        "bot_delay_ms": delay_ms,
        "longest_block_ms": longest.worst_cpu * 1000,
        "longest_block_wall_ms": longest.worst_wall * 1000,
        "where": longest.where,
        "callbacks": longest.count,
        "ticks": ticks,
        "bot_versions": bot_moves,
    }


class LongestCallback:
    """Times every callback the event loop runs (``Handle._run``) and keeps the longest.

    The bench's own step (the hosts' moves) is left out: it stands for people's actions, which
    reach a real server as separate frames. CPU time (the thread's)
    is the block the loop itself caused; wall time also counts the shared machine's scheduling.
    """

    def __init__(self) -> None:
        self.armed = False
        self.skip = False
        self.worst_cpu = self.worst_wall = 0.0
        self.where = ""
        self.count = 0

    def arm(self) -> None:
        self.armed = True

    def __enter__(self) -> LongestCallback:
        handle = asyncio.events.Handle
        self._original = original = handle._run
        tracker = self

        def timed(h: asyncio.events.Handle) -> None:
            tracker.skip = False
            wall, cpu = time.perf_counter(), time.thread_time()
            original(h)
            if tracker.armed and not tracker.skip:
                tracker.count += 1
                cpu = time.thread_time() - cpu
                if cpu > tracker.worst_cpu:
                    tracker.worst_cpu, tracker.where = cpu, repr(h)[:160]
                tracker.worst_wall = max(tracker.worst_wall, time.perf_counter() - wall)

        handle._run = timed
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.events.Handle._run = self._original


async def _host_moves(hosts: list) -> int:
    """Each host whose turn it is plays (as an Easy bot would); their queues are drained."""
    moved = 0
    for room, host, bot in hosts:
        while not host.queue.empty():
            host.queue.get_nowait()
        if room.status == "playing" and 0 in room.game.to_act(room.state):
            view = room.game.view(room.state, 0)
            await room.act(host, bot.choose(view, room.game.legal_actions(room.state, 0)), room.version)
            moved += 1
    return moved


def run_loop(tables: int, seconds: float, think_ms: float, log=print) -> dict:
    out = asyncio.run(_loop_block(tables, seconds, think_ms, delay_ms=200))
    log(
        f"loop: {tables} tables of Strong bots ({think_ms:g} ms think, 200 ms delay, 1 worker): "
        f"the event loop's longest block {out['longest_block_ms']:.3f} ms of CPU "
        f"(wall {out['longest_block_wall_ms']:.2f} ms) over {out['callbacks']} callbacks "
        f"in {seconds:g} s; {out['bot_versions']} table versions moved by bots"
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bots")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--think-ms",
        type=float,
        default=40.0,
        help="the Strong bots' time per decision when --samples is 0 (and in openspiel, loop)",
    )
    parser.add_argument(
        "--samples",
        type=int,
        default=None,
        help="sampled deals per Strong decision in every match part (default: SAMPLES per game; 0: use --think-ms)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="processes playing matches at once (with --samples)")
    parser.add_argument("--only", default="playouts,oh_hell,openspiel,bid_whist,tarbish,ribs4,ribs6,loop")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument(
        "--length",
        choices=("short", "default"),
        default="short",
        help="the match parts' options: shortened matches, or the games' defaults",
    )
    parser.add_argument("--matches", type=int, default=None, help="matches per match part (overrides the mode's)")
    parser.add_argument(
        "--control",
        action="store_true",
        help="openspiel: also play each hand with an ISMCTS bot in the Strong seat (the fair share)",
    )
    parser.add_argument("--hands", type=int, default=None, help="openspiel: hands to play (overrides the mode's)")
    parser.add_argument(
        "--duplicate", action="store_true", help="team parts: play each seed twice, the Strong pair on either team"
    )
    add_write_flag(parser)
    args = parser.parse_args(argv)
    parts = args.only.split(",")
    results: dict[str, Any] = {}
    if "playouts" in parts:
        results["playouts"] = run_playouts(2.0 if args.quick else 5.0)
    for part in MATCHES:
        if part in parts:
            samples = SAMPLES[MATCHES[part][0]] if args.samples is None else args.samples or None
            key = part if args.length == "short" else f"{part}_default"
            if args.duplicate and MATCHES[part][5] == "team":
                key += "_duplicate"
            results[key] = run_matches(
                part,
                args.quick,
                args.think_ms,
                samples,
                args.jobs,
                default_length=args.length == "default",
                matches=args.matches,
                duplicate=args.duplicate,
            )
    if "openspiel" in parts:
        results["openspiel"] = run_openspiel(
            args.quick, args.think_ms, control=args.control, jobs=args.jobs, hands=args.hands
        )
    if "loop" in parts:
        results["loop"] = run_loop(args.tables, 10.0 if args.quick else 30.0, args.think_ms)
    merge_results(results, args.write, "bots.json")
    print(f"results in {results_path('bots.json', args.write)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
