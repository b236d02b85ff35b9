"""Spades, as Felt plays it: the rules this engine enforces, in full (RULES.md §6).

Players and cards
    4 players in two partnerships, partners opposite: team 0 is seats 0 and 2, team 1 seats 1
    and 3. One 52-card deck, no jokers, ranked A K Q J 10 ... 2 in every suit. Spades are
    always trump.

Deal
    13 cards each, one at a time from the dealer's left (eldest). The first dealer is given;
    the deal passes to the left after every hand. Every hand is played, whatever it holds (no
    misdeal).

Bidding
    One lap, eldest first, the dealer last. Each player bids once, a number of tricks from 0 to
    13; 0 is "nil": that player undertakes to take no trick. The bids are public as they are
    made. A partnership's contract is the sum of its two bids (a nil adds 0).
    Blind nil (``blind_nil``, off by default): when a hand is dealt, both players of a team
    that is behind the other by at least 100 points may bid nil before seeing their cards.
    Such a player's view holds no cards until they act, and on their turn they may only bid
    blind nil (``{"type": "bid", "value": 0, "blind": true}``) or ``look``; after looking they
    bid as anyone does (0 to 13, no blind nil). There is no card exchange with the partner.

Play
    Eldest leads the first trick; the winner of each trick leads the next. A spade may not be
    led until spades are broken (a spade was played to an earlier trick of the hand) unless the
    leader holds only spades. Players follow the suit led when they can, otherwise play any
    card, a spade included; any spade played breaks spades. The highest spade wins the trick,
    or if none was played the highest card of the suit led.

Scoring (per partnership, after the 13th trick)
    B is the contract (the sum of the non-nil bids), T the tricks taken by the partnership's
    players who did not bid nil. B > 0 and T >= B: +10 B, plus 1 a trick over, and every
    trick over is a bag. B > 0 and T < B: -10 B, no bags. B = 0 (both partners bid nil): no
    contract points. A nil that took no trick scores +100 for the partnership, one that took
    any -100 (blind nil: +200 / -200); a failed nil's tricks never count toward the partner's
    contract but are bags. Each time a partnership's running count of bags reaches
    ``bag_limit`` (default 10) it loses 100 points and ``bag_limit`` bags come off the count
    (the rest carry over; a hand may cross the limit twice).

End of the match
    After a hand, the match ends when a partnership has at least ``target`` points (default
    500) or, with ``lose_at`` set (default off), has ``lose_at`` points or fewer. The
    partnership with the higher score then wins; equal scores play another hand.

Decisions where the rules are silent (docs/decisions/0040-spades-choices.md)
    A seat that may bid blind nil sees ``hand`` as [] (its ``hand_counts`` stays 13) until it
    bids blind nil or looks, and may do either only on its turn to bid; ``look`` is logged, as
    everyone at the table sees a player pick up the cards. A bid's ``blind: false`` is a plain
    bid. Hands are kept sorted (spades, hearts, diamonds, clubs; high to low), which is also
    the order of ``legal``. A new hand is dealt as soon as the last trick is taken; the hand's
    last trick stays in its ``history`` entry.

Code
    The state is a ``State`` (``server.rules.state``): the match's fixed ``Rules``, the hand's
    ``Deal`` and what changes move by move; ``apply`` clones it, never changing the state it is
    given. ``why_illegal`` says why a move is refused; ``legal_actions`` lists what it allows.
    Scores are pure functions of a finished hand (``score_team``, ``take_bags``).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, ClassVar, NamedTuple

from pydantic import Field

from server.rules.cards import RANKS, SUITS, card_code, hand_rng, is_card, shuffled, standard_deck
from server.rules.game import Action, Game, GameOptions, Sections, Setup, Teams, shared_action, shared_actions
from server.rules.state import State, ViewMemo
from server.rules.tricks import NATURAL, OF_SUIT, TrickPlay, follow_suit, trick_winner, why_not_follow

PLAYERS = 4
TRUMP = "S"
BLIND_NIL_BEHIND = 100  # how far behind a team must be, when a hand is dealt, to bid blind nil
NIL_POINTS = 100
BLIND_NIL_POINTS = 200
BAG_PENALTY = 100

_DECK: tuple[str, ...] = tuple(standard_deck())
_SORT_KEY: dict[str, int] = {
    card_code(rank, suit): s * 13 + r for s, suit in enumerate(SUITS) for r, rank in enumerate(RANKS)
}
_SPADES = OF_SUIT[TRUMP]
# Each move's public form, as the log keeps it (server.rules.state), and as an action.
# A card's suit and strength for a claim's search (spades are always trump).
_ORDER = {card: (card[-1], NATURAL.plain[card]) for card in _DECK}
_WINNER = partial(trick_winner, trump=TRUMP)
_SIDES = (0, 1, 0, 1)  # each seat's partnership (team_of): partners sit opposite
_PLAY_MOVE = {card: (("type", "play"), ("card", card)) for card in _DECK}
_BID_MOVE = tuple((("type", "bid"), ("value", v)) for v in range(14))
_BLIND_NIL_MOVE = (("type", "bid"), ("value", 0), ("blind", True))
_LOOK_MOVE = (("type", "look"),)
# The actions legal_actions offers, one shared object per move (server.rules.game).
_PLAY_ACTION = shared_actions("play", "card", _DECK)
_BID_ACTIONS = tuple(shared_actions("bid", "value", range(14)).values())  # bid v at index v
_BLIND_NIL = shared_action(type="bid", value=0, blind=True)
_LOOK = shared_action(type="look")
_BLIND_CHOICES = [_BLIND_NIL, _LOOK]
_TO_ACT = tuple([seat] for seat in range(PLAYERS))
_NOBODY: list[int] = []
_NO_LEGAL: list[Action] = []
_NOTHING_REVEALED: list[Any] = []
_NO_CARDS: list[str] = []
_TEAMS_VIEW: list[list[int]] = [[0, 2], [1, 3]]  # the partnerships, as the view names them


class Phase(str, enum.Enum):
    """Where a hand stands."""

    BIDDING = "bidding"
    PLAYING = "playing"
    OVER = "over"


_BIDDING = Phase.BIDDING
_PLAYING = Phase.PLAYING
_OVER = Phase.OVER


class SpadesOptions(GameOptions):
    """The settings of a Spades match (docs/protocol.md lists them too)."""

    target: int = Field(
        500,
        ge=50,
        le=5000,
        description="Points to win: after a hand, a partnership at or over this wins "
        "(the higher score if both are; equal scores play another hand). 250 and 300 are common.",
    )
    blind_nil: bool = Field(
        False,
        description="Blind nil: the players of a team behind by 100 points or more when the "
        "cards are dealt may bid nil before looking at their cards, for 200 points won or lost.",
    )
    bag_limit: int = Field(
        10,
        ge=1,
        le=100,
        description="Bags (tricks over the contract) a partnership may gather before it loses "
        "100 points; the count then drops by this many.",
    )
    lose_at: int | None = Field(
        None,
        le=0,
        ge=-5000,
        description="Losing score: a partnership at or below this after a hand loses at once "
        "(empty: off; -200 is common).",
    )


def team_of(seat: int) -> int:
    """The partnership of ``seat``: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat % 2


