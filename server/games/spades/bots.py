"""Spades bots: the Easy bot's card-table heuristics, and what the Strong bot's search needs.

The Easy bot reads only its seat's view (hand, bids, tricks_won, the trick, scores, the
log's spades) and its legal actions. The heuristics:

Bidding (``count_tricks``)
    - Spades: the ace is a trick, the king one with another spade beside it, the queen one
      with two more; every spade beyond the third is a trick too (long trumps win late).
    - Side suits: an ace is a trick, a king one when the suit has two or more cards and five
      at most (with six or more the suit is led round and ruffed); a queen half a trick in a
      suit of three or four.
    - With two or more spades not already counted, a void side suit is a trick (a ruff) and
      a singleton half of one.
    The bid is the count rounded down, at least 1. Nil when the count is below one trick, the
    hand holds no spade above the ten and at most three spades, no side ace or king, and the
    partner has not bid nil already.
    Blind nil (offered only to a team behind by 100 or more): bid when behind by 200 or more
    and the partner has not bid nil; otherwise look.

Play
    - Bidding nil (and no trick taken yet): duck. Follow with the highest card that loses the
      trick; when every card wins, the highest (it will not be needed again). Lead the lowest
      card of the suit with the most low cards, spades last.
    - Partner bid nil and has not taken a trick: cover. Before the partner plays, win the trick
      with the highest card; after, overtake the partner's winning card with the lowest card
      that beats it.
    - Otherwise, while the partnership still needs tricks for its contract: lead a side ace or
      the ace or king of spades once they may be led, else a low card of the longest side suit;
      follow with the lowest card that beats the trick when the partner is not already winning
      it, else the lowest card (side suits before spades).
    - Contract made (or the seat's nil failed): avoid bags: follow with the highest card that
      loses, lead the lowest card.
    Ties between equal cards go to ``self.rng``.

For the Strong bot: ``SpadesReader`` (``server.rules.sampling``) lays a sampled deal out the
way Spades deals and starts it at the view's running scores and bags, so blind nil is offered
as at the real table; the Strong bot scores a hand's end as its partnership's points minus the
other's (``team_margin``); ``BOTS`` is the kit the bots ask for (``server.bots.kit``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from server.bots.base import Action, Bot
from server.bots.kit import BotKit, distinct_plays, natural_order, team_margin
from server.rules.cards import NATURAL_STRENGTH, standard_deck
from server.rules.sampling import Deal, Knowledge, Reader, trick_knowledge
from server.rules.tricks import NATURAL

BLIND_NIL_BEHIND = 200  # the Easy bot bids blind nil only this far behind
_IN_TRICK = NATURAL.in_trick["S"]  # how strongly each card contends for a trick, per suit led


def _suit(card: str) -> str:
    return card[-1]


def _rank(card: str) -> str:
    return card[:-1]


def count_tricks(hand: list[str]) -> float:
    """The tricks this hand should take, by the module's counting rules."""
    spades = [_rank(c) for c in hand if _suit(c) == "S"]
    count = 0.0
    sure = 0
    if "A" in spades:
        sure += 1
    if "K" in spades and len(spades) >= 2:
        sure += 1
    if "Q" in spades and len(spades) >= 3:
        sure += 1
    count += sure + max(0, len(spades) - 3)
    for suit in "HDC":
        ranks = [_rank(c) for c in hand if _suit(c) == suit]
        if "A" in ranks:
            count += 1
        if "K" in ranks and 2 <= len(ranks) <= 5:
            count += 1
        if "Q" in ranks and 3 <= len(ranks) <= 4:
            count += 0.5
        spare_spades = len(spades) - sure
        if spare_spades >= 2 and len(ranks) == 0:
            count += 1
        elif spare_spades >= 2 and len(ranks) == 1:
            count += 0.5
    return count


def nil_hand(hand: list[str]) -> bool:
    """A hand weak enough to bid nil on: see the module."""
    spades = [c for c in hand if _suit(c) == "S"]
    if len(spades) > 3 or any(NATURAL_STRENGTH[_rank(c)] > 10 for c in spades):
        return False
    if any(_rank(c) in ("A", "K") for c in hand):
        return False
    return count_tricks(hand) < 1


def _partner(seat: int) -> int:
    return (seat + 2) % 4


