"""Bid Whist, the seed's variant: 52 cards, no jokers, 12 tricks, a 4-card kitty
(the rules this engine enforces, in full), and the house options a table may switch on.

House options (server/games/bid_whist/rules.md): jokers, the thirteen-book game, directions (uptown,
downtown, no trump), doubling and Boston, a sported kitty. A table that sets any of them
plays by ``server.games.bid_whist.house`` (``state.house``); the seed's game never
enters its branches. With ``directions`` a bid carries ``direction``; a no-trump
declarer answers ``{"type": "direction", "direction": "uptown" | "downtown"}`` after the
discard instead of naming trump. The view adds ``direction``, ``play_direction``,
``high_direction``, ``bid_directions``, ``sported`` (the kitty face up while the declarer
discards), ``kitty_size``, ``jokers``, ``books``, ``game_to`` and ``directions``; each
history entry its ``direction``, ``play_direction``, ``doubled`` and ``quadrupled``.

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
    - The kitty's cards join the declarer's hand; from then until the hand ends the
      declarer's view (only theirs) lists them as ``kitty``, so the client can mark them:
      all four while the discards may be looked at, then only those not discarded (nobody
      looks at the discards after the declarer's first card). ``kitty_count``
      tells everyone whether it is still on the table; ``full_view`` shows it.
    - History entries name no cards, so no card of an earlier hand ever reappears in a view.

Code
    The state is a ``State`` (``server.rules.state``): ``apply`` clones it and sets the
    changed fields on the clone, never on the state it is given. ``why_illegal`` is the one
    place that says why a move is refused, ``legal_actions`` lists what it allows and
    ``apply`` raises with its sentence. Tricks follow ``server.rules.tricks``. The steps of a
    hand are functions in the order they are played (bidding; the discard, trump and the
    play; scoring; the public view); the ``BidWhist`` class is the engine surface over them.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from server.games.bid_whist import house as house_rules
from server.games.bid_whist.house import (
    DIRECTION_WORDS,
    NO_TRUMP,
    PLAY_DIRECTIONS,
    HouseRules,
    playable,
)
from server.rules.cards import (
    JOKERS,
    SUIT_SINGULAR,
    SUITS,
    card_name,
    hand_rng,
    is_card,
    shuffled,
    sort_hand,
    standard_deck,
)
from server.rules.game import Action, Game, GameOptions, Sections, Setup, Teams, shared_actions
from server.rules.state import State, ViewMemo
from server.rules.tricks import NATURAL, TrickPlay, follow_suit, trick_winner, why_not_follow

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
_COUNT_WORDS = {4: "four", 5: "five", 6: "six"}

_FULL_DECK = tuple(standard_deck())
# Every card's play and every suit's trump call, handed out by ``legal_actions`` (see
# ``server.rules.game.shared_action``).
_play_action = shared_actions("play", "card", (*_FULL_DECK, *JOKERS)).__getitem__
_TRUMP_ACTIONS = list(shared_actions("trump", "suit", SUITS).values())
_DIRECTION_ACTIONS = list(shared_actions("direction", "direction", PLAY_DIRECTIONS).values())
# The deck's order is the display order (suits S H D C, each high to low): sort_hand's order;
# jokers, where a table plays them, come first.
_DISPLAY_ORDER = {card: i for i, card in enumerate((*JOKERS, *_FULL_DECK))}
_display_key = _DISPLAY_ORDER.__getitem__
assert sort_hand(_FULL_DECK) == list(_FULL_DECK) == sorted(_FULL_DECK, key=_display_key)
# Each move's public form, as the log keeps it (see server.rules.state).
_PLAY_MOVE = {card: (("type", "play"), ("card", card)) for card in (*_FULL_DECK, *JOKERS)}
_PASS_MOVE = (("type", "pass"),)
_TAKE_MOVE = (("type", "take"),)
_DISCARD_MOVE = (("type", "discard"),)
# The bidding's candidate actions, in canonical order (``legal_actions`` keeps the legal ones).
_BIDDING_ACTIONS: tuple[Action, ...] = (
    {"type": "take"},
    {"type": "pass"},
    *({"type": "bid", "value": v} for v in range(MIN_BID, MAX_BID + 1)),
)
# Public view parts that never change: shared by every view (views are read-only below
# their top level).
_TEAMS_VIEW: list[list[int]] = [[0, 2], [1, 3]]
_REVEALED_VIEW: list[Any] = []
_NO_ONE: list[int] = []
_NO_LEGAL: list[Action] = []
_TO_ACT_VIEW: tuple[list[int], ...] = tuple([seat] for seat in range(PLAYERS))
_NO_DIRECTIONS: tuple[str | None, ...] = (None,) * PLAYERS


class Phase(str, enum.Enum):
    """The phases of a hand, and the end of the match."""

    BIDDING = "bidding"
    DISCARDING = "discarding"
    TRUMP_OR_LEAD = "trump_or_lead"
    PLAYING = "playing"
    OVER = "over"


# The phases as module names: every action tests the phase (docs/decisions/0003).
_BIDDING, _DISCARDING, _TRUMP_OR_LEAD, _PLAYING, _OVER = (
    Phase.BIDDING,
    Phase.DISCARDING,
    Phase.TRUMP_OR_LEAD,
    Phase.PLAYING,
    Phase.OVER,
)


MAX_TARGET = 50


class BidWhistOptions(GameOptions):
    """Options of a Bid Whist match (the house options: server/games/bid_whist/rules.md)."""

    # At most a few points a hand: 50 is more than twice the usual game, and keeps a match
    # (and its replay) to a few thousand actions.
    target: int = Field(21, ge=1, le=MAX_TARGET, description="Points a team needs to win the game (default 21).")
    jokers: Literal[0, 1, 2] = Field(
        0,
        description="Jokers added to the deck: 1 (the big joker) or 2 (big and little); "
        "the kitty holds 4 + jokers cards.",
    )
    joker_no_trump: Literal["free", "must_play"] = Field(
        "free",
        description="In no trump a joker never wins; 'must_play': a player void in "
        "the suit led who holds one must play it.",
    )
    books: Literal["seed", "thirteen"] = Field(
        "seed",
        description="'seed': 12 tricks, a book of 5; 'thirteen': the discard is the "
        "first book, a bid of k needs 6 + k of 13 books, game at +game_to or -game_to.",
    )
    min_bid: Literal[3, 4] = Field(4, description="The lowest bid that can win the auction (with books 'thirteen').")
    game_to: int = Field(
        7,
        ge=1,
        le=MAX_TARGET,
        description="With books 'thirteen': a team reaching +game_to wins, -game_to loses.",
    )
    directions: bool = Field(
        False, description="Each bid names uptown (high cards win) or downtown (low cards win, the ace stays best)."
    )
    no_trump: bool = Field(
        False, description="With directions: a bid may be no trump (the declarer then chooses uptown or downtown)."
    )
    downtown_beats_uptown: bool = Field(
        True, description="Between equal numbers downtown outranks uptown (off: the reverse)."
    )
    no_trump_double: bool = Field(True, description="A no-trump contract's score counts double, made or set.")
    boston: Literal["wins", "quadruple"] = Field(
        "wins", description="Taking every trick: 'wins' the game at once, or 'quadruple' scores the hand four times."
    )
    sport_kitty: bool = Field(False, description="The kitty is shown face up to everyone before the declarer takes it.")

    @model_validator(mode="after")
    def _check_combinations(self) -> BidWhistOptions:
        if self.no_trump and not self.directions:
            raise ValueError("option 'no_trump' needs option 'directions'")
        if self.books == "seed":
            for name, default in (("min_bid", 4), ("game_to", 7)):
                if getattr(self, name) != default:
                    raise ValueError(f"option '{name}' needs option 'books' set to 'thirteen'")
        return self


@dataclass(frozen=True, slots=True)
class HandResult:
    """The public result of one finished hand (a history entry)."""

    hand_number: int
    dealer: int
    bids: tuple[Any, ...]
    declarer: int
    contract: int
    forced: bool
    trump: str | None  # None: no trump
    team_tricks: tuple[int, int]
    made: bool
    team_points: tuple[int, int]
    chicago: bool
    last_trick: tuple[tuple[tuple[int, str], ...], int]  # the hand's final trick and its winner
    direction: str | None = None  # the contract's direction (house option ``directions``)
    play_direction: str | None = None  # uptown or downtown, as the hand was played
    doubled: bool = False  # a no-trump contract scored double
    quadrupled: bool = False  # a Boston scored four times
    house: bool = False  # the table plays house options: a sweep is a Boston, not a Chicago

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
            "last_trick": _last_trick((self.last_trick,)),
            "direction": self.direction,
            "play_direction": self.play_direction,
            "doubled": self.doubled,
            "quadrupled": self.quadrupled,
            "house": self.house,
        }


@dataclass(frozen=True, slots=True)
class HandRecord:
    """The private record of one finished hand (for storage and replays)."""

    dealer: int
    dealt: tuple[tuple[str, ...], ...]
    kitty: tuple[str, ...]
    declarer: int
    contract: int
    trump: str | None
    discards: tuple[str, ...]
    team_points: tuple[int, int]
    direction: str | None = None


class BidWhistState(State):
    """A Bid Whist match; ``apply`` returns a fresh clone, never changing the one it is given."""

    options: BidWhistOptions
    house: HouseRules | None  # None: the seed's game (only ``target`` may be set)
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
    high_direction: str | None
    bid_directions: tuple[str | None, ...]
    declarer: int | None
    contract: int | None
    direction: str | None  # the contract's: uptown, downtown or no_trump (with ``directions``)
    play_direction: str | None  # uptown or downtown once known (no trump: the declarer's choice)
    forced: bool
    discards: tuple[str, ...]
    trump: str | None
    leader: int | None
    trick: tuple[tuple[int, str], ...]
    tricks: tuple[tuple[tuple[tuple[int, str], ...], int], ...]
    tricks_won: tuple[int, ...]  # one count a seat
    team_scores: tuple[int, int]
    history: tuple[HandResult, ...]
    records: tuple[HandRecord, ...]
    winners: tuple[int, ...]
    log: tuple
    views: ViewMemo


def team_of(seat: int) -> int:
    """The team (0 or 1) of a seat."""
    return seat % 2


def bid_name(value: int) -> str:
    """A bid as a player says it ("Four")."""
    return BID_NAMES.get(value, str(value))


def _hand_fields(
    seed: int | str,
    decks: tuple[tuple[str, ...], ...],
    hand_number: int,
    dealer: int,
    house: HouseRules | None,
) -> dict[str, Any]:
    """The fields of a freshly dealt hand (the kitty: every card past the 48 dealt)."""
    if hand_number < len(decks):
        deck = list(decks[hand_number])
    else:
        deck = shuffled(_FULL_DECK if house is None else house.deck, hand_rng(seed, hand_number))
    # One card at a time from the dealer's left: the i-th seat from there gets every fourth
    # card from the i-th (what ``deal`` does, by slices).
    dealt: list[list[str]] = [[], [], [], []]
    for i in range(PLAYERS):
        dealt[(dealer + 1 + i) % PLAYERS] = deck[i : PLAYERS * HAND_SIZE : PLAYERS]
    hands = tuple(tuple(sorted(h, key=_display_key)) for h in dealt)
    return {
        "hand_number": hand_number,
        "dealer": dealer,
        "phase": _BIDDING,
        "turn": (dealer + 1) % PLAYERS,
        "hands": hands,
        "dealt": tuple(tuple(h) for h in dealt),
        "kitty": tuple(deck[PLAYERS * HAND_SIZE :]),
        "kitty_taken": False,
        "bids": (None, None, None, None),
        "high_bid": None,
        "high_bidder": None,
        "high_direction": None,
        "bid_directions": _NO_DIRECTIONS,
        "declarer": None,
        "contract": None,
        "direction": None,
        "play_direction": None,
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


def _play_json(play: tuple[int, str]) -> dict[str, Any]:
    return {"seat": play[0], "card": play[1]}


def _last_trick(tricks: tuple) -> dict[str, Any] | None:
    if not tricks:
        return None
    plays, winner = tricks[-1]
    return {"cards": _plays(plays), "winner": winner}


def _counts(hands: tuple[tuple[str, ...], ...]) -> list[int]:
    return [len(h) for h in hands]


def _team_tricks(won: tuple[int, ...]) -> list[int]:
    return [won[0] + won[2], won[1] + won[3]]


def _seat_scores(team_scores: tuple[int, int]) -> list[int]:
    a, b = team_scores
    return [a, b, a, b]


def _kitty_size(state: BidWhistState) -> int:
    return KITTY_SIZE if state.house is None else state.house.kitty_size


# ---- bidding: one round from eldest; the dealer takes or grants; the kitty -------------------


def _bid_words(value: int, direction: str | None) -> str:
    """A bid as a player says it: "Four", "Four downtown", "Five no trump"."""
    if direction is None:
        return bid_name(value)
    return f"{bid_name(value)} {DIRECTION_WORDS[direction]}"


def _why_not_direction(house: HouseRules, direction: object) -> str | None:
    if direction in house.directions:
        return None
    words = ", ".join(f"'{d}'" for d in house.directions)
    return f"A bid names its 'direction': one of {words}."


_HOUSE_BIDDING: dict[tuple[str, ...], tuple[Action, ...]] = {}


def _house_bidding_actions(directions: tuple[str, ...]) -> tuple[Action, ...]:
    """The bidding's candidate actions with house options, in canonical order."""
    found = _HOUSE_BIDDING.get(directions)
    if found is None:
        named = [{"direction": d} for d in directions] or [{}]
        found = (
            {"type": "take"},
            *({"type": "take", **d} for d in named if d),
            {"type": "pass"},
            *({"type": "bid", "value": v, **d} for v in range(MIN_BID, MAX_BID + 1) for d in named),
        )
        _HOUSE_BIDDING[directions] = found
    return found


