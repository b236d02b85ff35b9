"""The Strong bot: a determinised Monte Carlo search over states sampled from its view.

For each decision it repeats, until its time budget is spent:

1. sample a full state consistent with everything its seat has seen
   (``server.rules.sampling.sample_state``: other hands, the stock or kitty, face-down cards);
2. for every candidate action, apply it to that state and play the hand out to its end with
   the Easy bots in every seat (the same rollout generator for every candidate, so candidates
   are compared on the same futures);
3. score the hand's end for its own objective: its own hand score in Oh Hell (standard
   scoring pays only for a bid made exactly), its team's score minus the opponents' in Bid
   Whist and Tarabish, and in Ribs the game point plus its card points against the best
   other seat's.

It plays the candidate with the best mean. The candidates are the legal actions, except Bid
Whist's 1,820 discards, of which it weighs the Easy bot's choice and, for each suit, the four
weakest cards outside it. It reads only the view and the legal actions (never the real
state), so it cannot peek; the same view, generator seed and sample count give the same
choice. When no sample fits the view (a malformed view), it plays as the Easy bot would.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from server.bots.base import Action, Bot
from server.rules.cards import NATURAL_STRENGTH
from server.rules.games import get_game
from server.rules.sampling import SamplingError, sample_state

ROLLOUT_MOVES = 400  # more moves than any hand has: a safety net, not a limit that is reached


class StrongBot(Bot):
    """Chooses by playing sampled deals out with the Easy bots."""

    def __init__(
        self,
        game: str,
        rng: random.Random | None = None,
        *,
        options: dict[str, Any] | None = None,
        think_ms: float = 150.0,
        max_samples: int = 10_000,
        min_samples: int = 1,
    ) -> None:
        super().__init__(rng)
        self.game = get_game(game)
        self.options = dict(options or {})
        self.think_ms = think_ms
        self.max_samples = max_samples
        self.min_samples = min_samples
        self.samples_used = 0  # how many samples the last decision weighed (for benchmarks)

    def choose(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """The candidate with the best mean result over the samples the budget allows."""
        candidates = self._candidates(view, legal)
        if len(candidates) == 1:
            return candidates[0]
        seat = view["to_act"][0]
        totals = [0.0] * len(candidates)
        deadline = time.perf_counter() + self.think_ms / 1000
        seed = self.rng.getrandbits(64)
        samples = 0
        while samples < self.max_samples:
            if samples >= self.min_samples and time.perf_counter() >= deadline:
                break
            world_rng = random.Random(seed + samples)
            try:
                state = sample_state(self.game.name, self.options, view, seat, world_rng)
            except SamplingError:
                break
            rollout_seed = world_rng.getrandbits(64)
            for i, action in enumerate(candidates):
                totals[i] += self._play_out(state, seat, action, rollout_seed)
            samples += 1
        self.samples_used = samples
        if samples == 0:
            return _easy(self.game.name, self.rng).choose(view, legal)
        best = max(totals)
        return candidates[totals.index(best)]

    def _candidates(self, view: dict[str, Any], legal: list[Action]) -> list[Action]:
        """The actions worth weighing: every legal one, or a handful of Bid Whist's discards."""
        if not any(a.get("type") == "discard" for a in legal):
            return list(legal)
        return discard_candidates(view, _easy(self.game.name, random.Random(0)).choose(view, legal))

    def _play_out(self, state: Any, seat: int, action: Action, seed: int) -> float:
        """Apply ``action``, let the Easy bots finish the hand, and score it for ``seat``."""
        game = self.game
        rng = random.Random(seed)
        state = game.apply(state, seat, action)
        bots: dict[int, Bot] = {}
        for _ in range(ROLLOUT_MOVES):
            actors = game.to_act(state)
            if not actors:
                break
            actor = actors[0]
            view = game.view(state, actor)
            if view["history"]:
                break
            bot = bots.get(actor)
            if bot is None:
                bot = bots[actor] = _easy(game.name, random.Random(rng.getrandbits(32)))
            state = game.apply(state, actor, bot.choose(view, view["legal"]))
        return hand_result(game.name, game.view(state, None), seat)


def hand_result(game: str, view: dict[str, Any], seat: int) -> float:
    """How good the first finished hand in ``view``'s history is for ``seat``."""
    entry = view["history"][0]
    scores = entry["scores"]
    n = len(scores)
    if game in ("bid_whist", "tarbish"):
        return float(scores[seat] - scores[(seat + 1) % n])
    if game == "ribs":
        points = entry["points"]
        best_other = max(points[s] for s in range(n) if s != seat)
        return 10.0 * scores[seat] + points[seat] - best_other
    return float(scores[seat])


def discard_candidates(view: dict[str, Any], easy_choice: Action) -> list[Action]:
    """The Easy bot's discard and, for each suit it might make trump, its four weakest others."""
    hand = list(view.get("hand") or [])
    out = [easy_choice]
    seen = {frozenset(easy_choice["cards"])}
    for trump in ("S", "H", "D", "C"):
        others = [c for c in hand if c[-1] != trump]
        if len(others) < 4:
            continue
        weakest = sorted(others, key=_discard_order(hand))[:4]
        if frozenset(weakest) not in seen:
            seen.add(frozenset(weakest))
            out.append({"type": "discard", "cards": weakest})
    return out


def _discard_order(hand: list[str]) -> Callable[[str], tuple[bool, bool, int]]:
    """Weakest first: aces last, and low cards of short suits (voids to ruff) before long ones."""
    lengths = {s: sum(1 for c in hand if c[-1] == s) for s in "SHDC"}
    return lambda c: (NATURAL_STRENGTH[c[:-1]] == 14, lengths[c[-1]] > 2, NATURAL_STRENGTH[c[:-1]])


def _easy(game: str, rng: random.Random) -> Bot:
    from server.bots import get_bot

    return get_bot(game, rng, level="easy")
