"""Oh Hell, as Felt plays it: the rules this engine enforces, in full.

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
    Cards are dealt one at a time, starting with the dealer's left (eldest). By default
    (``trump: turn``) the next card of the deck is turned face up: its suit is trump for the
    hand. It stays on top of the undealt stock and belongs to nobody, and there is never a
    no-trump hand. House options (server/games/oh_hell/rules.md): ``no_trump_largest`` plays every
    hand of the largest size (``max_cards``) without trump and turns no card then;
    ``rotation`` turns no card and takes trump from the hand's number: hearts, diamonds,
    clubs, spades, no trump, again from hearts (extra hands continue the count);
    ``no_trump`` never has trump; a suit letter (``S``, ``H``, ``D``, ``C``) is trump in every
    hand, no card turned. Without trump the highest card of the suit led wins. The cap of
    51 // N cards stays for every mode; an unturned card stays in the stock, unseen.

Bidding
    One bid each, from eldest clockwise; the dealer bids last. A bid is a whole number from
    0 to the hand size; passing is not allowed. Hook rule (``hook``, on by default): the
    dealer may not bid ``f = size - (sum of the other bids)`` when ``0 <= f <= size``, so
    the bids never total the tricks available; when ``f`` is out of range the dealer is free.
    ``hook_last_hand`` (on by default) off: the hook does not apply in a hand of one card.

Blind one (``blind_one``, off by default)
    In every hand of one card each player sees every other player's card but not their own
    until bidding is over: the seat's ``hand`` is [] while it bids (``hand_counts`` still 1),
    and ``blind_cards`` lists per seat the card it holds (None for the seat's own and for a
    card already played) all through the hand. A spectator sees none of them, as in every
    hand (a player must not learn their own card from a spectator's view).

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
    ``squared``: made 10 + b*b, missed -(d*d) where d = |t - b|.
    ``exact``: made 10 + b, missed 0 (the same scores as ``standard``: the name groups use).
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

Code
    The state is a ``State`` (``server.rules.state``): the match's fixed ``Rules``, the
    hand's ``Deal``, and what changes move by move; ``apply`` clones it and sets the changed
    fields on the clone, never on the state it is given. ``why_illegal`` is the one place
    that says why a move is refused; ``legal_actions`` lists what it allows and ``apply``
    raises with its sentence. Tricks follow ``server.rules.tricks``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from functools import partial
from operator import add
from typing import Any, ClassVar, Literal, NamedTuple, cast

from pydantic import Field, model_validator

from server.rules.cards import (
    RANKS,
    SUITS,
    card_code,
    hand_rng,
    is_card,
    shuffled,
    standard_deck,
)
from server.rules.game import (
    Action,
    Game,
    GameOptions,
    Sections,
    Setup,
    shared_actions,
)
from server.rules.state import State, ViewMemo
from server.rules.tricks import NATURAL, TrickPlay, follow_suit, trick_winner, why_not_follow

MAX_EXTRA_HANDS = 10

_DECK: tuple[str, ...] = tuple(standard_deck())
_SORT_KEY: dict[str, int] = {
    card_code(rank, suit): s * 13 + r for s, suit in enumerate(SUITS) for r, rank in enumerate(RANKS)
}
_sort_key = _SORT_KEY.__getitem__
# Each move's public form, as the log keeps it (see server.rules.state), and as an action.
_PLAY_MOVE = {card: (("type", "play"), ("card", card)) for card in _DECK}
_BID_MOVE = tuple((("type", "bid"), ("value", v)) for v in range(18))
# The actions legal_actions offers, one shared object per move (server.rules.game).
_PLAY_ACTION = shared_actions("play", "card", _DECK)
_play_action = _PLAY_ACTION.__getitem__
_BID_ACTIONS = tuple(shared_actions("bid", "value", range(18)).values())  # bid v at index v
# View parts that never change, shared by every view (views are read-only below the top).
_TO_ACT = tuple([seat] for seat in range(7))
_NOBODY: list[int] = []
_NO_LEGAL: list[Action] = []
_NOTHING_REVEALED: list[Any] = []


class Phase(str, enum.Enum):
    """Where a hand stands."""

    BIDDING = "bidding"
    PLAYING = "playing"
    OVER = "over"


_BIDDING = Phase.BIDDING
_PLAYING = Phase.PLAYING
_OVER = Phase.OVER


class OhHellOptions(GameOptions):
    """The settings of an Oh Hell match (docs/protocol.md lists them too)."""

    start: Literal["high", "low"] = Field(
        "high",
        description="Start with the largest hand and shrink ('high') or the smallest and grow ('low').",
    )
    rebound: bool = Field(
        True,
        description="After reaching the other end of the sequence, go back again (without repeating the turning hand).",
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
        description="Hook rule: the dealer may not bid the number that makes the bids total the tricks available.",
    )
    hook_last_hand: bool = Field(
        True,
        description="Apply the hook rule in the 1-card hand too (off: the dealer bids freely there).",
    )
    scoring: Literal["standard", "basic", "penalty", "anderson", "squared", "exact"] = Field(
        "standard",
        description="standard: made bid scores 10 + bid, a miss 0. basic: tricks taken, "
        "+10 when the bid is made. penalty: made 10 + bid, a miss loses 1 per trick off. "
        "anderson (provisional, our own definition): made 0, a miss by d loses d(d+1)/2. "
        "squared: made 10 + bid squared, a miss by d loses d squared. "
        "exact: made 10 + bid, a miss 0 (as standard).",
    )
    trump: Literal["turn", "no_trump_largest", "rotation", "no_trump", "S", "H", "D", "C"] = Field(
        "turn",
        description="turn: the card after the deal is turned and its suit is trump. "
        "no_trump_largest: the same, but the largest hands are played without trump. "
        "rotation: hearts, diamonds, clubs, spades, no trump, hand after hand. "
        "no_trump: never a trump suit. S, H, D or C: that suit is trump in every hand.",
    )
    blind_one: bool = Field(
        False,
        description="In each 1-card hand you see everyone's card but your own until the "
        "bidding is over (the card on the forehead).",
    )
    vienna: bool = Field(
        False,
        description="Vienna: a made bid of 0 scores 5 + the cards dealt. Not available with anderson scoring.",
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
        if scoring == "squared":
            return 10 + bid * bid
        return 10 + bid
    if scoring == "basic":
        return taken
    if scoring == "penalty":
        return -abs(taken - bid)
    if scoring == "anderson":
        d = abs(taken - bid)
        return -(d * (d + 1) // 2)
    if scoring == "squared":
        return -((taken - bid) ** 2)
    return 0


# ``trump: rotation``: the trump of hand k (from 0) is ROTATION[k % 5]; None is no trump.
ROTATION: tuple[str | None, ...] = ("H", "D", "C", "S", None)


def hand_trump(options: OhHellOptions, index: int, size: int, largest: int, top: str) -> tuple[str | None, str | None]:
    """The turned card and the trump suit of hand ``index`` (None, None: no card, no trump).
    ``top`` is the card after the deal, ``largest`` the sequence's largest hand size."""
    mode = options.trump
    if mode == "turn" or (mode == "no_trump_largest" and size != largest):
        return top, top[-1]
    if mode == "rotation":
        return None, ROTATION[index % 5]
    if mode in ("no_trump", "no_trump_largest"):
        return None, None
    return None, mode  # a fixed suit