def _why_not_bid(state: BidWhistState, seat: int, kind: str, action: Mapping[str, Any]) -> str | None:
    """Why a bidding action is refused: the dealer takes or passes, the others bid up."""
    high = state.high_bid
    if seat == state.dealer:
        can_grant = high is not None and high >= MIN_CONTRACT
        if kind == "take":
            contract = high if can_grant else MIN_CONTRACT
            value = action.get("value", contract)
            if value != contract or isinstance(value, bool):
                return (
                    f"The dealer takes the contract at {bid_name(contract)}, "  # type: ignore[arg-type]
                    "no more and no less."
                )
            return None
        if kind == "pass":
            if can_grant:
                return None
            return "Nobody bid Four or more, so the dealer must take the contract at Four."
        if kind == "bid":
            return "The dealer does not bid: take the contract at the high bid, or pass to grant it to the high bidder."
        return "It is the bidding: the dealer may take or pass."
    if kind == "pass":
        return None
    if kind == "bid":
        value = action.get("value")
        if isinstance(value, bool) or not isinstance(value, int):
            return "A bid needs a whole-number 'value' from 3 (Three) to 7 (Seven)."
        if not MIN_BID <= value <= MAX_BID:
            return "Bids run from Three to Seven."
        if high is not None and value <= high:
            return f"Your bid must be higher than the high bid of {bid_name(high)}."
        return None
    if kind == "take":
        return "Only the dealer may take the contract; bid or pass."
    return "It is the bidding: bid (Three to Seven) or pass."