def score_team(bids: Sequence[int], blind: Sequence[bool], tricks: Sequence[int]) -> tuple[int, int]:
    """What one partnership's hand is worth before bag penalties, and the bags it adds.

    ``bids``, ``blind`` and ``tricks`` are its two players' (bid 0: nil)."""
    contract = sum(bids)
    taken = sum(t for b, t in zip(bids, tricks, strict=True) if b > 0)
    points = bags = 0
    if contract > 0:
        if taken >= contract:
            points, bags = 10 * contract + (taken - contract), taken - contract
        else:
            points = -10 * contract
    for bid, is_blind, took in zip(bids, blind, tricks, strict=True):
        if bid == 0:
            stake = BLIND_NIL_POINTS if is_blind else NIL_POINTS
            points += stake if took == 0 else -stake
            bags += took
    return points, bags


def take_bags(count: int, added: int, limit: int) -> tuple[int, int]:
    """A running bag count after ``added`` more: (the new count, the penalty points lost)."""
    count += added
    penalty = 0
    while count >= limit:
        count -= limit
        penalty += BAG_PENALTY
    return count, penalty


def match_winner(totals: Sequence[int], options: SpadesOptions) -> int | None:
    """The partnership that has won after a hand, or None when another hand is played."""
    over = max(totals) >= options.target or (options.lose_at is not None and min(totals) <= options.lose_at)
    if not over or totals[0] == totals[1]:
        return None
    return 0 if totals[0] > totals[1] else 1


class Rules(NamedTuple):
    """What stays fixed for the whole match."""

    options: SpadesOptions
    seed: int | str
    decks: tuple[tuple[str, ...], ...]
    first_dealer: int