class SpadesBot(Bot):
    """Bids sure tricks (nil on a very weak hand), ducks when nil, covers a nil partner."""

    def choose(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """Pick one of ``legal`` from what ``view`` shows."""
        if legal[0]["type"] == "play":
            return {"type": "play", "card": self._play(view, [a["card"] for a in legal])}
        seat = view["to_act"][0]
        partner_nil = view["bids"][_partner(seat)] == 0
        if any(a["type"] == "look" for a in legal):
            scores = view["scores"]
            if scores[(seat + 1) % 4] - scores[seat] >= BLIND_NIL_BEHIND and not partner_nil:
                return next(a for a in legal if a.get("blind"))
            return next(a for a in legal if a["type"] == "look")
        hand = view["hand"]
        if nil_hand(hand) and not partner_nil:
            return {"type": "bid", "value": 0}
        return {"type": "bid", "value": max(1, min(13, int(count_tricks(hand))))}

    def _pick(self, cards: list[str], key: Callable[[str], Any]) -> str:
        best = min(key(c) for c in cards)
        tied = [c for c in cards if key(c) == best]
        return tied[0] if len(tied) == 1 else self.rng.choice(tied)

    def _play(self, view: dict[str, Any], cards: list[str]) -> str:
        seat = view["to_act"][0]
        partner = _partner(seat)
        bids, won = view["bids"], view["tricks_won"]
        trick = [(p["seat"], p["card"]) for p in view["trick"]]
        if bids[seat] == 0 and won[seat] == 0:
            return self._duck(trick, cards, view)
        if bids[partner] == 0 and won[partner] == 0:
            return self._cover(trick, cards, partner)
        need = bids[seat] + bids[partner] - sum(won[s] for s in (seat, partner) if bids[s] > 0)
        if need > 0 and bids[seat] > 0:
            return self._win(trick, cards, partner)
        return self._duck(trick, cards, view)

    @staticmethod
    def _strength(card: str, led: str) -> int:
        return _IN_TRICK[led][card]

    def _winning(self, trick: list[tuple[int, str]]) -> tuple[int, int]:
        """The seat winning the trick so far and the strength it wins with."""
        led = _suit(trick[0][1])
        seat, card = max(trick, key=lambda p: self._strength(p[1], led))
        return seat, self._strength(card, led)

    def _low(self, card: str) -> tuple[bool, int]:
        """Cheapest first: side suits before spades, low before high."""
        return (_suit(card) == "S", NATURAL_STRENGTH[_rank(card)])

    def _duck(self, trick: list[tuple[int, str]], cards: list[str], view: dict[str, Any]) -> str:
        if not trick:
            # the lowest card of the suit with the most cards below the eight, spades last
            hand = view["hand"]
            lows = {s: sum(1 for c in hand if _suit(c) == s and NATURAL_STRENGTH[_rank(c)] < 8) for s in "SHDC"}
            return self._pick(cards, lambda c: (_suit(c) == "S", NATURAL_STRENGTH[_rank(c)], -lows[_suit(c)]))
        led = _suit(trick[0][1])
        _, top = self._winning(trick)
        losers = [c for c in cards if self._strength(c, led) < top]
        if losers:  # the highest card that still loses: spades kept while a side card will do
            return self._pick(losers, lambda c: (_suit(c) == "S" and _suit(c) != led, -NATURAL_STRENGTH[_rank(c)]))
        return self._pick(cards, lambda c: -self._strength(c, led))

    def _cover(self, trick: list[tuple[int, str]], cards: list[str], partner: int) -> str:
        if not trick:
            return self._pick(cards, lambda c: (-NATURAL_STRENGTH[_rank(c)], _suit(c) == "S"))
        led = _suit(trick[0][1])
        winner, top = self._winning(trick)
        partner_played = any(s == partner for s, _ in trick)
        if partner_played and winner != partner:
            return self._pick(cards, self._low)  # the nil is safe in this trick
        beaters = [c for c in cards if self._strength(c, led) > top]
        if not beaters:
            return self._pick(cards, self._low)
        if partner_played:
            return self._pick(beaters, lambda c: self._strength(c, led))
        return self._pick(beaters, lambda c: -self._strength(c, led))

    def _win(self, trick: list[tuple[int, str]], cards: list[str], partner: int) -> str:
        if not trick:
            tops = [c for c in cards if _rank(c) == "A" or c == "KS"]
            if tops:
                return self._pick(tops, lambda c: (_suit(c) == "S", -NATURAL_STRENGTH[_rank(c)]))
            length = {s: sum(1 for c in cards if _suit(c) == s) for s in "SHDC"}
            return self._pick(cards, lambda c: (_suit(c) == "S", -length[_suit(c)], NATURAL_STRENGTH[_rank(c)]))
        led = _suit(trick[0][1])
        winner, top = self._winning(trick)
        if winner == partner and (len(trick) == 3 or top >= self._strength("K" + led, led)):
            return self._pick(cards, self._low)
        beaters = [c for c in cards if self._strength(c, led) > top]
        if beaters:
            return self._pick(beaters, lambda c: self._strength(c, led))
        return self._pick(cards, self._low)


class SpadesReader(Reader):
    """Spades for the sampler: thirteen each, one at a time from the dealer's left. A seat that
    may still bid blind nil has not seen its own cards: they are dealt like any unseen card. The
    sampled match starts at the view's scores and bags (``Spades.resumed``), so blind nil is
    offered to the same seats as at the real table."""

    @staticmethod
    def read(view: dict[str, Any], seat: int) -> Knowledge:
        knowledge = trick_knowledge(view, seat, standard_deck(), must_trump=False)
        knowledge.unseen[seat].held = view["hand_counts"][seat] - len(view["hand"] or ())
        return knowledge

    @staticmethod
    def lay_out(
        view: dict[str, Any], seat: int, knowledge: Knowledge, deal: Deal, rng: random.Random
    ) -> tuple[list[str], list[list[str]]]:
        order = [(view["dealer"] + 1 + k) % 4 for k in range(4)]
        hands = [knowledge.seen[s] + deal.held[s] + deal.down[s] for s in range(4)]
        return [hands[s][i] for i in range(13) for s in order], []

    @staticmethod
    def started(game: Any, state: Any, view: dict[str, Any]) -> Any:
        scores, bags = view["scores"], view["bags"]
        return game.resumed(state, (scores[0], scores[1]), (bags[0], bags[1]))


def candidates(view: dict[str, Any], legal: list[Action], easy: Action) -> list[Action]:
    """Bids within one of the Easy bot's (its count is rarely further off); both blind
    choices; in play one card of each set of equivalent ones."""
    if easy.get("type") == "look" or easy.get("blind"):
        return list(legal)
    if easy.get("type") == "bid":
        return [a for a in legal if abs(a["value"] - easy["value"]) <= 1]
    return distinct_plays(view, legal, easy, natural_order)


BOTS = BotKit(easy=SpadesBot, reader=SpadesReader, hand_result=team_margin, candidates=candidates)
