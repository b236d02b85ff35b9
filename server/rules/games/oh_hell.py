"""Oh Hell, as Felt plays it (RULES.md section 2).

Players and cards
    3 to 7 players, each for themselves, one 52-card deck ranked A high down to 2.

Sequence of hands
    A match is a fixed series of hands whose size (cards dealt to each player) runs between
    ``min_cards`` (1 or 3) and ``max_cards``. ``max_cards`` defaults to min(10, 51 // N)
    (10 for 3-5 players, 8 for 6, 7 for 7) and may be set anywhere from ``min_cards`` to
    51 // N, so one card is always left to turn for trump. ``start: high`` runs
    max, max-1, ..., min and, with ``rebound``, back up to max without repeating the turning
    point (19 hands for 4 players: 10..1..10). ``start: low`` runs min..max (and back down
    with ``rebound``). The first dealer is given; the deal passes clockwise every hand.

Deal and trump
    Cards are dealt one at a time, starting with the dealer's left (eldest). The next card
    of the deck is turned face up: its suit is trump for the hand. It stays on top of the
    undealt stock and belongs to nobody. There is never a no-trump hand.

Bidding
    One bid each, from eldest clockwise; the dealer bids last. A bid is a whole number from
    0 to the hand size; passing is not allowed. Hook rule (``hook``, on by default): the
    dealer may not bid ``f = size - (sum of the other bids)`` when ``0 <= f <= size``, so
    the bids never total the tricks available; when ``f`` is out of range the dealer is free.

Play
    Eldest leads the first trick, then the winner of each trick leads. Any card may be led,
    trump included. Players must follow the suit led when they can, otherwise play anything.
    The highest trump wins the trick, or if no trump was played, the highest card of the
    suit led.

Scoring (b = bid, t = tricks taken, n = hand size; a bid is made when t == b)
    ``standard`` (default): made 10 + b, missed 0.
    ``basic``: made t + 10, missed t.
    ``penalty``: made 10 + b, missed -|t - b|.
    ``anderson`` (provisional, our own definition): made 0, missed by d costs d(d+1)/2.
    ``vienna`` (a modifier for every method but anderson): a made bid of 0 scores n + 5.
    ``vienna`` with ``anderson`` is refused.

End of the match
    After the last hand of the sequence the highest total wins; tied leaders are
    co-winners. Option ``until_clear_winner`` (off by default; PAGAT's "some deal further
    hands until a clear winner") instead deals extra hands while the lead is tied. Extra
    hands keep rotating the deal and use the size of the sequence's last hand; after at
    most ``MAX_EXTRA_HANDS`` extra hands, leaders still tied are co-winners, so a match
    always ends.

Decisions where the rules are silent
    A new hand is dealt as soon as the last trick of the previous one is taken; that
    hand's last trick is kept in its ``history`` entry. Hands are kept sorted (spades,
    hearts, diamonds, clubs; high to low), which is also the order of ``legal``.
    ``forbidden_bid`` is shown (to everyone) only while the dealer is to bid under the hook.
    During extra hands ``hands_total`` counts the extra hand being played.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field, ValidationError, model_validator

from server.rules.cards import (
    NATURAL_STRENGTH,
    RANKS,
    SUIT_SINGULAR,
    SUITS,
    check_deck,
    hand_rng,
    is_card,
    shuffled,
    standard_deck,
)
from server.rules.games.base import Action, Game, GameOptions, IllegalAction
from server.rules.state import ViewMemo

MAX_EXTRA_HANDS = 10

_DECK: tuple[str, ...] = tuple(standard_deck())
_STRENGTH: dict[str, int] = {card: NATURAL_STRENGTH[card[:-1]] for card in _DECK}
_SORT_KEY: dict[str, int] = {
    rank + suit: s * 13 + r for s, suit in enumerate(SUITS) for r, rank in enumerate(RANKS)
}
_sort_key = _SORT_KEY.__getitem__
# Each move's public form, as the log keeps it (see server.rules.state).
_PLAY_MOVE = {card: (("type", "play"), ("card", card)) for card in _DECK}
_BID_MOVE = tuple((("type", "bid"), ("value", v)) for v in range(18))
_NEW = object.__new__


class Phase(str, enum.Enum):
    """Where a hand stands."""

    BIDDING = "bidding"
    PLAYING = "playing"
    OVER = "over"


_BIDDING = Phase.BIDDING
_PLAYING = Phase.PLAYING
_OVER = Phase.OVER


class OhHellOptions(GameOptions):
    """The settings of an Oh Hell match (PROTOCOL.md, Options)."""

    start: Literal["high", "low"] = Field(
        "high",
        description="Start with the largest hand and shrink ('high') or the smallest and grow ('low').",
    )
    rebound: bool = Field(
        True,
        description="After reaching the other end of the sequence, go back again "
        "(without repeating the turning hand).",
    )
    min_cards: Literal[1, 3] = Field(1, description="Cards in the smallest hand: 1 or 3.")
    max_cards: int | None = Field(
        None,
        ge=1,
        le=17,
        description="Cards in the largest hand; empty means min(10, 51 // players) "
        "(10 for 3-5 players, 8 for 6, 7 for 7). At most 51 // players.",
    )
    hook: bool = Field(
        True,
        description="Hook rule: the dealer may not bid the number that makes the bids "
        "total the tricks available.",
    )
    scoring: Literal["standard", "basic", "penalty", "anderson"] = Field(
        "standard",
        description="standard: made bid scores 10 + bid, a miss 0. basic: tricks taken, "
        "+10 when the bid is made. penalty: made 10 + bid, a miss loses 1 per trick off. "
        "anderson (provisional, our own definition): made 0, a miss by d loses d(d+1)/2.",
    )
    vienna: bool = Field(
        False,
        description="Vienna: a made bid of 0 scores 5 + the cards dealt. "
        "Not available with anderson scoring.",
    )
    until_clear_winner: bool = Field(
        False,
        description="If the lead is tied after the last hand, deal extra hands (same size "
        f"as the last, at most {MAX_EXTRA_HANDS}) until one player leads alone; "
        "otherwise tied leaders are co-winners.",
    )

    @model_validator(mode="after")
    def _check_combinations(self) -> OhHellOptions:
        problem = _option_problem(self, None)
        if problem:
            raise ValueError(problem)
        return self


def cap_cards(players: int) -> int:
    """The most cards each of ``players`` can be dealt with one card left to turn: 51 // N."""
    return 51 // players


