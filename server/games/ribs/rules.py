"""Ribs, for 4 to 10 players, each playing alone: the rules this engine enforces, in full.

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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from operator import add, itemgetter
from typing import Any, ClassVar, NamedTuple

from pydantic import Field

from server.rules.cards import bare_deck, hand_rng, shuffled
from server.rules.game import (
    Action,
    Game,
    GameError,
    GameOptions,
    Sections,
    Setup,
    action_type,
    shared_action,
    shared_actions,
)
from server.rules.state import State, ViewMemo, log_entries, log_json

RIBS_RANKS: tuple[str, ...] = ("A", "K", "Q", "J", "10", "9", "8", "7")


def ribs_deck(players: int) -> list[str]:
    """The Ribs deck: one run A K Q J 10 9 8 7 (bare ranks) per player."""
    return bare_deck(RIBS_RANKS, players)


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


_BIDDING, _PLAYING, _OVER = Phase.BIDDING, Phase.PLAYING, Phase.OVER
MAX_TARGET = 30


class RibsOptions(GameOptions):
    """Options of a Ribs session."""

    # Sessions are played to 5. At 10 seats each game point takes ~700 actions, so the
    # longest session (30) stays near 20,000 actions, and so does its replay.
    target: int = Field(5, ge=1, le=MAX_TARGET, description="Game points needed to win the session.")
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


@dataclass(frozen=True, slots=True)
class Play:
    """One seat's two cards in a trick (rank indices, high first)."""

    seat: int
    pair: tuple[int, int]
    folded: bool


class TrickRecord(NamedTuple):
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


class HandResult(NamedTuple):
    """A finished hand: game points added, card points captured, points discarded."""

    hand_number: int
    dealer: int
    scores: tuple[int, ...]
    points: tuple[int, ...]
    discarded: int
    final_trick: TrickRecord


class DealRecord(NamedTuple):
    """How one hand was dealt."""

    dealer: int
    deck: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]  # in the order received


class RibsState(State):
    """The whole match (``server.rules.state``): every field an immutable value; ``apply``
    returns a fresh clone, never changing the one it is given."""

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
    log: tuple  # this hand's moves, a chain (see server.rules.state)
    views: ViewMemo


# Every play there can be, built once (plays are immutable, so states share them):
# per seat, per fold (False, True), per ``8 * a + b`` for the pair (a, b) with a <= b.
_PLAYS: tuple[tuple[tuple[Play | None, ...], ...], ...] = tuple(
    tuple(
        tuple(Play(seat, (a, b), fold) if a <= b else None for a in range(8) for b in range(8))
        for fold in (False, True)
    )
    for seat in range(10)  # Ribs.max_players
)
_FULL_DECKS: dict[int, tuple[str, ...]] = {}
# Per table size, per seat offset from the first to receive: picks its 8 cards from the deck.
_DEAL_PICKS: dict[int, tuple[Any, ...]] = {}
# Per hand (count of each rank): the pairs it holds (a table that only grows: at most one
# entry per way of holding 8 cards of 8 ranks, 6,435).
_HELD_PAIRS: dict[tuple[int, ...], Any] = {}
# Each move's public form, as the log keeps it (see server.rules.state).
_PASS_MOVE = (("type", "pass"),)
_RIBS_MOVE = (("type", "ribs"), ("cards", None))
_FOLD_MOVE = (("type", "pair"), ("cards", None), ("fold", True))
_MOST_BID = TRICKS_PER_HAND * (10 - 1)  # the max_bid of the largest table (Ribs.max_players)
_BID_MOVE = tuple((("type", "bid"), ("value", v)) for v in range(_MOST_BID + 1))
# The bids and the pass legal_actions offers, one shared object each (games.base); the
# pairs' actions are below.
_BID_ACTIONS = tuple(shared_actions("bid", "value", range(_MOST_BID + 1)).values())  # v at v
_PASS_ACTION = shared_action(type="pass")


# ---- rules as plain functions -----------------------------------------------------------