class Deal(NamedTuple):
    """One hand as dealt: fixed while it is played."""

    index: int  # type: ignore[assignment]  # the hand's number from 0; hides tuple.index, never called
    dealer: int
    dealt: tuple[tuple[str, ...], ...]
    may_blind: tuple[int, ...]  # the seats that may bid blind nil this hand (sorted)


# A finished trick: its plays and the seat that took it.
Trick = tuple[tuple[tuple[int, str], ...], int]


class Result(NamedTuple):
    """A finished hand: what was bid and taken, and what it did to each partnership."""

    deal: Deal
    bids: tuple[int, ...]
    blind: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    points: tuple[int, int]  # per team: what the hand added, bag penalties included
    bags: tuple[int, int]  # per team: the running count after the hand
    last_trick: Trick


class SpadesState(State):
    """A Spades match; ``apply`` returns a fresh clone, never changing the one it is given."""

    rules: Rules
    deal: Deal
    phase: Phase
    hands: tuple[tuple[str, ...], ...]
    looked: tuple[bool, ...]  # per seat: has seen its cards (False only for a possible blind nil)
    bids: tuple[int | None, ...]
    blind: tuple[bool, ...]
    tricks_won: tuple[int, ...]
    trick: tuple[tuple[int, str], ...]
    led: str | None
    broken: bool
    turn: int | None
    last_trick: Trick | None
    played: tuple[Trick, ...]
    totals: tuple[int, int]
    bags: tuple[int, int]
    results: tuple[Result, ...]
    log: tuple
    views: ViewMemo

    def __repr__(self) -> str:
        return (
            f"<SpadesState hand {self.deal.index + 1} {self.phase.value} turn={self.turn} "
            f"totals={list(self.totals)} bags={list(self.bags)}>"
        )


def blind_nil_seats(options: SpadesOptions, totals: Sequence[int]) -> tuple[int, ...]:
    """The seats that may bid blind nil in a hand dealt at these team totals."""
    if not options.blind_nil:
        return ()
    return tuple(s for s in range(PLAYERS) if totals[1 - team_of(s)] - totals[team_of(s)] >= BLIND_NIL_BEHIND)


def _deal(rules: Rules, index: int, totals: Sequence[int]) -> dict[str, Any]:
    """The fields of hand ``index``, freshly dealt at these team totals."""
    dealer = (rules.first_dealer + index) % PLAYERS
    deck = rules.decks[index] if index < len(rules.decks) else shuffled(_DECK, hand_rng(rules.seed, index))
    eldest = (dealer + 1) % PLAYERS
    hands: list[tuple[str, ...]] = [()] * PLAYERS
    for k in range(PLAYERS):
        hands[(eldest + k) % PLAYERS] = tuple(sorted(deck[k:52:PLAYERS], key=_SORT_KEY.__getitem__))
    may_blind = blind_nil_seats(rules.options, totals)
    return {
        "deal": Deal(index, dealer, tuple(hands), may_blind),
        "phase": _BIDDING,
        "hands": tuple(hands),
        "looked": tuple(s not in may_blind for s in range(PLAYERS)),
        "bids": (None,) * PLAYERS,
        "blind": (False,) * PLAYERS,
        "tricks_won": (0,) * PLAYERS,
        "trick": (),
        "led": None,
        "broken": False,
        "turn": eldest,
        "last_trick": None,
        "played": (),
        "log": (),
    }


def may_lead(hand: Sequence[str], broken: bool) -> list[str]:
    """The cards a leader may lead: anything once spades are broken or with only spades held,
    otherwise every card but the spades."""
    if broken:
        return list(hand)
    others = [card for card in hand if card not in _SPADES]
    return others or list(hand)


def _why_not_bid(value: object, blind: object, may_blind: bool) -> str | None:
    """Why a bid is refused: not a whole number from 0 to 13, or a blind nil not allowed."""
    if blind is not None and type(blind) is not bool:
        return "A bid's 'blind' must be true or false."
    if blind:
        if not may_blind:
            return (
                "You may not bid blind nil: only a player who has not looked at the cards, on a "
                f"team behind by {BLIND_NIL_BEHIND} points or more, may."
            )
        if value != 0 or type(value) is not int:
            return "A blind bid can only be nil: send 'value': 0."
        return None
    if may_blind:
        return "Bid blind nil or look at your cards first: send {'type': 'look'}."
    if type(value) is not int:
        return "A bid needs 'value': a whole number from 0 (nil) to 13."
    if not 0 <= value <= 13:
        return f"Bids run from 0 (nil) to 13; {value} is out of range."
    return None


