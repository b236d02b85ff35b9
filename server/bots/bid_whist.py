"""A Bid Whist bot that bids from hand strength and plays the contract with its partner.

Heuristics (all from the seat's view and legal actions, never the game state):

- Hand strength: for every suit as a possible trump, count likely tricks. A card is a likely
  winner when the higher cards of its suit it lacks are no more than the cards it holds below
  it (A; K with one guard; Q with two ...). Trumps also win by length (0.8 a trump past three);
  side suits count at most their first two winners; a void or singleton beside three or more
  trumps adds a ruff. The best suit gives the hand's strength.
- Bidding: the team's expected tricks are the hand's strength, plus 2 for the partner (one
  more if the partner has bid), plus 0.7 for the kitty. Bid the highest legal value k with
  5 + k (plus a margin of half a trick per level above Four) within that estimate, else pass;
  open with Three when the estimate is close to Four.
- Dealer: take when forced. Otherwise take from the opponents when the estimate nearly covers
  the high bid; leave a partner's contract alone unless the hand is clearly stronger.
- Discard: keep every card of the chosen trump suit; throw the four side cards with the least
  keeping value (low cards of short suits first, to make voids for ruffing; aces and guarded
  kings last). With the full list of 1,820 discards the matching entry is returned; with only
  the view's compact form ``{"type": "discard", "count": 4}`` the bot returns a concrete
  ``{"type": "discard", "cards": [...]}``.
- Trump: always name it explicitly (the best suit of the 12 kept cards).
- Leading: cash a master card (trump first while the declaring side still has trumps out
  against it, side aces otherwise); else lead low from the longest side suit. Defenders do not
  lead trump unless nothing else is left.
- Following: if the partner is winning with a master card, or the bot plays last behind a
  winning partner, throw the cheapest card. Otherwise win with the cheapest winning card; if
  nothing wins, throw the cheapest card (side cards before trumps, low before high).
- Memory: the cards played this hand, to know which cards are masters: read from the view's
  ``log`` (so a bot made mid-hand, as the Strong bot's rollouts make them, knows them too);
  without a log it remembers each finished trick (``last_trick`` at its next turn).
- Ties between equal choices are broken by ``self.rng``.
"""

from __future__ import annotations

from typing import Any

from server.bots.base import Action, Bot
from server.rules.cards import NATURAL_STRENGTH, SUITS

_RANK_ORDER = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")


def _rank(card: str) -> int:
    return NATURAL_STRENGTH[card[:-1]]


def _suit(card: str) -> str:
    return card[-1]


def likely_winners(cards: list[str], suit: str) -> list[str]:
    """Cards of ``suit`` likely to win: the missing higher cards are no more than those below."""
    mine = sorted((c for c in cards if _suit(c) == suit), key=_rank, reverse=True)
    held = {_rank(c) for c in mine}
    out = []
    for i, card in enumerate(mine):
        missing_higher = sum(1 for r in range(_rank(card) + 1, 15) if r not in held)
        below = len(mine) - i - 1
        if missing_higher <= below:
            out.append(card)
    return out


def hand_strength(cards: list[str], trump: str) -> float:
    """Expected tricks of ``cards`` with ``trump`` as trump."""
    trumps = [c for c in cards if _suit(c) == trump]
    length = len(trumps)
    total = float(len(likely_winners(cards, trump)))
    total += 0.8 * max(0, length - 3 - total / 2)
    for suit in SUITS:
        if suit == trump:
            continue
        side = [c for c in cards if _suit(c) == suit]
        total += min(2, len(likely_winners(cards, suit)))
        if length >= 3:
            if not side:
                total += 1.0
            elif len(side) == 1:
                total += 0.5
    return total


def best_trump(cards: list[str]) -> tuple[str, float]:
    """The suit that makes the strongest hand, and that strength (ties to the longer suit)."""
    best = max(
        SUITS,
        key=lambda s: (hand_strength(cards, s), sum(1 for c in cards if _suit(c) == s)),
    )
    return best, hand_strength(cards, best)


