"""Ribs, for 4 to 10 players, each playing alone (RULES.md section 1).

Deck and points. The deck holds one run ``A K Q J 10 9 8 7`` per player; suits play no part,
so a card is a bare rank and a hand may hold the same rank several times. Rank, high to
low: A K Q J 10 9 8 7 (used only to decide whether a pair beats the Ribs). Points: A 0,
K Q J 2 each, 10 9 8 7 1 each, so each run is worth 10 points and the deck ``10 * N``.

Deal. The first dealer is given; the deal passes to the left after each hand. The dealer
deals two cards at a time, clockwise from the seat on their left, until each seat holds 8.

Bidding, before every one of the four tricks of a hand. The opener is the dealer for trick 1
and the Leader of the previous trick for tricks 2 to 4. The opener may not pass and opens
with any bid from 2 up to ``4 * (N - 1)`` (the most a trick can yield). Bidding then goes
clockwise, lap after lap, skipping seats that have passed: each seat passes (and is out for
this trick) or bids exactly one more than the high bid, never above ``4 * (N - 1)``. When all
seats but one have passed, that seat is the Leader and its last bid is the bid.

Play. The Leader lays two cards face down: the Ribs. Then every other seat, clockwise from
the Leader's left, plays two cards of its choice face up, or, once per hand and never as
the Leader, folds them face down. Folded cards take no part and go to nobody; nobody else
ever sees them.

Resolution, once every pair is down (the Ribs are then shown):
1. Double match: the earliest seat in play order whose face-up pair has exactly the ranks of
   the Ribs captures the Ribs and every face-up pair (even pairs that would have beaten the
   Ribs); the Leader gets nothing.
2. Otherwise each face-up pair that shares no rank with the Ribs and whose top card is higher
   than the Ribs' top card beats the Ribs: its owner captures it. Every other face-up pair
   (any shared rank, or lower) is beaten. If the points of the beaten pairs reach the bid,
   the Leader captures the Ribs and the beaten pairs; if not, each beaten pair goes back to
   its owner's capture pile and the Ribs are discarded.

Scoring. After four tricks every seat counts the points in its capture pile; every seat
tied for the most earns one game point (even if all tie). The session ends after the hand
in which someone reaches ``target`` game points (default 5); all seats tied on the most game
points are co-winners. With ``until_sole_winner`` the session instead goes on until one seat
at or above the target leads alone.

Decisions where the rules are silent: the phase is "bidding" or "playing" (the Leader's
Ribs are the first step of "playing"); captured points and the discard are reported per
hand in ``history``; a folded pair's ranks appear only in its owner's view (``my_face_down``)
and in ``full_view``.
"""

from __future__ import annotations

import enum
from operator import add, itemgetter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from pydantic import Field

from server.rules.cards import check_deck, hand_rng, ribs_deck, shuffled
from server.rules.games.base import Action, Game, GameOptions, IllegalAction, action_type
from server.rules.state import ViewMemo

RANKS: tuple[str, ...] = ("A", "K", "Q", "J", "10", "9", "8", "7")
RANK_INDEX: dict[str, int] = {rank: i for i, rank in enumerate(RANKS)}
POINTS: tuple[int, ...] = (0, 2, 2, 2, 1, 1, 1, 1)
CARDS_PER_SEAT = 8
TRICKS_PER_HAND = 4
MIN_OPENING_BID = 2

# Results of a face-up or folded pair in a resolved trick.
BEAT = "beat"  # beat the Ribs: captured by its owner
BEATEN = "beaten"  # beaten and taken by the Leader, who made the bid
RETURNED = "returned"  # beaten, but the Leader failed: back to its owner
DOUBLE_MATCH = "double_match"  # matched the Ribs exactly: took the whole trick
TAKEN = "taken"  # taken by another seat's double match
FOLDED = "folded"  # played face down: discarded, seen by nobody else


class Phase(str, enum.Enum):
    """Where a match stands."""

    BIDDING = "bidding"
    PLAYING = "playing"
    OVER = "over"


class RibsOptions(GameOptions):
    """Options of a Ribs session."""

    target: int = Field(5, ge=1, le=99, description="Game points needed to win the session.")
    until_sole_winner: bool = Field(
        False,
        description="Play on until one player leads alone, instead of sharing the win"
        " when several reach the target on the same hand.",
    )


@dataclass(frozen=True, slots=True)
class Config:
    """What stays fixed for the whole match."""

    n: int
    target: int
    until_sole_winner: bool
    seed: int | str
    first_dealer: int
    decks: tuple[tuple[str, ...], ...]
    max_bid: int
    # the view memo of the match (not part of its value)
    views: ViewMemo = field(default_factory=ViewMemo, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Play:
    """One seat's two cards in a trick (rank indices, high first)."""

    seat: int
    pair: tuple[int, int]
    folded: bool


@dataclass(frozen=True, slots=True)
class TrickRecord:
    """A resolved trick: who led, what was bid, what became of every pair."""

    trick_number: int
    leader: int
    bid: int
    ribs: tuple[int, int]
    plays: tuple[Play, ...]
    results: tuple[str, ...]  # one per play
    captured: tuple[int, ...]  # points captured in this trick, per seat
    made: bool
    double_match: int  # seat, or -1
    beaten_points: int
    ribs_discarded: bool


@dataclass(frozen=True, slots=True)
class HandResult:
    """A finished hand: game points added, card points captured, points discarded."""

    hand_number: int
    dealer: int
    scores: tuple[int, ...]
    points: tuple[int, ...]
    discarded: int
    final_trick: TrickRecord


@dataclass(frozen=True, slots=True)
class DealRecord:
    """How one hand was dealt."""

    dealer: int
    deck: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]  # in the order received