def _why_not_house_bid(state: BidWhistState, seat: int, kind: str, action: Mapping[str, Any]) -> str | None:
    """``_why_not_bid`` with house options: directions and the minimum bid."""
    house = state.house
    assert house is not None
    high, high_direction = state.high_bid, state.high_direction
    least = house.min_contract
    if seat == state.dealer:
        can_grant = high is not None and high >= least
        if kind == "take":
            contract = high if can_grant else least
            value = action.get("value", contract)
            if value != contract or isinstance(value, bool):
                return f"The dealer takes the contract at {bid_name(contract)}, no more and no less."  # type: ignore[arg-type]
            if can_grant or not house.directions:
                if "direction" in action:
                    return "The dealer takes the high bid as it stands: name no direction."
                return None
            return _why_not_direction(house, action.get("direction"))
        if kind == "pass":
            if can_grant:
                return None
            return f"Nobody bid {bid_name(least)} or more, so the dealer must take the contract."
        return "It is the bidding: the dealer takes the contract or passes to grant it."
    if kind == "pass":
        return None
    if kind != "bid":
        return "It is the bidding: bid (Three to Seven) or pass."
    value = action.get("value")
    if isinstance(value, bool) or not isinstance(value, int) or not MIN_BID <= value <= MAX_BID:
        return "A bid needs a whole-number 'value' from 3 (Three) to 7 (Seven)."
    direction = action.get("direction")
    if house.directions:
        problem = _why_not_direction(house, direction)
        if problem is not None:
            return problem
    if not house.outranks(value, direction, high, high_direction):
        return f"Your bid must be higher than the high bid of {_bid_words(high, high_direction)}."  # type: ignore[arg-type]
    return None


