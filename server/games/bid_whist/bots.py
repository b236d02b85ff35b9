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
- House options (server/games/bid_whist/rules.md): every strength is read in the hand's direction
  (downtown: A 2 3 ... K) with the jokers on top of trump. With ``directions`` the bot bids
  the direction (uptown, downtown, no trump) whose estimate is best: in no trump every suit
  counts all its likely winners and the jokers nothing; a no-trump declarer plays the
  direction its kept cards favour. Discards keep the trumps and jokers (in no trump the
  jokers go first), as many as the kitty held; in no trump the bot throws a joker when it
  cannot follow. Who wins a trick is the rules' own function (``bid_whist_house``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from server.bots.base import Action, Bot
from server.bots.kit import NATURAL, BotKit, distinct_plays, team_margin
from server.games.bid_whist.house import led_suit, suit_in_play, trick_winner
from server.rules.cards import JOKERS, NATURAL_STRENGTH, SUITS, standard_deck
from server.rules.sampling import Deal, Knowledge, Reader, SamplingError, dealt, trick_knowledge

_RANK_ORDER = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
_JOKER_RANK = {"BJ": 16, "LJ": 15}
_NO_SUIT = "J"  # a joker's suit in no trump: it matches no suit led


def _rank(card: str, low: bool = False) -> int:
    """A card's strength in its suit: 2..14 (downtown: K = 2 ... 2 = 13, the ace 14); jokers
    15 and 16."""
    joker = _JOKER_RANK.get(card)
    if joker is not None:
        return joker
    n = NATURAL_STRENGTH[card[:-1]]
    return 15 - n if low and n != 14 else n


def _suit(card: str, trump: str | None = None) -> str:
    """A card's suit as it is played: a joker is a trump (no suit in no trump)."""
    if card in _JOKER_RANK:
        return trump or _NO_SUIT
    return card[-1]


def likely_winners(
    cards: list[str], suit: str, low: bool = False, trump: str | None = None, top: int = 14
) -> list[str]:
    """Cards of ``suit`` likely to win: the missing higher cards are no more than those below
    (``top``: the best strength in the suit, 16 for a trump suit with both jokers)."""
    mine = sorted((c for c in cards if _suit(c, trump) == suit), key=lambda c: _rank(c, low), reverse=True)
    held = {_rank(c, low) for c in mine}
    out = []
    for i, card in enumerate(mine):
        missing_higher = sum(1 for r in range(_rank(card, low) + 1, top + 1) if r not in held)
        below = len(mine) - i - 1
        if missing_higher <= below:
            out.append(card)
    return out


def hand_strength(cards: list[str], trump: str, low: bool = False, jokers: int = 0) -> float:
    """Expected tricks of ``cards`` with ``trump`` as trump (in the direction ``low`` says)."""
    trumps = [c for c in cards if _suit(c, trump) == trump]
    length = len(trumps)
    total = float(len(likely_winners(cards, trump, low, trump, 14 + jokers)))
    total += 0.8 * max(0, length - 3 - total / 2)
    for suit in SUITS:
        if suit == trump:
            continue
        side = [c for c in cards if _suit(c, trump) == suit]
        total += min(2, len(likely_winners(cards, suit, low, trump)))
        if length >= 3:
            if not side:
                total += 1.0
            elif len(side) == 1:
                total += 0.5
    return total


def no_trump_strength(cards: list[str], low: bool) -> float:
    """Expected tricks of ``cards`` in no trump: every likely winner, a long suit's length."""
    total = 0.0
    for suit in SUITS:
        winners = likely_winners(cards, suit, low)
        length = sum(1 for c in cards if _suit(c) == suit)
        total += len(winners) + (0.5 * max(0, length - 4) if winners else 0.0)
    return total