def _play_json(play: tuple[int, str]) -> dict[str, Any]:
    return {"seat": play[0], "card": play[1]}


def _trick_json(trick: Trick | None) -> dict | None:
    if trick is None:
        return None
    return {"cards": [_play_json(play) for play in trick[0]], "winner": trick[1]}


def _per_seat(per_team: Sequence[int]) -> list[int]:
    return [per_team[team_of(s)] for s in range(PLAYERS)]


def _history_entry(r: Result) -> dict[str, Any]:
    """A finished hand as the view's ``history`` shows it."""
    return {
        "hand_number": r.deal.index + 1,
        "dealer": r.deal.dealer,
        "bids": list(r.bids),
        "blind_nil": list(r.blind),
        "tricks": list(r.tricks_won),
        "scores": _per_seat(r.points),
        "bags": _per_seat(r.bags),
        "last_trick": _trick_json(r.last_trick),
    }


def _record(deal: Deal, points: Sequence[int] | None) -> dict[str, Any]:
    return {
        "dealer": deal.dealer,
        "deal": {"hands": [list(h) for h in deal.dealt]},
        "scores": None if points is None else _per_seat(points),
    }


def _counts(hands: tuple[tuple[str, ...], ...]) -> list[int]:
    return [len(h) for h in hands]


def _contracts(bids: tuple[int | None, ...]) -> list[int | None]:
    """Per team, the sum of its bids once both partners have bid, else None."""
    return [
        None if bids[t] is None or bids[t + 2] is None else bids[t] + bids[t + 2]  # type: ignore[operator]
        for t in (0, 1)
    ]


