"""The Strong bot: a determinised Monte Carlo search over states sampled from its view.

For each decision it repeats, until its time budget is spent:

1. sample a full state consistent with everything its seat has seen
   (``server.rules.sampling.sample_state``: other hands, the stock or kitty, face-down cards),
   weighted by how well it explains the other seats' calls (bids, passes, trump, run
   declarations), the Easy bot serving as the model of a sensible bidder; in Oh Hell no seat
   is dealt a card its plays ruled out by the Easy bot's rule of play
   (``server.bots.oh_hell.shown_lacks``; a seat that breaks the rule is not read, nor is
   one the table does not list as an Easy bot, when the table says: see ``easy_seats``);
2. for every candidate action, apply it to that state and play the hand out to its end with
   the Easy bots in every seat (the same rollout generator for every candidate, so candidates
   are compared on the same futures);
3. score the hand's end for its own objective: in Oh Hell making its bid exactly, its hand
   score breaking near ties (``MADE_BONUS``), its team's score minus the opponents' in Bid
   Whist and Tarabish, and in Ribs the game point plus its card points against the best
   other seat's.

It plays the candidate with the best weighted mean (the Easy bot's own choice keeps ties; in
Bid Whist the best must beat the Easy choice by a standard error, ``MARGIN``). The
candidates are the legal actions with equivalent cards merged; Oh Hell's bids within one of
the Easy bot's; of Bid Whist's 1,820 discards, the Easy bot's and, for each suit, the four
weakest cards outside it; and before its first lead the declarer weighs the four trumps (a
lead that names trump is the same as naming it, then leading). Bid Whist's auction is bid
as the Easy bot bids: a partner (and the sampler, which weighs deals by the Easy bidder's
model) reads a bid by those conventions, and a searched bid that means something else
misleads the partner's search. Measured on 30 deals played both ways round (20 samples),
the team's margin per deal over Easy was -0.03 (standard error 0.95) with searched bids and
+0.77 (0.96) with the Easy bidder's, and the bench's 24 matches 12 -> 15 won
(docs/decisions/0011-strong-bots-determinized-rollouts.md). It reads only the view and the legal actions (never the real
state), so it cannot peek; the same view, generator seed and sample count give the same
choice. When no sample fits the view (a malformed view), it plays as the Easy bot would.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from typing import Any

from server.bots.base import Action, Bot
from server.bots.easy import easy_bot_class
from server.bots.oh_hell import shown_lacks
from server.rules.cards import JOKERS, NATURAL_STRENGTH
from server.rules.games import get_game
from server.rules.sampling import SamplingError, sample_state

ROLLOUT_MOVES = 400  # more moves than any hand has: a safety net, not a limit that is reached
# Oh Hell: a made bid is worth this much beyond what it scores, so the search plays (and bids)
# for the chance of making its bid and lets the score (10 + bid) break only near ties. Scores
# pay more for bigger bids, but a bid missed scores nothing: with a bonus of 0 the search liked
# risky bids. Measured on 2,000 paired hands (docs/decisions/0011): a bonus of 1,000 against 10
# made +0.4 points more bids (95% -0.1 to +0.9) and lost no points a hand (with the reading of
# plays below, +0.9 (+0.4 to +1.5) over neither, on 4,000 hands).
MADE_BONUS = 1000.0
# The moves that tell about a hand without showing a card: bids, passes, takes, trump calls, run
# declarations. A sampled deal is weighed by how well it explains the other seats' calls.
_CALLS = frozenset({"bid", "pass", "take", "trump", "declare"})
# Not Ribs: it bids before every trick, lap after lap, and judging each of those calls cost
# five times the playouts it could have bought (measured: 167 -> 29 hands a second).
JUDGED = frozenset({"oh_hell", "bid_whist", "tarbish", "spades"})
# Standard errors by which the best candidate must beat the Easy choice to be played (see
# ``Tally``). Bid Whist weighs ~9 cards a lead on 20-40 noisy deals: the best of the means was
# mostly the luckiest, so the Strong pair played worse than Easy (a probe: 10D led over the
# Easy bot's AS on 20 deals, 0.31 points worse on 200). Measured on duplicate hands
# (docs/decisions/0011): the team's margin a deal +1.0 over the best mean.
MARGIN = {"bid_whist": 1.0}


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
        easy_seats: Iterable[int] | None = None,
    ) -> None:
        super().__init__(rng)
        self.game = get_game(game)
        self.options = dict(options or {})
        self.think_ms = think_ms
        self.max_samples = max_samples
        self.min_samples = min_samples
        self.samples_used = 0  # how many samples the last decision weighed (for benchmarks)
        # The seats the table lists as Easy bots (public: every player sees each seat's kind).
        # Only their plays are read by the Easy bot's rule; a person, a Strong bot or another
        # program plays by no such rule, and a reading that fits its first plays by chance
        # rules cards out of its hand that it holds. Against Easy bots nothing changes; against
        # OpenSpiel's ISMCTS, 22.3% of 600 hands won against 22.8% of 360 reading them, +0.3
        # points a hand inside the runs' noise (docs/decisions/0011): a wrong model dropped,
        # not a measured gain. None (the table did not say): every seat is read
        # until its plays break the rule.
        self.easy_seats = None if easy_seats is None else frozenset(easy_seats)

    def choose(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """The best candidate over the samples the budget allows (the Easy choice unless beaten)."""
        easy = _easy(self.game.name, random.Random(self.rng.getrandbits(32))).choose(view, legal)
        candidates = self._candidates(view, legal, easy)
        self.samples_used = 0
        if len(candidates) == 1:
            return candidates[0]
        seat = view["to_act"][0]
        tally = Tally(
            len(candidates),
            baseline=candidates.index(easy) if easy in candidates else 0,
            margin=MARGIN.get(self.game.name, 0.0),
        )
        deadline = time.perf_counter() + self.think_ms / 1000
        seed = self.rng.getrandbits(64)
        judge = self._judge if self.game.name in JUDGED else None
        lacks = self.reading(view, seat)
        while tally.samples < self.max_samples:
            if tally.samples >= self.min_samples and time.perf_counter() >= deadline:
                break
            world_rng = random.Random(seed + tally.samples)
            try:
                state, weight = sample_state(
                    self.game.name,
                    self.options,
                    view,
                    seat,
                    world_rng,
                    judge,
                    weighted=True,
                    lacks=lacks,
                )
            except SamplingError:
                break
            rollout_seed = world_rng.getrandbits(64)
            tally.add([self._play_out(state, seat, action, rollout_seed) for action in candidates], weight)
        self.samples_used = tally.samples
        return candidates[tally.choice()]

    def reading(self, view: dict[str, Any], seat: int) -> dict[int, set[str]] | None:
        """Per other seat, the cards its plays ruled out by the Easy bot's rule of play (the
        sampler deals none of them to it): only for the seats the table lists as Easy bots, when
        it says. None when the game's plays are not read."""
        read_plays = _PLAY_READERS.get(self.game.name)
        if read_plays is None:
            return None
        lacks = read_plays(view, seat)
        if self.easy_seats is None:
            return lacks
        return {other: cards for other, cards in lacks.items() if other in self.easy_seats}

    def _judge(self, state: Any, seat: int, action: Action) -> float:
        """How likely another seat's bid (or call) was with the cards a sample gave it: the
        Easy bot's bid from its view in that sample is the model of a sensible bidder."""
        kind = action.get("type")
        if kind not in _CALLS:
            return 1.0
        view = self.game.view(state, seat)
        expected = _easy(self.game.name, random.Random(0)).choose(view, view["legal"])
        if expected == action:
            return 1.0
        if kind == "bid" and expected.get("type") == "bid" and abs(expected["value"] - action["value"]) == 1:
            return 0.3
        return 0.1

    def _candidates(self, view: dict[str, Any], legal: list[Action], easy: Action) -> list[Action]:
        """The actions worth weighing: one of each set of equivalent cards, a handful of discards."""
        if any(a.get("type") == "discard" for a in legal):
            return discard_candidates(view, easy)
        if self.game.name == "ribs":
            return list(legal)
        if self.game.name in ("oh_hell", "spades") and easy.get("type") == "bid":
            return list(legal) if easy.get("blind") else nearby_bids(legal, easy)
        if self.game.name == "bid_whist" and not any(a.get("type") in ("play", "trump") for a in legal):
            return [easy]  # the auction: see the module docstring
        if self.game.name == "bid_whist" and any(a.get("type") == "trump" for a in legal):
            return [a for a in legal if a.get("type") == "trump" or a == easy]
        return distinct_plays(self.game.name, view, legal, easy)

    def _play_out(self, state: Any, seat: int, action: Action, seed: int) -> float:
        """Apply ``action``, let the Easy bots finish the hand, and score it for ``seat``."""
        game = self.game
        rng = random.Random(seed)
        hand = game.view(state, None).get("hand_number")
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
            if view.get("hand_number") != hand:
                return 0.0  # thrown in (Tarabish, dealer not forced): nobody scored
            bot = bots.get(actor)
            if bot is None:
                bot = bots[actor] = _easy(game.name, random.Random(rng.getrandbits(32)))
            state = game.apply(state, actor, bot.choose(view, view["legal"]))
        return hand_result(game.name, game.view(state, None), seat)