class Rules(NamedTuple):
    """What stays fixed for the whole match."""

    players: int
    options: OhHellOptions
    sizes: tuple[int, ...]
    seed: int | str
    decks: tuple[tuple[str, ...], ...]
    first_dealer: int


class Deal(NamedTuple):
    """One hand as dealt: fixed while it is played."""

    index: int  # type: ignore[assignment]  # the hand's number from 0; hides tuple.index, never called on a Deal
    dealer: int
    size: int
    dealt: tuple[tuple[str, ...], ...]
    turned: str | None  # None when the trump mode turns no card for this hand
    stock: tuple[str, ...]
    trump: str | None  # the hand's trump suit, None for no trump (a field: a property read costs far more)
    blind: bool  # a blind_one hand: each seat bids without seeing its own card


# A finished trick: its plays and the seat that took it.
Trick = tuple[tuple[tuple[int, str], ...], int]


class Result(NamedTuple):
    """A finished hand: its deal, bids, tricks, points and last trick."""

    deal: Deal
    bids: tuple[int, ...]
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    last_trick: Trick


class OhHellState(State):
    """An Oh Hell match; ``apply`` returns a fresh clone, never changing the one it is given."""

    rules: Rules
    deal: Deal
    phase: Phase
    hands: tuple[tuple[str, ...], ...]
    bids: tuple[int | None, ...]
    tricks_won: tuple[int, ...]
    trick: tuple[tuple[int, str], ...]
    led: str | None
    turn: int | None
    last_trick: Trick | None
    played: tuple[Trick, ...]
    scores: tuple[int, ...]
    results: tuple[Result, ...]
    log: tuple
    views: ViewMemo

    def __repr__(self) -> str:
        return (
            f"<OhHellState hand {self.deal.index + 1} ({self.deal.size} cards) "
            f"{self.phase.value} turn={self.turn} scores={list(self.scores)}>"
        )