def bid_values(state: RibsState) -> range:
    """The bids the seat to act may make: any opening from 2 up to the most a trick can
    yield, after that exactly one more than the high bid (never above that most)."""
    max_bid = state.cfg.max_bid
    if not state.bids:
        return _OPENING_BIDS[max_bid]
    raise_to = state.high_bid + 1
    return _RAISES[raise_to] if raise_to <= max_bid else _NO_BIDS


# The ranges bid_values returns, made once (ranges are immutable, and a bid step asks twice):
# per max_bid the openings, per bid the raise.
_OPENING_BIDS = tuple(range(MIN_OPENING_BID, m + 1) for m in range(_MOST_BID + 1))
_RAISES = tuple(range(v, v + 1) for v in range(_MOST_BID + 1))
_NO_BIDS = range(0)


def may_pass(state: RibsState) -> bool:
    """Anyone may pass while bidding, except the opener before the opening bid."""
    return bool(state.bids)


class HeldPairs:
    """The pairs one hand (count of each rank) holds: each distinct pair once, high first,
    and the actions that play them (``_RIBS_ACTIONS``, ``_PAIR_ACTIONS``) in that order.
    (Read on every pair step: slots, docs/decisions/0003.)"""

    __slots__ = ("either", "face_up", "ranks", "ribs")

    def __init__(self, ranks: list[tuple[int, int]]) -> None:
        codes = [8 * a + b for a, b in ranks]
        self.ranks: frozenset[tuple[int, int]] = frozenset(ranks)  # (a, b) rank indices, a <= b
        self.ribs: tuple[Action, ...] = tuple(map(_RIBS_ACTIONS.__getitem__, codes))  # as the Ribs
        self.face_up: tuple[Action, ...] = tuple(map(_PAIR_ACTIONS[False].__getitem__, codes))
        # each pair face up, then folded
        self.either: tuple[Action, ...] = tuple(chain.from_iterable(map(_EITHER_ACTIONS.__getitem__, codes)))


def held_pairs(counts: tuple[int, ...]) -> HeldPairs:
    """The pairs ``counts`` holds: two different ranks held, or one rank held twice."""
    pairs = _HELD_PAIRS.get(counts)
    if pairs is None:
        held = [r for r, count in enumerate(counts) if count]
        ranks = [(a, b) for i, a in enumerate(held) for b in held[i:] if a != b or counts[a] > 1]
        pairs = _HELD_PAIRS[counts] = HeldPairs(ranks)
    return pairs