class Tally:
    """Each candidate's results over the samples, kept as differences from the baseline's.

    Every candidate is played out on the same sampled deals, so the differences are paired;
    each deal counts with its weight (how well it explains the other seats' bids). The
    candidate with the best weighted mean is played if it beats the baseline (the Easy bot's
    choice) by ``margin`` standard errors of its mean difference; otherwise the baseline.
    An earlier rule kept the baseline unless the best beat it by half a standard error
    everywhere; measured on 400 Oh Hell hands (one Strong seat, 24 samples, hands of 1-5
    cards) it cost bids made and points: the search's choice, 63.7% made and 6.73 points a
    hand; with the half-error rule 62.0% and 6.52; with 1.5 errors 59.8% and 6.26 (Easy:
    56.8%, 5.93). So the margin is per game (``MARGIN``): 0 (the best mean) but in Bid Whist.
    """

    def __init__(self, count: int, baseline: int, margin: float = 0.0) -> None:
        self.baseline = baseline
        self.margin = margin
        self.samples = 0
        self.weight = 0.0
        self.weight2 = 0.0  # the sum of squared weights: the weighted mean's error needs it
        self.sums = [0.0] * count
        self.squares = [0.0] * count

    def add(self, results: list[float], weight: float = 1.0) -> None:
        base = results[self.baseline]
        for i, value in enumerate(results):
            diff = value - base
            self.sums[i] += weight * diff
            self.squares[i] += weight * diff * diff
        self.samples += 1
        self.weight += weight
        self.weight2 += weight * weight

    def choice(self) -> int:
        """The candidate to play: the best mean if it beats the baseline's by ``margin``
        standard errors, else the baseline."""
        best = max(range(len(self.sums)), key=lambda i: (self.sums[i], -i))
        if self.weight <= 0 or self.sums[best] <= 0:
            return self.baseline
        if self.margin <= 0:
            return best
        mean = self.sums[best] / self.weight
        variance = max(0.0, self.squares[best] / self.weight - mean * mean)
        error = (variance * self.weight2) ** 0.5 / self.weight
        return best if mean > self.margin * error else self.baseline