class Spades(Game):
    """Partnership Spades: bid your tricks together, spades always trump."""

    action_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {"bid": ("value", "blind"), "look": (), "play": ("card",)}

    name = "spades"
    title = "Spades"
    short_title = "Spades"  # the name in a push message or a recap
    # The seats of each partnership (a side's first seat holds its score), and the section of
    # the rules page a player needs in each phase (with blind nil, bidding opens at its own).
    partnerships: ClassVar[Teams] = {4: ((0, 2), (1, 3))}
    phases: ClassVar[Sections] = {"bidding": "bidding", "playing": "play", "over": "scoring"}
    house_phases: ClassVar[dict[str, tuple[str, ...]]] = {"bidding": ("blind_nil",)}
    seat_keys = ("hand", "legal")
    min_players = PLAYERS
    max_players = PLAYERS
    default_players = PLAYERS
    summary = (
        "Two partnerships bid the tricks they will take, spades always trump; "
        "a nil bid promises none at all. First to 500 wins."
    )
    Options = SpadesOptions

    # ---- setup ----------------------------------------------------------------------------

    def deck(self, options: GameOptions, players: int) -> Sequence[str]:
        """One 52-card deck."""
        return _DECK

    def start(self, setup: Setup) -> SpadesState:
        """Deal the first hand."""
        assert isinstance(setup.options, SpadesOptions)
        rules = Rules(setup.options, setup.seed, setup.decks, setup.dealer)
        return SpadesState(
            rules=rules, totals=(0, 0), bags=(0, 0), results=(), views=ViewMemo(), **_deal(rules, 0, (0, 0))
        )

    def resumed(self, state: SpadesState, totals: Sequence[int], bags: Sequence[int]) -> SpadesState:
        """The current hand, freshly dealt as before, but at these team totals and bag counts
        (blind nil judged from them): a search samples the hand being played this way, as a
        match of its own that starts at the real match's scores."""
        totals2, bags2 = (totals[0], totals[1]), (bags[0], bags[1])
        new = state.evolve(_deal(state.rules, state.deal.index, totals2))
        new.totals, new.bags = totals2, bags2
        return new

    # ---- queries --------------------------------------------------------------------------

    def players(self, state: SpadesState) -> int:
        """Always four."""
        return PLAYERS

    def to_act(self, state: SpadesState) -> list[int]:
        """The seat that must act now, as a list; [] when the match is over."""
        turn = state.turn
        return [] if turn is None else [turn]

    claims = True

    def trick_play(self, state: SpadesState) -> TrickPlay | None:
        """The hand's tricks as they stand, partners on one side; None while bidding."""
        turn = state.turn
        if state.phase is not _PLAYING or turn is None:
            return None
        return TrickPlay(state.hands, state.trick, turn, _SIDES, TRUMP, _ORDER, _WINNER)

    def legal_actions(self, state: SpadesState, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now ([] when it need not act); cards in hand order."""
        if seat != state.turn or state.turn is None:
            return []
        if state.phase is _PLAYING:
            hand = state.hands[seat]
            cards = follow_suit(hand, state.led) if state.trick else may_lead(hand, state.broken)
            return [_PLAY_ACTION[card] for card in cards]
        if not state.looked[seat]:
            return list(_BLIND_CHOICES)
        return list(_BID_ACTIONS)

    def why_illegal(self, state: SpadesState, seat: int, action: Any) -> str | None:
        """Why ``seat`` may not play ``action`` now (a sentence), or None when it may."""
        turn = state.turn
        if seat != turn:
            if turn is None:
                return "The game is over."
            return f"It is not your turn: waiting for seat {turn}."
        if not isinstance(action, Mapping):
            return "An action must be a JSON object with a 'type'."
        kind = action.get("type")
        if state.phase is _PLAYING:
            if kind != "play":
                return f"It is time to play a card: send {{'type': 'play', 'card': ...}}, not {kind!r}."
            return self._why_not_play(state, seat, action.get("card"))
        may_blind = not state.looked[seat]
        if kind == "look":
            return None if may_blind else "You already see your cards."
        if kind != "bid":
            return f"It is time to bid: send {{'type': 'bid', 'value': ...}}, not {kind!r}."
        return _why_not_bid(action.get("value"), action.get("blind"), may_blind)

    def _why_not_play(self, state: SpadesState, seat: int, card: object) -> str | None:
        hand = state.hands[seat]
        if not isinstance(card, str) or card not in hand:
            if not is_card(card):
                return f"{card!r} is not a card (expected a code like 'AS' or '10H')."
            return f"You do not hold {card}."
        if state.trick:
            return why_not_follow(hand, card, state.led)
        if card in _SPADES and not state.broken and not _SPADES.issuperset(hand):
            return "Spades are not broken yet: lead another suit (you hold one)."
        return None

    # ---- actions --------------------------------------------------------------------------

    def apply(self, state: SpadesState, seat: int, action: Mapping[str, Any]) -> SpadesState:
        """A new state after ``seat`` plays ``action``; the given state is unchanged."""
        if self.why_illegal(state, seat, action) is not None:
            self.check_legal(state, seat, action)  # raises, saying why
        if state.phase is _PLAYING:
            return self._play(state, seat, action["card"])
        new = state.clone()
        looked = list(state.looked)
        looked[seat] = True
        new.looked = tuple(looked)
        if action["type"] == "look":
            new.log = (state.log, seat, _LOOK_MOVE)
            return new
        value = action["value"]
        bids = list(state.bids)
        bids[seat] = value
        new.bids = tuple(bids)
        if action.get("blind"):
            blind = list(state.blind)
            blind[seat] = True
            new.blind = tuple(blind)
            new.log = (state.log, seat, _BLIND_NIL_MOVE)
        else:
            new.log = (state.log, seat, _BID_MOVE[value])
        new.turn = (seat + 1) % PLAYERS
        if seat == state.deal.dealer:
            new.phase = _PLAYING
        return new

    def _play(self, state: SpadesState, seat: int, card: str) -> SpadesState:
        """``seat`` plays ``card`` (legal): the trick goes on, or is taken."""
        held = list(state.hands[seat])
        held.remove(card)
        hands = list(state.hands)
        hands[seat] = tuple(held)
        trick = state.trick + ((seat, card),)
        new = state.clone()
        new.hands = tuple(hands)
        if card in _SPADES and not state.broken:
            new.broken = True
        if len(trick) < PLAYERS:
            new.trick = trick
            if state.led is None:
                new.led = card[-1]
            new.turn = (seat + 1) % PLAYERS
            new.log = (state.log, seat, _PLAY_MOVE[card])
            return new
        winner = trick_winner(trick, TRUMP)
        won = list(state.tricks_won)
        won[winner] += 1
        last = (trick, winner)
        new.trick = ()
        new.led = None
        new.turn = winner
        new.tricks_won = tuple(won)
        new.last_trick = last
        new.played = state.played + (last,)
        new.log = (state.log, seat, _PLAY_MOVE[card], winner)
        return self._finish_hand(new) if not hands[winner] else new

    def _finish_hand(self, state: SpadesState) -> SpadesState:
        """Score the hand just completed, then deal the next or end the match."""
        options = state.rules.options
        bids: tuple[int, ...] = tuple(b or 0 for b in state.bids)
        points, bags, totals = [0, 0], [0, 0], [0, 0]
        for team in (0, 1):
            seats = (team, team + 2)
            hand_points, added = score_team(
                [bids[s] for s in seats], [state.blind[s] for s in seats], [state.tricks_won[s] for s in seats]
            )
            bags[team], penalty = take_bags(state.bags[team], added, options.bag_limit)
            points[team] = hand_points - penalty
            totals[team] = state.totals[team] + points[team]
        assert state.last_trick is not None
        result = Result(
            state.deal,
            bids,
            state.blind,
            state.tricks_won,
            (points[0], points[1]),
            (bags[0], bags[1]),
            state.last_trick,
        )
        done = {"totals": (totals[0], totals[1]), "bags": (bags[0], bags[1]), "results": state.results + (result,)}
        if match_winner(totals, options) is not None:
            return state.evolve(done, phase=_OVER, turn=None)
        return state.evolve({**done, **_deal(state.rules, state.deal.index + 1, totals)})

    # ---- views ----------------------------------------------------------------------------

    def take_back_marks(self, state: SpadesState, seat: int) -> tuple[tuple[Any, ...], Sequence[Any]]:
        """The fixed keys of the public view (no seat's differ here) and ``seat``'s hand."""
        return self.fixed_marks(state, state.hands[seat] if state.looked[seat] else ())

    def view(self, state: SpadesState, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see, JSON-able; None is a spectator. A seat that may still bid
        blind nil sees no cards of its own (``hand`` is [])."""
        memo = state.views
        view: dict[str, Any] = memo.public(state, self._public).copy()
        if type(seat) is int and 0 <= seat < PLAYERS:
            if state.looked[seat]:
                view["hand"] = memo.part(("hand", seat), state.hands[seat], list)
            else:
                view["hand"] = _NO_CARDS
            if seat == state.turn:
                view["legal"] = self.legal_actions(state, seat)
        return view

    def _public(self, state: SpadesState) -> dict[str, Any]:
        """The part of every seat's view that is the same for all (hand None, legal [])."""
        memo = state.views
        turn = state.turn
        return {
            "phase": state.phase.value,
            "dealer": state.deal.dealer,
            "to_act": _NOBODY if turn is None else _TO_ACT[turn],
            "hand": None,
            "hand_counts": memo.part("hand_counts", state.hands, _counts),
            "trick": memo.grown("trick", state.trick, _play_json),
            "led_suit": state.led,
            "trump": TRUMP,
            "spades_broken": state.broken,
            "bids": memo.part("bids", state.bids, list),
            "blind_nil": memo.part("blind_nil", state.blind, list),
            "blind_nil_seats": memo.part("blind_nil_seats", state.deal.may_blind, list),
            "teams": _TEAMS_VIEW,
            "contracts": memo.part("contracts", state.bids, _contracts),
            "tricks_won": memo.part("tricks_won", state.tricks_won, list),
            "last_trick": memo.part("last_trick", state.last_trick, _trick_json),
            "hand_number": state.deal.index + 1,
            "scores": memo.part("scores", state.totals, _per_seat),
            "bags": memo.part("bags", state.bags, _per_seat),
            "target": state.rules.options.target,
            "history": memo.grown("history", state.results, _history_entry),
            "legal": _NO_LEGAL,
            "revealed": _NOTHING_REVEALED,
            "log": memo.log(state.log),
        }

    def full_view(self, state: SpadesState) -> dict[str, Any]:
        """The public view with every hand and this hand's tricks shown."""
        view = self.view(state, None)
        view["hands"] = [list(h) for h in state.hands]
        view["tricks_played"] = [_trick_json(t) for t in state.played]
        return view

    def outcome(self, state: SpadesState) -> dict[str, Any] | None:
        """None while the match goes on; then the totals per seat and the winning partners."""
        if state.phase is not _OVER:
            return None
        winner = match_winner(state.totals, state.rules.options)
        return {"scores": _per_seat(state.totals), "winners": [winner, winner + 2] if winner is not None else []}

    def hand_records(self, state: SpadesState) -> list[dict[str, Any]]:
        """Each hand dealt so far: its dealer, the hands dealt and what it scored per seat."""
        records = [_record(r.deal, r.points) for r in state.results]
        if state.phase is not _OVER:
            records.append(_record(state.deal, None))
        return records