@dataclass(slots=True)
class State:
    """The whole match. Never changed in place: ``apply`` copies it (``_evolve``) and sets
    only what the action changes; every field holds immutable values (tuples, records)."""

    cfg: Config
    phase: Phase
    hand_index: int
    dealer: int
    hands: tuple[tuple[int, ...], ...]  # per seat: count of each rank
    trick_number: int
    turn: int  # the seat that must act, -1 when over
    opener: int
    bids: tuple[tuple[int, int], ...]  # (seat, value); value 0 = pass
    high_bid: int  # 0 before the opening bid
    high_bidder: int
    passed: tuple[bool, ...]
    leader: int  # -1 while bidding
    ribs: tuple[int, int] | None
    plays: tuple[Play, ...]
    fold_used: tuple[bool, ...]
    points: tuple[int, ...]  # captured this hand
    won: tuple[tuple[int, ...], ...]  # captured cards this hand (rank indices)
    discard: tuple[int, ...]  # discarded cards this hand (rank indices)
    tricks: tuple[TrickRecord, ...]  # resolved tricks of this hand
    scores: tuple[int, ...]  # game points
    history: tuple[HandResult, ...]
    deals: tuple[DealRecord, ...]
    log: tuple  # this hand's moves (see server.rules.state)
    # Caches of the public view, filled on first use and never part of the state's value:
    # the public part is the same for every seat. ``view_base`` is the (sources, public view)
    # last built on this state or an ancestor: public values whose source fields are the same
    # objects are reused as they are, so that differs skip them by identity.
    public_cache: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    view_base: tuple[tuple[Any, ...], dict[str, Any]] | None = field(
        default=None, compare=False, repr=False
    )


_NEW = object.__new__


def _maker(cls: type) -> Any:
    """A constructor of the frozen dataclass ``cls`` taking its fields in order, several times
    cheaper than its ``__init__`` (which sets each field through ``object.__setattr__``): the
    fields are set on a plain twin class with the very same slots, which then becomes ``cls``
    by ``__class__`` assignment (Python allows it because the layouts are the same)."""
    twin = type(f"_Mutable{cls.__name__}", (), {"__slots__": cls.__slots__})
    probe = _NEW(twin)
    probe.__class__ = cls  # raises TypeError at import if the layouts ever differ
    names = [f.name for f in fields(cls)]
    body = "".join(f"    new.{n} = {n}\n" for n in names)
    src = f"def make({', '.join(names)}):\n    new = _new(_T)\n{body}    new.__class__ = _S\n    return new\n"
    scope = {"_new": _NEW, "_S": cls, "_T": twin}
    exec(src, scope)  # noqa: S102 - generated from the dataclass's own field names
    return scope["make"]


_trick_record = _maker(TrickRecord)
_hand_result = _maker(HandResult)
_deal_record = _maker(DealRecord)
_BIDDING = Phase.BIDDING
_PLAYING = Phase.PLAYING
_OVER = Phase.OVER


def _copy(state: State) -> State:
    """A shallow copy of ``state`` without its public view (the caller then sets what changes;
    the history's view stays, as it changes only with ``history``)."""
    new = _NEW(State)
    new.cfg = state.cfg
    new.phase = state.phase
    new.hand_index = state.hand_index
    new.dealer = state.dealer
    new.hands = state.hands
    new.trick_number = state.trick_number
    new.turn = state.turn
    new.opener = state.opener
    new.bids = state.bids
    new.high_bid = state.high_bid
    new.high_bidder = state.high_bidder
    new.passed = state.passed
    new.leader = state.leader
    new.ribs = state.ribs
    new.plays = state.plays
    new.fold_used = state.fold_used
    new.points = state.points
    new.won = state.won
    new.discard = state.discard
    new.tricks = state.tricks
    new.scores = state.scores
    new.history = state.history
    new.deals = state.deals
    new.log = state.log
    new.public_cache = None
    new.view_base = state.view_base
    return new


def _evolve(state: State, **changes: Any) -> State:
    """A shallow copy of ``state`` with ``changes`` set (cheaper than dataclasses.replace)."""
    new = _copy(state)
    for key, value in changes.items():
        setattr(new, key, value)
    return new


_FULL_DECKS: dict[int, tuple[str, ...]] = {}
# Per table size, per seat offset from the first to receive: picks its 8 cards from the deck.
_DEAL_PICKS: dict[int, tuple[Any, ...]] = {}