def _bid(state: BidWhistState, seat: int, kind: str, action: Mapping[str, Any]) -> BidWhistState:
    """A legal bidding action: a bid or a pass goes round; the dealer's ends the bidding."""
    bids = list(state.bids)
    bids[seat] = action["value"] if kind == "bid" else kind
    high = state.high_bid
    if seat == state.dealer:
        if kind == "take":
            forced = high is None or high < MIN_CONTRACT
            contract = MIN_CONTRACT if forced else high
            return _award(state, tuple(bids), seat, contract, forced, _TAKE_MOVE)  # type: ignore[arg-type]
        return _award(state, tuple(bids), state.high_bidder, high, False, _PASS_MOVE)  # type: ignore[arg-type]
    if kind == "pass":
        log = (state.log, seat, _PASS_MOVE)
        return state.evolve(bids=tuple(bids), turn=(seat + 1) % PLAYERS, log=log)
    value = action["value"]
    return state.evolve(
        bids=tuple(bids),
        high_bid=value,
        high_bidder=seat,
        turn=(seat + 1) % PLAYERS,
        log=(state.log, seat, (("type", "bid"), ("value", value))),
    )


def _house_bid(state: BidWhistState, seat: int, kind: str, action: Mapping[str, Any]) -> BidWhistState:
    """``_bid`` with house options: bids name a direction; the minimum is ``min_bid``."""
    house = state.house
    assert house is not None
    bids = list(state.bids)
    bids[seat] = action["value"] if kind == "bid" else kind
    directions = list(state.bid_directions)
    high, high_direction = state.high_bid, state.high_direction
    if seat == state.dealer:
        if kind == "pass":  # the dealer grants it: somebody bid (else the dealer is forced)
            assert state.high_bidder is not None and high is not None
            return _award(state, tuple(bids), state.high_bidder, high, False, _PASS_MOVE, high_direction)
        forced = high is None or high < house.min_contract
        direction = action.get("direction") if forced else high_direction
        move: tuple = _TAKE_MOVE
        if forced and house.directions:
            move = (*_TAKE_MOVE, ("direction", direction))
        directions[seat] = direction
        new = state.evolve(bid_directions=tuple(directions))
        contract = house.min_contract if forced else high
        return _award(new, tuple(bids), seat, contract, forced, move, direction)  # type: ignore[arg-type]
    if kind == "pass":
        log = (state.log, seat, _PASS_MOVE)
        return state.evolve(bids=tuple(bids), turn=(seat + 1) % PLAYERS, log=log)
    value = action["value"]
    direction = action.get("direction") if house.directions else None
    move = (("type", "bid"), ("value", value))
    if house.directions:
        move = (*move, ("direction", direction))
    directions[seat] = direction
    return state.evolve(
        bids=tuple(bids),
        bid_directions=tuple(directions),
        high_bid=value,
        high_bidder=seat,
        high_direction=direction,
        turn=(seat + 1) % PLAYERS,
        log=(state.log, seat, move),
    )


def _award(
    state: BidWhistState,
    bids: tuple[Any, ...],
    declarer: int,
    contract: int,
    forced: bool,
    move: tuple,
    direction: str | None = None,
) -> BidWhistState:
    """The declarer picks up the kitty and must discard (``move``: the dealer's); with
    house directions the contract keeps the bid's (a no-trump hand's is chosen later)."""
    hands = list(state.hands)
    hands[declarer] = tuple(sorted(hands[declarer] + state.kitty, key=_display_key))
    if direction is not None:
        state = state.evolve(direction=direction, play_direction=None if direction == NO_TRUMP else direction)
    return state.evolve(
        bids=bids,
        declarer=declarer,
        contract=contract,
        forced=forced,
        log=(state.log, state.dealer, move),
        hands=tuple(hands),
        kitty_taken=True,
        phase=_DISCARDING,
        turn=declarer,
    )