def hand_result(game: str, view: dict[str, Any], seat: int) -> float:
    """How good the first finished hand in ``view``'s history is for ``seat``."""
    entry = view["history"][0]
    scores = entry["scores"]
    n = len(scores)
    if game in ("bid_whist", "tarbish", "spades"):
        return float(scores[seat] - scores[(seat + 1) % n])
    if game == "ribs":
        points = entry["points"]
        best_other = max(points[s] for s in range(n) if s != seat)
        return 10.0 * scores[seat] + points[seat] - best_other
    made = entry["bids"][seat] == entry["tricks_won"][seat]
    return scores[seat] + (MADE_BONUS if made else 0.0)


# Trick order, high to low, for deciding which cards are equivalent (each engine's module states it).
_NATURAL = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
_DOWNTOWN = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")  # Bid Whist's
_TARABISH_TRUMP = ("J", "9", "A", "10", "K", "Q", "8", "7", "6")
_TARABISH_PLAIN = ("A", "10", "K", "Q", "J", "9", "8", "7", "6")
_TARABISH_POINTS = {
    "trump": {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3},
    "plain": {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2},
}


def distinct_plays(game: str, view: dict[str, Any], legal: list[Action], keep: Action) -> list[Action]:
    """The legal actions with equivalent cards merged: two cards of a suit are equivalent when
    every card ranked between them is in the hand or already played (and, in Tarabish, they
    are worth the same points), so playing either changes nothing. ``keep`` always stays."""
    plays = {a["card"] for a in legal if a.get("type") == "play"}
    if len(plays) < 2:
        return list(legal)
    gone = {e["action"]["card"] for e in view.get("log") or [] if e["action"].get("type") == "play"}
    gone |= plays | set(view.get("hand") or [])
    tarabish = game == "tarbish"
    drop: set[str] = set()
    for suit in "SHDC":
        is_trump = suit == view.get("trump")
        order = (
            (_TARABISH_TRUMP if is_trump else _TARABISH_PLAIN)
            if tarabish
            else (_DOWNTOWN if view.get("play_direction") == "downtown" else _NATURAL)
        )
        points = _TARABISH_POINTS["trump" if is_trump else "plain"] if tarabish else {}
        previous: str | None = None
        for rank in order:
            card = rank + suit
            if card in plays:
                if previous is not None and points.get(rank, 0) == points.get(previous[:-1], 0):
                    drop.add(card if card != keep.get("card") else previous)
                previous = card if card not in drop else previous
            elif card not in gone:
                previous = None
    return [a for a in legal if a.get("card") not in drop or a == keep]