def default_max_cards(players: int) -> int:
    """The default largest hand for ``players``: min(10, 51 // N)."""
    return min(10, cap_cards(players))


def _option_problem(options: OhHellOptions, players: int | None) -> str | None:
    if options.vienna and options.scoring == "anderson":
        return (
            "option 'vienna' cannot be combined with scoring 'anderson': anderson never "
            "rewards a made bid, so there is no zero bid bonus to adjust"
        )
    hi = options.max_cards
    if hi is not None and hi < options.min_cards:
        return f"option 'max_cards': {hi} is below min_cards ({options.min_cards})"
    if players is not None and hi is not None and hi > cap_cards(players):
        return (
            f"option 'max_cards': {hi} is more than {cap_cards(players)}, the most that "
            f"{players} players can be dealt (51 // {players}, leaving a card to turn for trump)"
        )
    if players is not None and hi is None and default_max_cards(players) < options.min_cards:
        return f"option 'min_cards': {options.min_cards} is more than {players} players can hold"
    return None


def hand_sizes(players: int, options: OhHellOptions) -> tuple[int, ...]:
    """The size of every hand of the sequence, in order."""
    lo = options.min_cards
    hi = options.max_cards if options.max_cards is not None else default_max_cards(players)
    down = list(range(hi, lo - 1, -1))
    up = list(range(lo, hi + 1))
    if options.start == "high":
        sizes = down + (up[1:] if options.rebound else [])
    else:
        sizes = up + (down[1:] if options.rebound else [])
    return tuple(sizes)