# ---- the discard, trump and the play --------------------------------------------------------


def _discard_legal(hand: tuple[str, ...], count: int = KITTY_SIZE) -> list[Action]:
    """Every discard of ``count`` cards from the declarer's sorted hand, in combinations
    order (the seed's game: four of 16 cards).

    Each is a new action (1,820 of them for four of 16 cards: docs/decisions/0003). Rules
    touch no process-wide state: the collector's thresholds are the server's to set.
    """
    if count == 5:  # one joker: 6,188 discards of 17 cards; two: 18,564 of 18
        return [{"type": "discard", "cards": [a, b, c, d, e]} for a, b, c, d, e in combinations(hand, 5)]
    if count == 6:
        return [{"type": "discard", "cards": [a, b, c, d, e, f]} for a, b, c, d, e, f in combinations(hand, 6)]
    return [{"type": "discard", "cards": [a, b, c, d]} for a, b, c, d in combinations(hand, 4)]


def _why_not_discard(state: BidWhistState, seat: int, cards: object) -> str | None:
    size = _kitty_size(state)
    count = _COUNT_WORDS[size]
    if not isinstance(cards, (list, tuple)) or len(cards) != size or not all(isinstance(c, str) for c in cards):
        return f"Discard exactly {count} cards: 'cards' must list {count} cards."
    hand = state.hands[seat]
    for card in cards:
        if not is_card(card) and card not in JOKERS:
            return f"{card!r} is not a card (rank then suit, like 'AS' or '10H')."
        if card not in hand:
            return f"You do not hold {card_name(card)}."
    if len(set(cards)) != size:
        return f"Discard {count} different cards."
    return None


def _why_not_play(state: BidWhistState, seat: int, card: object) -> str | None:
    hand = state.hands[seat]
    if type(card) is not str or card not in hand:
        if not is_card(card) and card not in JOKERS:
            return f"{card!r} is not a card (rank then suit, like 'AS' or '10H')."
        return f"You do not hold {card_name(card)}."  # type: ignore[arg-type]
    trick = state.trick
    if state.house is not None:
        return _why_not_house_play(state, hand, card)
    return why_not_follow(hand, card, trick[0][1][-1]) if trick else None


def _why_not_house_play(state: BidWhistState, hand: tuple[str, ...], card: str) -> str | None:
    """Why a held card may not be played with house options, or None."""
    house = state.house
    assert house is not None
    trick = state.trick
    if state.phase is _TRUMP_OR_LEAD and card in JOKERS:
        return "Name trump before you lead a joker."
    if card in playable(hand, trick, state.trump, house.jokers_must_play):
        return None
    led = house_rules.led_suit(trick, state.trump)
    if state.trump is None and not any(house_rules.suit_in_play(c, None) == led for c in hand):
        return "No trump: void in the suit led, you must play a joker."
    if card in JOKERS and state.trump is None:  # in a trump contract a joker is a trump
        return f"You must follow suit: a joker is no {SUIT_SINGULAR[led]} in no trump."  # type: ignore[index]
    if led == state.trump and any(c in JOKERS for c in hand) and not any(c[-1] == led for c in hand):
        return "You must follow suit: your joker is a trump."
    return f"You must follow suit: you hold a {SUIT_SINGULAR[led]}."  # type: ignore[index]


def _play(state: BidWhistState, seat: int, card: str) -> BidWhistState:
    """``seat`` plays ``card`` (legal). A lead before trump is named makes its suit trump, but
    in a no-trump contract (and a joker is never led then: house decision 5); the trick goes
    by the seed's rules, or at a table with house options by theirs (jokers, downtown)."""
    hands = state.hands
    hand = hands[seat]
    i = hand.index(card)
    new_hands = list(hands)
    new_hands[seat] = hand[:i] + hand[i + 1 :]
    trump = state.trump
    if trump is None and state.direction != NO_TRUMP:
        trump = card[-1]
    trick = state.trick + ((seat, card),)
    new = state.clone()
    new.hands = tuple(new_hands)
    new.trump = trump
    new.phase = _PLAYING
    if len(trick) < PLAYERS:
        new.leader = trick[0][0]
        new.trick = trick
        new.turn = (seat + 1) % PLAYERS
        new.log = (state.log, seat, _PLAY_MOVE[card])
        return new
    if state.house is None:
        winner = trick_winner(trick, trump)
    else:
        winner = house_rules.trick_winner(trick, trump, state.play_direction == "downtown")
    won = list(state.tricks_won)
    won[winner] += 1
    new.leader = winner
    new.trick = ()
    new.tricks = state.tricks + ((trick, winner),)
    new.tricks_won = tuple(won)
    new.turn = winner
    new.log = (state.log, seat, _PLAY_MOVE[card], winner)
    return _score_hand(new) if len(new.tricks) == TRICKS else new


# ---- scoring: the hand, then the match ------------------------------------------------------


