"""A Ribs bot that counts cards and weighs each choice by its expected card points.

Heuristics, all from the seat's own view:

- Card counting. The unseen cards are the full deck (one run per player) minus this seat's
  hand, its own face-down cards, and every card shown face up this hand. Ribs are assumed to
  be two unseen cards, each pair of ranks as likely as the unseen counts make it.
- Bidding. Being the Leader is worth about 1.5 points per other player who cannot beat the
  Ribs (they dump cheap pairs or fold). With an ace for the Ribs nobody can beat them; with a
  king only the unseen aces can. The bot bids while the next bid stays within that estimate
  (capped by what the others still hold); the forced opener opens at the minimum, 2.
- Laying the Ribs. Each candidate is scored by the points it should capture: the chance that
  no other pair beats it, the risk of a double match (both ranks still unseen), and its own
  points, which are a gain when the bid looks safe and a loss (discarded) when it does not.
- Playing a pair. For every candidate pair the bot averages, over the possible Ribs, what it
  would capture: its own pair when it beats the Ribs or the Leader fails, the whole table on a
  double match, minus its pair when the Leader takes it; it can see the pairs already played
  and estimates the rest. Playing an ace costs a little (aces win later tricks).
- Folding. Folding scores nothing but keeps the Leader from the pair; the once-per-hand fold
  is worth keeping until the last trick, so the bot folds only when every face-up choice is
  clearly worse than throwing away its cheapest pair.

Ties are broken with ``self.rng``; the bot never picks at random otherwise.
"""

from __future__ import annotations

import random
from typing import Any

from server.bots.base import Action, Bot
from server.bots.kit import BotKit
from server.games.ribs.rules import ribs_deck
from server.rules.sampling import Deal, Knowledge, Reader, Unseen, dealt

RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7")
INDEX = {r: i for i, r in enumerate(RANKS)}
POINTS = (0, 2, 2, 2, 1, 1, 1, 1)
DUMP_PER_PLAYER = 1.5  # points an opponent who cannot beat the Ribs is expected to give
FOLD_COST = 1.0  # the value of keeping the fold for a later trick
ACE_COST = 0.5  # the value of keeping an ace for a later trick


def _unseen(view: dict[str, Any]) -> list[int]:
    """How many of each rank this seat has not seen this hand."""
    n = view["players"]
    counts = [n] * 8
    seen: list[str] = list(view.get("hand") or [])
    for entry in view.get("my_face_down") or []:
        seen.extend(entry["cards"])
    for trick in view.get("tricks") or []:
        seen.extend(trick["ribs"])
        for play in trick["plays"]:
            if play["cards"]:
                seen.extend(play["cards"])
    for entry in view.get("trick") or []:
        if entry["cards"] and not entry.get("ribs"):
            seen.extend(entry["cards"])
    for card in seen:
        r = INDEX[card]
        counts[r] = max(0, counts[r] - 1)
    return counts


def _ribs_odds(unseen: list[int]) -> list[tuple[tuple[int, int], float]]:
    """Each possible Ribs (ranks, high first) with its probability."""
    weights = []
    for a in range(8):
        ua = unseen[a]
        if not ua:
            continue
        if ua >= 2:
            weights.append(((a, a), ua * (ua - 1) / 2))
        for b in range(a + 1, 8):
            if unseen[b]:
                weights.append(((a, b), ua * unseen[b]))
    total = sum(w for _, w in weights)
    if not total:
        return [((0, 0), 1.0)]
    return [(r, w / total) for r, w in weights]


def _beats(pair: tuple[int, int], ribs: tuple[int, int]) -> bool:
    a, b = pair
    return a not in ribs and b not in ribs and min(a, b) < min(ribs)


def _pair(cards: list[str]) -> tuple[int, int]:
    a, b = INDEX[cards[0]], INDEX[cards[1]]
    return (a, b) if a <= b else (b, a)