def score_hand(scoring: str, vienna: bool, bid: int, taken: int, size: int) -> int:
    """What one seat scores for a hand under a scoring method."""
    if taken == bid:
        if vienna and bid == 0:
            return size + 5
        if scoring == "basic":
            return taken + 10
        if scoring == "anderson":
            return 0
        return 10 + bid
    if scoring == "basic":
        return taken
    if scoring == "penalty":
        return -abs(taken - bid)
    if scoring == "anderson":
        d = abs(taken - bid)
        return -(d * (d + 1) // 2)
    return 0


class _Value:
    """Equality by the listed fields, so a deep copy of a state equals the state."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields)

    __hash__ = None  # type: ignore[assignment]


_NONE = object()  # a source that no state field ever is


def _list_memo(entry: tuple, source: tuple) -> tuple:
    """(source, its JSON list) for a view, keeping the previous list object when nothing changed.

    Unchanged parts must stay the same objects from one view to the next so that the room's
    differ skips them by identity.
    """
    if entry[0] is source:
        return entry
    fresh = list(source)
    return (source, entry[1] if fresh == entry[1] else fresh)


class _ViewMemo:
    """The JSON parts of the last view built in a match, each with the state field it came from.

    A new state shares every field that did not change with the state it came from, so a
    part whose field is the very same object (or, for the short lists, whose new list is
    equal) is reused as the very same list: the room's differ then skips it by identity.
    Read-only sharing is safe: callers never change the nested values of a view. Entries
    hold their fields and are matched with ``is``, so a branch or an older state viewed
    later only misses the memo, never reads another state's part.
    """

    __slots__ = ("to_act", "legal", "revealed", "counts", "trick", "bids", "tricks_won",
                 "last_trick", "scores", "history", "seat_hands", "moves")

    def __init__(self, players: int) -> None:
        self.to_act = [[seat] for seat in range(players)]
        self.legal: list = []
        self.revealed: list = []
        self.counts: tuple = (_NONE, None)
        self.trick: tuple = ((), [])
        self.bids: tuple = (_NONE, None)
        self.tricks_won: tuple = (_NONE, None)
        self.last_trick: tuple = (None, None)
        self.scores: tuple = (_NONE, None)
        self.history: tuple = (_NONE, None)
        self.seat_hands: list = [(_NONE, None)] * players
        self.moves = ViewMemo()


class _Rules(_Value):
    """What stays fixed for the whole match."""

    _fields = ("players", "options", "sizes", "scoring", "vienna", "hook", "until_clear",
               "seed", "decks", "first_dealer")
    __slots__ = _fields + ("memo",)

    def __init__(self, players: int, options: OhHellOptions, seed: int | str, dealer: int,
                 decks: tuple[tuple[str, ...], ...]) -> None:
        self.players = players
        self.options = options
        self.sizes = hand_sizes(players, options)
        self.scoring = options.scoring
        self.vienna = options.vienna
        self.hook = options.hook
        self.until_clear = options.until_clear_winner
        self.seed = seed
        self.decks = decks
        self.first_dealer = dealer
        self.memo = _ViewMemo(players)


class _Deal(_Value):
    """One hand as dealt: fixed while it is played."""

    __slots__ = ("index", "dealer", "size", "dealt", "turned", "trump", "stock")
    _fields = __slots__

    def __init__(self, index: int, dealer: int, size: int, dealt: tuple[tuple[str, ...], ...],
                 turned: str, stock: tuple[str, ...]) -> None:
        self.index = index
        self.dealer = dealer
        self.size = size
        self.dealt = dealt
        self.turned = turned
        self.trump = turned[-1]
        self.stock = stock


class _Result(_Value):
    """A finished hand: its deal, bids, tricks, points and last trick."""

    __slots__ = ("deal", "bids", "tricks_won", "scores", "last_trick", "entry")
    _fields = ("deal", "bids", "tricks_won", "scores", "last_trick")

    def __init__(self, deal: _Deal, bids: tuple[int, ...], tricks_won: tuple[int, ...],
                 scores: tuple[int, ...], last_trick: tuple[tuple[tuple[int, str], ...], int]
                 ) -> None:
        self.deal = deal
        self.bids = bids
        self.tricks_won = tricks_won
        self.scores = scores
        self.last_trick = last_trick
        self.entry: dict[str, Any] | None = None  # its history entry, built by the first view


class OhHellState(_Value):
    """An immutable Oh Hell match state (never changed after ``apply`` returns it)."""

    _fields = ("rules", "deal", "phase", "hands", "bids", "tricks_won", "trick", "led",
               "turn", "last_trick", "played", "scores", "results", "log")
    # ``_pub``: the part of the view that is the same for every seat, built by the first
    # ``view`` of this state (never set by ``apply``, so not compared, copied or shown).
    __slots__ = _fields + ("_pub",)

    rules: _Rules
    deal: _Deal
    phase: Phase
    hands: tuple[tuple[str, ...], ...]
    bids: tuple[int | None, ...]
    tricks_won: tuple[int, ...]
    trick: tuple[tuple[int, str], ...]
    led: str | None
    turn: int | None
    last_trick: tuple[tuple[tuple[int, str], ...], int] | None
    played: tuple[tuple[tuple[tuple[int, str], ...], int], ...]
    scores: tuple[int, ...]
    results: tuple[_Result, ...]
    log: tuple

    def _copy(self) -> OhHellState:
        new = _NEW(OhHellState)
        new.rules = self.rules
        new.deal = self.deal
        new.phase = self.phase
        new.hands = self.hands
        new.bids = self.bids
        new.tricks_won = self.tricks_won
        new.trick = self.trick
        new.led = self.led
        new.turn = self.turn
        new.last_trick = self.last_trick
        new.played = self.played
        new.scores = self.scores
        new.results = self.results
        new.log = self.log
        return new

    def __repr__(self) -> str:
        return (
            f"<OhHellState hand {self.deal.index + 1} ({self.deal.size} cards) "
            f"{self.phase.value} turn={self.turn} scores={list(self.scores)}>"
        )


def _trick_json(trick: Sequence[tuple[int, str]]) -> list[dict[str, Any]]:
    return [{"seat": seat, "card": card} for seat, card in trick]


def _last_trick_json(last: tuple[tuple[tuple[int, str], ...], int] | None) -> dict | None:
    if last is None:
        return None
    return {"cards": _trick_json(last[0]), "winner": last[1]}


class OhHell(Game):
    """Oh Hell: bid exactly the tricks you will take, hand after hand."""

    name = "oh_hell"
    title = "Oh Hell"
    seat_keys = ("hand", "legal")
    min_players = 3
    max_players = 7
    default_players = 4
    summary = (
        "Bid exactly how many tricks you will take as the hands shrink and grow; "
        "the dealer may not make the bids add up."
    )
    Options = OhHellOptions

    # ---- options --------------------------------------------------------------------

    def parse_options(self, options: Mapping[str, Any] | GameOptions | None) -> OhHellOptions:
        """Validate options (None = all defaults); raise ValueError naming a bad option."""
        if isinstance(options, OhHellOptions):
            return options
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise ValueError("options must be an object")
        try:
            return OhHellOptions.model_validate(dict(options))
        except ValidationError as err:
            raise ValueError(_describe(err)) from None

    # ---- setup ------------------------------------------------------------------------

    def new_game(
        self,
        players: int,
        options: Mapping[str, Any] | GameOptions | None = None,
        seed: int | str = 0,
        dealer: int = 0,
        decks: Sequence[Sequence[str]] | None = None,
    ) -> OhHellState:
        """Start a match and deal its first hand."""
        self.check_players(players)
        opts = self.parse_options(options)
        problem = _option_problem(opts, players)
        if problem:
            raise ValueError(problem)
        self.check_dealer(dealer, players)
        stacked = tuple(tuple(check_deck(deck, _DECK)) for deck in (decks or ()))
        rules = _Rules(players, opts, seed, dealer, stacked)
        state = _NEW(OhHellState)
        state.rules = rules
        state.scores = (0,) * players
        state.results = ()
        self._deal(state, 0)
        return state

    def _deal(self, state: OhHellState, index: int) -> None:
        """Deal hand ``index`` into ``state`` (a fresh copy being built)."""
        rules = state.rules
        n = rules.players
        if index < len(rules.sizes):
            size = rules.sizes[index]
        else:
            size = rules.sizes[-1]
        dealer = (rules.first_dealer + index) % n
        if index < len(rules.decks):
            deck = rules.decks[index]
        else:
            deck = shuffled(_DECK, hand_rng(rules.seed, index))
        eldest = (dealer + 1) % n
        count = n * size
        hands = [None] * n
        for k in range(n):
            hands[(eldest + k) % n] = tuple(sorted(deck[k:count:n], key=_sort_key))
        dealt = tuple(hands)
        state.deal = _Deal(index, dealer, size, dealt, deck[count], tuple(deck[count + 1:]))
        state.phase = _BIDDING
        state.hands = dealt
        state.bids = (None,) * n
        state.tricks_won = (0,) * n
        state.trick = ()
        state.led = None
        state.turn = eldest
        state.last_trick = None
        state.played = ()
        state.log = ()

    # ---- queries ------------------------------------------------------------------------

    def players(self, state: OhHellState) -> int:
        """The number of seats in this match."""
        return state.rules.players

    def to_act(self, state: OhHellState) -> list[int]:
        """The seat that must act now, as a list; [] when the match is over."""
        turn = state.turn
        return [] if turn is None else [turn]

    def forbidden_bid(self, state: OhHellState) -> int | None:
        """The bid the dealer may not make now under the hook rule, else None."""
        if state.phase is not _BIDDING or not state.rules.hook or state.turn != state.deal.dealer:
            return None
        size = state.deal.size
        f = size - sum(b for b in state.bids if b is not None)
        return f if 0 <= f <= size else None

    def legal_actions(self, state: OhHellState, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now ([] when it need not act); cards in hand order."""
        turn = state.turn
        if seat != turn or turn is None:
            return []
        if state.phase is _PLAYING:
            hand = state.hands[seat]
            led = state.led
            if led is not None:
                follow = [{"type": "play", "card": c} for c in hand if c[-1] == led]
                if follow:
                    return follow
            return [{"type": "play", "card": c} for c in hand]
        size = state.deal.size
        if seat == state.deal.dealer:
            forbidden = self.forbidden_bid(state)
            if forbidden is not None:
                return [{"type": "bid", "value": v} for v in range(size + 1) if v != forbidden]
        return [{"type": "bid", "value": v} for v in range(size + 1)]

    # ---- actions ------------------------------------------------------------------------

    def apply(self, state: OhHellState, seat: int, action: Mapping[str, Any]) -> OhHellState:
        """A new state after ``seat`` plays ``action``; the given state is unchanged."""
        turn = state.turn
        if seat != turn or turn is None:
            self.require_turn(state, seat)
        if type(action) is not dict and not isinstance(action, Mapping):
            raise IllegalAction("An action must be a JSON object with a 'type'.")
        if state.phase is not _PLAYING:
            return self._bid(state, seat, action)
        if action.get("type") != "play":
            raise IllegalAction(
                "It is time to play a card: send {'type': 'play', 'card': ...}, "
                f"not {action.get('type')!r}."
            )
        card = action.get("card")
        hands = state.hands
        hand = hands[seat]
        if type(card) is not str or card not in hand:
            if not is_card(card):
                raise IllegalAction(f"{card!r} is not a card (expected a code like 'AS' or '10H').")
            raise IllegalAction(f"You do not hold {card}.")
        led = state.led
        suit = card[-1]
        if led is not None and suit != led:
            for c in hand:
                if c[-1] == led:
                    raise IllegalAction(f"You must follow suit: you hold a {SUIT_SINGULAR[led]}.")
        # Build the new state by hand: this is the hot path of every simulation.
        new = _NEW(OhHellState)
        new.rules = rules = state.rules
        new.deal = state.deal
        new.phase = _PLAYING
        new.bids = state.bids
        new.scores = state.scores
        new.results = state.results
        i = hand.index(card)
        hands = hands[:seat] + (hand[:i] + hand[i + 1:],) + hands[seat + 1:]
        new.hands = hands
        trick = state.trick + ((seat, card),)
        n = rules.players
        if len(trick) < n:
            new.trick = trick
            new.led = suit if led is None else led
            new.turn = seat + 1 if seat + 1 < n else 0
            new.tricks_won = state.tricks_won
            new.last_trick = state.last_trick
            new.played = state.played
            new.log = state.log + ((seat, _PLAY_MOVE[card]),)
            return new
        # The trick is complete: highest trump, else highest card of the suit led.
        trump = state.deal.trump
        winner, best = trick[0]
        best_suit = best[-1]
        best_strength = _STRENGTH[best]
        for s, c in trick[1:]:
            suit = c[-1]
            if suit == best_suit:
                strength = _STRENGTH[c]
                if strength > best_strength:
                    winner, best_strength = s, strength
            elif suit == trump:
                winner, best_suit, best_strength = s, suit, _STRENGTH[c]
        won = list(state.tricks_won)
        won[winner] += 1
        new.tricks_won = tuple(won)
        new.log = state.log + ((seat, _PLAY_MOVE[card], winner),)
        last = (trick, winner)
        new.last_trick = last
        new.played = state.played + (last,)
        new.trick = ()
        new.led = None
        new.turn = winner
        if not hands[winner]:
            self._finish_hand(new)
        return new

    def _bid(self, state: OhHellState, seat: int, action: Mapping[str, Any]) -> OhHellState:
        kind = action.get("type")
        if kind != "bid":
            raise IllegalAction(
                f"It is time to bid: send {{'type': 'bid', 'value': ...}}, not {kind!r}."
            )
        value = action.get("value")
        size = state.deal.size
        if type(value) is not int:
            raise IllegalAction(f"A bid needs 'value': a whole number from 0 to {size}.")
        if not 0 <= value <= size:
            raise IllegalAction(
                f"Bids run from 0 to {size}, the number of cards in your hand; {value} is out of range."
            )
        dealer = state.deal.dealer
        if seat == dealer and value == self.forbidden_bid(state):
            raise IllegalAction(
                f"As dealer you may not bid {value}: the bids would total the {size} "
                f"trick{'s' if size != 1 else ''} available (hook rule)."
            )
        new = state._copy()
        bids = state.bids
        new.bids = bids[:seat] + (value,) + bids[seat + 1:]
        new.log = state.log + ((seat, _BID_MOVE[value]),)
        new.turn = (seat + 1) % state.rules.players
        if seat == dealer:
            new.phase = _PLAYING
        return new

    def _finish_hand(self, new: OhHellState) -> None:
        """Score the hand just completed in ``new``, then deal the next or end the match."""
        rules = new.rules
        deal = new.deal
        scoring, vienna, size = rules.scoring, rules.vienna, deal.size
        points = tuple(
            score_hand(scoring, vienna, b, t, size) for b, t in zip(new.bids, new.tricks_won)
        )
        new.scores = tuple(a + b for a, b in zip(new.scores, points))
        new.results = new.results + (
            _Result(deal, new.bids, new.tricks_won, points, new.last_trick),
        )
        following = deal.index + 1
        if following < len(rules.sizes) or (
            rules.until_clear
            and following < len(rules.sizes) + MAX_EXTRA_HANDS
            and new.scores.count(max(new.scores)) > 1
        ):
            self._deal(new, following)
            return
        new.phase = _OVER
        new.turn = None

    # ---- views ----------------------------------------------------------------------------

    def _history(self, state: OhHellState) -> list[dict[str, Any]]:
        # Each finished hand's entry is built once and shared by every later view: the
        # view is computed for every connection on every action, and views are read-only.
        entries = []
        for r in state.results:
            entry = r.entry
            if entry is None:
                entry = r.entry = {
                    "hand_number": r.deal.index + 1,
                    "dealer": r.deal.dealer,
                    "hand_size": r.deal.size,
                    "turned": r.deal.turned,
                    "trump": r.deal.trump,
                    "bids": list(r.bids),
                    "tricks_won": list(r.tricks_won),
                    "scores": list(r.scores),
                    "last_trick": _last_trick_json(r.last_trick),
                }
            entries.append(entry)
        return entries

    def view(self, state: OhHellState, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see, JSON-able; None is a spectator.

        The public part is built once per state (``_public``); each call returns a new
        top-level dict, a copy of it with this seat's ``hand`` and ``legal`` put in.
        """
        try:
            view = state._pub.copy()
        except AttributeError:
            view = self._public(state).copy()
        if type(seat) is int and 0 <= seat < state.rules.players:
            memo = state.rules.memo
            held = state.hands[seat]
            source, hand = memo.seat_hands[seat]
            if source is not held:
                hand = list(held)
                memo.seat_hands[seat] = (held, hand)
            view["hand"] = hand
            if seat == state.turn:
                view["legal"] = self.legal_actions(state, seat)
        return view

    def _public(self, state: OhHellState) -> dict[str, Any]:
        """The part of every seat's view that is the same for all, cached on the state.

        Parts that did not change since the match's last built view are the very same
        objects as then (see ``_ViewMemo``); a trick that grew by one card shares the
        entries of the shorter one.
        """
        rules = state.rules
        memo = rules.memo
        deal = state.deal
        turn = state.turn
        phase = state.phase

        hands = state.hands
        source, counts = memo.counts
        if source is not hands:
            fresh = [len(h) for h in hands]
            if fresh != counts:
                counts = fresh
            memo.counts = (hands, counts)

        trick = state.trick
        source, trick_json = memo.trick
        if source is not trick:
            k = len(source)
            if len(trick) == k + 1 and trick[:k] == source:
                seat_, card = trick[k]
                trick_json = trick_json + [{"seat": seat_, "card": card}]
            else:
                trick_json = _trick_json(trick)
            memo.trick = (trick, trick_json)

        bids = state.bids
        memo.bids = _list_memo(memo.bids, bids)
        bids_json = memo.bids[1]

        won = state.tricks_won
        memo.tricks_won = _list_memo(memo.tricks_won, won)
        won_json = memo.tricks_won[1]

        last = state.last_trick
        source, last_json = memo.last_trick
        if source is not last:
            last_json = _last_trick_json(last)
            memo.last_trick = (last, last_json)

        scores = state.scores
        memo.scores = _list_memo(memo.scores, scores)
        scores_json = memo.scores[1]

        results = state.results
        source, history = memo.history
        if source is not results:
            history = self._history(state)
            memo.history = (results, history)

        forbidden = None
        if phase is _BIDDING and rules.hook and turn == deal.dealer:
            size = deal.size
            f = size - sum(b for b in bids if b is not None)
            if 0 <= f <= size:
                forbidden = f

        sizes = len(rules.sizes)
        pub = state._pub = {
            "phase": phase._value_,
            "dealer": deal.dealer,
            "to_act": [] if turn is None else memo.to_act[turn],
            "hand": None,
            "hand_counts": counts,
            "trick": trick_json,
            "led_suit": state.led,
            "trump": deal.trump,
            "turned": deal.turned,
            "bids": bids_json,
            "forbidden_bid": forbidden,
            "tricks_won": won_json,
            "last_trick": last_json,
            "hand_size": deal.size,
            "hand_number": deal.index + 1,
            "hands_total": sizes if sizes > deal.index else deal.index + 1,
            "scores": scores_json,
            "history": history,
            "legal": memo.legal,
            "revealed": memo.revealed,
            "log": memo.moves.log(state.log),
        }
        return pub

    def full_view(self, state: OhHellState) -> dict[str, Any]:
        """The public view with every hand, the stock and this hand's tricks shown."""
        view = self.view(state, None)
        view["hands"] = [list(h) for h in state.hands]
        view["stock"] = list(state.deal.stock)
        view["tricks_played"] = [_last_trick_json(t) for t in state.played]
        return view

    def outcome(self, state: OhHellState) -> dict[str, Any] | None:
        """None while the match goes on; then the totals and the top scorers (co-winners on a tie)."""
        if state.phase is not _OVER:
            return None
        scores = list(state.scores)
        best = max(scores)
        return {"scores": scores, "winners": [s for s, v in enumerate(scores) if v == best]}

    def hand_records(self, state: OhHellState) -> list[dict[str, Any]]:
        """Each hand dealt so far: its dealer, the deal (hands, turned card, stock) and points."""
        records = [_record(r.deal, list(r.scores)) for r in state.results]
        if state.phase is not _OVER:
            records.append(_record(state.deal, None))
        return records


def _record(deal: _Deal, scores: list[int] | None) -> dict[str, Any]:
    return {
        "dealer": deal.dealer,
        "deal": {
            "hand_size": deal.size,
            "hands": [list(h) for h in deal.dealt],
            "turned": deal.turned,
            "trump": deal.trump,
            "stock": list(deal.stock),
        },
        "scores": scores,
    }


def _describe(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(x) for x in e.get("loc", ()))
        if e.get("type") == "extra_forbidden":
            parts.append(f"unknown option '{loc}'")
        elif not loc:
            # A cross-option check: its message already names the option.
            ctx = e.get("ctx") or {}
            parts.append(str(ctx.get("error", e.get("msg", "invalid options"))))
        else:
            parts.append(f"option '{loc}': {e.get('msg', 'invalid value')}")
    return "; ".join(parts)


GAME = OhHell()