# Every pair's actions, one shared object each (games.base), per ``8 * a + b`` (a <= b):
# legal_actions offers the same few dozen again and again, and a new dict and list per
# pair offered would be made and freed on every step (the pairs held are listed once per
# hand's counts, ``_HELD_PAIRS``; docs/decisions/0003).
_RIBS_ACTIONS = tuple(shared_action(type="ribs", cards=[RANKS[k // 8], RANKS[k % 8]]) for k in range(64))
_PAIR_ACTIONS = tuple(
    tuple(shared_action(type="pair", cards=[RANKS[k // 8], RANKS[k % 8]], fold=fold) for k in range(64))
    for fold in (False, True)
)
_EITHER_ACTIONS = tuple(zip(*_PAIR_ACTIONS, strict=True))  # per 8 * a + b: face up, then folded


def _next_in(passed: Sequence[bool], seat: int) -> int:
    """The first seat after ``seat``, clockwise, that has not passed (``seat`` if none)."""
    for t in _AFTER[len(passed)][seat]:
        if not passed[t]:
            return t
    return seat


# Per table size, per seat: the other seats clockwise from its left (made once, not a range
# and a modulo per call).
_AFTER = tuple(tuple(tuple((s + k) % n for k in range(1, n)) for s in range(n)) for n in range(11))


def _deal_pairs(deck: Sequence[str], n: int, first: int) -> tuple[tuple[str, ...], ...]:
    """Each seat's 8 cards in the order received, dealt two at a time clockwise from ``first``
    (exactly ``server.rules.cards.deal(deck, n, 8, first, packet=2)``)."""
    picks = _DEAL_PICKS.get(n)
    if picks is None:
        picks = _DEAL_PICKS[n] = tuple(
            itemgetter(*[2 * n * r + 2 * i + c for r in range(CARDS_PER_SEAT // 2) for c in (0, 1)]) for i in range(n)
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


# Per fold (False, True), per 8 * a + b: a pair as the log shows it. A folded pair's cards
# are nobody else's business. (Made once, not built per pair.)
_PAIR_MOVES: tuple[tuple[tuple, ...], ...] = (
    tuple((("type", "pair"), ("cards", (RANKS[ab // 8], RANKS[ab % 8])), ("fold", False)) for ab in range(64)),
    (_FOLD_MOVE,) * 64,
)


def _pair_move(play: Play) -> tuple:
    """A pair as the log shows it (``_PAIR_MOVES``)."""
    return _PAIR_MOVES[play.folded][8 * play.pair[0] + play.pair[1]]


def _double_match(
    n: int, leader: int, bid: int, ribs: tuple[int, int], plays: Sequence[Play], trick_number: int
) -> TrickRecord | None:
    """A pair equal to the Ribs takes the Ribs and every pair not folded; None when none is."""
    ribs_sorted = (min(ribs), max(ribs))  # a lower index is a higher rank
    for k, play in enumerate(plays):
        if play.pair == ribs_sorted and not play.folded:
            captured = [0] * n
            results = [FOLDED] * len(plays)
            for m, other in enumerate(plays):
                if not other.folded:
                    results[m] = TAKEN
                    captured[play.seat] += _pair_points(other.pair)
            results[k] = DOUBLE_MATCH
            captured[play.seat] += POINTS[ribs[0]] + POINTS[ribs[1]]
            record = (tuple(plays), tuple(results), tuple(captured), False, play.seat, 0, False)
            return TrickRecord(trick_number, leader, bid, ribs, *record)
    return None


def resolve_trick(
    n: int, leader: int, bid: int, ribs: tuple[int, int], plays: Sequence[Play], trick_number: int
) -> TrickRecord:
    """Resolve a trick as the module's "Resolution" states: a double match first, then pair by pair."""
    double = _double_match(n, leader, bid, ribs, plays, trick_number)
    if double is not None:
        return double
    captured = [0] * n
    results = [FOLDED] * len(plays)
    ribs_pts = POINTS[ribs[0]] + POINTS[ribs[1]]
    lo, hi = min(ribs), max(ribs)  # lo: the Ribs' top card (a lower index is a higher rank)
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
    record = (tuple(plays), tuple(results), tuple(captured), made, -1, beaten_points, not made)
    return TrickRecord(trick_number, leader, bid, ribs, *record)


def _trick_dict(rec: TrickRecord, show_all: bool) -> dict[str, Any]:
    plays = []
    for play, result in zip(rec.plays, rec.results, strict=True):
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


def _bid_json(bid: tuple[int, int]) -> dict[str, Any]:
    seat, value = bid
    return {"seat": seat, "bid": value if value else None, "pass": not value}


def _why_not_bid(state: RibsState, value: object) -> str:
    """Why ``value`` is no bid the seat to act may make (``why_illegal`` found it is none)."""
    if type(value) is not int:  # (bools are ints but no bids)
        return "A bid needs a whole-number 'value'."
    max_bid = state.cfg.max_bid
    if not state.bids:
        return f"The opening bid must be from {MIN_OPENING_BID} to {max_bid}."
    if value != state.high_bid + 1:
        return f"Bids must be exactly one more than the high bid of {state.high_bid}."
    return f"No bid may be above {max_bid}: you can only pass."


# Every two ranks, in either order -> their rank indices, low index (high rank) first.
_PAIR_OF: dict[tuple[str, str], tuple[int, int]] = {
    (x, y): (min(i, j), max(i, j)) for i, x in enumerate(RANKS) for j, y in enumerate(RANKS)
}


def _pair_of(cards: object) -> tuple[int, int] | None:
    """The ranks of a two-card list, low index (high rank) first, or None if it is none.
    (One look-up in ``_PAIR_OF``: it runs twice a pair played, docs/decisions/0003.)"""
    if isinstance(cards, list) and len(cards) == 2:
        c0, c1 = cards
        if type(c0) is str and type(c1) is str:
            return _PAIR_OF.get((c0, c1))
    return None


def _why_not_pair(hand: tuple[int, ...], action: Mapping[str, Any]) -> str | None:
    """Why the action's ``cards`` are no pair this hand holds, or None when they are."""
    cards = action.get("cards")
    if _pair_of(cards) in (_HELD_PAIRS.get(hand) or held_pairs(hand)).ranks:
        return None
    if not isinstance(cards, (list, tuple)) or len(cards) != 2:
        return f"'{action.get('type')}' needs 'cards': a list of 2 cards."
    for card in cards:
        if not isinstance(card, str) or card not in RANK_INDEX:
            return f"{card!r} is not a Ribs card: the ranks are A K Q J 10 9 8 7."
    a, b = sorted(RANK_INDEX[c] for c in cards)
    if a == b:
        return f"You do not hold two {RANKS[a]}s."
    return f"You do not hold {_a_card(RANKS[a] if not hand[a] else RANKS[b])}."


def _why_not_in_play(state: RibsState, seat: int, kind: str, action: Mapping[str, Any]) -> str | None:
    """``why_illegal`` once the Leader is known: the Ribs, then every other seat's pair."""
    if state.ribs is None:
        if kind != "ribs":
            return f"You are the Leader: lay the Ribs (two cards face down), not '{kind}'."
        return _why_not_pair(state.hands[seat], action)
    if kind != "pair":
        return f"Play two cards with 'pair' (face up, or folded): not '{kind}'."
    fold = action.get("fold")
    if fold is not None and fold is not False and fold is not True:
        return "'fold' must be true or false."
    problem = _why_not_pair(state.hands[seat], action)
    if problem is None and fold and state.fold_used[seat]:
        return "You have already folded once this hand."
    return problem


# ---- deriving the next state ---------------------------------------------------------------


def _new_hand(state: RibsState, scores: tuple[int, ...], history: tuple[HandResult, ...]) -> RibsState:
    """The next hand dealt (by the next dealer), the session's scores and history carried."""
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
    # A new hand resets nearly every field: cloned and set (docs/decisions/0003).
    new = state.clone()
    new.phase, new.hand_index, new.dealer, new.trick_number = _BIDDING, index, dealer, 1
    new.hands = tuple(map(_counts, dealt))
    new.turn = new.opener = dealer
    new.bids, new.high_bid, new.high_bidder, new.leader = (), 0, -1, -1
    new.passed = new.fold_used = (False,) * n
    new.ribs, new.plays, new.discard, new.tricks, new.log = None, (), (), (), ()
    new.points, new.won, new.scores, new.history = (0,) * n, ((),) * n, scores, history
    new.deals = state.deals + (DealRecord(dealer, tuple(deck), dealt),)
    return new


def _without(hands: tuple[tuple[int, ...], ...], seat: int, a: int, b: int) -> tuple:
    """``hands`` with the pair ``a``, ``b`` taken out of ``seat``'s hand."""
    hand = list(hands[seat])
    hand[a] -= 1
    hand[b] -= 1
    changed = list(hands)  # the seat's hand, one pair fewer
    changed[seat] = tuple(hand)
    return tuple(changed)


def _lay_ribs(state: RibsState, seat: int, a: int, b: int) -> RibsState:
    new = state.clone()
    new.hands = _without(state.hands, seat, a, b)
    new.ribs = (a, b)
    new.turn = (seat + 1) % state.cfg.n
    new.log = (state.log, seat, _RIBS_MOVE)
    return new


def _play_pair(state: RibsState, seat: int, a: int, b: int, fold: bool) -> RibsState:
    hands = _without(state.hands, seat, a, b)
    play = _PLAYS[seat][fold][8 * a + b]
    assert play is not None  # _pair_of gives the low index first: a <= b
    plays = state.plays + (play,)  # (+: ~300 less than unpacking)
    fold_used = state.fold_used
    if fold:
        changed = list(fold_used)
        changed[seat] = True
        fold_used = tuple(changed)
    n = state.cfg.n
    if len(plays) < n - 1:
        new = state.clone()
        new.hands = hands
        new.plays = plays
        new.fold_used = fold_used
        new.turn = (seat + 1) % n
        new.log = (state.log, seat, _PAIR_MOVES[fold][8 * a + b])
        return new
    ribs: Any = state.ribs  # laid before any pair
    rec = resolve_trick(n, state.leader, state.high_bid, ribs, plays, state.trick_number)
    return _after_trick(state, hands, fold_used, rec)


def _piles(state: RibsState, rec: TrickRecord) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Each seat's capture pile and the discard once ``rec``'s cards have gone their ways."""
    won = list(state.won)
    discard = state.discard
    for play, result in zip(rec.plays, rec.results, strict=True):
        if result == FOLDED:
            discard += play.pair
        elif result in (BEAT, RETURNED):
            won[play.seat] += play.pair
        elif result == BEATEN:
            won[rec.leader] += play.pair
        else:  # TAKEN or DOUBLE_MATCH
            won[rec.double_match] += play.pair
    if rec.double_match >= 0:
        won[rec.double_match] += rec.ribs
    elif rec.made:
        won[rec.leader] += rec.ribs
    else:
        discard += rec.ribs
    return tuple(won), discard


def _after_trick(
    state: RibsState, hands: tuple[tuple[int, ...], ...], fold_used: tuple[bool, ...], rec: TrickRecord
) -> RibsState:
    """The trick resolved: the next trick's bidding, or the hand scored."""
    won, discard = _piles(state, rec)
    n = state.cfg.n
    last = rec.trick_number == TRICKS_PER_HAND
    took = rec.double_match if rec.double_match >= 0 else rec.leader if rec.made else None
    # The trick's end changes most fields: cloned and set (docs/decisions/0003).
    after = state.clone()
    after.hands, after.fold_used, after.won, after.discard = hands, fold_used, won, discard
    after.points = tuple(map(add, state.points, rec.captured))
    after.tricks = state.tricks + (rec,)
    after.bids, after.high_bid, after.high_bidder, after.passed = (), 0, -1, (False,) * n
    after.leader, after.ribs, after.plays, after.phase = -1, None, (), _BIDDING
    after.trick_number = rec.trick_number + (not last)
    after.turn = after.opener = rec.leader
    after.log = (state.log, rec.plays[-1].seat, _pair_move(rec.plays[-1]), took)
    return _finish_hand(after, rec) if last else after


def _finish_hand(state: RibsState, rec: TrickRecord) -> RibsState:
    """Game points to the most card points; the session ends or the next hand is dealt."""
    points = state.points
    best = max(points)
    gained = tuple(1 if p == best else 0 for p in points)
    scores = tuple(map(add, state.scores, gained))
    result = HandResult(
        state.hand_index + 1,
        state.dealer,
        gained,
        points,
        sum(POINTS[r] for r in state.discard),
        rec,
    )
    history = (*state.history, result)
    top = max(scores)
    cfg = state.cfg
    if top >= cfg.target and (not cfg.until_sole_winner or scores.count(top) == 1):
        return state.evolve(phase=_OVER, turn=-1, scores=scores, history=history)
    return _new_hand(state, scores, history)


class Ribs(Game):
    """Ribs: bid for the right to lay the Ribs, then beat, match or fold against them."""

    action_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "bid": ("value",),
        "pass": (),
        "ribs": ("cards",),
        "pair": ("cards", "fold"),
    }

    name = "ribs"
    title = "Ribs"
    short_title = "Ribs"
    phases: ClassVar[Sections] = {
        "bidding": "bidding-before-every-trick",
        "playing": "the-trick",
        "over": "hand-and-game",
    }
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

    def deck(self, options: GameOptions, players: int) -> Sequence[str]:
        """One run A K Q J 10 9 8 7 a player, ranks without suits."""
        return ribs_deck(players)

    def start(self, setup: Setup) -> RibsState:
        """Start a session and deal its first hand."""
        players, options, dealer = setup.players, setup.options, setup.dealer
        cfg = Config(
            n=players,
            target=options.target,  # type: ignore[attr-defined]
            until_sole_winner=options.until_sole_winner,  # type: ignore[attr-defined]
            seed=setup.seed,
            first_dealer=dealer,
            decks=setup.decks,
            max_bid=TRICKS_PER_HAND * (players - 1),
        )
        zeros = (0,) * players
        before = RibsState(
            cfg=cfg,
            phase=_BIDDING,
            hand_index=-1,
            dealer=(dealer - 1) % players,
            hands=(),
            trick_number=1,
            turn=dealer,
            opener=dealer,
            bids=(),
            high_bid=0,
            high_bidder=-1,
            passed=(False,) * players,
            leader=-1,
            ribs=None,
            plays=(),
            fold_used=(False,) * players,
            points=zeros,
            won=((),) * players,
            discard=(),
            tricks=(),
            scores=zeros,
            history=(),
            deals=(),
            log=(),
            views=ViewMemo(),
        )
        return _new_hand(before, zeros, ())

    # ---- whose turn, what is legal ---------------------------------------------------

    def players(self, state: RibsState) -> int:
        """The number of seats in this match."""
        return state.cfg.n

    def to_act(self, state: RibsState) -> list[int]:
        """The one seat that must act now; [] when the session is over."""
        turn = state.turn
        return [] if turn < 0 else [turn]

    def legal_actions(self, state: RibsState, seat: int) -> list[Action]:
        """Every legal action of ``seat``, in a canonical order ([] when it need not act)."""
        turn = state.turn
        if seat != turn or turn < 0:
            return []
        if state.phase is _BIDDING:
            values = bid_values(state)  # a range of step 1: a slice of the shared bids
            actions: list[Action] = list(_BID_ACTIONS[values.start : values.stop])
            if may_pass(state):
                actions.append(_PASS_ACTION)
            return actions
        hand = state.hands[seat]
        pairs = _HELD_PAIRS.get(hand) or held_pairs(hand)
        if state.ribs is None:
            return list(pairs.ribs)
        return list(pairs.face_up if state.fold_used[seat] else pairs.either)

    def why_illegal(self, state: RibsState, seat: int, action: Any) -> str | None:
        """Why ``seat`` may not play ``action`` now (a sentence), or None when it may: the
        engine's one legality check, which ``apply`` raises with (``check_legal``)."""
        turn = state.turn
        kind = action.get("type") if isinstance(action, dict) else None
        try:
            if seat != turn or turn < 0:
                self.require_turn(state, seat)
            if type(kind) is not str:
                kind = action_type(action)
        except GameError as err:
            return str(err)
        if state.phase is not _BIDDING:
            return _why_not_in_play(state, seat, kind, action)  # type: ignore[arg-type]
        if kind == "bid":
            value = action.get("value")
            if type(value) is int and value in bid_values(state):  # (bools are no bids)
                return None
            return _why_not_bid(state, value)  # (only then: the call costs more than the test)
        if kind != "pass":
            return f"It is time to bid: you cannot '{kind}' now; bid or pass."
        if may_pass(state):
            return None
        return f"You open the bidding and may not pass: bid at least {MIN_OPENING_BID}."

    # ---- apply ---------------------------------------------------------------------------

    def apply(self, state: RibsState, seat: int, action: Mapping[str, Any]) -> RibsState:
        """The state after ``seat`` plays ``action``; ``state`` itself is unchanged."""
        if self.why_illegal(state, seat, action) is not None:
            self.check_legal(state, seat, action)  # raises, saying why
        kind = action["type"]
        if kind == "pair":
            a, b = _pair_of(action["cards"])  # type: ignore[misc]
            return _play_pair(state, seat, a, b, action.get("fold") is True)
        if kind == "bid":  # (the bid written here: a call on every bid costs more)
            value = action["value"]
            new = state.clone()
            new.bids = state.bids + ((seat, value),)
            new.high_bid, new.high_bidder = value, seat
            new.turn = _next_in(state.passed, seat)
            new.log = (state.log, seat, _BID_MOVE[value])
            return new
        if kind == "pass":  # (written here too)
            changed = list(state.passed)
            changed[seat] = True
            new = state.clone()
            new.bids = state.bids + ((seat, 0),)
            new.passed = passed = tuple(changed)
            new.log = (state.log, seat, _PASS_MOVE)
            if passed.count(False) == 1:  # the high bidder leads
                new.phase = _PLAYING
                new.leader = new.turn = state.high_bidder
            else:
                new.turn = _next_in(passed, seat)
            return new
        a, b = _pair_of(action["cards"])  # type: ignore[misc]
        return _lay_ribs(state, seat, a, b)

    # ---- views ---------------------------------------------------------------------------

    def _trick_now(self, state: RibsState, show_all: bool) -> list[dict[str, Any]]:
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

    def _public(self, state: RibsState, show_all: bool, memo: ViewMemo | None = None) -> dict[str, Any]:
        """The part of the view every seat shares (show_all: with face-down cards too).

        With the match's view memo, every nested value whose source did not change is the
        last view's very object (differs skip it by identity), and finished tricks and
        hands keep their entries.
        """
        part = _built if memo is None else memo.part
        grown = _listed if memo is None else memo.grown
        cfg, phase, leader = state.cfg, state.phase, state.leader
        n = cfg.n
        over = phase is _OVER
        return {
            "game": "ribs",
            "players": n,
            "phase": phase.value,
            "step": _step(state),
            "dealer": state.dealer,
            "to_act": part("to_act", state.turn, lambda turn: [] if turn < 0 else [turn]),
            "hand_counts": part("hand_counts", state.hands, lambda hs: [sum(h) for h in hs]),
            "trick": part(
                "trick",
                (state.plays, state.ribs, leader),
                lambda _: self._trick_now(state, show_all),
            ),
            "trump": None,
            "scores": part("scores", state.scores, list),
            "game_points": part("game_points", state.scores, list),
            "target": cfg.target,
            "until_sole_winner": cfg.until_sole_winner,
            "history": grown("history", state.history, lambda h: _hand_dict(h, show_all)),
            "revealed": part("revealed", None, lambda _: []),
            "hand_number": state.hand_index + 1,
            "trick_number": state.trick_number,
            "opener": None if over else state.opener,
            "bids": grown("bids", state.bids, _bid_json),
            "high_bid": state.high_bid or None,
            "high_bidder": state.high_bidder if state.high_bidder >= 0 else None,
            "min_bid": MIN_OPENING_BID,
            "max_bid": cfg.max_bid,
            "passed": part("passed", state.passed, list),
            "leader": leader if leader >= 0 else None,
            "bid": state.high_bid if leader >= 0 else None,
            "play_order": part(
                "play_order",
                leader,
                lambda lead: [(lead + k) % n for k in range(n)] if lead >= 0 else [],
            ),
            "fold_used": part("fold_used", state.fold_used, list),
            "points": part("points", state.points, list),
            # its own object, not the last of "tricks": no value appears twice in one view
            "last_trick": part(
                "last_trick",
                state.tricks,
                lambda tricks: _trick_dict(tricks[-1], show_all) if tricks else None,
            ),
            "tricks": grown("tricks", state.tricks, lambda t: _trick_dict(t, show_all)),
            "log": _log_view(state.log, memo),
        }

    def take_back_marks(self, state: RibsState, seat: int) -> tuple[tuple[Any, ...], Sequence[Any]]:
        """The fixed keys of the public view (no seat's differ here) and ``seat``'s hand."""
        return self.fixed_marks(state, state.views.part(("hand", seat), state.hands[seat], _expand))

    def view(self, state: RibsState, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (None = spectator): no other seat's cards, no hidden card."""
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.cfg.n):
            seat = None
        # Views of one state share the public part's nested values: treat views as read-only.
        memo = state.views
        v = dict(memo.public(state, lambda s: self._public(s, False, memo)))
        if seat is None:
            v["hand"] = None
            v["legal"] = []
            v["my_face_down"] = []
            return v
        v["hand"] = memo.part(("hand", seat), state.hands[seat], _expand)
        v["legal"] = self.legal_actions(state, seat)
        v["my_face_down"] = _face_down(state, seat)
        return v

    def full_view(self, state: RibsState, memo: ViewMemo | None = None) -> dict[str, Any]:
        """Everything, every hand and every face-down card shown (replays of finished matches)."""
        v = self._public(state, True, memo)
        v["hand"] = None
        v["legal"] = []
        v["hands"] = [_expand(h) for h in state.hands]
        v["won"] = [[RANKS[r] for r in pile] for pile in state.won]
        v["discard"] = [RANKS[r] for r in state.discard]
        v["ribs"] = _pair_cards(state.ribs) if state.ribs is not None else None
        return v

    def full_views(self, states: Iterable[RibsState]) -> Iterator[dict[str, Any]]:
        """Full views of a match's consecutive states through one memo of their own (never the
        match's, whose parts hide cards), so each finished hand's entry is built once."""
        memo = ViewMemo()
        for each in states:
            yield self.full_view(each, memo)

    # ---- results ---------------------------------------------------------------------------

    def outcome(self, state: RibsState) -> dict[str, Any] | None:
        """None while the session goes on; then the game points and the co-winners."""
        if state.phase is not _OVER:
            return None
        top = max(state.scores)
        return {
            "scores": list(state.scores),
            "winners": [s for s, v in enumerate(state.scores) if v == top],
        }

    def hand_records(self, state: RibsState) -> list[dict[str, Any]]:
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


def _log_view(log: tuple, memo: ViewMemo | None) -> list[dict[str, Any]]:
    """The view's ``log``: through the match's memo, or built whole (``full_view``)."""
    if memo is not None:
        return memo.log(log)
    return [log_json(entry) for entry in log_entries(log)]


def _step(state: RibsState) -> str:
    """Where the hand stands: "bidding", then "ribs" (the Leader lays them), "pairs", "over"."""
    if state.phase is _OVER:
        return "over"
    if state.phase is _BIDDING:
        return "bidding"
    return "ribs" if state.ribs is None else "pairs"


def _built(key: object, source: Any, build: Any) -> Any:
    """``ViewMemo.part`` without a memo: always built."""
    return build(source)


def _listed(key: object, source: Sequence[Any], item: Any) -> list[Any]:
    """``ViewMemo.grown`` without a memo: always built."""
    return [item(x) for x in source]


def _face_down(state: RibsState, seat: int) -> list[dict[str, Any]]:
    """The cards ``seat`` laid face down this hand (folds, and its Ribs while in play)."""
    mine: list[dict[str, Any]] = []
    for t in state.tricks:
        for play in t.plays:
            if play.folded and play.seat == seat:
                mine.append({"trick_number": t.trick_number, "cards": _pair_cards(play.pair), "fold": True})
    if state.ribs is not None:
        if state.leader == seat:
            mine.append({"trick_number": state.trick_number, "cards": _pair_cards(state.ribs), "fold": False})
        for play in state.plays:
            if play.folded and play.seat == seat:
                mine.append({"trick_number": state.trick_number, "cards": _pair_cards(play.pair), "fold": True})
    return mine