def nearby_bids(legal: list[Action], easy: Action, reach: int = 1) -> list[Action]:
    """Oh Hell bids within ``reach`` of the Easy bot's (its estimate is rarely further off, and
    every bid left out buys the others more samples)."""
    return [a for a in legal if abs(a["value"] - easy["value"]) <= reach]


def discard_candidates(view: dict[str, Any], easy_choice: Action) -> list[Action]:
    """The Easy bot's discard and, for each suit it might make trump, its weakest others (as
    many as the kitty held; jokers are trumps, kept, except in no trump where they go first)."""
    hand = list(view.get("hand") or [])
    count = len(easy_choice["cards"])
    out = [easy_choice]
    seen = {frozenset(easy_choice["cards"])}
    no_trump = view.get("direction") == "no_trump"
    low = view.get("play_direction") == "downtown"
    jokers = [c for c in hand if c in JOKERS]
    suited = [c for c in hand if c not in JOKERS]
    for trump in ("S", "H", "D", "C"):
        others = [c for c in suited if c[-1] != trump]
        if len(others) + (len(jokers) if no_trump else 0) < count:
            continue
        weakest = ((jokers if no_trump else []) + sorted(others, key=_discard_order(suited, low)))[:count]
        if frozenset(weakest) not in seen:
            seen.add(frozenset(weakest))
            out.append({"type": "discard", "cards": weakest})
    return out


def _discard_order(hand: list[str], low: bool = False) -> Callable[[str], tuple[bool, bool, int]]:
    """Weakest first: aces last, and low cards of short suits (voids to ruff) before long ones
    (``low``: downtown, where the high cards are the weak ones)."""
    lengths = {s: sum(1 for c in hand if c[-1] == s) for s in "SHDC"}

    def strength(card: str) -> int:
        n = NATURAL_STRENGTH[card[:-1]]
        return 15 - n if low and n != 14 else n

    return lambda c: (strength(c) == 14, lengths[c[-1]] > 2, strength(c))


# What the other seats' plays say they lack, read by the Easy bot's rule of play (the model of a
# sensible player, as for the calls): Oh Hell's rule is a pure function of the trick and the
# seat's need, so a card played rules out the cards the rule would have played instead.
_PLAY_READERS: dict[str, Callable[[dict[str, Any], int], dict[int, set[str]]]] = {
    "oh_hell": shown_lacks,
}

_EASY: dict[str, Callable[[random.Random], Bot]] = {}


def _easy(game: str, rng: random.Random) -> Bot:
    """A new Easy bot (its class looked up once: rollouts make thousands of them)."""
    make = _EASY.get(game)
    if make is None:
        make = _EASY[game] = easy_bot_class(game)
    return make(rng)