class RibsBot(Bot):
    """Bids from the strength of its best Ribs and plays the pair with the best expectation."""

    def choose(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """One of ``legal``, by the heuristics of the module docstring."""
        if not legal:
            raise ValueError("the bot was asked to act with no legal action")
        kind = legal[0]["type"]
        if kind in ("bid", "pass"):
            return self._bid(view, legal)
        if kind == "ribs":
            return self._best(legal, [self._ribs_score(view, a) for a in legal])
        return self._play(view, legal)

    # ---- helpers ---------------------------------------------------------------------------

    def _best(self, legal: list[Action], scores: list[float]) -> Action:
        top = max(scores)
        choices = [a for a, s in zip(legal, scores, strict=True) if s >= top - 1e-9]
        return choices[0] if len(choices) == 1 else self.rng.choice(choices)

    def _others_left(self, view: dict[str, Any]) -> int:
        return int(view["players"]) - 1

    def _leader_estimate(self, view: dict[str, Any]) -> float:
        """Points this seat expects to capture as Leader with its best Ribs."""
        hand = [INDEX[c] for c in view.get("hand") or []]
        if not hand:
            return 0.0
        unseen = _unseen(view)
        top = min(hand)
        higher = sum(unseen[r] for r in range(top))
        total_unseen = max(1, sum(unseen))
        others = self._others_left(view)
        # chance that one opponent's pair holds a card above the top of our Ribs
        p_beat = min(1.0, 2.0 * higher / total_unseen)
        cards_left = len(hand)
        per_player = DUMP_PER_PLAYER if cards_left > 2 else 2.5  # the last pairs are forced
        return others * per_player * (1.0 - p_beat)

    def _bid(self, view: dict[str, Any], legal: list[Action]) -> Action:
        bids = [a for a in legal if a["type"] == "bid"]
        if any(a["type"] == "pass" for a in legal):
            limit = int(self._leader_estimate(view))
            if bids and bids[0]["value"] <= limit:
                return bids[0]
            return {"type": "pass"}
        return min(bids, key=lambda a: a["value"])  # forced opener: the minimum

    def _ribs_score(self, view: dict[str, Any], action: Action) -> float:
        ribs = _pair(action["cards"])
        unseen = _unseen(view)
        # the ribs cards are in our hand, so _unseen already excludes them
        total = max(1, sum(unseen))
        others = self._others_left(view)
        top = min(ribs)
        higher_free = sum(unseen[r] for r in range(top) if r not in ribs)
        p_beat = min(1.0, 2.0 * higher_free / total)
        a, b = ribs
        if a == b:
            p_double = unseen[a] * (unseen[a] - 1) / (total * total)
        else:
            p_double = 2.0 * unseen[a] * unseen[b] / (total * total)
        p_double = min(1.0, p_double * others)
        expected = others * DUMP_PER_PLAYER * (1.0 - p_beat)
        bid = view.get("bid") or 2
        own = POINTS[a] + POINTS[b]
        own_value = own if expected >= bid else -own
        aces = (a == 0) + (b == 0)
        return expected * (1.0 - p_double) + own_value - ACE_COST * aces * 0.5

    def _play(self, view: dict[str, Any], legal: list[Action]) -> Action:
        unseen = _unseen(view)
        odds = _ribs_odds(unseen)
        bid = view.get("bid") or 2
        earlier = [_pair(e["cards"]) for e in view.get("trick") or [] if e["cards"] and not e.get("ribs")]
        order = view.get("play_order") or []
        seat_index = len(view.get("trick") or [])  # our position in the play order
        later = max(0, len(order) - seat_index - 1)
        trick_number = view.get("trick_number", 1)
        fold_cost = FOLD_COST if trick_number < 4 else 0.0
        scores = []
        cache: dict[tuple[tuple[int, int], bool], float] = {}
        for action in legal:
            pair = _pair(action["cards"])
            key = (pair, bool(action.get("fold")))
            if key not in cache:
                if key[1]:
                    cache[key] = -fold_cost - 0.3 * (POINTS[pair[0]] + POINTS[pair[1]])
                else:
                    cache[key] = self._face_up_value(pair, odds, earlier, later, bid)
            scores.append(cache[key])
        return self._best(legal, scores)

    def _face_up_value(
        self,
        pair: tuple[int, int],
        odds: list[tuple[tuple[int, int], float]],
        earlier: list[tuple[int, int]],
        later: int,
        bid: int,
    ) -> float:
        mine = POINTS[pair[0]] + POINTS[pair[1]]
        earlier_points = sum(POINTS[a] + POINTS[b] for a, b in earlier)
        value = 0.0
        for ribs, p in odds:
            gain: float
            if ribs in earlier:  # an earlier double match takes our pair too
                gain = -mine
            elif pair == ribs:
                gain = POINTS[ribs[0]] + POINTS[ribs[1]] + mine + earlier_points
                gain += later * DUMP_PER_PLAYER
            elif _beats(pair, ribs):
                gain = mine
            else:
                beaten = mine + later * DUMP_PER_PLAYER * 0.8
                beaten += sum(POINTS[a] + POINTS[b] for a, b in earlier if not _beats((a, b), ribs))
                gain = -mine if beaten >= bid else mine
            value += p * gain
        aces = (pair[0] == 0) + (pair[1] == 0)
        return value - ACE_COST * aces


# ---- what the Strong bot needs of this game ----------------------------------------------


class RibsReader(Reader):
    """Ribs: two at a time from the dealer's left until everyone has eight; pairs may go face down."""

    hidden = frozenset({"ribs", "pair"})  # the Ribs until the trick is shown; a folded pair

    @staticmethod
    def read(view: dict[str, Any], seat: int) -> Knowledge:
        n = len(view["hand_counts"])
        seen: list[list[str]] = [[] for _ in range(n)]
        unseen = [Unseen(held=view["hand_counts"][s]) for s in range(n)]
        for trick in view.get("tricks") or []:
            seen[trick["leader"]] += trick["ribs"]
            for play in trick["plays"]:
                if play["cards"] is not None:
                    seen[play["seat"]] += play["cards"]
        for play in view.get("trick") or []:
            if play.get("cards") is not None:
                seen[play["seat"]] += play["cards"]
        for entry in RibsReader._face_down(view):
            if entry["seat"] != seat:
                unseen[entry["seat"]].down += 2
        seen[seat] += list(view["hand"] or [])
        for mine in view.get("my_face_down") or []:
            seen[seat] += mine["cards"]
        unseen[seat] = Unseen()
        return Knowledge(ribs_deck(n), seen, unseen)

    @staticmethod
    def _face_down(view: dict[str, Any]) -> list[dict[str, Any]]:
        """The log's face-down moves whose cards the table has not seen since (with trick numbers)."""
        out, trick = [], 0
        revealed = {t["trick_number"] for t in view.get("tricks") or []}
        for entry in view.get("log") or []:
            action = entry["action"]
            if action.get("type") == "ribs":
                trick += 1
            if RibsReader.is_hidden(action) and not (action["type"] == "ribs" and trick in revealed):
                out.append({"seat": entry["seat"], "trick": trick, "ribs": action["type"] == "ribs"})
        return out

    @staticmethod
    def lay_out(
        view: dict[str, Any], seat: int, knowledge: Knowledge, deal: Deal, rng: random.Random
    ) -> tuple[list[str], list[list[str]]]:
        n = len(view["hand_counts"])
        ribs_shown = {t["trick_number"]: t["ribs"] for t in view.get("tricks") or []}
        mine = {(m["trick_number"], m["fold"]): m["cards"] for m in view.get("my_face_down") or []}
        down = [list(cards) for cards in deal.down]
        fills, trick = [], 0
        for entry in view.get("log") or []:
            action = entry["action"]
            if action.get("type") == "ribs":
                trick += 1
            if not RibsReader.is_hidden(action):
                continue
            is_ribs = action["type"] == "ribs"
            if is_ribs and trick in ribs_shown:
                fills.append(ribs_shown[trick])
            elif entry["seat"] == seat:
                fills.append(mine[(trick, not is_ribs)])
            else:
                fills.append(down[entry["seat"]][:2])
                down[entry["seat"]] = down[entry["seat"]][2:]
        order = [(view["dealer"] + 1 + k) % n for k in range(n)]
        hands = [dealt(knowledge, deal, s) for s in range(n)]
        for s in range(n):
            rng.shuffle(hands[s])
        deck = [hands[s][2 * p + i] for p in range(4) for s in order for i in range(2)]
        return deck, fills


def hand_result(view: dict[str, Any], seat: int) -> float:
    """The game point, then its card points against the best other seat's."""
    entry = view["history"][0]
    scores, points = entry["scores"], entry["points"]
    best_other = max(points[s] for s in range(len(scores)) if s != seat)
    return float(10.0 * scores[seat] + points[seat] - best_other)


def candidates(view: dict[str, Any], legal: list[Action], easy: Action) -> list[Action]:
    """Every legal action (a pair of cards is seldom the same as another)."""
    return list(legal)


# Calls are not weighed: Ribs bids before every trick, lap after lap, and judging each of those
# calls cost five times the playouts it could have bought (measured: 167 -> 29 hands a second).
BOTS = BotKit(easy=RibsBot, reader=RibsReader, hand_result=hand_result, candidates=candidates, judged=False)