def _deal(rules: Rules, index: int) -> dict[str, Any]:
    """The fields of hand ``index``, freshly dealt."""
    n = rules.players
    size = rules.sizes[index] if index < len(rules.sizes) else rules.sizes[-1]
    dealer = (rules.first_dealer + index) % n
    deck = rules.decks[index] if index < len(rules.decks) else shuffled(_DECK, hand_rng(rules.seed, index))
    eldest = (dealer + 1) % n
    count = n * size
    hands: list[tuple[str, ...]] = [()] * n
    for k in range(n):
        hands[(eldest + k) % n] = tuple(sorted(deck[k:count:n], key=_sort_key))
    dealt = tuple(hands)
    opts = rules.options
    top = deck[count]
    turned: str | None
    trump: str | None
    if opts.trump == "turn":  # the default: no more work than before the house options
        turned, trump = top, top[-1]
    else:
        turned, trump = hand_trump(opts, index, size, max(rules.sizes), top)
    stock = tuple(deck[count + 1 :]) if turned is not None else tuple(deck[count:])
    blind = opts.blind_one and size == 1
    return {
        "deal": Deal(index, dealer, size, dealt, turned, stock, trump, blind),
        "phase": _BIDDING,
        "hands": dealt,
        "bids": (None,) * n,
        "tricks_won": (0,) * n,
        "trick": (),
        "led": None,
        "turn": eldest,
        "last_trick": None,
        "played": (),
        "log": (),
    }


def _why_not_bid(size: int, forbidden: int | None, value: object) -> str | None:
    """Why a bid of ``value`` is refused in a hand of ``size`` cards: not a whole number,
    out of range, or ``forbidden`` (the hook's number, None when there is none)."""
    if type(value) is not int:
        return f"A bid needs 'value': a whole number from 0 to {size}."
    if not 0 <= value <= size:
        return f"Bids run from 0 to {size}, the number of cards in your hand; {value} is out of range."
    if value == forbidden:
        return (
            f"As dealer you may not bid {value}: the bids would total the {size} "
            f"trick{'s' if size != 1 else ''} available (hook rule)."
        )
    return None


def _plays_json(trick: Sequence[tuple[int, str]]) -> list[dict[str, Any]]:
    return [{"seat": seat, "card": card} for seat, card in trick]


def _play_json(play: tuple[int, str]) -> dict[str, Any]:
    return {"seat": play[0], "card": play[1]}


def _last_trick_json(last: Trick | None) -> dict | None:
    if last is None:
        return None
    return {"cards": _plays_json(last[0]), "winner": last[1]}