def best_trump(cards: list[str], low: bool = False, jokers: int = 0) -> tuple[str, float]:
    """The suit that makes the strongest hand, and that strength (ties to the longer suit)."""
    best = max(
        SUITS,
        key=lambda s: (hand_strength(cards, s, low, jokers), sum(1 for c in cards if _suit(c) == s)),
    )
    return best, hand_strength(cards, best, low, jokers)


def direction_strengths(cards: list[str], directions: list[str], jokers: int) -> dict[str, float]:
    """Each direction a bid may name, with the hand's strength played that way."""
    out = {}
    for direction in directions:
        if direction == "no_trump":
            out[direction] = max(no_trump_strength(cards, False), no_trump_strength(cards, True))
        else:
            out[direction] = best_trump(cards, direction == "downtown", jokers)[1]
    return out


class BidWhistBot(Bot):
    """Bids from hand strength; plays to make or set the contract with its partner."""

    def __init__(self, rng: Any = None) -> None:
        super().__init__(rng)
        self._memory_key: tuple[Any, ...] | None = None
        self._seen: set[str] = set()
        self._low = False  # the hand is played downtown
        self._jokers: tuple[str, ...] = ()  # the jokers in the deck

    # ---- entry point ----------------------------------------------------------------------

    def choose(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """One action out of ``legal``, chosen from what ``view`` shows."""
        self._remember(view)
        self._low = view.get("play_direction") == "downtown"
        self._jokers = JOKERS[: view.get("jokers") or 0]
        if len(legal) == 1 and "count" not in legal[0]:
            return legal[0]
        types = {a.get("type") for a in legal}
        if "discard" in types:
            return self._discard(view, legal)
        if types & {"bid", "take"} or (types == {"pass"}):
            return self._bid(view, legal)
        if "direction" in types:
            return self._play_direction(view, legal)
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
        jokers = len(self._jokers)
        directions = list(view.get("directions") or [])
        if directions:
            strengths: dict[Any, float] = direction_strengths(hand, directions, jokers)
        else:
            strengths = {None: best_trump(hand, False, jokers)[1]}
        partner_call = (view.get("bids") or [None] * 4)[partner]
        partner_help = 3.0 if isinstance(partner_call, int) else 2.0
        kitty = 0.7 + 0.3 * jokers
        takes = [a for a in legal if a["type"] == "take"]
        passes = [a for a in legal if a["type"] == "pass"]
        if takes:
            if not passes:  # forced: the direction the hand plays best
                return max(takes, key=lambda a: strengths.get(a.get("direction"), 0.0))
            high = view.get("high_bid") or 4
            strength = strengths.get(view.get("high_direction"), max(strengths.values()))
            if view.get("high_bidder") == partner:
                own = strength + kitty + 2.0
                return takes[0] if own >= 5 + high + 1.5 else passes[0]
            estimate = strength + partner_help + kitty
            return takes[0] if estimate >= 5 + high - 0.5 else passes[0]
        bids = [a for a in legal if a["type"] == "bid"]
        for direction in sorted(strengths, key=lambda d: -strengths[d]):
            estimate = strengths[direction] + partner_help + kitty
            mine = sorted((a for a in bids if a.get("direction") == direction), key=lambda a: a["value"], reverse=True)
            for action in mine:
                value = action["value"]
                if value >= 4 and 5 + value + 0.5 * (value - 4) <= estimate:
                    return action
            for action in mine:
                if action["value"] == 3 and estimate >= 8.0:
                    return action
        return passes[0] if passes else legal[0]

    # ---- kitty and trump ---------------------------------------------------------------------

    def _contract_trump(self, view: dict[str, Any], hand: list[str]) -> str | None:
        """The trump the bot plays for: the view's, else its best suit (None: no trump)."""
        if view.get("direction") == "no_trump":
            return None
        return view.get("trump") or best_trump(hand, self._low, len(self._jokers))[0]

    def _discard(self, view: dict[str, Any], legal: list[Action]) -> Action:
        hand = list(view.get("hand") or [])
        count = legal[0].get("count") or len(legal[0].get("cards") or ()) or 4
        if view.get("direction") == "no_trump":
            self._low = no_trump_strength(hand, True) > no_trump_strength(hand, False)
        trump = self._contract_trump(view, hand)
        lengths = {s: sum(1 for c in hand if _suit(c) == s) for s in SUITS}
        low = self._low

        def keep_value(card: str) -> tuple[float, float]:
            if card in _JOKER_RANK and trump is None:
                return (-100.0 + _rank(card), 0.0)  # no power in no trump
            suit = _suit(card, trump)
            if suit == trump:
                return (100.0 + _rank(card, low), 0.0)
            value = float(_rank(card, low))
            if card in likely_winners(hand, suit, low, trump):
                value += 20.0
            value += 2.0 * lengths[suit]
            return (value, self.rng.random())

        throw = sorted(hand, key=keep_value)[:count]
        chosen = set(throw)
        for action in legal:
            cards = action.get("cards")
            if cards is not None and set(cards) == chosen:
                return action
        return {"type": "discard", "cards": sorted(throw, key=hand.index)}

    def _name_trump(self, view: dict[str, Any], legal: list[Action]) -> Action:
        trump, _ = best_trump(list(view.get("hand") or []), self._low, len(self._jokers))
        for action in legal:
            if action["type"] == "trump" and action["suit"] == trump:
                return action
        return self._play(view, [a for a in legal if a["type"] == "play"])

    def _play_direction(self, view: dict[str, Any], legal: list[Action]) -> Action:
        """A no-trump declarer's choice: the direction its cards favour."""
        hand = list(view.get("hand") or [])
        low = no_trump_strength(hand, True) > no_trump_strength(hand, False)
        wanted = "downtown" if low else "uptown"
        return next((a for a in legal if a.get("direction") == wanted), legal[0])

    # ---- play ----------------------------------------------------------------------------------

    def _is_master(self, card: str, hand: list[str], trick_cards: set[str], trump: str | None = None) -> bool:
        """True when every stronger card of the suit is in the hand or already played."""
        suit = _suit(card, trump)
        if suit == _NO_SUIT:
            return False  # a joker in no trump never wins
        gone = self._seen | trick_cards | set(hand)
        strength = _rank(card, self._low)
        rivals = [rank + suit for rank in _RANK_ORDER]
        if suit == trump:
            rivals += self._jokers
        return all(c in gone for c in rivals if _rank(c, self._low) > strength)

    def _cheapest(self, cards: list[str], trump: str | None) -> str:
        """The card that costs least to give away: side cards before trumps, then the lowest
        (in no trump a joker first: it cannot win)."""
        low = self._low

        def cost(card: str) -> tuple[int, int, float]:
            suit = _suit(card, trump)
            rank = -1 if suit == _NO_SUIT else _rank(card, low)
            return (1 if suit == trump else 0, rank, self.rng.random())

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
        if trump is None and view.get("direction") != "no_trump":
            trump = best_trump(hand, self._low, len(self._jokers))[0]
            choice = self._lead(cards, hand, trump, True, trick_cards)
        elif not trick:
            choice = self._lead(cards, hand, trump, attacking, trick_cards)
        else:
            choice = self._follow(cards, hand, trick, trump, (seat, partner), trick_cards)
        for action in legal:
            if action["card"] == choice:
                return action
        return legal[0]

    def _lead(
        self,
        cards: list[str],
        hand: list[str],
        trump: str | None,
        attacking: bool,
        trick_cards: set[str],
    ) -> str:
        low = self._low
        my_trumps = [c for c in cards if trump is not None and _suit(c, trump) == trump]
        seen_trumps = sum(1 for c in self._seen if trump is not None and _suit(c, trump) == trump)
        trumps_out = 13 + len(self._jokers) - len(my_trumps) - seen_trumps
        masters = [c for c in cards if self._is_master(c, hand, trick_cards, trump)]
        if attacking and my_trumps and trumps_out > 0:
            master_trumps = [c for c in masters if _suit(c, trump) == trump]
            if master_trumps:
                return max(master_trumps, key=lambda c: _rank(c, low))
            if len(my_trumps) >= 4:
                return min(my_trumps, key=lambda c: _rank(c, low))
        side_masters = [c for c in masters if _suit(c, trump) != trump]
        if side_masters:
            return max(side_masters, key=lambda c: (_rank(c, low), self.rng.random()))
        side = [c for c in cards if _suit(c, trump) != trump]
        if not side:
            return max(cards, key=lambda c: _rank(c, low)) if masters else min(cards, key=lambda c: _rank(c, low))
        lengths = {s: sum(1 for c in side if _suit(c, trump) == s) for s in (*SUITS, _NO_SUIT)}
        return min(side, key=lambda c: (-lengths[_suit(c, trump)], _rank(c, low), self.rng.random()))

    def _follow(
        self,
        cards: list[str],
        hand: list[str],
        trick: list[dict[str, Any]],
        trump: str | None,
        seats: tuple[int, int],
        trick_cards: set[str],
    ) -> str:
        seat, partner = seats
        low = self._low
        played = [(p["seat"], p["card"]) for p in trick]
        winner_seat = trick_winner(played, trump, low)
        winner_card = next(card for s, card in played if s == winner_seat)
        last_to_play = len(trick) == 3
        if winner_seat == partner and (last_to_play or self._is_master(winner_card, hand, trick_cards, trump)):
            return self._cheapest(cards, trump)
        winning = [c for c in cards if trick_winner([*played, (seat, c)], trump, low) == seat]
        if winning:
            if not last_to_play:
                led = _suit(next((c for _, c in played if _suit(c, trump) != _NO_SUIT), played[0][1]), trump)
                masters = [c for c in winning if self._is_master(c, hand, trick_cards, trump)]
                same = [c for c in masters if _suit(c, trump) == led]
                if same:
                    return min(same, key=lambda c: _rank(c, low))
            return min(winning, key=lambda c: (1 if _suit(c, trump) == trump else 0, _rank(c, low)))
        return self._cheapest(cards, trump)


# ---- what the Strong bot needs of this game ----------------------------------------------


def bid_whist_voids(view: dict[str, Any]) -> dict[int, set[str]]:
    """Bid Whist's shown voids, jokers counted as the house options play them: a joker
    follows trump (a seat void in trump holds no joker either); in no trump the first card
    that is not a joker sets the suit led, and under ``joker_no_trump: "must_play"`` a seat
    that did not follow with a joker holds none."""
    trump = view.get("trump")
    must_play = view.get("joker_no_trump") == "must_play"
    voids: dict[int, set[str]] = {}
    trick: list[tuple[int, str]] = []
    for entry in view.get("log") or []:
        action = entry["action"]
        if action.get("type") != "play":
            continue
        card = action["card"]
        led = led_suit(trick, trump)
        if led is not None and suit_in_play(card, trump) != led:
            lacks = voids.setdefault(entry["seat"], set())
            lacks.add(led)
            if led == trump or (trump is None and must_play and card not in JOKERS):
                lacks.update(JOKERS)
        trick.append((entry["seat"], card))
        if "won" in entry:
            trick = []
    return voids


class BidWhistReader(Reader):
    """Bid Whist: 12 each one at a time from the dealer's left; the rest (4, or 4 + jokers
    with the house option) are the kitty. Jokers are dealt like any unseen card, never to a
    seat that has shown it holds none (``bid_whist_voids``)."""

    hidden = frozenset({"discard"})  # the declarer's discards

    @staticmethod
    def read(view: dict[str, Any], seat: int) -> Knowledge:
        deck = standard_deck() + list(JOKERS[: view.get("jokers") or 0])
        knowledge = trick_knowledge(view, seat, deck, must_trump=False)
        size = view.get("kitty_size") or 4
        if view.get("jokers"):
            for s, lacks in bid_whist_voids(view).items():
                if s != seat:
                    knowledge.unseen[s].voids = {x for x in lacks if x in "SHDC"}
                    knowledge.unseen[s].lacks = {x for x in lacks if x in JOKERS}
        declarer = view.get("declarer")
        if declarer is None or view.get("kitty_count", size) != 0:  # the kitty is not taken yet
            knowledge.spare = size
            return knowledge
        discarded = any(e["action"].get("type") == "discard" for e in view.get("log") or [])
        if declarer == seat:
            shown = list(view.get("discards") or [])
            knowledge.seen[seat] += shown
            if discarded and not shown:
                knowledge.unseen[seat].down = size
        elif discarded:
            knowledge.unseen[declarer].down = size
        return knowledge

    @staticmethod
    def lay_out(
        view: dict[str, Any], seat: int, knowledge: Knowledge, deal: Deal, rng: random.Random
    ) -> tuple[list[str], list[list[str]]]:
        order = [(view["dealer"] + 1 + k) % 4 for k in range(4)]
        hands = [dealt(knowledge, deal, s) for s in range(4)]
        kitty = list(deal.spare)
        size = view.get("kitty_size") or 4
        declarer = view.get("declarer")
        if not kitty:  # the declarer holds the kitty's cards among its 12 + kitty
            if declarer is None:
                raise SamplingError("a taken kitty with no declarer")
            cards = hands[declarer]
            # The declarer's own view shows the kitty, less what it discarded once the discards
            # are closed: the rest of the kitty is then among the (sampled) discards.
            shown = list(view.get("kitty") or []) if declarer == seat else []
            short = declarer == seat and len(shown) < size
            pool = [c for c in (deal.down[declarer] if short else cards) if c not in shown]
            kitty = shown + rng.sample(pool, size - len(shown))
            hands[declarer] = [c for c in cards if c not in kitty]
        fills = [deal.down[declarer] or knowledge.seen[declarer][-size:]] if declarer is not None else []
        deck = [hands[s][i] for i in range(12) for s in order]
        return deck + kitty, fills


# Downtown's trick order, high to low.
DOWNTOWN = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
# Standard errors by which the best candidate must beat the Easy choice to be played (see
# ``server.bots.strong.Tally``). Bid Whist weighs ~9 cards a lead on 20-40 noisy deals: the best
# of the means was mostly the luckiest, so the Strong pair played worse than Easy (a probe: 10D
# led over the Easy bot's AS on 20 deals, 0.31 points worse on 200). Measured on duplicate hands
# (docs/decisions/0011): the team's margin a deal +1.0 over the best mean.
MARGIN = 1.0


def card_order(suit: str, view: dict[str, Any]) -> tuple[tuple[str, ...], dict[str, int]]:
    """The hand's trick order: downtown's, or ace high."""
    return (DOWNTOWN if view.get("play_direction") == "downtown" else NATURAL), {}


def candidates(view: dict[str, Any], legal: list[Action], easy: Action) -> list[Action]:
    """The auction is bid as the Easy bot bids (a partner, and the sampler, read a bid by its
    conventions; a searched bid that means something else misleads the partner's search). Of
    the discards, the Easy bot's and each suit's weakest; before the first lead the declarer
    weighs the four trumps; in play one card of each set of equivalent ones."""
    if any(a.get("type") == "discard" for a in legal):
        return discard_candidates(view, easy)
    if not any(a.get("type") in ("play", "trump") for a in legal):
        return [easy]
    if any(a.get("type") == "trump" for a in legal):
        return [a for a in legal if a.get("type") == "trump" or a == easy]
    return distinct_plays(view, legal, easy, card_order)


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


BOTS = BotKit(
    easy=BidWhistBot,
    reader=BidWhistReader,
    hand_result=team_margin,
    candidates=candidates,
    margin=MARGIN,
)