def _score(state: BidWhistState) -> tuple[HandResult, HandRecord]:
    """The finished hand's result (public) and record (private)."""
    declarer, contract, trump = state.declarer, state.contract, state.trump
    assert declarer is not None and contract is not None
    assert trump is not None or state.direction == NO_TRUMP
    side = team_of(declarer)
    team_tricks = _team_tricks(state.tricks_won)
    d = team_tricks[side]
    points = [0, 0]
    doubled = quadrupled = False
    if state.house is not None:
        points, made, doubled, quadrupled = house_rules.hand_points(
            state.house, side, contract, state.direction, team_tricks
        )
    else:
        made = d >= BOOK + contract
        if made:
            points[side] = d - BOOK
        else:
            points[1 - side] = contract + max(0, (TRICKS - d) - 6)
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
        chicago=TRICKS in team_tricks,
        last_trick=state.tricks[-1],
        direction=state.direction,
        play_direction=state.play_direction,
        doubled=doubled,
        quadrupled=quadrupled,
        house=state.house is not None,
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
        direction=state.direction,
    )
    return result, record


def _score_hand(state: BidWhistState) -> BidWhistState:
    """Score the finished hand, then end the match or deal the next hand."""
    result, record = _score(state)
    points = result.team_points
    totals = (state.team_scores[0] + points[0], state.team_scores[1] + points[1])
    history = state.history + (result,)
    records = state.records + (record,)
    winning_team: int | None = None
    if result.chicago and not result.quadrupled:
        winning_team = 0 if result.team_tricks[0] == TRICKS else 1
    else:
        winning_team = house_rules.winning_team(state.house, totals, state.target)
    if winning_team is not None:
        return state.evolve(
            team_scores=totals,
            history=history,
            records=records,
            phase=_OVER,
            turn=-1,
            winners=TEAMS[winning_team],
        )
    return state.evolve(
        team_scores=totals,
        history=history,
        records=records,
        **_hand_fields(
            state.seed,
            state.decks,
            state.hand_number + 1,
            (state.dealer + 1) % PLAYERS,
            state.house,
        ),
    )


# ---- the public view ------------------------------------------------------------------------


# The house options' view keys as the seed's game has them.
_SEED_KEYS: dict[str, Any] = {
    "direction": None,
    "play_direction": None,
    "high_direction": None,
    "bid_directions": [None] * PLAYERS,
    "sported": None,
    "kitty_size": KITTY_SIZE,
    "jokers": 0,
    "books": "seed",
    "game_to": None,
    "directions": [],
    "joker_no_trump": "free",
    "min_bid": MIN_CONTRACT,
}


def _house_keys(state: BidWhistState, house: HouseRules) -> dict[str, Any]:
    """The view keys of the house options: directions, the sported kitty, the game's marks."""
    memo = state.views
    sported = house.sport_kitty and state.phase is _DISCARDING
    return {
        "direction": state.direction,
        "play_direction": state.play_direction,
        "high_direction": state.high_direction,
        "bid_directions": memo.part("bid_directions", state.bid_directions, list),
        "sported": memo.part("sported", state.kitty, list) if sported else None,
        "kitty_size": house.kitty_size,
        "jokers": len(house.jokers),
        "books": "thirteen" if house.thirteen else "seed",
        "game_to": house.game_to if house.thirteen else None,
        "directions": list(house.directions),
        "joker_no_trump": "must_play" if house.jokers_must_play else "free",
        "min_bid": house.min_contract,
    }


def _public(state: BidWhistState) -> dict[str, Any]:
    """Every key that is the same for every seat, built once per state by the memo."""
    memo = state.views
    over = state.phase is _OVER
    contract = state.contract
    return {
        "phase": state.phase.value,
        "hand_number": state.hand_number + 1,
        "dealer": state.dealer,
        "to_act": _NO_ONE if over else _TO_ACT_VIEW[state.turn],
        "hand_counts": memo.part("hand_counts", state.hands, _counts),
        "trick": memo.grown("trick", state.trick, _play_json),
        "leader": state.leader,
        "trump": state.trump,
        "scores": memo.part("scores", state.team_scores, _seat_scores),
        "team_scores": memo.part("team_scores", state.team_scores, list),
        "teams": _TEAMS_VIEW,
        "target": state.target,
        "history": memo.grown("history", state.history, HandResult.to_dict),
        "revealed": _REVEALED_VIEW,
        "bids": memo.part("bids", state.bids, list),
        "high_bid": state.high_bid,
        "high_bidder": state.high_bidder,
        "declarer": state.declarer,
        "contract": contract,
        "forced": state.forced,
        "tricks_needed": None if contract is None else BOOK + contract,
        "tricks_won": memo.part("tricks_won", state.tricks_won, list),
        "team_tricks": memo.part("team_tricks", state.tricks_won, _team_tricks),
        "tricks_played": len(state.tricks),
        "last_trick": memo.part("last_trick", state.tricks, _last_trick),
        "kitty_count": 0 if state.kitty_taken else _kitty_size(state),
        "winners": list(state.winners) if over else None,
        "log": memo.log(state.log),
        **(_SEED_KEYS if state.house is None else _house_keys(state, state.house)),
    }


def _kitty_seen(state: BidWhistState) -> list[str] | None:
    """The kitty's cards as the declarer sees them from the pickup to the end of the hand:
    all four while the discards may be looked at, then those not discarded."""
    if not state.kitty_taken or state.phase is _OVER:
        return None
    cards = state.kitty
    if state.phase is not _DISCARDING and not _discards_open(state):
        cards = tuple(card for card in cards if card not in state.discards)
    shown: list[str] = state.views.part("kitty", cards, list)
    return shown