def _history_entry(r: Result) -> dict[str, Any]:
    """A finished hand as the view's ``history`` shows it."""
    return {
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


def _counts(hands: tuple[tuple[str, ...], ...]) -> list[int]:
    return [len(h) for h in hands]


def _record(deal: Deal, scores: list[int] | None) -> dict[str, Any]:
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


# A claim's view of the cards (``trick_play``): each card's suit and strength, and the
# winner of a trick under each trump (None: no trump).
_ORDER = {card: (card[-1], NATURAL.plain[card]) for card in _DECK}
_WINNERS = {trump: partial(trick_winner, trump=trump) for trump in (*SUITS, None)}


class OhHell(Game):
    """Oh Hell: bid exactly the tricks you will take, hand after hand."""

    action_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {"bid": ("value",), "play": ("card",)}

    name = "oh_hell"
    title = "Oh Hell"
    short_title = "Oh Hell"
    phases: ClassVar[Sections] = {"bidding": "bidding", "playing": "play", "over": "scoring"}
    seat_keys = ("hand", "legal", "blind_cards")
    min_players = 3
    max_players = 7
    default_players = 4
    summary = (
        "Bid exactly how many tricks you will take as the hands shrink and grow; "
        "the dealer may not make the bids add up."
    )
    Options = OhHellOptions

    # ---- setup ------------------------------------------------------------------------

    def options_problem(self, options: GameOptions, players: int) -> str | None:
        """Hand sizes this many players cannot be dealt, or None."""
        assert isinstance(options, OhHellOptions)
        return _option_problem(options, players)

    def deck(self, options: GameOptions, players: int) -> Sequence[str]:
        """One 52-card deck, whatever the table."""
        return _DECK

    def start(self, setup: Setup) -> OhHellState:
        """Deal the first hand of the sequence."""
        players, options = setup.players, setup.options
        assert isinstance(options, OhHellOptions)
        rules = Rules(players, options, hand_sizes(players, options), setup.seed, setup.decks, setup.dealer)
        return OhHellState(rules=rules, scores=(0,) * players, results=(), views=ViewMemo(), **_deal(rules, 0))

    # ---- queries ------------------------------------------------------------------------

    def players(self, state: OhHellState) -> int:
        """The number of seats in this match."""
        return state.rules.players

    def to_act(self, state: OhHellState) -> list[int]:
        """The seat that must act now, as a list; [] when the match is over."""
        turn = state.turn
        return [] if turn is None else [turn]

    claims = True

    def trick_play(self, state: OhHellState) -> TrickPlay | None:
        """The hand's tricks as they stand, each player their own side; None while bidding."""
        turn = state.turn
        if state.phase is not _PLAYING or turn is None:
            return None
        trump = state.deal.trump
        sides = tuple(range(state.rules.players))
        return TrickPlay(state.hands, state.trick, turn, sides, trump, _ORDER, _WINNERS[trump])

    def forbidden_bid(self, state: OhHellState) -> int | None:
        """The bid the dealer may not make now under the hook rule, else None."""
        deal = state.deal
        options = state.rules.options
        if state.phase is not _BIDDING or state.turn != deal.dealer or not options.hook:
            return None
        if deal.size == 1 and not options.hook_last_hand:
            return None
        f = deal.size - sum(filter(None, state.bids))  # the bids so far (None: not yet)
        return f if 0 <= f <= deal.size else None

    def legal_actions(self, state: OhHellState, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now ([] when it need not act); cards in hand order."""
        turn = state.turn
        if seat != turn or turn is None:
            return []
        if state.phase is _PLAYING:
            return list(map(_play_action, follow_suit(state.hands[seat], state.led)))
        # _why_not_bid's rule, listed: 0 to the hand size, except the hook's number
        # (docs/decisions/0003).
        bids = list(_BID_ACTIONS[: state.deal.size + 1])
        forbidden = self.forbidden_bid(state)
        if forbidden is not None:
            del bids[forbidden]
        return bids

    def why_illegal(self, state: OhHellState, seat: int, action: Any) -> str | None:
        """Why ``seat`` may not play ``action`` now (a sentence), or None when it may."""
        turn = state.turn
        if seat != turn:
            if turn is None:
                return "The game is over."
            return f"It is not your turn: waiting for seat {turn}."
        if not isinstance(action, dict) and not isinstance(action, Mapping):
            return "An action must be a JSON object with a 'type'."
        kind = action.get("type")
        if state.phase is _PLAYING:
            if kind != "play":
                return f"It is time to play a card: send {{'type': 'play', 'card': ...}}, not {kind!r}."
            card = action.get("card")
            hand = state.hands[seat]
            if card not in hand:  # (anything but a held card's code, unhashable junk too)
                if not is_card(card):
                    return f"{card!r} is not a card (expected a code like 'AS' or '10H')."
                return f"You do not hold {card}."
            return why_not_follow(hand, card, state.led)
        if kind != "bid":
            return f"It is time to bid: send {{'type': 'bid', 'value': ...}}, not {kind!r}."
        return _why_not_bid(state.deal.size, self.forbidden_bid(state), action.get("value"))

    # ---- actions ------------------------------------------------------------------------

    def apply(self, state: OhHellState, seat: int, action: Mapping[str, Any]) -> OhHellState:
        """A new state after ``seat`` plays ``action``; the given state is unchanged."""
        if self.why_illegal(state, seat, action) is not None:
            self.check_legal(state, seat, action)  # raises, saying why
        if state.phase is not _PLAYING:
            return self._bid(state, seat, action["value"])
        # A card is played: the trick goes on, or is taken (every card comes this way:
        # docs/decisions/0003).
        card = action["card"]
        hands = state.hands
        held = list(hands[seat])
        held.remove(card)
        changed = list(hands)
        changed[seat] = tuple(held)
        hands = tuple(changed)
        trick = state.trick + ((seat, card),)
        n = len(hands)  # the players
        new = state.clone()
        new.hands = hands
        if len(trick) < n:
            new.trick = trick
            if state.led is None:
                new.led = card[-1]
            new.turn = seat + 1 if seat + 1 < n else 0
            new.log = (state.log, seat, _PLAY_MOVE[card])
            return new
        winner = trick_winner(trick, state.deal.trump)
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

    def _bid(self, state: OhHellState, seat: int, value: int) -> OhHellState:
        """``seat`` bids ``value`` (legal); after the dealer's bid the play starts."""
        bids = list(state.bids)
        bids[seat] = value
        new = state.clone()
        new.bids = tuple(bids)
        new.turn = (seat + 1) % len(bids)
        new.phase = _PLAYING if seat == state.deal.dealer else _BIDDING
        new.log = (state.log, seat, _BID_MOVE[value])
        return new

    def _finish_hand(self, state: OhHellState) -> OhHellState:
        """Score the hand just completed, then deal the next or end the match."""
        rules, deal = state.rules, state.deal
        opts = rules.options
        # A played-out hand: every seat has bid, and its last trick is taken.
        bids = cast("tuple[int, ...]", state.bids)
        last_trick = state.last_trick
        assert last_trick is not None
        points = tuple(
            [
                score_hand(opts.scoring, opts.vienna, b, t, deal.size)
                for b, t in zip(bids, state.tricks_won, strict=True)
            ]
        )
        scores = tuple(map(add, state.scores, points))
        result = Result(deal, bids, state.tricks_won, points, last_trick)
        results = state.results + (result,)
        following = deal.index + 1
        if following < len(rules.sizes) or (
            opts.until_clear_winner and following < len(rules.sizes) + MAX_EXTRA_HANDS and scores.count(max(scores)) > 1
        ):
            new = state.evolve(_deal(rules, following))
            new.scores, new.results = scores, results
            return new
        return state.evolve(scores=scores, results=results, phase=_OVER, turn=None)

    # ---- views ----------------------------------------------------------------------------

    def take_back_marks(self, state: OhHellState, seat: int) -> tuple[tuple[Any, ...], Sequence[Any]]:
        """The fixed keys of the public view (no seat's differ here) and ``seat``'s hand."""
        hand = state.hands[seat]
        if state.deal.blind and state.phase is _BIDDING:
            hand = ()  # a blind hand is hidden from its seat while it bids (``_blind_view``)
        return self.fixed_marks(state, hand)

    def view(self, state: OhHellState, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see, JSON-able; None is a spectator.

        The public part is built once per state; each call returns a new top-level dict, a
        copy of it with this seat's ``hand`` and ``legal`` put in.
        """
        memo = state.views
        view: dict[str, Any] = memo.public(state, self._public).copy()
        if type(seat) is int and 0 <= seat < state.rules.players:
            if state.deal.blind:
                return self._blind_view(state, seat, view)
            view["hand"] = memo.part(("hand", seat), state.hands[seat], list)
            if seat == state.turn:
                view["legal"] = self.legal_actions(state, seat)
        return view

    def _blind_view(self, state: OhHellState, seat: int, view: dict[str, Any]) -> dict[str, Any]:
        """A seat's view of a blind_one hand: its own card hidden while it bids, every other
        seat's unplayed card shown (``blind_cards``, None for its own and for played cards)."""
        bidding = state.phase is _BIDDING
        view["hand"] = [] if bidding else list(state.hands[seat])
        view["blind_cards"] = [None if s == seat or not held else held[0] for s, held in enumerate(state.hands)]
        if seat == state.turn:
            view["legal"] = self.legal_actions(state, seat)
        return view

    def _public(self, state: OhHellState) -> dict[str, Any]:
        """The part of every seat's view that is the same for all (hand None, legal [])."""
        memo = state.views
        deal = state.deal
        turn = state.turn
        sizes = len(state.rules.sizes)
        return {
            "phase": state.phase.value,
            "dealer": deal.dealer,
            "to_act": _NOBODY if turn is None else _TO_ACT[turn],
            "hand": None,
            "hand_counts": memo.part("hand_counts", state.hands, _counts),
            "trick": memo.grown("trick", state.trick, _play_json),
            "led_suit": state.led,
            "trump": deal.trump,
            "turned": deal.turned,
            "bids": memo.part("bids", state.bids, list),
            "forbidden_bid": self.forbidden_bid(state),
            "tricks_won": memo.part("tricks_won", state.tricks_won, list),
            "last_trick": memo.part("last_trick", state.last_trick, _last_trick_json),
            "hand_size": deal.size,
            "hand_number": deal.index + 1,
            "hands_total": sizes if sizes > deal.index else deal.index + 1,
            "scores": memo.part("scores", state.scores, list),
            "history": memo.grown("history", state.results, _history_entry),
            "legal": _NO_LEGAL,
            "revealed": _NOTHING_REVEALED,
            "log": memo.log(state.log),
        }

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