class BidWhistBot(Bot):
    """Bids from hand strength; plays to make or set the contract with its partner."""

    def __init__(self, rng: Any = None) -> None:
        super().__init__(rng)
        self._memory_key: tuple[Any, ...] | None = None
        self._seen: set[str] = set()

    # ---- entry point ----------------------------------------------------------------------

    def choose(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """One action out of ``legal``, chosen from what ``view`` shows."""
        self._remember(view)
        if len(legal) == 1 and "count" not in legal[0]:
            return legal[0]
        types = {a.get("type") for a in legal}
        if "discard" in types:
            return self._discard(view, legal)
        if types & {"bid", "take"} or (types == {"pass"}):
            return self._bid(view, legal)
        if "trump" in types:
            return self._name_trump(view, legal)
        return self._play(view, legal)

    # ---- memory of played cards --------------------------------------------------------

    def _remember(self, view: dict[str, Any]) -> None:
        log = view.get("log")
        if log is not None:  # the view's own record of the hand: right even for a fresh bot
            self._seen = {e["action"]["card"] for e in log if e["action"].get("type") == "play"}
            return
        key = (view.get("hand_number"), view.get("dealer"), tuple(view.get("scores") or ()))
        if key != self._memory_key:
            self._memory_key = key
            self._seen = set()
        last = view.get("last_trick")
        if last:
            self._seen.update(p["card"] for p in last["cards"])

    # ---- bidding -----------------------------------------------------------------------------

    def _bid(self, view: dict[str, Any], legal: list[Action]) -> Action:
        hand = list(view.get("hand") or [])
        seat = view["to_act"][0]
        partner = (seat + 2) % 4
        strength = best_trump(hand)[1]
        partner_call = (view.get("bids") or [None] * 4)[partner]
        partner_help = 3.0 if isinstance(partner_call, int) else 2.0
        estimate = strength + partner_help + 0.7
        by_type = {a["type"]: a for a in legal if a["type"] != "bid"}
        if "take" in by_type:
            high = view.get("high_bid") or 4
            high_bidder = view.get("high_bidder")
            if "pass" not in by_type:
                return by_type["take"]
            if high_bidder == partner:
                own = strength + 0.7 + 2.0
                return by_type["take"] if own >= 5 + high + 1.5 else by_type["pass"]
            return by_type["take"] if estimate >= 5 + high - 0.5 else by_type["pass"]
        bids = sorted(
            (a for a in legal if a["type"] == "bid"), key=lambda a: a["value"], reverse=True
        )
        for action in bids:
            value = action["value"]
            if value >= 4 and 5 + value + 0.5 * (value - 4) <= estimate:
                return action
        for action in bids:
            if action["value"] == 3 and estimate >= 8.0:
                return action
        return by_type.get("pass", legal[0])

    # ---- kitty and trump ---------------------------------------------------------------------

    def _discard(self, view: dict[str, Any], legal: list[Action]) -> Action:
        hand = list(view.get("hand") or [])
        trump, _ = best_trump(hand)
        lengths = {s: sum(1 for c in hand if _suit(c) == s) for s in SUITS}

        def keep_value(card: str) -> tuple[float, float]:
            suit = _suit(card)
            if suit == trump:
                return (100.0 + _rank(card), 0.0)
            value = float(_rank(card))
            if card in likely_winners(hand, suit):
                value += 20.0
            value += 2.0 * lengths[suit]
            return (value, self.rng.random())

        throw = sorted(hand, key=keep_value)[:4]
        chosen = set(throw)
        for action in legal:
            cards = action.get("cards")
            if cards is not None and set(cards) == chosen:
                return action
        return {"type": "discard", "cards": sorted(throw, key=hand.index)}

    def _name_trump(self, view: dict[str, Any], legal: list[Action]) -> Action:
        trump, _ = best_trump(list(view.get("hand") or []))
        for action in legal:
            if action["type"] == "trump" and action["suit"] == trump:
                return action
        return self._play(view, [a for a in legal if a["type"] == "play"])

    # ---- play ----------------------------------------------------------------------------------

    def _is_master(self, card: str, hand: list[str], trick_cards: set[str]) -> bool:
        """True when every higher card of the suit is in the hand or already played."""
        suit = _suit(card)
        gone = self._seen | trick_cards | set(hand)
        for rank in _RANK_ORDER:
            higher = rank + suit
            if NATURAL_STRENGTH[rank] <= _rank(card):
                return True
            if higher not in gone:
                return False
        return True

    def _cheapest(self, cards: list[str], trump: str | None) -> str:
        """The card that costs least to give away: side cards before trumps, then the lowest."""
        def cost(card: str) -> tuple[int, int, float]:
            return (1 if _suit(card) == trump else 0, _rank(card), self.rng.random())

        return min(cards, key=cost)

    def _play(self, view: dict[str, Any], legal: list[Action]) -> Action:
        cards = [a["card"] for a in legal]
        hand = list(view.get("hand") or cards)
        trick = view.get("trick") or []
        trump = view.get("trump")
        seat = view["to_act"][0]
        partner = (seat + 2) % 4
        declarer = view.get("declarer")
        attacking = declarer is not None and declarer % 2 == seat % 2
        trick_cards = {p["card"] for p in trick}
        if trump is None:
            trump = best_trump(hand)[0]
            choice = self._lead(cards, hand, trump, True, trick_cards)
        elif not trick:
            choice = self._lead(cards, hand, trump, attacking, trick_cards)
        else:
            choice = self._follow(cards, hand, trick, trump, partner, trick_cards)
        for action in legal:
            if action["card"] == choice:
                return action
        return legal[0]

    def _lead(
        self, cards: list[str], hand: list[str], trump: str, attacking: bool, trick_cards: set[str]
    ) -> str:
        my_trumps = [c for c in cards if _suit(c) == trump]
        trumps_out = 13 - len(my_trumps) - sum(1 for c in self._seen if _suit(c) == trump)
        masters = [c for c in cards if self._is_master(c, hand, trick_cards)]
        if attacking and my_trumps and trumps_out > 0:
            master_trumps = [c for c in masters if _suit(c) == trump]
            if master_trumps:
                return max(master_trumps, key=_rank)
            if len(my_trumps) >= 4:
                return min(my_trumps, key=_rank)
        side_masters = [c for c in masters if _suit(c) != trump]
        if side_masters:
            return max(side_masters, key=lambda c: (_rank(c), self.rng.random()))
        side = [c for c in cards if _suit(c) != trump]
        if not side:
            return max(cards, key=_rank) if masters else min(cards, key=_rank)
        lengths = {s: sum(1 for c in side if _suit(c) == s) for s in SUITS}
        return min(side, key=lambda c: (-lengths[_suit(c)], _rank(c), self.rng.random()))

    def _follow(
        self,
        cards: list[str],
        hand: list[str],
        trick: list[dict[str, Any]],
        trump: str,
        partner: int,
        trick_cards: set[str],
    ) -> str:
        led = _suit(trick[0]["card"])
        winner = trick[0]
        for play in trick[1:]:
            card, best = play["card"], winner["card"]
            if (_suit(card) == _suit(best) and _rank(card) > _rank(best)) or (_suit(card) == trump and _suit(best) != trump):
                winner = play
        last_to_play = len(trick) == 3
        if winner["seat"] == partner and (
            last_to_play or self._is_master(winner["card"], hand, trick_cards)
        ):
            return self._cheapest(cards, trump)

        def beats(card: str) -> bool:
            best = winner["card"]
            if _suit(card) == _suit(best):
                return _rank(card) > _rank(best)
            return _suit(card) == trump

        winning = [c for c in cards if beats(c)]
        if winning:
            if not last_to_play:
                masters = [c for c in winning if self._is_master(c, hand, trick_cards)]
                same = [c for c in masters if _suit(c) == led]
                if same:
                    return min(same, key=_rank)
            return min(winning, key=lambda c: (1 if _suit(c) == trump else 0, _rank(c)))
        return self._cheapest(cards, trump)


BOT_CLASS = BidWhistBot