def _deal_pairs(deck: Sequence[str], n: int, first: int) -> tuple[tuple[str, ...], ...]:
    """Each seat's 8 cards in the order received, dealt two at a time clockwise from ``first``
    (exactly ``server.rules.cards.deal(deck, n, 8, first, packet=2)``)."""
    picks = _DEAL_PICKS.get(n)
    if picks is None:
        picks = _DEAL_PICKS[n] = tuple(
            itemgetter(*[2 * n * r + 2 * i + c for r in range(CARDS_PER_SEAT // 2) for c in (0, 1)])
            for i in range(n)
        )
    hands: list[Any] = [None] * n
    for i in range(n):
        hands[(first + i) % n] = picks[i](deck)
    return tuple(hands)


def _counts(cards: Sequence[str]) -> tuple[int, ...]:
    counts = [0] * 8
    for card in cards:
        counts[RANK_INDEX[card]] += 1
    return tuple(counts)


def _expand(counts: Sequence[int]) -> list[str]:
    out: list[str] = []
    for r, c in enumerate(counts):
        if c:
            out.extend([RANKS[r]] * c)
    return out


def _a_card(rank: str) -> str:
    return ("an " if rank in ("A", "8") else "a ") + rank


def _pair_points(pair: tuple[int, int]) -> int:
    return POINTS[pair[0]] + POINTS[pair[1]]


def _pair_cards(pair: tuple[int, int]) -> list[str]:
    return [RANKS[pair[0]], RANKS[pair[1]]]


# Every play there can be, built once (plays are immutable, so states share them):
# per seat, per fold (False, True), per ``8 * a + b`` for the pair (a, b) with a <= b.
_PLAYS: tuple[tuple[tuple[Play | None, ...], ...], ...] = tuple(
    tuple(
        tuple(Play(seat, (a, b), fold) if a <= b else None for a in range(8) for b in range(8))
        for fold in (False, True)
    )
    for seat in range(10)  # Ribs.max_players
)
# Per hand (count of each rank): its legal pairs as rank strings, in the canonical order.
_PAIR_CARDS: dict[tuple[int, ...], tuple[tuple[str, str], ...]] = {}
# Per highest bid: the opening bids' actions (templates: only copies leave).
_OPENING_BIDS: dict[int, tuple[dict[str, Any], ...]] = {}
_copy_dict = dict.copy


_PASS_MOVE = (("type", "pass"),)
_RIBS_MOVE = (("type", "ribs"), ("cards", None))
_FOLD_MOVE = (("type", "pair"), ("cards", None), ("fold", True))


def _pair_move(play: Play) -> tuple:
    """A pair as the log shows it: a folded pair's cards are nobody else's business."""
    if play.folded:
        return _FOLD_MOVE
    return (("type", "pair"), ("cards", tuple(_pair_cards(play.pair))), ("fold", False))


def _play(seat: int, a: int, b: int, fold: bool) -> Play:
    return _PLAYS[seat][fold][8 * a + b]  # type: ignore[return-value]


def _pair_cards_of(counts: tuple[int, ...]) -> tuple[tuple[str, str], ...]:
    pairs = _PAIR_CARDS.get(counts)
    if pairs is None:
        pairs = _PAIR_CARDS[counts] = tuple((RANKS[a], RANKS[b]) for a, b in _legal_pairs(counts))
    return pairs


def _opening_bids(max_bid: int) -> tuple[dict[str, Any], ...]:
    bids = _OPENING_BIDS.get(max_bid)
    if bids is None:
        bids = _OPENING_BIDS[max_bid] = tuple(
            {"type": "bid", "value": v} for v in range(MIN_OPENING_BID, max_bid + 1)
        )
    return bids


def _legal_pairs(counts: Sequence[int]) -> list[tuple[int, int]]:
    pairs = []
    for i in range(8):
        ci = counts[i]
        if not ci:
            continue
        if ci >= 2:
            pairs.append((i, i))
        for j in range(i + 1, 8):
            if counts[j]:
                pairs.append((i, j))
    return pairs


def resolve_trick(
    n: int, leader: int, bid: int, ribs: tuple[int, int], plays: Sequence[Play], trick_number: int
) -> TrickRecord:
    """Resolve a trick by the exact algorithm of RULES.md 1.5."""
    captured = [0] * n
    results = [FOLDED] * len(plays)
    lo, hi = ribs
    ribs_pts = POINTS[lo] + POINTS[hi]
    if lo > hi:
        lo, hi = hi, lo
    # lo: the Ribs' top card (a lower index is a higher rank)
    ribs_sorted = (lo, hi)
    for k, play in enumerate(plays):
        if play.pair == ribs_sorted and not play.folded:
            for m, other in enumerate(plays):
                if not other.folded:
                    results[m] = TAKEN
                    captured[play.seat] += _pair_points(other.pair)
            results[k] = DOUBLE_MATCH
            captured[play.seat] += ribs_pts
            return _trick_record(
                trick_number, leader, bid, ribs, tuple(plays), tuple(results), tuple(captured),
                False, play.seat, 0, False,
            )
    beaten_points = 0
    beaten: list[int] = []
    for k, play in enumerate(plays):
        if play.folded:
            continue
        a, b = play.pair
        # shares no rank with the Ribs and its top card is higher (a < lo implies a is no rib)
        if a < lo and b != lo and b != hi:
            results[k] = BEAT
            captured[play.seat] += POINTS[a] + POINTS[b]
        else:
            beaten.append(k)
            beaten_points += POINTS[a] + POINTS[b]
    made = beaten_points >= bid
    if made:
        captured[leader] += beaten_points + ribs_pts
        for k in beaten:
            results[k] = BEATEN
    else:
        for k in beaten:
            results[k] = RETURNED
            captured[plays[k].seat] += _pair_points(plays[k].pair)
    return _trick_record(
        trick_number, leader, bid, ribs, tuple(plays), tuple(results), tuple(captured),
        made, -1, beaten_points, not made,
    )


def _entries(
    records: tuple[Any, ...], old_records: tuple[Any, ...], old_entries: list[Any], build: Any
) -> list[Any]:
    """The view entries of ``records``, reusing the old entry of each record that is the same
    object at the same place in ``old_records``."""
    m = len(old_records)
    return [
        old_entries[i] if i < m and old_records[i] is rec else build(rec)
        for i, rec in enumerate(records)
    ]


def _trick_entry(rec: TrickRecord) -> dict[str, Any]:
    return _trick_dict(rec, False)


def _history_entry(h: HandResult) -> dict[str, Any]:
    return _hand_dict(h, False)


def _trick_dict(rec: TrickRecord, show_all: bool) -> dict[str, Any]:
    plays = []
    for play, result in zip(rec.plays, rec.results):
        plays.append(
            {
                "seat": play.seat,
                "cards": _pair_cards(play.pair) if show_all or not play.folded else None,
                "folded": play.folded,
                "result": result,
            }
        )
    return {
        "trick_number": rec.trick_number,
        "leader": rec.leader,
        "bid": rec.bid,
        "ribs": _pair_cards(rec.ribs),
        "plays": plays,
        "made": rec.made,
        "double_match": rec.double_match if rec.double_match >= 0 else None,
        "beaten_points": rec.beaten_points,
        "ribs_discarded": rec.ribs_discarded,
        "captured": list(rec.captured),
    }


def _hand_dict(h: HandResult, show_all: bool) -> dict[str, Any]:
    return {
        "hand_number": h.hand_number,
        "dealer": h.dealer,
        "scores": list(h.scores),
        "points": list(h.points),
        "discarded": h.discarded,
        "final_trick": _trick_dict(h.final_trick, show_all),
    }


class Ribs(Game):
    """Ribs: bid for the right to lay the Ribs, then beat, match or fold against them."""

    name = "ribs"
    title = "Ribs"
    seat_keys = ("hand", "legal", "my_face_down")
    min_players = 4
    max_players = 10
    default_players = 4
    summary = (
        "Bid before every double trick, lay two secret Ribs and capture the pairs they beat;"
        " most card points each hand earns a game point."
    )
    Options = RibsOptions

    # ---- setup ------------------------------------------------------------------------

    def new_game(
        self,
        players: int,
        options: Mapping[str, Any] | GameOptions | None = None,
        seed: int | str = 0,
        dealer: int = 0,
        decks: Sequence[Sequence[str]] | None = None,
    ) -> State:
        """Start a session and deal its first hand."""
        self.check_players(players)
        opts = self.parse_options(options)
        self.check_dealer(dealer, players)
        full = ribs_deck(players)
        stacked: list[tuple[str, ...]] = []
        for deck in decks or ():
            if isinstance(deck, str) or not isinstance(deck, Sequence):
                raise ValueError("each stacked deck must be a list of cards")
            stacked.append(tuple(check_deck(deck, full)))
        cfg = Config(
            n=players,
            target=opts.target,  # type: ignore[attr-defined]
            until_sole_winner=opts.until_sole_winner,  # type: ignore[attr-defined]
            seed=seed,
            first_dealer=dealer,
            decks=tuple(stacked),
            max_bid=TRICKS_PER_HAND * (players - 1),
        )
        zeros = (0,) * players
        base = State(
            cfg=cfg, phase=Phase.BIDDING, hand_index=-1, dealer=(dealer - 1) % players,
            hands=(), trick_number=1, turn=dealer, opener=dealer, bids=(), high_bid=0,
            high_bidder=-1, passed=(False,) * players, leader=-1, ribs=None, plays=(),
            fold_used=(False,) * players, points=zeros, won=((),) * players, discard=(),
            tricks=(), scores=zeros, history=(), deals=(), log=(),
        )
        return self._deal_next(base, base.scores, base.history)

    def _deal_next(
        self, state: State, scores: tuple[int, ...], history: tuple[HandResult, ...]
    ) -> State:
        cfg = state.cfg
        n = cfg.n
        index = state.hand_index + 1
        dealer = (state.dealer + 1) % n
        if index < len(cfg.decks):
            deck = list(cfg.decks[index])
        else:
            full = _FULL_DECKS.get(n)
            if full is None:
                full = _FULL_DECKS[n] = tuple(ribs_deck(n))
            deck = shuffled(full, hand_rng(cfg.seed, index))
        dealt = _deal_pairs(deck, n, (dealer + 1) % n)
        new = _copy(state)
        new.phase = _BIDDING
        new.hand_index = index
        new.dealer = dealer
        new.hands = tuple(map(_counts, dealt))
        new.trick_number = 1
        new.turn = new.opener = dealer
        new.bids = ()
        new.high_bid = 0
        new.high_bidder = -1
        new.passed = new.fold_used = (False,) * n
        new.leader = -1
        new.ribs = None
        new.plays = ()
        new.points = (0,) * n
        new.won = ((),) * n
        new.discard = ()
        new.tricks = ()
        new.scores = scores
        new.history = history
        new.deals = state.deals + (_deal_record(dealer, tuple(deck), dealt),)
        new.log = ()
        return new

    # ---- whose turn, what is legal ---------------------------------------------------

    def players(self, state: State) -> int:
        """The number of seats in this match."""
        return state.cfg.n

    def to_act(self, state: State) -> list[int]:
        """The one seat that must act now; [] when the session is over."""
        turn = state.turn
        return [] if turn < 0 else [turn]

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        """Every legal action of ``seat``, in a canonical order ([] when it need not act)."""
        turn = state.turn
        if seat != turn or turn < 0:
            return []
        if state.phase is _BIDDING:
            max_bid = state.cfg.max_bid
            if not state.bids:
                # fresh dicts of scalars: copies of the templates
                return list(map(_copy_dict, _OPENING_BIDS.get(max_bid) or _opening_bids(max_bid)))
            if state.high_bid < max_bid:
                return [{"type": "bid", "value": state.high_bid + 1}, {"type": "pass"}]
            return [{"type": "pass"}]
        hand = state.hands[seat]
        pairs = _PAIR_CARDS.get(hand) or _pair_cards_of(hand)
        if state.ribs is None:
            return [{"type": "ribs", "cards": [x, y]} for x, y in pairs]
        if state.fold_used[seat]:
            return [{"type": "pair", "cards": [x, y], "fold": False} for x, y in pairs]
        # each pair face up, then folded (a plain loop: cheaper than a nested comprehension)
        actions: list[Action] = []
        add = actions.append
        for x, y in pairs:
            add({"type": "pair", "cards": [x, y], "fold": False})
            add({"type": "pair", "cards": [x, y], "fold": True})
        return actions

    # ---- apply ---------------------------------------------------------------------------

    def apply(self, state: State, seat: int, action: Mapping[str, Any]) -> State:
        """The state after ``seat`` plays ``action``; ``state`` itself is unchanged."""
        turn = state.turn
        if seat != turn or turn < 0:
            self.require_turn(state, seat)
        if type(action) is dict:
            kind = action.get("type")
            if type(kind) is not str:
                kind = action_type(action)
        else:
            kind = action_type(action)
        if state.phase is _BIDDING:
            if kind == "bid":
                return self._bid(state, seat, action.get("value"))
            if kind == "pass":
                return self._pass(state, seat)
            raise IllegalAction(f"It is time to bid: you cannot '{kind}' now; bid or pass.")
        if state.ribs is None:
            if kind == "ribs":
                return self._lay_ribs(state, seat, self._parse_pair(state, seat, action))
            raise IllegalAction(
                f"You are the Leader: lay the Ribs (two cards face down), not '{kind}'."
            )
        if kind == "pair":
            fold = action.get("fold", False)
            if fold is None:
                fold = False
            elif fold is not False and fold is not True:
                raise IllegalAction("'fold' must be true or false.")
            pair = self._parse_pair(state, seat, action)
            if fold and state.fold_used[seat]:
                raise IllegalAction("You have already folded once this hand.")
            return self._play_pair(state, seat, pair, fold)
        raise IllegalAction(f"Play two cards with 'pair' (face up, or folded): not '{kind}'.")

    def _parse_pair(self, state: State, seat: int, action: Mapping[str, Any]) -> tuple[int, int]:
        cards = action.get("cards")
        if type(cards) is list and len(cards) == 2:
            c0, c1 = cards
            if type(c0) is str and type(c1) is str:
                a = RANK_INDEX.get(c0)
                b = RANK_INDEX.get(c1)
                if a is not None and b is not None:
                    if a > b:
                        a, b = b, a
                    hand = state.hands[seat]
                    if (hand[a] >= 2) if a == b else (hand[a] and hand[b]):
                        return (a, b)
        if not isinstance(cards, (list, tuple)) or len(cards) != 2:
            raise IllegalAction(f"'{action.get('type')}' needs 'cards': a list of 2 cards.")
        idx = []
        for card in cards:
            r = RANK_INDEX.get(card) if isinstance(card, str) else None
            if r is None:
                raise IllegalAction(
                    f"{card!r} is not a Ribs card: the ranks are A K Q J 10 9 8 7."
                )
            idx.append(r)
        a, b = min(idx), max(idx)
        hand = state.hands[seat]
        if a == b:
            if hand[a] < 2:
                raise IllegalAction(f"You do not hold two {RANKS[a]}s.")
        elif not hand[a] or not hand[b]:
            missing = RANKS[a] if not hand[a] else RANKS[b]
            raise IllegalAction(f"You do not hold {_a_card(missing)}.")
        return (a, b)

    def _bid(self, state: State, seat: int, value: object) -> State:
        if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
            raise IllegalAction("A bid needs a whole-number 'value'.")
        max_bid = state.cfg.max_bid
        if not state.bids:
            if not MIN_OPENING_BID <= value <= max_bid:
                raise IllegalAction(
                    f"The opening bid must be from {MIN_OPENING_BID} to {max_bid}."
                )
        elif value != state.high_bid + 1:
            raise IllegalAction(
                f"Bids must be exactly one more than the high bid of {state.high_bid}."
            )
        elif value > max_bid:
            raise IllegalAction(f"No bid may be above {max_bid}: you can only pass.")
        n = state.cfg.n
        passed = state.passed
        nxt = seat
        for k in range(1, n):
            t = (seat + k) % n
            if not passed[t]:
                nxt = t
                break
        new = _copy(state)
        new.bids = state.bids + ((seat, value),)
        new.high_bid = value  # type: ignore[assignment]
        new.high_bidder = seat
        new.turn = nxt
        new.log = (*state.log, (seat, (("type", "bid"), ("value", value))))
        return new

    def _pass(self, state: State, seat: int) -> State:
        if not state.bids:
            raise IllegalAction(
                f"You open the bidding and may not pass: bid at least {MIN_OPENING_BID}."
            )
        n = state.cfg.n
        passed = list(state.passed)
        passed[seat] = True
        new = _copy(state)
        new.bids = state.bids + ((seat, 0),)
        new.passed = tuple(passed)
        new.log = (*state.log, (seat, _PASS_MOVE))
        if passed.count(False) == 1:
            new.phase = _PLAYING
            new.leader = new.turn = state.high_bidder
            return new
        nxt = seat
        for k in range(1, n):
            t = (seat + k) % n
            if not passed[t]:
                nxt = t
                break
        new.turn = nxt
        return new

    def _remove(
        self, state: State, seat: int, pair: tuple[int, int]
    ) -> tuple[tuple[int, ...], ...]:
        hand = list(state.hands[seat])
        hand[pair[0]] -= 1
        hand[pair[1]] -= 1
        hands = list(state.hands)
        hands[seat] = tuple(hand)
        return tuple(hands)

    def _lay_ribs(self, state: State, seat: int, pair: tuple[int, int]) -> State:
        new = _copy(state)
        new.hands = self._remove(state, seat, pair)
        new.ribs = pair
        new.turn = (seat + 1) % state.cfg.n
        new.log = (*state.log, (seat, _RIBS_MOVE))
        return new

    def _play_pair(self, state: State, seat: int, pair: tuple[int, int], fold: bool) -> State:
        hands = self._remove(state, seat, pair)
        plays = state.plays + (_play(seat, pair[0], pair[1], fold),)
        fold_used = state.fold_used
        if fold:
            fu = list(fold_used)
            fu[seat] = True
            fold_used = tuple(fu)
        n = state.cfg.n
        if len(plays) < n - 1:
            new = _copy(state)
            new.hands = hands
            new.plays = plays
            new.fold_used = fold_used
            new.turn = (seat + 1) % n
            new.log = (*state.log, (seat, _pair_move(plays[-1])))
            return new
        assert state.ribs is not None
        rec = resolve_trick(n, state.leader, state.high_bid, state.ribs, plays, state.trick_number)
        return self._after_trick(state, hands, fold_used, rec)

    def _after_trick(
        self,
        state: State,
        hands: tuple[tuple[int, ...], ...],
        fold_used: tuple[bool, ...],
        rec: TrickRecord,
    ) -> State:
        n = state.cfg.n
        won = list(state.won)
        discard = state.discard
        ribs = rec.ribs
        for play, result in zip(rec.plays, rec.results):
            if result == FOLDED:
                discard += play.pair
            elif result == BEAT or result == RETURNED:
                won[play.seat] += play.pair
            elif result == BEATEN:
                won[rec.leader] += play.pair
            else:  # TAKEN or DOUBLE_MATCH
                won[rec.double_match] += play.pair
        if rec.double_match >= 0:
            won[rec.double_match] += ribs
        elif rec.made:
            won[rec.leader] += ribs
        else:
            discard += ribs
        points = tuple(map(add, state.points, rec.captured))
        tricks = state.tricks + (rec,)
        last = rec.plays[-1]
        took = rec.double_match if rec.double_match >= 0 else rec.leader if rec.made else None
        log = (*state.log, (last.seat, _pair_move(last), took))
        if rec.trick_number < TRICKS_PER_HAND:
            new = _copy(state)
            new.phase = _BIDDING
            new.hands = hands
            new.trick_number = rec.trick_number + 1
            new.turn = new.opener = rec.leader
            new.bids = ()
            new.high_bid = 0
            new.high_bidder = -1
            new.passed = (False,) * n
            new.leader = -1
            new.ribs = None
            new.plays = ()
            new.fold_used = fold_used
            new.points = points
            new.won = tuple(won)
            new.discard = discard
            new.tricks = tricks
            new.log = log
            return new
        best = max(points)
        gained = tuple(1 if p == best else 0 for p in points)
        scores = tuple(s + g for s, g in zip(state.scores, gained))
        result = _hand_result(
            state.hand_index + 1, state.dealer, gained, points, sum(POINTS[r] for r in discard),
            rec,
        )
        history = state.history + (result,)
        top = max(scores)
        if top >= state.cfg.target and (
            not state.cfg.until_sole_winner or scores.count(top) == 1
        ):
            return _evolve(
                state, phase=Phase.OVER, hands=hands, turn=-1, leader=-1, ribs=None, plays=(),
                bids=(), high_bid=0, high_bidder=-1, passed=(False,) * n,
                fold_used=fold_used, points=points, won=tuple(won), discard=discard,
                tricks=tricks, scores=scores, history=history, log=log,
            )
        return self._deal_next(state, scores, history)

    # ---- views ---------------------------------------------------------------------------

    def _history(self, state: State, show_all: bool) -> list[dict[str, Any]]:
        return [_hand_dict(h, show_all) for h in state.history]

    def _trick_now(self, state: State, show_all: bool) -> list[dict[str, Any]]:
        if state.ribs is None:
            return []
        out = [
            {
                "seat": state.leader,
                "cards": _pair_cards(state.ribs) if show_all else None,
                "ribs": True,
                "folded": False,
            }
        ]
        for play in state.plays:
            out.append(
                {
                    "seat": play.seat,
                    "cards": _pair_cards(play.pair) if show_all or not play.folded else None,
                    "ribs": False,
                    "folded": play.folded,
                }
            )
        return out

    def _shared_public(self, state: State) -> dict[str, Any]:
        """``_public(state, False)``, cached on ``state``. Values whose sources are the same
        objects as those of the last public view built on this state's ancestors are that
        view's values themselves (so differs skip them by identity), and finished tricks and
        hands keep their entries."""
        base = state.view_base
        if base is None:
            public = self._public(state, False)
        else:
            old_src, old = base
            cfg = state.cfg
            n = cfg.n
            phase = state.phase
            over = phase is _OVER
            turn = state.turn
            leader = state.leader
            ribs = state.ribs
            plays = state.plays
            history = state.history
            tricks = state.tricks
            if history is old_src[0]:
                history_v = old["history"]
            else:
                history_v = _entries(history, old_src[0], old["history"], _history_entry)
            if tricks is old_src[2]:
                tricks_v = old["tricks"]
                last_v = old["last_trick"]
            else:
                tricks_v = _entries(tricks, old_src[2], old["tricks"], _trick_entry)
                # its own object, not tricks_v[-1]: no value appears twice in one view
                last_v = _trick_dict(tricks[-1], False) if tricks else None
            public = {
                "game": "ribs",
                "players": n,
                "phase": phase.value,
                "step": (
                    "over" if over else "bidding" if phase is _BIDDING
                    else "ribs" if ribs is None else "pairs"
                ),
                "dealer": state.dealer,
                "to_act": (
                    old["to_act"] if turn == old_src[11] else [] if turn < 0 else [turn]
                ),
                "hand_counts": (
                    old["hand_counts"] if state.hands is old_src[7]
                    else [sum(h) for h in state.hands]
                ),
                "trick": (
                    old["trick"]
                    if plays is old_src[8] and ribs is old_src[9] and leader == old_src[10]
                    else self._trick_now(state, False)
                ),
                "trump": None,
                "scores": old["scores"] if state.scores is old_src[1] else list(state.scores),
                "game_points": (
                    old["game_points"] if state.scores is old_src[1] else list(state.scores)
                ),
                "target": cfg.target,
                "until_sole_winner": cfg.until_sole_winner,
                "history": history_v,
                "revealed": old["revealed"],
                "hand_number": state.hand_index + 1,
                "trick_number": state.trick_number,
                "opener": None if over else state.opener,
                "bids": (
                    old["bids"] if state.bids is old_src[3] else [
                        {"seat": s, "bid": v if v else None, "pass": not v}
                        for s, v in state.bids
                    ]
                ),
                "high_bid": state.high_bid or None,
                "high_bidder": state.high_bidder if state.high_bidder >= 0 else None,
                "min_bid": MIN_OPENING_BID,
                "max_bid": cfg.max_bid,
                "passed": old["passed"] if state.passed is old_src[4] else list(state.passed),
                "leader": leader if leader >= 0 else None,
                "bid": state.high_bid if leader >= 0 else None,
                "play_order": (
                    old["play_order"] if leader == old_src[10]
                    else [(leader + k) % n for k in range(n)] if leader >= 0 else []
                ),
                "fold_used": (
                    old["fold_used"] if state.fold_used is old_src[5]
                    else list(state.fold_used)
                ),
                "points": old["points"] if state.points is old_src[6] else list(state.points),
                "last_trick": last_v,
                "tricks": tricks_v,
                "log": cfg.views.log(state.log),
            }
        state.public_cache = public
        state.view_base = (
            (
                state.history, state.scores, state.tricks, state.bids, state.passed,
                state.fold_used, state.points, state.hands, state.plays, state.ribs,
                state.leader, state.turn,
            ),
            public,
        )
        return public

    def _public(self, state: State, show_all: bool) -> dict[str, Any]:
        """The part of the view every seat shares (show_all: with face-down cards too)."""
        history = self._history(state, show_all)
        cfg = state.cfg
        n = cfg.n
        over = state.phase is Phase.OVER
        last = state.tricks[-1] if state.tricks else None
        leader = state.leader if state.leader >= 0 else None
        return {
            "game": "ribs",
            "players": n,
            "phase": state.phase.value,
            "step": (
                "over" if over else "bidding" if state.phase is Phase.BIDDING
                else "ribs" if state.ribs is None else "pairs"
            ),
            "dealer": state.dealer,
            "to_act": [] if state.turn < 0 else [state.turn],
            "hand_counts": [sum(h) for h in state.hands],
            "trick": self._trick_now(state, show_all),
            "trump": None,
            "scores": list(state.scores),
            "game_points": list(state.scores),
            "target": cfg.target,
            "until_sole_winner": cfg.until_sole_winner,
            "history": history,
            "revealed": [],
            "hand_number": state.hand_index + 1,
            "trick_number": state.trick_number,
            "opener": None if over else state.opener,
            "bids": [
                {"seat": s, "bid": v if v else None, "pass": not v} for s, v in state.bids
            ],
            "high_bid": state.high_bid or None,
            "high_bidder": state.high_bidder if state.high_bidder >= 0 else None,
            "min_bid": MIN_OPENING_BID,
            "max_bid": cfg.max_bid,
            "passed": list(state.passed),
            "leader": leader,
            "bid": state.high_bid if leader is not None else None,
            "play_order": (
                [(state.leader + k) % n for k in range(n)] if leader is not None else []
            ),
            "fold_used": list(state.fold_used),
            "points": list(state.points),
            "last_trick": _trick_dict(last, show_all) if last is not None else None,
            "tricks": [_trick_dict(t, show_all) for t in state.tricks],
            "log": cfg.views.log(state.log),
        }

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (None = spectator): no other seat's cards, no hidden card."""
        if seat is not None and (
            isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.cfg.n
        ):
            seat = None
        # Views of one state share the public part's nested values: treat views as read-only.
        cached = state.public_cache
        if cached is None:
            cached = self._shared_public(state)
        v = dict(cached)
        if seat is None:
            v["hand"] = None
            v["legal"] = []
            v["my_face_down"] = []
            return v
        v["hand"] = _expand(state.hands[seat])
        v["legal"] = self.legal_actions(state, seat)
        mine: list[dict[str, Any]] = []
        for t in state.tricks:
            for play in t.plays:
                if play.folded and play.seat == seat:
                    mine.append(
                        {"trick_number": t.trick_number, "cards": _pair_cards(play.pair),
                         "fold": True}
                    )
        if state.ribs is not None:
            if state.leader == seat:
                mine.append(
                    {"trick_number": state.trick_number, "cards": _pair_cards(state.ribs),
                     "fold": False}
                )
            for play in state.plays:
                if play.folded and play.seat == seat:
                    mine.append(
                        {"trick_number": state.trick_number, "cards": _pair_cards(play.pair),
                         "fold": True}
                    )
        v["my_face_down"] = mine
        return v

    def full_view(self, state: State) -> dict[str, Any]:
        """Everything, every hand and every face-down card shown (replays of finished matches)."""
        v = self._public(state, True)
        v["hand"] = None
        v["legal"] = []
        v["hands"] = [_expand(h) for h in state.hands]
        v["won"] = [[RANKS[r] for r in pile] for pile in state.won]
        v["discard"] = [RANKS[r] for r in state.discard]
        v["ribs"] = _pair_cards(state.ribs) if state.ribs is not None else None
        return v

    # ---- results ---------------------------------------------------------------------------

    def outcome(self, state: State) -> dict[str, Any] | None:
        """None while the session goes on; then the game points and the co-winners."""
        if state.phase is not Phase.OVER:
            return None
        top = max(state.scores)
        return {
            "scores": list(state.scores),
            "winners": [s for s, v in enumerate(state.scores) if v == top],
        }

    def hand_records(self, state: State) -> list[dict[str, Any]]:
        """Each hand dealt so far: dealer, the deck and each seat's 8 cards, game points added."""
        out = []
        for i, d in enumerate(state.deals):
            h = state.history[i] if i < len(state.history) else None
            out.append(
                {
                    "dealer": d.dealer,
                    "deal": {"deck": list(d.deck), "hands": [list(x) for x in d.hands]},
                    "scores": list(h.scores) if h is not None else None,
                    "points": list(h.points) if h is not None else None,
                }
            )
        return out


GAME = Ribs()