def _discards_open(state: BidWhistState) -> bool:
    """True while the declarer may still look at the discards (before their first card)."""
    return state.phase is _TRUMP_OR_LEAD or (state.phase is _PLAYING and not state.tricks and not state.trick)


# ---- the engine -----------------------------------------------------------------------------


# A claim's view of the seed's cards (``trick_play``); house rules have their own.
_ORDER = {card: (card[-1], NATURAL.plain[card]) for card in _FULL_DECK}
_WINNERS = {trump: partial(trick_winner, trump=trump) for trump in (*SUITS, None)}
_SIDES = (0, 1, 0, 1)


class BidWhist(Game):
    """Bid Whist, the seed's 12-trick variant with a 4-card kitty."""

    action_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "bid": ("value", "direction"),
        "pass": (),
        "take": ("direction",),
        "discard": ("cards",),
        "trump": ("suit",),
        "direction": ("direction",),
        "play": ("card",),
    }

    name = "bid_whist"
    title = "Bid Whist"
    short_title = "Bid Whist"
    partnerships: ClassVar[Teams] = {4: ((0, 2), (1, 3))}
    phases: ClassVar[Sections] = {
        "bidding": "bidding",
        "discarding": "kitty-and-trump",
        "trump_or_lead": "kitty-and-trump",
        "playing": "play",
        "over": "scoring",
    }
    house_phases: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "bidding": ("directions", "min_bid"),
        "discarding": ("jokers", "sport_kitty"),
        "trump_or_lead": ("no_trump", "jokers"),
        "playing": ("jokers", "directions"),
        "over": ("books", "boston", "no_trump_double", "no_trump"),
    }
    declarer_key = "declarer"
    seat_keys = ("hand", "legal", "discards", "kitty")
    min_players = 4
    max_players = 4
    default_players = 4
    summary = (
        "Partnership whist for four: bid Three to Seven over a book of five, take the kitty, "
        "name trump and race to 21; take all 12 tricks to go Chicago."
    )
    Options = BidWhistOptions

    # ---- setup -------------------------------------------------------------------------

    def deck(self, options: GameOptions, players: int) -> Sequence[str]:
        """The 52 cards, and the jokers a table adds."""
        house = HouseRules.of(options, _FULL_DECK)
        return _FULL_DECK if house is None else house.deck

    def start(self, setup: Setup) -> BidWhistState:
        """Start a match and deal its first hand."""
        options = setup.options
        assert isinstance(options, BidWhistOptions)
        house = HouseRules.of(options, _FULL_DECK)
        return BidWhistState(
            options=options,
            house=house,
            # the game's mark as the view shows it: with thirteen books, +/- game_to
            target=options.game_to if options.books == "thirteen" else options.target,
            seed=setup.seed,
            decks=setup.decks,
            team_scores=(0, 0),
            history=(),
            records=(),
            winners=(),
            views=ViewMemo(),
            **_hand_fields(setup.seed, setup.decks, 0, setup.dealer, house),
        )

    def players(self, state: BidWhistState) -> int:
        """The number of seats in this match (always 4)."""
        return PLAYERS

    claims = True

    def trick_play(self, state: BidWhistState) -> TrickPlay | None:
        """The hand's tricks once the first card is led, partners on one side; else None."""
        if state.phase is not _PLAYING:
            return None
        trump, hands, trick, turn = state.trump, state.hands, state.trick, state.turn
        if state.house is None:
            return TrickPlay(hands, trick, turn, _SIDES, trump, _ORDER, _WINNERS[trump])
        rule = (trump, state.play_direction == "downtown")
        return TrickPlay(
            hands, trick, turn, _SIDES, trump, house_rules.TRICK_ORDERS[rule], house_rules.TRICK_WINNERS[rule]
        )

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
        house = state.house
        if house is not None:
            return self._house_legal(state, seat, house)
        if phase is _PLAYING:
            led = state.trick[0][1][-1] if state.trick else None
            return list(map(_play_action, follow_suit(state.hands[seat], led)))
        if phase is _BIDDING:
            return [dict(a) for a in _BIDDING_ACTIONS if _why_not_bid(state, seat, a["type"], a) is None]
        if phase is _DISCARDING:
            return _discard_legal(state.hands[seat])
        # TRUMP_OR_LEAD
        return [*_TRUMP_ACTIONS, *map(_play_action, state.hands[seat])]

    def _house_legal(self, state: BidWhistState, seat: int, house: HouseRules) -> list[Action]:
        """``legal_actions`` with house options."""
        phase = state.phase
        hand = state.hands[seat]
        if phase is _PLAYING:
            return list(map(_play_action, playable(hand, state.trick, state.trump, house.jokers_must_play)))
        if phase is _BIDDING:
            return [
                dict(a)
                for a in _house_bidding_actions(house.directions)
                if _why_not_house_bid(state, seat, a["type"], a) is None
            ]
        if phase is _DISCARDING:
            return _discard_legal(hand, house.kitty_size)
        if state.direction == NO_TRUMP:
            return list(_DIRECTION_ACTIONS)
        return [*_TRUMP_ACTIONS, *map(_play_action, (c for c in hand if c not in JOKERS))]

    def _view_legal(self, state: BidWhistState, seat: int | None) -> list[Action]:
        """Legal actions as the view shows them (the discard in compact form)."""
        if seat is None or state.phase is _OVER or seat != state.turn:
            return _NO_LEGAL
        if state.phase is _DISCARDING:
            return [{"type": "discard", "count": _kitty_size(state)}]
        return self.legal_actions(state, seat)

    def why_illegal(self, state: BidWhistState, seat: int, action: Any) -> str | None:
        """Why ``seat`` may not play ``action`` now (a sentence), or None when it may."""
        phase = state.phase
        if phase is _OVER:
            return "The game is over."
        if seat != state.turn or isinstance(seat, bool):
            return f"It is not your turn: waiting for seat {state.turn}."
        if type(action) is not dict and not isinstance(action, Mapping):
            return "An action must be a JSON object with a 'type'."
        kind = action.get("type")
        if not isinstance(kind, str):
            return "An action needs a 'type' string."
        if phase is _PLAYING:
            if kind != "play":
                return "Play a card: it is your turn in the trick."
            return _why_not_play(state, seat, action.get("card"))
        if phase is _BIDDING:
            if state.house is not None:
                return _why_not_house_bid(state, seat, kind, action)
            return _why_not_bid(state, seat, kind, action)
        if phase is _DISCARDING:
            if kind != "discard":
                return "Discard first: you have picked up the kitty."
            return _why_not_discard(state, seat, action.get("cards"))
        # TRUMP_OR_LEAD
        if state.direction == NO_TRUMP:
            if kind != "direction" or action.get("direction") not in PLAY_DIRECTIONS:
                return "No trump: choose the direction, uptown or downtown."
            return None
        if kind == "trump":
            suit = action.get("suit")
            if not isinstance(suit, str) or suit not in SUITS:
                return "Name trump as one of the suits S, H, D or C."
            return None
        if kind == "play":
            return _why_not_play(state, seat, action.get("card"))
        return "Name trump or lead a card (the suit you lead becomes trump)."

    # ---- apply -----------------------------------------------------------------------------

    def apply(self, state: BidWhistState, seat: int, action: Mapping[str, Any]) -> BidWhistState:
        """A new state after ``seat`` plays ``action``; the given state is unchanged."""
        if self.why_illegal(state, seat, action) is not None:
            self.check_legal(state, seat, action)  # raises, saying why
        kind = action["type"]
        if kind == "play":
            return _play(state, seat, action["card"])
        if state.phase is _BIDDING:
            if state.house is not None:
                return _house_bid(state, seat, kind, action)
            return _bid(state, seat, kind, action)
        if kind == "direction":  # a no-trump declarer's choice
            direction = action["direction"]
            move = (seat, (("type", "direction"), ("direction", direction)))
            return state.evolve(play_direction=direction, phase=_PLAYING, log=(state.log, *move))
        if kind == "discard":
            hand = state.hands[seat]
            chosen = set(action["cards"])
            hands = list(state.hands)
            hands[seat] = tuple(c for c in hand if c not in chosen)
            return state.evolve(
                hands=tuple(hands),
                discards=tuple(c for c in hand if c in chosen),
                phase=_TRUMP_OR_LEAD,
                log=(state.log, seat, _DISCARD_MOVE),
            )
        suit = action["suit"]  # trump
        move = (seat, (("type", "trump"), ("suit", suit)))
        return state.evolve(trump=suit, phase=_PLAYING, log=(state.log, *move))

    # ---- views -------------------------------------------------------------------------------

    def take_back_marks(self, state: BidWhistState, seat: int) -> tuple[tuple[Any, ...], Sequence[Any]]:
        """The fixed keys of the public view (no seat's differ here) and ``seat``'s hand."""
        return self.fixed_marks(state, state.hands[seat])

    def view(self, state: BidWhistState, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see, JSON-able; None is a spectator."""
        memo = state.views
        out = dict(memo.public(state, _public))
        is_seat = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < PLAYERS
        if not is_seat:
            out["hand"] = None
            out["legal"] = _NO_LEGAL
            out["discards"] = None
            out["kitty"] = None
            return out
        assert seat is not None
        out["hand"] = memo.part(("hand", seat), state.hands[seat], list)
        out["legal"] = self._view_legal(state, seat)
        out["discards"] = (
            list(state.discards) if seat == state.declarer and state.discards and _discards_open(state) else None
        )
        out["kitty"] = _kitty_seen(state) if seat == state.declarer else None
        return out

    def full_view(self, state: BidWhistState) -> dict[str, Any]:
        """The public view with every hand, the kitty and the discards shown."""
        out = dict(state.views.public(state, _public))
        out["hand"] = None
        out["legal"] = []
        out["hands"] = [list(h) for h in state.hands]
        out["kitty"] = list(state.kitty)
        out["discards"] = list(state.discards)
        out["tricks"] = [{"cards": _plays(plays), "winner": winner} for plays, winner in state.tricks]
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
                    "direction": rec.direction,
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
                    "direction": state.direction,
                    "discards": list(state.discards),
                    "scores": None,
                }
            )
        return out


__all__ = ["BidWhist", "BidWhistOptions", "BidWhistState", "Phase", "bid_name", "team_of"]
