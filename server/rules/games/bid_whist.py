"""Bid Whist, the seed's variant: 52 cards, no jokers, 12 tricks, a 4-card kitty (RULES.md §4).

Players and deck
    Four players in two partnerships, partners opposite: team 0 (A) is seats 0 and 2, team 1 (B)
    is seats 1 and 3. 52 cards, no jokers; in every suit A K Q J 10 ... 2, ace high. Every hand
    has a trump suit (no uptown/downtown, no no-trump).

Deal
    One card at a time clockwise from the dealer's left, 12 each; the last 4 cards of the deck
    are the kitty, which nobody sees. A stacked deck (``decks[i]``) is the full 52 cards, top
    first. The deal passes to the left after each hand.

Bidding (phase "bidding")
    One round, eldest (dealer's left) first, dealer last. A non-dealer passes or bids Three to
    Seven, and each bid must be higher than the high bid so far (so Three can only be the first
    bid). A bid of k promises 5 + k of the 12 tricks. The dealer does not bid:
    - if the high bid is Four or more, the dealer either ``take``s the contract at that bid
      (even from their partner) or ``pass``es, which grants it to the high bidder;
    - if the high bid is Three or nobody bid, the dealer is forced: ``take`` at Four is the only
      legal action (so there is never a redeal).
    The contract holder is the declarer.

Kitty and discard (phase "discarding")
    The declarer picks up the kitty (16 cards) and discards 4 face down in one ``discard``
    action. The discards are out of play and are no trick. Only the declarer sees them, and
    only until the declarer plays their first card.

Trump (phase "trump_or_lead")
    The declarer either names trump (``trump`` {suit}) and then leads, or leads at once
    (``play``): a lead made before trump is named makes the suit of that card trump.

Play (phase "playing")
    The declarer leads the first trick; the winner of each trick leads the next. Follow suit if
    you can, otherwise play anything (no duty to trump). The highest trump wins the trick, else
    the highest card of the suit led.

Scoring and game end
    With contract k, declaring team tricks D and O = 12 - D: made (D >= 5 + k) scores D - 5 for
    the declarers; set scores k + max(0, O - 6) for the defenders. Only one team scores per hand.
    The first team to reach the target (option ``target``, default 21) wins. A team that takes
    all 12 tricks (declarers or defenders) goes Chicago and wins at once, whatever the score;
    the hand's points are still recorded. The match is then over (phase "over").

Decisions where the rules are silent
    - The dealer's ``take`` when forced is at Four; otherwise at the high bid. The dealer never
      bids a number.
    - After the discard both ``trump`` and ``play`` are legal; once trump is named the phase is
      "playing".
    - The kitty's cards join the declarer's hand; no view ever shows the kitty as such
      (``kitty_count`` says whether it is still on the table); ``full_view`` shows it.
    - History entries name no cards, so no card of an earlier hand ever reappears in a view.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, NamedTuple

from pydantic import Field

from server.rules.cards import (
    NATURAL_STRENGTH,
    SUIT_SINGULAR,
    SUITS,
    card_name,
    check_deck,
    hand_rng,
    is_card,
    shuffled,
    sort_hand,
    standard_deck,
)
from server.rules.games.base import (
    Action,
    Game,
    GameOptions,
    IllegalAction,
    action_type,
)
from server.rules.state import ViewMemo

PLAYERS = 4
HAND_SIZE = 12
KITTY_SIZE = 4
TRICKS = 12
BOOK = 5
MIN_BID = 3
MAX_BID = 7
MIN_CONTRACT = 4
TEAMS: tuple[tuple[int, int], tuple[int, int]] = ((0, 2), (1, 3))
BID_NAMES = {3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven"}

_FULL_DECK = tuple(standard_deck())
# The deck's order is the display order (suits S H D C, each high to low): sort_hand's order.
_DISPLAY_ORDER = {card: i for i, card in enumerate(_FULL_DECK)}
_display_key = _DISPLAY_ORDER.__getitem__
assert sort_hand(_FULL_DECK) == list(_FULL_DECK)
# Card -> natural strength (A high), for taking tricks without splitting card strings.
_STRENGTH: dict[str, int] = {card: NATURAL_STRENGTH[card[:-1]] for card in _FULL_DECK}
_PASS: Action = {"type": "pass"}
# Each move's public form, as the log keeps it (see server.rules.state).
_PLAY_MOVE = {card: (("type", "play"), ("card", card)) for card in _FULL_DECK}
_PASS_MOVE = (("type", "pass"),)
_TAKE_MOVE = (("type", "take"),)
_DISCARD_MOVE = (("type", "discard"),)
_TAKE: Action = {"type": "take"}


class Phase(str, enum.Enum):
    """The phases of a hand, and the end of the match."""

    BIDDING = "bidding"
    DISCARDING = "discarding"
    TRUMP_OR_LEAD = "trump_or_lead"
    PLAYING = "playing"
    OVER = "over"


# The phases as module names: ``Phase.X`` is a lookup on the enum class, several times
# slower than a global, and the hot paths test the phase on every action.
_BIDDING, _DISCARDING, _TRUMP_OR_LEAD, _PLAYING, _OVER = (
    Phase.BIDDING, Phase.DISCARDING, Phase.TRUMP_OR_LEAD, Phase.PLAYING, Phase.OVER
)


class BidWhistOptions(GameOptions):
    """Options of a Bid Whist match."""

    target: int = Field(
        21, ge=1, le=1000, description="Points a team needs to win the game (default 21)."
    )


@dataclass(frozen=True, slots=True)
class HandResult:
    """The public result of one finished hand (a history entry)."""

    hand_number: int
    dealer: int
    bids: tuple[Any, ...]
    declarer: int
    contract: int
    forced: bool
    trump: str
    team_tricks: tuple[int, int]
    made: bool
    team_points: tuple[int, int]
    chicago: bool

    def to_dict(self) -> dict[str, Any]:
        """The history entry as the view shows it."""
        a, b = self.team_points
        return {
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "bids": list(self.bids),
            "declarer": self.declarer,
            "contract": self.contract,
            "forced": self.forced,
            "trump": self.trump,
            "tricks": list(self.team_tricks),
            "made": self.made,
            "team_scores": [a, b],
            "scores": [a, b, a, b],
            "chicago": self.chicago,
        }


@dataclass(frozen=True, slots=True)
class HandRecord:
    """The private record of one finished hand (for storage and replays)."""

    dealer: int
    dealt: tuple[tuple[str, ...], ...]
    kitty: tuple[str, ...]
    declarer: int
    contract: int
    trump: str
    discards: tuple[str, ...]
    team_points: tuple[int, int]


class _BidWhistFields(NamedTuple):
    """The fields of a match state (see ``BidWhistState``)."""

    options: BidWhistOptions
    target: int
    seed: int | str
    decks: tuple[tuple[str, ...], ...]
    hand_number: int
    dealer: int
    phase: Phase
    turn: int
    hands: tuple[tuple[str, ...], ...]
    dealt: tuple[tuple[str, ...], ...]
    kitty: tuple[str, ...]
    kitty_taken: bool
    bids: tuple[Any, ...]
    high_bid: int | None
    high_bidder: int | None
    declarer: int | None
    contract: int | None
    forced: bool
    discards: tuple[str, ...]
    trump: str | None
    leader: int | None
    trick: tuple[tuple[int, str], ...]
    tricks: tuple[tuple[tuple[tuple[int, str], ...], int], ...]
    tricks_won: tuple[int, int, int, int]
    team_scores: tuple[int, int]
    history: tuple[HandResult, ...]
    records: tuple[HandRecord, ...]
    winners: tuple[int, ...]
    log: tuple
    views: ViewMemo


class BidWhistState(_BidWhistFields):
    """The whole state of a match: an immutable tuple, never changed in place.

    Equality, hashing, ``repr`` and copies see only the tuple. The instance ``__dict__`` holds
    only caches that ``view`` fills: ``_pub``, the part of the view every seat shares (with
    the seats' hands as lists), built once per state; and ``_prev``, the previous state's
    ``_pub``, left by ``apply`` so that parts that did not change are reused as the very same
    objects (the differ then skips them by identity). They are never compared or copied.
    """

    def __getstate__(self) -> None:
        return None


_NEW = tuple.__new__
_FIELD = {name: i for i, name in enumerate(_BidWhistFields._fields)}


_I_PHASE = _FIELD["phase"]
_I_TURN = _FIELD["turn"]
_I_HANDS = _FIELD["hands"]
_I_TRUMP = _FIELD["trump"]
_I_LEADER = _FIELD["leader"]
_I_TRICK = _FIELD["trick"]
_I_TRICKS = _FIELD["tricks"]
_I_TRICKS_WON = _FIELD["tricks_won"]
_I_LOG = _FIELD["log"]


def _successor(state: BidWhistState, values: list[Any]) -> BidWhistState:
    """The state holding ``values`` (all fields, in order), which follows ``state``."""
    new: BidWhistState = _NEW(BidWhistState, values)
    # getattr rather than ``state.__dict__``: reading ``__dict__`` creates an empty one on
    # every state that was never viewed (simulations view none)
    pub = getattr(state, "_pub", None)
    if pub is not None:
        new.__dict__["_prev"] = pub
    return new


def _put(state: BidWhistState, **changes: Any) -> BidWhistState:
    """``state._replace(**changes)`` without namedtuple's generic checks (the fields are known)."""
    values = list(state)
    for name, value in changes.items():
        values[_FIELD[name]] = value
    return _successor(state, values)


def team_of(seat: int) -> int:
    """The team (0 or 1) of a seat."""
    return seat % 2


def bid_name(value: int) -> str:
    """A bid as a player says it ("Four")."""
    return BID_NAMES.get(value, str(value))


def _hand_fields(
    seed: int | str, decks: tuple[tuple[str, ...], ...], hand_number: int, dealer: int
) -> dict[str, Any]:
    """The fields of a freshly dealt hand."""
    if hand_number < len(decks):
        deck = list(decks[hand_number])
    else:
        deck = shuffled(_FULL_DECK, hand_rng(seed, hand_number))
    # One card at a time from the dealer's left: the i-th seat from there gets every fourth
    # card from the i-th (what ``deal`` does, by slices).
    dealt: list[list[str]] = [[], [], [], []]
    for i in range(PLAYERS):
        dealt[(dealer + 1 + i) % PLAYERS] = deck[i : PLAYERS * HAND_SIZE : PLAYERS]
    rest = deck[PLAYERS * HAND_SIZE :]
    hands = tuple(tuple(sorted(h, key=_display_key)) for h in dealt)
    return {
        "hand_number": hand_number,
        "dealer": dealer,
        "phase": _BIDDING,
        "turn": (dealer + 1) % PLAYERS,
        "hands": hands,
        "dealt": tuple(tuple(h) for h in dealt),
        "kitty": tuple(rest),
        "kitty_taken": False,
        "bids": (None, None, None, None),
        "high_bid": None,
        "high_bidder": None,
        "declarer": None,
        "contract": None,
        "forced": False,
        "discards": (),
        "trump": None,
        "leader": None,
        "trick": (),
        "tricks": (),
        "tricks_won": (0, 0, 0, 0),
        "log": (),
    }


def _plays(trick: Sequence[tuple[int, str]]) -> list[dict[str, Any]]:
    return [{"seat": seat, "card": card} for seat, card in trick]


# Public view parts that never change: shared by every view (views are never changed in
# place below their top level).
_TEAMS_VIEW: list[list[int]] = [[0, 2], [1, 3]]
_REVEALED_VIEW: list[Any] = []
_NO_ONE: list[int] = []
_TO_ACT_VIEW: tuple[list[int], ...] = tuple([seat] for seat in range(PLAYERS))


def _shared(state: BidWhistState) -> tuple[dict[str, Any], tuple[list[str], ...]]:
    """The view parts every seat shares, and each seat's hand as a list; built once per state.

    Parts whose source field is the very same object as in the previous state's (left by
    ``apply``) are taken over as the same objects rather than rebuilt.
    """
    cache = state.__dict__
    pub = cache.get("_pub")
    if pub is not None:
        return pub[1], pub[2]
    prev = cache.pop("_prev", None)
    hands, trick, tricks, won = state.hands, state.trick, state.tricks, state.tricks_won
    team_scores, history, bids = state.team_scores, state.history, state.bids
    if prev is not None:
        (p_hands, p_trick, p_tricks, p_won, p_scores, p_history, p_bids), old, p_lists = prev
    else:
        p_hands = p_trick = p_tricks = p_won = p_scores = p_history = p_bids = None
        old, p_lists = {}, None
    if p_hands is hands:
        hand_lists = p_lists
        hand_counts = old["hand_counts"]
    else:
        hand_lists = tuple(
            p_lists[i] if p_lists is not None and p_hands[i] is h else list(h)
            for i, h in enumerate(hands)
        )
        hand_counts = [len(h) for h in hands]
    if p_trick is trick:
        trick_view = old["trick"]
    else:
        trick_view = _plays(trick)
    if p_tricks is tricks:
        last = old["last_trick"]
    elif tricks:
        plays, winner = tricks[-1]
        last = {"cards": _plays(plays), "winner": winner}
    else:
        last = None
    if p_won is won:
        tricks_won = old["tricks_won"]
        team_tricks = old["team_tricks"]
    else:
        tricks_won = list(won)
        team_tricks = [won[0] + won[2], won[1] + won[3]]
    if p_scores is team_scores:
        scores = old["scores"]
        team_view = old["team_scores"]
    else:
        a, b = team_scores
        scores = [a, b, a, b]
        team_view = [a, b]
    if p_history is history:
        history_view = old["history"]
    else:
        done = old.get("history", ())
        n = len(done) if p_history is not None and history[: len(p_history)] == p_history else 0
        history_view = list(done[:n]) + [h.to_dict() for h in history[n:]]
    bids_view = old["bids"] if p_bids is bids else list(bids)
    over = state.phase is _OVER
    contract = state.contract
    public = {
        "phase": state.phase.value,
        "hand_number": state.hand_number + 1,
        "dealer": state.dealer,
        "to_act": _NO_ONE if over else _TO_ACT_VIEW[state.turn],
        "hand_counts": hand_counts,
        "trick": trick_view,
        "leader": state.leader,
        "trump": state.trump,
        "scores": scores,
        "team_scores": team_view,
        "teams": _TEAMS_VIEW,
        "target": state.target,
        "history": history_view,
        "revealed": _REVEALED_VIEW,
        "bids": bids_view,
        "high_bid": state.high_bid,
        "high_bidder": state.high_bidder,
        "declarer": state.declarer,
        "contract": contract,
        "forced": state.forced,
        "tricks_needed": None if contract is None else BOOK + contract,
        "tricks_won": tricks_won,
        "team_tricks": team_tricks,
        "tricks_played": len(tricks),
        "last_trick": last,
        "kitty_count": 0 if state.kitty_taken else KITTY_SIZE,
        "winners": list(state.winners) if over else None,
        "log": state.views.log(state.log),
    }
    cache["_pub"] = ((hands, trick, tricks, won, team_scores, history, bids), public, hand_lists)
    return public, hand_lists


def _bid_legal(state: BidWhistState) -> list[Action]:
    """The bidding actions of the seat to act."""
    high = state.high_bid
    if state.turn == state.dealer:
        if high is not None and high >= MIN_CONTRACT:
            return [dict(_TAKE), dict(_PASS)]
        return [dict(_TAKE)]
    start = MIN_BID if high is None else high + 1
    return [dict(_PASS)] + [{"type": "bid", "value": v} for v in range(start, MAX_BID + 1)]


def _discard_legal(hand: tuple[str, ...]) -> list[Action]:
    """Every four-card discard from the declarer's sorted 16 cards, in combinations order.

    The cost is allocation (1,820 dicts and lists); ``combinations`` over the hand itself
    measured cheaper than indexing it through a precomputed table. The collector is left
    alone: rules touch no process-wide state, and the server raises its thresholds itself.
    """
    return [{"type": "discard", "cards": [a, b, c, d]} for a, b, c, d in combinations(hand, 4)]


class BidWhist(Game):
    """Bid Whist, the seed's 12-trick variant with a 4-card kitty."""

    name = "bid_whist"
    title = "Bid Whist"
    seat_keys = ("hand", "legal", "discards")
    min_players = 4
    max_players = 4
    default_players = 4
    summary = (
        "Partnership whist for four: bid Three to Seven over a book of five, take the kitty, "
        "name trump and race to 21; take all 12 tricks to go Chicago."
    )
    Options = BidWhistOptions

    # ---- setup -------------------------------------------------------------------------

    def new_game(
        self,
        players: int = 4,
        options: Mapping[str, Any] | GameOptions | None = None,
        seed: int | str = 0,
        dealer: int = 0,
        decks: Sequence[Sequence[str]] | None = None,
    ) -> BidWhistState:
        """Start a match and deal its first hand."""
        self.check_players(players)
        opts = self.parse_options(options)
        assert isinstance(opts, BidWhistOptions)
        self.check_dealer(dealer, PLAYERS)
        stacked: tuple[tuple[str, ...], ...] = ()
        if decks is not None:
            if isinstance(decks, (str, bytes)) or not isinstance(decks, Sequence):
                raise ValueError("decks must be a list of decks")
            stacked = tuple(tuple(check_deck(d, _FULL_DECK)) for d in decks)
        return BidWhistState(
            options=opts,
            target=opts.target,
            seed=seed,
            decks=stacked,
            team_scores=(0, 0),
            history=(),
            records=(),
            winners=(),
            views=ViewMemo(),
            **_hand_fields(seed, stacked, 0, dealer),
        )

    def players(self, state: BidWhistState) -> int:
        """The number of seats in this match (always 4)."""
        return PLAYERS

    # ---- turn and legality -------------------------------------------------------------

    def to_act(self, state: BidWhistState) -> list[int]:
        """The seat that must act now, or [] when the match is over."""
        if state.phase is _OVER:
            return []
        return [state.turn]

    def legal_actions(self, state: BidWhistState, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now, in canonical order ([] when it need not act)."""
        phase = state.phase
        if phase is _OVER or seat != state.turn or isinstance(seat, bool):
            return []
        if phase is _PLAYING:
            hand = state.hands[seat]
            trick = state.trick
            if trick:
                led = trick[0][1][-1]
                follow = [{"type": "play", "card": c} for c in hand if c[-1] == led]
                if follow:
                    return follow
            return [{"type": "play", "card": c} for c in hand]
        if phase is _BIDDING:
            return _bid_legal(state)
        if phase is _DISCARDING:
            return _discard_legal(state.hands[seat])
        # TRUMP_OR_LEAD
        return [{"type": "trump", "suit": s} for s in SUITS] + [
            {"type": "play", "card": c} for c in state.hands[seat]
        ]

    def _view_legal(self, state: BidWhistState, seat: int | None) -> list[Action]:
        """Legal actions as the view shows them (the discard in compact form)."""
        if seat is None or state.phase is _OVER or seat != state.turn:
            return []
        if state.phase is _DISCARDING:
            return [{"type": "discard", "count": KITTY_SIZE}]
        return self.legal_actions(state, seat)

    # ---- apply -----------------------------------------------------------------------------

    def apply(self, state: BidWhistState, seat: int, action: Mapping[str, Any]) -> BidWhistState:
        """A new state after ``seat`` plays ``action``; the given state is unchanged."""
        phase = state.phase
        if phase is _OVER or not (seat is state.turn or seat == state.turn):
            self.require_turn(state, seat)  # raises NotYourTurn with the reason
        kind = action.get("type") if type(action) is dict else None
        if type(kind) is not str:
            kind = action_type(action)
        if phase is _PLAYING:
            if kind != "play":
                raise IllegalAction("Play a card: it is your turn in the trick.")
            return self._play(state, seat, action)
        if phase is _BIDDING:
            return self._bid(state, seat, kind, action)
        if phase is _DISCARDING:
            if kind != "discard":
                raise IllegalAction("Discard four cards first: you have picked up the kitty.")
            return self._discard(state, seat, action)
        # TRUMP_OR_LEAD
        if kind == "trump":
            suit = action.get("suit")
            if not isinstance(suit, str) or suit not in SUITS:
                raise IllegalAction("Name trump as one of the suits S, H, D or C.")
            move = (seat, (("type", "trump"), ("suit", suit)))
            return _put(state, trump=suit, phase=_PLAYING, log=state.log + (move,))
        if kind == "play":
            return self._play(state, seat, action)
        raise IllegalAction("Name trump or lead a card (the suit you lead becomes trump).")

    def _bid(
        self, state: BidWhistState, seat: int, kind: str, action: Mapping[str, Any]
    ) -> BidWhistState:
        high = state.high_bid
        bids = list(state.bids)
        if seat == state.dealer:
            can_grant = high is not None and high >= MIN_CONTRACT
            if kind == "take":
                contract = high if can_grant else MIN_CONTRACT
                assert contract is not None
                value = action.get("value", contract)
                if value != contract or isinstance(value, bool):
                    raise IllegalAction(
                        f"The dealer takes the contract at {bid_name(contract)}, "
                        "no more and no less."
                    )
                bids[seat] = "take"
                return self._award(
                    state, tuple(bids), seat, contract, not can_grant, (seat, _TAKE_MOVE)
                )
            if kind == "pass":
                if not can_grant:
                    raise IllegalAction(
                        "Nobody bid Four or more, so the dealer must take the contract at Four."
                    )
                bids[seat] = "pass"
                assert state.high_bidder is not None and high is not None
                return self._award(
                    state, tuple(bids), state.high_bidder, high, False, (seat, _PASS_MOVE)
                )
            if kind == "bid":
                raise IllegalAction(
                    "The dealer does not bid: take the contract at the high bid, or pass to "
                    "grant it to the high bidder."
                )
            raise IllegalAction("It is the bidding: the dealer may take or pass.")
        if kind == "pass":
            bids[seat] = "pass"
            log = state.log + ((seat, _PASS_MOVE),)
            return _put(state, bids=tuple(bids), turn=(seat + 1) % PLAYERS, log=log)
        if kind == "bid":
            value = action.get("value")
            if isinstance(value, bool) or not isinstance(value, int):
                raise IllegalAction(
                    "A bid needs a whole-number 'value' from 3 (Three) to 7 (Seven)."
                )
            if not MIN_BID <= value <= MAX_BID:
                raise IllegalAction("Bids run from Three to Seven.")
            if high is not None and value <= high:
                raise IllegalAction(
                    f"Your bid must be higher than the high bid of {bid_name(high)}."
                )
            bids[seat] = value
            return _put(
                state,
                bids=tuple(bids),
                high_bid=value,
                high_bidder=seat,
                turn=(seat + 1) % PLAYERS,
                log=state.log + ((seat, (("type", "bid"), ("value", value))),),
            )
        if kind == "take":
            raise IllegalAction("Only the dealer may take the contract; bid or pass.")
        raise IllegalAction("It is the bidding: bid (Three to Seven) or pass.")

    def _award(
        self,
        state: BidWhistState,
        bids: tuple[Any, ...],
        declarer: int,
        contract: int,
        forced: bool,
        move: tuple,
    ) -> BidWhistState:
        """The declarer picks up the kitty and must discard (``move``: the dealer's)."""
        hands = list(state.hands)
        hands[declarer] = tuple(sorted(hands[declarer] + state.kitty, key=_display_key))
        return _put(
            state,
            bids=bids,
            declarer=declarer,
            contract=contract,
            forced=forced,
            log=state.log + (move,),
            hands=tuple(hands),
            kitty_taken=True,
            phase=_DISCARDING,
            turn=declarer,
        )

    def _discard(
        self, state: BidWhistState, seat: int, action: Mapping[str, Any]
    ) -> BidWhistState:
        cards = action.get("cards")
        if (
            not isinstance(cards, (list, tuple))
            or len(cards) != KITTY_SIZE
            or not all(isinstance(c, str) for c in cards)
        ):
            raise IllegalAction("Discard exactly four cards: 'cards' must list four cards.")
        hand = state.hands[seat]
        for card in cards:
            if not is_card(card):
                raise IllegalAction(f"{card!r} is not a card (rank then suit, like 'AS' or '10H').")
            if card not in hand:
                raise IllegalAction(f"You do not hold {card_name(card)}.")
        chosen = set(cards)
        if len(chosen) != KITTY_SIZE:
            raise IllegalAction("Discard four different cards.")
        hands = list(state.hands)
        hands[seat] = tuple(c for c in hand if c not in chosen)
        discards = tuple(c for c in hand if c in chosen)
        log = state.log + ((seat, _DISCARD_MOVE),)
        return _put(
            state, hands=tuple(hands), discards=discards, phase=_TRUMP_OR_LEAD, log=log
        )

    def _play(self, state: BidWhistState, seat: int, action: Mapping[str, Any]) -> BidWhistState:
        card = action.get("card")
        hands = state.hands
        hand = hands[seat]
        if type(card) is not str or card not in hand:
            # Held cards are cards: only a card that is not held needs the full check.
            if not is_card(card):
                raise IllegalAction(
                    f"{card!r} is not a card (rank then suit, like 'AS' or '10H')."
                )
            assert isinstance(card, str)
            if card not in hand:
                raise IllegalAction(f"You do not hold {card_name(card)}.")
        trick = state.trick
        if trick:
            led = trick[0][1][-1]
            if card[-1] != led:
                for held in hand:
                    if held[-1] == led:
                        raise IllegalAction(
                            f"You must follow suit: you hold a {SUIT_SINGULAR[led]}."
                        )
        i = hand.index(card)
        new_hands = list(hands)
        new_hands[seat] = hand[:i] + hand[i + 1 :]
        trump = state.trump
        if trump is None:
            trump = card[-1]
        trick = trick + ((seat, card),)
        values = list(state)
        values[_I_HANDS] = tuple(new_hands)
        values[_I_TRUMP] = trump
        values[_I_PHASE] = _PLAYING
        if len(trick) < PLAYERS:
            values[_I_LEADER] = trick[0][0]
            values[_I_TRICK] = trick
            values[_I_TURN] = (seat + 1) % PLAYERS
            values[_I_LOG] = state.log + ((seat, _PLAY_MOVE[card]),)
            return _successor(state, values)
        # trick_winner(trick, trump), inlined: the highest trump, else the highest of the suit led
        winner, best = trick[0]
        best_suit = best[-1]
        best_strength = _STRENGTH[best]
        for s, c in trick[1:]:
            suit = c[-1]
            if suit == best_suit:
                if _STRENGTH[c] > best_strength:
                    winner, best_strength = s, _STRENGTH[c]
            elif suit == trump:
                winner, best_suit, best_strength = s, suit, _STRENGTH[c]
        won = list(state.tricks_won)
        won[winner] += 1
        tricks = state.tricks + ((trick, winner),)
        values[_I_LEADER] = winner
        values[_I_TRICK] = ()
        values[_I_TRICKS] = tricks
        values[_I_TRICKS_WON] = tuple(won)
        values[_I_TURN] = winner
        values[_I_LOG] = state.log + ((seat, _PLAY_MOVE[card], winner),)
        done = _successor(state, values)
        if len(tricks) < TRICKS:
            return done
        return self._score_hand(done)

    def _score_hand(self, state: BidWhistState) -> BidWhistState:
        """Score the finished hand, then end the match or deal the next hand."""
        declarer, contract, trump = state.declarer, state.contract, state.trump
        assert declarer is not None and contract is not None and trump is not None
        side = team_of(declarer)
        won = state.tricks_won
        team_tricks = [won[0] + won[2], won[1] + won[3]]
        d = team_tricks[side]
        o = TRICKS - d
        points = [0, 0]
        made = d >= BOOK + contract
        if made:
            points[side] = d - BOOK
        else:
            points[1 - side] = contract + max(0, o - 6)
        chicago_team = 0 if team_tricks[0] == TRICKS else 1 if team_tricks[1] == TRICKS else None
        totals = (state.team_scores[0] + points[0], state.team_scores[1] + points[1])
        result = HandResult(
            hand_number=state.hand_number + 1,
            dealer=state.dealer,
            bids=state.bids,
            declarer=declarer,
            contract=contract,
            forced=state.forced,
            trump=trump,
            team_tricks=(team_tricks[0], team_tricks[1]),
            made=made,
            team_points=(points[0], points[1]),
            chicago=chicago_team is not None,
        )
        record = HandRecord(
            dealer=state.dealer,
            dealt=state.dealt,
            kitty=state.kitty,
            declarer=declarer,
            contract=contract,
            trump=trump,
            discards=state.discards,
            team_points=(points[0], points[1]),
        )
        history = state.history + (result,)
        records = state.records + (record,)
        winning_team: int | None = chicago_team
        if winning_team is None:
            for team in (0, 1):
                if totals[team] >= state.target:
                    winning_team = team
        if winning_team is not None:
            return _put(
                state,
                team_scores=totals,
                history=history,
                records=records,
                phase=_OVER,
                turn=-1,
                winners=TEAMS[winning_team],
            )
        return _put(
            state,
            team_scores=totals,
            history=history,
            records=records,
            **_hand_fields(
                state.seed, state.decks, state.hand_number + 1, (state.dealer + 1) % PLAYERS
            ),
        )

    # ---- views -------------------------------------------------------------------------------

    def _public(self, state: BidWhistState) -> dict[str, Any]:
        """Every key that is the same for every seat (a new top-level dict, safe to change)."""
        return dict(_shared(state)[0])

    def view(self, state: BidWhistState, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see, JSON-able; None is a spectator."""
        public, hands = _shared(state)
        out = dict(public)
        is_seat = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < PLAYERS
        if not is_seat:
            out["hand"] = None
            out["legal"] = []
            out["discards"] = None
            return out
        assert seat is not None
        out["hand"] = hands[seat]
        out["legal"] = self._view_legal(state, seat)
        out["discards"] = (
            list(state.discards)
            if seat == state.declarer and state.discards and self._discards_open(state)
            else None
        )
        return out

    @staticmethod
    def _discards_open(state: BidWhistState) -> bool:
        """True while the declarer may still look at the discards (before their first card)."""
        return state.phase is _TRUMP_OR_LEAD or (
            state.phase is _PLAYING and not state.tricks and not state.trick
        )

    def full_view(self, state: BidWhistState) -> dict[str, Any]:
        """The public view with every hand, the kitty and the discards shown."""
        out = self._public(state)
        out["hand"] = None
        out["legal"] = []
        out["hands"] = [list(h) for h in state.hands]
        out["kitty"] = list(state.kitty)
        out["discards"] = list(state.discards)
        out["tricks"] = [
            {"cards": _plays(plays), "winner": winner} for plays, winner in state.tricks
        ]
        return out

    # ---- results -----------------------------------------------------------------------------

    def outcome(self, state: BidWhistState) -> dict[str, Any] | None:
        """None while the match goes on; then the final scores per seat and the winning seats."""
        if state.phase is not _OVER:
            return None
        a, b = state.team_scores
        return {"scores": [a, b, a, b], "winners": list(state.winners)}

    def hand_records(self, state: BidWhistState) -> list[dict[str, Any]]:
        """Each hand dealt so far: dealer, deal (hands and kitty), contract and scores per seat."""
        out = []
        for rec in state.records:
            a, b = rec.team_points
            out.append(
                {
                    "dealer": rec.dealer,
                    "deal": {"hands": [list(h) for h in rec.dealt], "kitty": list(rec.kitty)},
                    "declarer": rec.declarer,
                    "contract": rec.contract,
                    "trump": rec.trump,
                    "discards": list(rec.discards),
                    "scores": [a, b, a, b],
                }
            )
        if state.phase is not _OVER:
            out.append(
                {
                    "dealer": state.dealer,
                    "deal": {
                        "hands": [list(h) for h in state.dealt],
                        "kitty": list(state.kitty),
                    },
                    "declarer": state.declarer,
                    "contract": state.contract,
                    "trump": state.trump,
                    "discards": list(state.discards),
                    "scores": None,
                }
            )
        return out


GAME = BidWhist()

__all__ = ["GAME", "BidWhist", "BidWhistOptions", "BidWhistState", "Phase", "team_of", "bid_name"]
