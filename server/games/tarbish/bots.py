"""A Tarabish bot that plays from its seat's view alone, by simple card-table heuristics.

- Naming trump: it rates each suit from its six visible cards (the kitty is unseen): trumps by
  their power (J 30, 9 22, A 14, 10 12, K and Q 8, any other 6) plus side aces (10) and
  side tens guarded by their ace (6). It names the best suit when the rating reaches 70 and
  otherwise passes; when forced as dealer it names its best suit anyway. Where no trump may
  be called (the ``no_trump`` option) it rates that too, from sure tricks in every suit (aces
  18, a ten guarded by its ace 12, a king with both 8, each card of a suit of four or more
  held with its ace 3): no trump wins over a suit only when it rates higher. A dealer who may
  pass (``dealer_forced`` off) passes a weak hand like anyone else.
- Declaring: it always declares a run it holds (an undeclared run cannot score, and only the
  type is announced).
- Leading: if its team called trump and it holds the trump J, it leads it to draw trumps;
  otherwise it leads a side ace, then a low card of its longest plain suit (never a bare 10),
  and trumps only when nothing else is left.
- Following: when its partner is winning the trick and is last to be beaten (the bot plays
  last, or the partner's card is the trump J or an unbeaten ace with no trump out), it
  gives the partner its richest card that is not a high trump. When it can win, it wins
  with the cheapest winning card (fewest points, then weakest); otherwise it throws its
  cheapest card, keeping trumps and tens.
- Ties between equally good cards go to ``self.rng``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

from server.bots.base import Action, Bot
from server.bots.kit import BotKit, distinct_plays, team_margin
from server.games.tarbish.rules import (
    DECK,
    PLAIN_ORDER,
    PLAIN_POINTS,
    PLAIN_RANK,
    TRUMP_ORDER,
    TRUMP_POINTS,
    TRUMP_RANK,
)
from server.rules.sampling import Deal, Knowledge, Reader, played_cards, trick_knowledge

NAME_THRESHOLD = 70
_TRUMP_POWER = {"J": 30, "9": 22, "A": 14, "10": 12, "K": 8, "Q": 8}

T = TypeVar("T")


def _rank(card: str) -> str:
    return card[:-1]


def _suit(card: str) -> str:
    return card[-1]


def rate_trump(hand: list[str], suit: str) -> int:
    """How good ``suit`` would be as trump for this hand."""
    score = 0
    suits = {_suit(c) for c in hand}
    for card in hand:
        rank, s = _rank(card), _suit(card)
        if s == suit:
            score += _TRUMP_POWER.get(rank, 6)
        elif rank == "A":
            score += 10
        elif rank == "10" and "A" + s in hand:
            score += 6
    # a void side suit lets the trumps ruff
    score += 4 * sum(1 for s in "SHDC" if s != suit and s not in suits)
    return score


def rate_no_trump(hand: list[str]) -> int:
    """How good a no-trump call would be for this hand: its sure tricks in every suit."""
    score = 0
    for s in "SHDC":
        ranks = {_rank(c) for c in hand if _suit(c) == s}
        if "A" not in ranks:
            continue
        score += 18 + (12 if "10" in ranks else 0) + (8 if {"10", "K"} <= ranks else 0)
        if len(ranks) >= 4:
            score += 3 * len(ranks)
    return score


def _rate(hand: list[str], suit: str) -> int:
    return rate_no_trump(hand) if suit == "N" else rate_trump(hand, suit)


def _points(card: str, trump: str | None) -> int:
    table = TRUMP_POINTS if _suit(card) == trump else PLAIN_POINTS
    return table.get(_rank(card), 0)


def _strength(card: str, trump: str | None, led: str) -> int:
    """Power of a card within a trick: trumps above the suit led, off-suit cards nowhere."""
    if _suit(card) == trump:
        return 100 + TRUMP_RANK[_rank(card)]
    if _suit(card) == led:
        return PLAIN_RANK[_rank(card)]
    return 0


class TarbishBot(Bot):
    """Names trump from strength, always declares, wins cheaply, feeds its partner points."""

    def choose(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """Pick one of ``legal`` from what ``view`` shows."""
        kinds = {a["type"] for a in legal}
        if "play" in kinds:
            return self._play(view, legal)
        if "declare" in kinds:
            return {"type": "declare"}
        if "trump" in kinds:
            return self._name(view, legal)
        return legal[0]

    def _pick(self, options: list[T], key: Callable[[T], Any]) -> T:
        best = min(key(o) for o in options)
        tied = [o for o in options if key(o) == best]
        return tied[0] if len(tied) == 1 else self.rng.choice(tied)

    def _name(self, view: dict[str, Any], legal: list[Action]) -> Action:
        hand = view.get("hand") or []
        trumps = [a for a in legal if a["type"] == "trump"]
        best = self._pick(trumps, lambda a: -_rate(hand, a["suit"]))
        can_pass = {"type": "pass"} in legal
        if can_pass and _rate(hand, best["suit"]) < NAME_THRESHOLD:
            return {"type": "pass"}
        return best

    def _play(self, view: dict[str, Any], legal: list[Action]) -> Action:
        trump = view.get("trump")
        seat = view["to_act"][0]
        cards = [a["card"] for a in legal]
        trick = [(p["seat"], p["card"]) for p in view.get("trick", [])]
        if not trick:
            return {"type": "play", "card": self._lead(view, seat, cards, trump)}
        led = _suit(trick[0][1])
        win_seat, win_card = max(trick, key=lambda p: _strength(p[1], trump, led))
        top = _strength(win_card, trump, led)
        last = len(trick) == 3
        partner_winning = win_seat % 2 == seat % 2
        trump_out = any(_suit(c) == trump for _, c in trick)
        if partner_winning and (
            last
            or (_suit(win_card) == trump and _rank(win_card) == "J")
            or (not trump_out and _suit(win_card) != trump and _rank(win_card) == "A")
        ):
            # feed the partner points, but never a high trump
            def richness(c: str) -> tuple[int, int]:
                high_trump = _suit(c) == trump and _rank(c) in ("J", "9")
                return (1 if high_trump else 0, -_points(c, trump))

            return {"type": "play", "card": self._pick(cards, richness)}
        winners = [c for c in cards if _strength(c, trump, led) > top]
        if winners and not partner_winning:
            card = self._pick(winners, lambda c: (_points(c, trump), _strength(c, trump, led)))
            return {"type": "play", "card": card}
        card = self._pick(cards, lambda c: self._discard_cost(c, trump))
        return {"type": "play", "card": card}

    @staticmethod
    def _discard_cost(card: str, trump: str | None) -> tuple[int, int, int]:
        is_trump = 1 if _suit(card) == trump else 0
        strength = TRUMP_RANK[_rank(card)] if is_trump else PLAIN_RANK[_rank(card)]
        return (is_trump, _points(card, trump), strength)

    def _lead(self, view: dict[str, Any], seat: int, cards: list[str], trump: str | None) -> str:
        caller = view.get("caller")
        jack = f"J{trump}"
        if caller is not None and caller % 2 == seat % 2 and jack in cards:
            return jack
        plain = [c for c in cards if _suit(c) != trump]
        aces = [c for c in plain if _rank(c) == "A"]
        if aces:
            return self._pick(aces, lambda c: -sum(1 for x in cards if _suit(x) == _suit(c)))
        if not plain:
            return self._pick(cards, lambda c: -TRUMP_RANK[_rank(c)])
        length = {s: sum(1 for c in plain if _suit(c) == s) for s in "SHDC"}
        safe = [c for c in plain if _rank(c) != "10"] or plain
        return self._pick(safe, lambda c: (-length[_suit(c)], _points(c, trump), PLAIN_RANK[_rank(c)]))


# ---- what the Strong bot needs of this game ----------------------------------------------


class TarbishReader(Reader):
    """Tarabish: three at a time from the dealer's left, three rounds; the third packet is the kitty."""

    @staticmethod
    def read(view: dict[str, Any], seat: int) -> Knowledge:
        # (with no trump called the view's trump is None: nobody had a trump to play)
        knowledge = trick_knowledge(view, seat, list(DECK), must_trump=True)
        played = played_cards(view)
        for shown in view.get("revealed") or []:
            s = shown["seat"]
            if s == seat:
                continue
            still_held = [c for c in shown["cards"] if c not in played.get(s, [])]
            knowledge.seen[s] += still_held
            knowledge.unseen[s].held -= len(still_held)
        for s, count in enumerate(view.get("kitty_count") or []):
            knowledge.unseen[s].down += count  # a kitty nobody has seen yet, its owner included
            if s != seat:
                knowledge.unseen[s].held -= count
        return knowledge

    @staticmethod
    def options(view: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
        """The real options; a dealer forced after thrown-in hands (``dealer_forced`` off) is
        forced in the sample too, whose first hand is this one (no throw-ins before it)."""
        if view.get("dealer_forced") and not options.get("dealer_forced", True):
            return {**options, "dealer_forced": True}
        return dict(options)

    @staticmethod
    def lay_out(
        view: dict[str, Any], seat: int, knowledge: Knowledge, deal: Deal, rng: random.Random
    ) -> tuple[list[str], list[list[str]]]:
        order = [(view["dealer"] + 1 + k) % 4 for k in range(4)]
        packets = {}
        for s in range(4):
            held = knowledge.seen[s] + deal.held[s]
            rng.shuffle(held)
            kitty = deal.down[s] if deal.down[s] else held[6:]
            packets[s] = [c for c in held if c not in kitty] + kitty
        deck = [packets[s][3 * r + i] for r in range(3) for s in order for i in range(3)]
        return deck, []


def card_order(suit: str, view: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, int]]:
    """The suit's trick order and card points: trump's, or a plain suit's."""
    if suit == view.get("trump"):
        return TRUMP_ORDER, TRUMP_POINTS
    return PLAIN_ORDER, PLAIN_POINTS


def candidates(view: dict[str, Any], legal: list[Action], easy: Action) -> list[Action]:
    """Every call; in play one card of each set of equivalent ones (equal in points too)."""
    return distinct_plays(view, legal, easy, card_order)


BOTS = BotKit(easy=TarbishBot, reader=TarbishReader, hand_result=team_margin, candidates=candidates)
