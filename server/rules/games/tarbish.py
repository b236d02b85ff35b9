"""Tarabish (Tarbish): four players in two partnerships, a 36-card deck, trumps, runs and bait.

The rules as implemented (RULES.md section 3):

- Four players; partners sit opposite. Team 0 is seats 0 and 2, team 1 is seats 1 and 3.
  The deck is 36 cards, ``6 7 8 9 10 J Q K A`` in each suit.
- Deal: three cards at a time, clockwise from eldest (the dealer's left), three times round.
  Each player sees only their first six cards; their third packet (cards 7-9) is the face-down
  kitty, unseen by everyone, its owner included, until trump is named. Later hands' dealer
  moves one seat clockwise.
- Naming trump: one round from eldest; each player names a suit or passes; the first suit
  named is trump and that player's team is the calling team. If the first three pass, the
  dealer must name a suit (no redeal). Then every player picks up their kitty.
- Declaring runs: before the opening lead, each player in turn from eldest either declares
  (only if they really hold a run) or passes (always allowed). A run is three or more cards of
  one suit in a row in natural order 6 7 8 9 10 J Q K A; exactly three is a "twenty" (20),
  four or more is a "fifty" (50; one sequence of 4+ counts once). Declaring announces the type
  of the player's best run. Declared players' best runs are compared by type (fifty beats
  twenty), then top card (A high), then a trump run beats a non-trump run; on an exact tie
  nobody scores runs. The single best player scores all of their own runs for their team (their
  partner's runs never count). When trick 1 is complete, the cards of those runs are shown to
  everyone.
- Bella: the player holding both K and Q of trump scores 20 for their team (no announcement).
- Play: eldest leads trick 1; the winner of a trick leads the next. Ranks high to low: trump
  J 9 A 10 K Q 8 7 6, plain suits A 10 K Q J 9 8 7 6. You must follow suit; when trumps are
  led you must head the trick (beat the highest trump in it) if you can; when void in the suit
  led you must trump, and overtrump if you can, otherwise undertrump; with neither the suit
  led nor a trump, any card. There is no exception when your partner is winning. A trick goes
  to the highest trump, else to the highest card of the suit led.
- Card points: trump J 20, 9 14, A 11, 10 10, K 4, Q 3; plain A 11, 10 10, K 4, Q 3, J 2.
  The last trick is worth 10, so 162 points are taken each hand.
- Hand total per team: card points + last trick + runs (if its player holds the best run)
  + bella. The callers make it when their total is strictly greater than the opponents';
  then both teams score their own totals. Otherwise they go bait: the callers score 0 and the
  opponents score both totals. A tie is whole bait, unless the ``half_bait`` option is on,
  when on a tie the callers score 0 and the opponents keep only their own total.
- Game: after any hand in which a team has reached ``target`` (default 500), the higher total
  wins the match; if the totals are exactly equal another hand is played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from operator import itemgetter
from typing import Any, NamedTuple

from pydantic import Field

from server.rules.cards import (
    SUIT_NAMES,
    SUIT_SINGULAR,
    SUITS,
    TARBISH_RANKS,
    card_name,
    check_deck,
    hand_rng,
    shuffled,
    tarbish_deck,
)
from server.rules.games.base import (
    Action,
    Game,
    GameOptions,
    IllegalAction,
    action_type,
)
from server.rules.state import ViewMemo
from server.rules.tricks import strength_map

PLAYERS = 4
HAND_SIZE = 9
KITTY_SIZE = 3
TRICKS = 9
LAST_TRICK_BONUS = 10
BELLA_POINTS = 20
TWENTY, FIFTY = 20, 50

TRUMP_ORDER = ("J", "9", "A", "10", "K", "Q", "8", "7", "6")
PLAIN_ORDER = ("A", "10", "K", "Q", "J", "9", "8", "7", "6")
NATURAL_ORDER = ("6", "7", "8", "9", "10", "J", "Q", "K", "A")  # low to high, for runs

TRUMP_RANK: dict[str, int] = strength_map(TRUMP_ORDER)
PLAIN_RANK: dict[str, int] = strength_map(PLAIN_ORDER)
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3}
PLAIN_POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}

DECK: tuple[str, ...] = tuple(tarbish_deck())
_DECK_SET = frozenset(DECK)
# Card -> precomputed facts, so the hot path never splits strings.
_SUIT: dict[str, str] = {c: c[-1] for c in DECK}
_TRUMP_STRENGTH: dict[str, int] = {c: TRUMP_RANK[c[:-1]] for c in DECK}
_TRUMP_PTS: dict[str, int] = {c: TRUMP_POINTS.get(c[:-1], 0) for c in DECK}
_PLAIN_PTS: dict[str, int] = {c: PLAIN_POINTS.get(c[:-1], 0) for c in DECK}
_NATURAL: dict[str, int] = {c: NATURAL_ORDER.index(c[:-1]) for c in DECK}
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}
# Display order: by suit S H D C, then A high to 6.
_SORT_KEY: dict[str, int] = {
    c: _SUIT_INDEX[c[-1]] * 10 + TARBISH_RANKS.index(c[:-1]) for c in DECK
}
_TRUMP_ACTIONS = tuple({"type": "trump", "suit": s} for s in SUITS)
_TRUMP_OR_PASS = (*_TRUMP_ACTIONS, {"type": "pass"})
_copy_dict = dict.copy
# Each move's public form, as the log keeps it (see server.rules.state).
_PLAY_MOVE = {card: (("type", "play"), ("card", card)) for card in DECK}
_PASS_MOVE = (("type", "pass"),)
_DECLARE_MOVE = (("type", "declare"),)
_TEAMS = [[0, 2], [1, 3]]  # the view's "teams": one shared constant (views are read-only)
# How a state differs from the one before it, for building its public view from that one's.
_DELTA_PLAY, _DELTA_PASS, _DELTA_DECLARE = 1, 2, 3


class Phase(str, Enum):
    """The stages of a Tarabish hand."""

    NAMING = "naming"  # naming trump, one round from eldest, dealer forced
    DECLARING = "declaring"  # one round of run declarations from eldest
    PLAYING = "playing"  # nine tricks
    OVER = "over"  # the match has ended


class Run(NamedTuple):
    """A run: three or more cards of one suit in a row in natural order."""

    points: int  # 20 (a twenty) or 50 (a fifty)
    top: int  # natural index of the top card, 0 = 6 ... 8 = A
    suit: str
    cards: tuple[str, ...]  # low to high


class TarbishOptions(GameOptions):
    """The options of a Tarabish match."""

    target: int = Field(
        500,
        ge=1,
        le=100000,
        description="Points a team needs to win the match (both past it: higher wins).",
    )
    half_bait: bool = Field(
        False,
        description=(
            "On an exact tie the callers score 0 and the opponents keep only their own points"
            " (default: a tie is whole bait)."
        ),
    )


@dataclass(frozen=True, slots=True)
class HandResult:
    """What one finished hand scored, per team."""

    dealer: int
    trump: str
    caller: int
    card_points: tuple[int, int]
    last_trick: tuple[int, int]
    runs: tuple[int, int]
    bella: tuple[int, int]
    totals: tuple[int, int]
    tricks_won: tuple[int, int]
    result: str  # "made", "bait" or "half_bait"
    added: tuple[int, int]  # what each team scored this hand
    run_winner: int | None
    bella_seat: int | None

    def to_json(self, number: int) -> dict[str, Any]:
        """This hand as a history entry of the view."""
        caller_team = self.caller % 2
        return {
            "hand": number,
            "dealer": self.dealer,
            "trump": self.trump,
            "caller": self.caller,
            "calling_team": caller_team,
            "teams": [
                {
                    "card_points": self.card_points[t],
                    "last_trick": self.last_trick[t],
                    "runs": self.runs[t],
                    "bella": self.bella[t],
                    "total": self.totals[t],
                    "tricks_won": self.tricks_won[t],
                    "scored": self.added[t],
                }
                for t in (0, 1)
            ],
            "made": self.result == "made",
            "bait": self.result != "made",
            "half_bait": self.result == "half_bait",
            "result": self.result,
            "run_winner": self.run_winner,
            "bella_seat": self.bella_seat,
            "team_scores": list(self.added),
            "scores": [self.added[s % 2] for s in range(PLAYERS)],
        }


@dataclass(frozen=True, slots=True)
class MatchInfo:
    """The slow-changing part of the match: options, deals, trump, runs, scores, history."""

    target: int
    half_bait: bool
    seed: int | str
    first_dealer: int
    decks: tuple[tuple[str, ...], ...]  # stacked decks, top first
    hand_index: int
    dealer: int
    deals: tuple[tuple[str, ...], ...]  # this hand: each seat's 9 cards as received
    trump: str | None
    caller: int | None
    runs: tuple[tuple[Run, ...], ...]  # each seat's runs, known once trump is named
    run_winner: int | None  # decided when the declarations are over
    bella_seat: int | None
    scores: tuple[int, int]
    history: tuple[HandResult, ...]
    past_deals: tuple[tuple[int, tuple[tuple[str, ...], ...]], ...]  # (dealer, deals) per hand
    winners: tuple[int, ...] | None
    views: ViewMemo  # the view memo of the match (not part of its value)
    # ``history`` as the view shows it, built once per hand and shared by every later view
    # (views are read-only), so a view costs the same late in a match as early.
    history_json: list = field(default_factory=list, compare=False, hash=False)
    # Cache (not part of the value; reset by every copy): the match-level parts of the public
    # view, shared by every state of this MatchInfo so the differ skips them by identity.
    _parts: tuple | None = field(default=None, compare=False, hash=False, repr=False)


@dataclass(frozen=True, slots=True)
class TarbishState:
    """The whole match. Immutable: every field is a tuple, a number, a string or None.

    Fields that change on every card live here; the rest sit in ``match`` so a play copies
    only a dozen slots.
    """

    match: MatchInfo
    phase: Phase
    turn: int
    hands: tuple[tuple[str, ...], ...]  # cards held face up, sorted for display
    kitties: tuple[tuple[str, ...], ...]  # face-down packets (empty once trump is named)
    declarations: tuple[tuple[int, int | None], ...]  # (seat, 20/50 or None for a pass)
    trick: tuple[tuple[int, str], ...]
    tricks_played: int
    tricks_won: tuple[int, int]
    points_taken: tuple[int, int]
    won: tuple[tuple[str, ...], tuple[str, ...]]  # cards each team has taken this hand
    last_trick: tuple[tuple[int, str], ...]
    last_winner: int | None
    log: tuple  # this hand's moves (see server.rules.state)
    # Caches (not part of the value; reset by every copy). ``_legal``: the turn seat's legal
    # cards when they took more than following a plain suit led, shared by ``legal_actions``
    # and ``apply``. ``_public``: the part of the view that is the same for every seat, built
    # once. ``_base``: (kind, the previous state's ``_public``) when this state differs from
    # it only in a few known keys.
    _legal: list[str] | None = field(default=None, compare=False, hash=False, repr=False)
    _public: dict[str, Any] | None = field(default=None, compare=False, hash=False, repr=False)
    _base: tuple[int, dict[str, Any]] | None = field(
        default=None, compare=False, hash=False, repr=False
    )


_MISSING: Any = object()


def _twin(cls: type) -> type:
    """A plain class with the very slots of the frozen dataclass ``cls``.

    Copies are built as a twin (plain attribute stores, no frozen ``__setattr__``: several
    times cheaper than ``object.__setattr__`` per field) and then become ``cls`` by
    ``__class__`` assignment, which Python allows because the two layouts are the same.
    """
    twin = type(f"_Mutable{cls.__name__}", (), {"__slots__": cls.__slots__})
    probe = object.__new__(twin)
    probe.__class__ = cls  # raises TypeError at import if the layouts ever differ
    return twin


def _make_evolve(cls: type, twin: type) -> Any:
    # dataclasses.replace re-runs __init__ with keyword checks: far too slow for bots that
    # simulate thousands of hands. This generated copier sets each slot once.
    # Fields named with a leading underscore are caches: a copy starts without them.
    names = [f.name for f in fields(cls) if not f.name.startswith("_")]
    caches = [f.name for f in fields(cls) if f.name.startswith("_")]
    params = ", ".join(f"{n}=_M" for n in names)
    body = "".join(f"    new.{n} = s.{n} if {n} is _M else {n}\n" for n in names)
    body += "".join(f"    new.{n} = None\n" for n in caches)
    doc = f"    \"\"\"A copy of a {cls.__name__} with the given fields changed.\"\"\"\n"
    src = (
        f"def evolve(s, *, {params}):\n{doc}    new = _new(_T)\n{body}"
        "    new.__class__ = _S\n    return new\n"
    )
    scope = {"_M": _MISSING, "_new": object.__new__, "_S": cls, "_T": twin}
    exec(src, scope)  # noqa: S102 - generated from the dataclass's own field names
    return scope["evolve"]


_MutableState = _twin(TarbishState)
_MutableMatch = _twin(MatchInfo)
_MutableHandResult = _twin(HandResult)
replace = _make_evolve(TarbishState, _MutableState)
replace_match = _make_evolve(MatchInfo, _MutableMatch)
_NO_RUNS: tuple[tuple[Run, ...], ...] = ((),) * PLAYERS
_NO_KITTIES: tuple[tuple[str, ...], ...] = ((),) * PLAYERS
_NAMING, _DECLARING, _PLAYING, _OVER = Phase.NAMING, Phase.DECLARING, Phase.PLAYING, Phase.OVER
_NEW = object.__new__
_SET = object.__setattr__
# Per trump suit, card -> strength for taking a trick: a trump is above _TRUMP_BASE (its
# trump rank on top), any other card its plain rank (it counts only in the suit led).
_TRUMP_BASE = 100
_STRENGTH: dict[str, dict[str, int]] = {
    t: {
        c: _TRUMP_BASE + _TRUMP_STRENGTH[c] if _SUIT[c] == t else PLAIN_RANK[c[:-1]]
        for c in DECK
    }
    for t in SUITS
}
# The deal, three at a time clockwise from ``first``, three times round: per ``first``, per
# seat, a getter of that seat's nine cards (in the order received) from the deck, top first.
_DEAL: tuple[tuple[Any, ...], ...] = tuple(
    tuple(
        itemgetter(
            *(
                12 * r + 3 * ((seat - first) % PLAYERS) + k
                for r in range(HAND_SIZE // 3)
                for k in range(3)
            )
        )
        for seat in range(PLAYERS)
    )
    for first in range(PLAYERS)
)



# Per trump suit, card -> card points.
_POINTS: dict[str, dict[str, int]] = {
    t: {c: _TRUMP_PTS[c] if _SUIT[c] == t else _PLAIN_PTS[c] for c in DECK} for t in SUITS
}


# ---- rules as plain functions -----------------------------------------------------------


def sort_cards(cards: Sequence[str]) -> tuple[str, ...]:
    """Cards in display order: spades, hearts, diamonds, clubs, each A high to 6."""
    return tuple(sorted(cards, key=_SORT_KEY.__getitem__))


def card_points(card: str, trump: str | None) -> int:
    """The card points of one card under ``trump``."""
    return _TRUMP_PTS[card] if _SUIT[card] == trump else _PLAIN_PTS[card]


def legal_cards(
    hand: Sequence[str], trick: Sequence[tuple[int, str]], trump: str | None
) -> list[str]:
    """The cards of ``hand`` that may be played to ``trick`` (follow, head, trump, overtrump)."""
    if not trick:
        return list(hand)
    led = trick[0][1][-1]
    same = [c for c in hand if c[-1] == led]
    if same and led != trump:
        return same
    trumps = same or [c for c in hand if c[-1] == trump]
    if not trumps:
        return list(hand)
    hi = 0  # the highest trump in the trick
    for _, card in trick:
        if card[-1] == trump and _TRUMP_STRENGTH[card] > hi:
            hi = _TRUMP_STRENGTH[card]
    over = [c for c in trumps if _TRUMP_STRENGTH[c] > hi]
    return over or trumps


def find_runs(cards: Sequence[str]) -> list[Run]:
    """Every maximal run in ``cards``: 3 in a row is a twenty (20), 4 or more a fifty (50).

    By suit (S H D C), each low to high; looked up per suit from the cards held as a bit mask.
    """
    masks = [0, 0, 0, 0]
    for c in cards:
        masks[_SUIT_I[c]] |= _NAT_BIT[c]
    return [*_RUNS[0][masks[0]], *_RUNS[1][masks[1]], *_RUNS[2][masks[2]], *_RUNS[3][masks[3]]]


def _scan_runs(cards: Sequence[str]) -> list[Run]:
    """``find_runs`` the plain way (it builds the lookup tables)."""
    runs: list[Run] = []
    by_suit: dict[str, list[int]] = {}
    for c in cards:
        by_suit.setdefault(_SUIT[c], []).append(_NATURAL[c])
    for suit in SUITS:
        idx = sorted(by_suit.get(suit, ()))
        start = 0
        for i in range(1, len(idx) + 1):
            if i == len(idx) or idx[i] != idx[i - 1] + 1:
                length = i - start
                if length >= 3:
                    seq = tuple(NATURAL_ORDER[k] + suit for k in idx[start:i])
                    runs.append(Run(FIFTY if length >= 4 else TWENTY, idx[i - 1], suit, seq))
                start = i
    return runs


_SUIT_I: dict[str, int] = {c: _SUIT_INDEX[c[-1]] for c in DECK}
_NAT_BIT: dict[str, int] = {c: 1 << _NATURAL[c] for c in DECK}
# Per suit index, per 9-bit mask of natural ranks held: that suit's runs.
_RUNS: tuple[tuple[tuple[Run, ...], ...], ...] = tuple(
    tuple(
        tuple(_scan_runs([NATURAL_ORDER[k] + suit for k in range(9) if mask >> k & 1]))
        for mask in range(1 << 9)
    )
    for suit in SUITS
)

# Per suit index, per 9-bit mask of natural ranks held: those cards in display order.
_SORTED: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(
        sort_cards([NATURAL_ORDER[k] + suit for k in range(9) if mask >> k & 1])
        for mask in range(1 << 9)
    )
    for suit in SUITS
)


# Card -> its bit in a 36-bit mask of cards held: suit index * 9 + natural index. The cards of
# a hand are distinct, so the sum of their bits is the mask (``sum(map(...))`` runs in C).
_BIT: dict[str, int] = {c: _NAT_BIT[c] << 9 * _SUIT_I[c] for c in DECK}
_bit = _BIT.__getitem__


def _sorted_and_runs(cards: Sequence[str]) -> tuple[tuple[str, ...], tuple[Run, ...]]:
    """``(sort_cards(cards), tuple(find_runs(cards)))`` from the cards' mask."""
    mask = sum(map(_bit, cards))
    m0, m1, m2, m3 = mask & 511, mask >> 9 & 511, mask >> 18 & 511, mask >> 27
    return (
        _SORTED[0][m0] + _SORTED[1][m1] + _SORTED[2][m2] + _SORTED[3][m3],
        _RUNS[0][m0] + _RUNS[1][m1] + _RUNS[2][m2] + _RUNS[3][m3],
    )


def run_key(run: Run, trump: str | None) -> tuple[int, int, bool]:
    """How a run compares: type, then top card, then trump beats non-trump."""
    return (run.points, run.top, run.suit == trump)


def best_run(runs: Sequence[Run], trump: str | None) -> Run | None:
    """A player's best run, or None without one."""
    return max(runs, key=lambda r: run_key(r, trump)) if runs else None


def compare_runs(best: Mapping[int, Run], trump: str | None) -> int | None:
    """The seat whose best run wins among declared seats, or None (nobody, or an exact tie)."""
    top_key = None
    winner: int | None = None
    tied = False
    for seat, run in best.items():
        key = run_key(run, trump)
        if top_key is None or key > top_key:
            top_key, winner, tied = key, seat, False
        elif key == top_key:
            tied = True
    return None if tied else winner


def bella_holder(hands: Sequence[Sequence[str]], trump: str) -> int | None:
    """The seat holding both K and Q of trump, if any."""
    king, queen = "K" + trump, "Q" + trump
    for seat, hand in enumerate(hands):
        if king in hand and queen in hand:
            return seat
    return None


def settle(caller_team: int, totals: Sequence[int], half_bait: bool) -> tuple[tuple[int, int], str]:
    """What each team scores from the hand totals: made, bait (whole) or half bait."""
    callers, opponents = totals[caller_team], totals[1 - caller_team]
    added = [0, 0]
    if callers > opponents:
        added = [totals[0], totals[1]]
        result = "made"
    elif callers == opponents and half_bait:
        added[1 - caller_team] = opponents
        result = "half_bait"
    else:
        added[1 - caller_team] = callers + opponents
        result = "bait"
    return (added[0], added[1]), result


def match_winner(scores: Sequence[int], target: int) -> int | None:
    """The winning team once a team has reached ``target`` and the totals differ, else None."""
    if max(scores) >= target and scores[0] != scores[1]:
        return 0 if scores[0] > scores[1] else 1
    return None


def _run_name(points: int | None) -> str | None:
    return None if points is None else ("fifty" if points == FIFTY else "twenty")


def _without(hands: tuple[tuple[str, ...], ...], seat: int, card: str) -> tuple:
    """``hands`` with ``card`` taken out of ``seat``'s hand (unpacked: cheaper than a list)."""
    hand = hands[seat]
    i = hand.index(card)
    hand = hand[:i] + hand[i + 1 :]
    h0, h1, h2, h3 = hands
    if seat == 0:
        return (hand, h1, h2, h3)
    if seat == 1:
        return (h0, hand, h2, h3)
    if seat == 2:
        return (h0, h1, hand, h3)
    return (h0, h1, h2, hand)


def _play_card(state: TarbishState, seat: int, card: str) -> TarbishState:
    """The state after ``seat`` plays ``card``, already checked legal."""
    hands = _without(state.hands, seat, card)
    trick = state.trick
    if len(trick) == PLAYERS - 1:  # the trick is complete
        return _finish_trick(state, hands, (*trick, (seat, card)))
    new = _NEW(_MutableState)
    new.match = state.match
    new.phase = _PLAYING
    new.turn = seat + 1 if seat < PLAYERS - 1 else 0
    new.hands = hands
    new.kitties = state.kitties
    new.declarations = state.declarations
    new.trick = (*trick, (seat, card))
    new.tricks_played = state.tricks_played
    new.tricks_won = state.tricks_won
    new.points_taken = state.points_taken
    new.won = state.won
    new.last_trick = state.last_trick
    new.last_winner = state.last_winner
    new.log = (*state.log, (seat, _PLAY_MOVE[card]))
    new._legal = new._public = None
    pub = state._public
    new._base = None if pub is None else (_DELTA_PLAY, pub)
    new.__class__ = TarbishState
    return new


def _copied(state: TarbishState) -> Any:
    """A mutable twin of ``state`` without its caches: set what changes, then make it a
    ``TarbishState`` by ``__class__`` assignment (what ``replace`` does, without keywords)."""
    new = _NEW(_MutableState)
    new.match = state.match
    new.phase = state.phase
    new.turn = state.turn
    new.hands = state.hands
    new.kitties = state.kitties
    new.declarations = state.declarations
    new.trick = state.trick
    new.tricks_played = state.tricks_played
    new.tricks_won = state.tricks_won
    new.points_taken = state.points_taken
    new.won = state.won
    new.last_trick = state.last_trick
    new.last_winner = state.last_winner
    new.log = state.log
    new._legal = new._public = new._base = None
    return new


def _copied_match(m: MatchInfo) -> Any:
    """A mutable twin of ``m`` (its view parts not copied), like ``_copied``."""
    match = _NEW(_MutableMatch)
    match.target = m.target
    match.half_bait = m.half_bait
    match.seed = m.seed
    match.first_dealer = m.first_dealer
    match.decks = m.decks
    match.hand_index = m.hand_index
    match.dealer = m.dealer
    match.deals = m.deals
    match.trump = m.trump
    match.caller = m.caller
    match.runs = m.runs
    match.run_winner = m.run_winner
    match.bella_seat = m.bella_seat
    match.scores = m.scores
    match.history = m.history
    match.past_deals = m.past_deals
    match.winners = m.winners
    match.views = m.views
    match.history_json = m.history_json
    match._parts = None
    return match


def _deal_hand(
    m: MatchInfo,
    index: int,
    dealer: int,
    scores: tuple[int, int],
    history: tuple[HandResult, ...],
    history_json: list,
) -> TarbishState:
    """Hand ``index`` dealt by ``dealer``, the match info ``m`` carried over with these
    scores and history."""
    if index < len(m.decks):
        deck: Sequence[str] = m.decks[index]
    else:
        deck = shuffled(DECK, hand_rng(m.seed, index))
    first = (dealer + 1) % PLAYERS
    get = _DEAL[first]
    deals = (get[0](deck), get[1](deck), get[2](deck), get[3](deck))
    match = _NEW(_MutableMatch)
    match.target = m.target
    match.half_bait = m.half_bait
    match.seed = m.seed
    match.first_dealer = m.first_dealer
    match.decks = m.decks
    match.hand_index = index
    match.dealer = dealer
    match.deals = deals
    match.trump = None
    match.caller = None
    match.runs = _NO_RUNS
    match.run_winner = None
    match.bella_seat = None
    match.scores = scores
    match.history = history
    match.past_deals = (*m.past_deals, (dealer, deals))
    match.winners = m.winners
    match.views = m.views
    match.history_json = history_json
    match._parts = None
    match.__class__ = MatchInfo
    new = _NEW(_MutableState)
    new.match = match
    new.phase = _NAMING
    new.turn = first
    new.hands = (
        sort_cards(deals[0][:6]),
        sort_cards(deals[1][:6]),
        sort_cards(deals[2][:6]),
        sort_cards(deals[3][:6]),
    )
    new.kitties = (deals[0][6:], deals[1][6:], deals[2][6:], deals[3][6:])
    new.declarations = ()
    new.trick = ()
    new.tricks_played = 0
    new.tricks_won = (0, 0)
    new.points_taken = (0, 0)
    new.won = ((), ())
    new.last_trick = ()
    new.last_winner = None
    new.log = ()
    new._legal = new._public = new._base = None
    new.__class__ = TarbishState
    return new


def _finish_trick(
    state: TarbishState, hands: tuple[tuple[str, ...], ...], trick: tuple[tuple[int, str], ...]
) -> TarbishState:
    """The state after the fourth card of a trick: the trick is taken (and maybe the hand)."""
    match = state.match
    trump = match.trump
    (s0, c0), (s1, c1), (s2, c2), (s3, c3) = trick
    led = c0[-1]
    # strength: trumps above everything, then the suit led, the rest 0
    strength = _STRENGTH[trump]  # type: ignore[index]
    winner, best = s0, strength[c0]
    k = strength[c1]
    if k > best and (k > _TRUMP_BASE or c1[-1] == led):
        winner, best = s1, k
    k = strength[c2]
    if k > best and (k > _TRUMP_BASE or c2[-1] == led):
        winner, best = s2, k
    k = strength[c3]
    if k > best and (k > _TRUMP_BASE or c3[-1] == led):
        winner = s3
    pts_of = _POINTS[trump]  # type: ignore[index]
    pts = pts_of[c0] + pts_of[c1] + pts_of[c2] + pts_of[c3]
    played = state.tricks_played + 1
    taken, won_count, won = state.points_taken, state.tricks_won, state.won
    if winner & 1:
        taken = (taken[0], taken[1] + pts)
        won_count = (won_count[0], won_count[1] + 1)
        won = (won[0], won[1] + (c0, c1, c2, c3))
    else:
        taken = (taken[0] + pts, taken[1])
        won_count = (won_count[0] + 1, won_count[1])
        won = (won[0] + (c0, c1, c2, c3), won[1])
    new = _NEW(_MutableState)
    new.match = match
    new.phase = _PLAYING
    new.turn = winner
    new.hands = hands
    new.kitties = state.kitties
    new.declarations = state.declarations
    new.trick = ()
    new.tricks_played = played
    new.tricks_won = won_count
    new.points_taken = taken
    new.won = won
    new.last_trick = trick
    new.last_winner = winner
    new.log = (*state.log, (s3, _PLAY_MOVE[c3], winner))
    new._legal = new._public = new._base = None
    new.__class__ = TarbishState
    if played < TRICKS:
        return new
    return GAME._finish_hand(new, winner % 2)


_DEFAULT_OPTIONS = TarbishOptions()  # only read


# ---- the engine -----------------------------------------------------------------------------


class Tarbish(Game):
    """Tarabish for four players in two partnerships."""

    name = "tarbish"
    title = "Tarabish (Tarbish)"
    seat_keys = ("hand", "legal")
    min_players = 4
    max_players = 4
    default_players = 4
    summary = (
        "Partnership trick-taking with a 36-card deck: name trump, declare runs, take 82 of 162 "
        "or go bait; first team to 500 wins."
    )
    Options = TarbishOptions

    # ---- setup ----------------------------------------------------------------------------

    def new_game(
        self,
        players: int = 4,
        options: Mapping[str, Any] | GameOptions | None = None,
        seed: int | str = 0,
        dealer: int = 0,
        decks: Sequence[Sequence[str]] | None = None,
    ) -> TarbishState:
        """Start a match and deal its first hand."""
        self.check_players(players)
        if options is None or options == {}:
            opts = _DEFAULT_OPTIONS
        else:
            opts = self.parse_options(options)
        self.check_dealer(dealer, PLAYERS)
        stacked: tuple[tuple[str, ...], ...] = ()
        if decks is not None:
            stacked = tuple(tuple(check_deck(d, DECK)) for d in decks)
        match = MatchInfo(
            target=opts.target,
            half_bait=opts.half_bait,
            seed=seed,
            first_dealer=dealer,
            decks=stacked,
            hand_index=-1,
            dealer=dealer,
            deals=(),
            trump=None,
            caller=None,
            runs=((),) * PLAYERS,
            run_winner=None,
            bella_seat=None,
            scores=(0, 0),
            history=(),
            past_deals=(),
            winners=None,
            views=ViewMemo(),
            history_json=[],
        )
        return _deal_hand(match, 0, dealer, (0, 0), (), [])

    def _deal(self, state: TarbishState, index: int, dealer: int) -> TarbishState:
        m = state.match
        return _deal_hand(m, index, dealer, m.scores, m.history, m.history_json)

    # ---- turns and legality -----------------------------------------------------------------

    def players(self, state: TarbishState) -> int:
        """Always four."""
        return PLAYERS

    def to_act(self, state: TarbishState) -> list[int]:
        """The one seat that must act now; [] when the match is over."""
        return [] if state.phase is _OVER else [state.turn]

    def legal_actions(self, state: TarbishState, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now, in a fixed order."""
        phase = state.phase
        if phase is _PLAYING:
            if seat != state.turn:
                return []
            hand = state.hands[seat]
            trick = state.trick
            if not trick:  # leading: any card
                return [{"type": "play", "card": c} for c in hand]
            led = trick[0][1][-1]
            trump = state.match.trump
            if led != trump:  # a plain suit led: follow it if you can (the common case)
                follow = [{"type": "play", "card": c} for c in hand if c[-1] == led]
                if follow:
                    return follow
            cards = state._legal
            if cards is None:
                # Trumps led, or void in the plain suit led: ``legal_cards`` without looking
                # for the suit led again. Play a trump, above every trump in the trick if you
                # can; holding no trump, any card.
                trumps = [c for c in hand if c[-1] == trump]
                if trumps:
                    hi = 0  # the highest trump in the trick
                    for _, c in trick:
                        if c[-1] == trump and _TRUMP_STRENGTH[c] > hi:
                            hi = _TRUMP_STRENGTH[c]
                    cards = [c for c in trumps if _TRUMP_STRENGTH[c] > hi] or trumps
                else:
                    cards = hand
                _SET(state, "_legal", cards)
            return [{"type": "play", "card": c} for c in cards]
        if phase is _OVER or seat != state.turn:
            return []
        # fresh dicts: copies of the templates
        if phase is _NAMING:
            if seat == state.match.dealer:  # forced to name a suit
                return list(map(_copy_dict, _TRUMP_ACTIONS))
            return list(map(_copy_dict, _TRUMP_OR_PASS))
        if state.match.runs[seat]:
            return [{"type": "declare"}, {"type": "pass"}]
        return [{"type": "pass"}]

    @staticmethod
    def _is_forced(state: TarbishState) -> bool:
        return state.turn == state.match.dealer

    # ---- applying actions ---------------------------------------------------------------

    def apply(self, state: TarbishState, seat: int, action: Mapping[str, Any]) -> TarbishState:
        """The state after ``seat`` plays ``action``; the given state is unchanged."""
        # The hot path: a legal card from the seat to act (anything else takes the checks
        # below, which give the reason).
        phase = state.phase
        if phase is _PLAYING and type(action) is dict and action.get("type") == "play":
            card = action.get("card")
            hand = state.hands[seat] if type(seat) is int and seat == state.turn else ()
            trick = state.trick
            if type(card) is str and card in hand and (
                not trick  # leading: any card
                # following a plain suit led is always legal
                or (card[-1] == trick[0][1][-1] and card[-1] != state.match.trump)
                or card in (state._legal or legal_cards(hand, trick, state.match.trump))
            ):
                return _play_card(state, seat, card)
        if phase is _OVER or type(seat) is not int or seat != state.turn:
            self.require_turn(state, seat)  # raises unless the seat is to act after all
        kind = action.get("type") if type(action) is dict else None
        if type(kind) is not str:
            kind = action_type(action)  # raises for anything but an action
        if phase is _PLAYING:
            if kind != "play":
                raise IllegalAction("The cards are being played: play a card.")
            return self._play(state, seat, action.get("card"))
        if phase is _NAMING:
            if kind == "trump":
                return self._name_trump(state, seat, action.get("suit"))
            if kind == "pass":
                if self._is_forced(state):
                    raise IllegalAction(
                        "The other three passed, so the dealer must name a trump suit."
                    )
                new = _copied(state)
                new.turn = (seat + 1) % PLAYERS
                new.log = (*state.log, (seat, _PASS_MOVE))
                if state._public is not None:
                    new._base = (_DELTA_PASS, state._public)
                new.__class__ = TarbishState
                return new
            raise IllegalAction("Trump has not been named yet: name a trump suit or pass.")
        # declaring
        if kind == "pass":
            return self._declare(state, seat, None)
        if kind == "declare":
            runs = state.match.runs[seat]
            if not runs:
                raise IllegalAction(
                    "You have no run to declare (three or more in a row in one suit)."
                )
            best = runs[0] if len(runs) == 1 else best_run(runs, state.match.trump)
            assert best is not None
            return self._declare(state, seat, best.points)
        raise IllegalAction("Runs are being declared: declare a run or pass.")

    def _name_trump(self, state: TarbishState, seat: int, suit: object) -> TarbishState:
        if not isinstance(suit, str) or suit not in _SUIT_INDEX:
            raise IllegalAction("Name a trump suit: 'S', 'H', 'D' or 'C'.")
        hands_, kitties = state.hands, state.kitties
        h0, r0 = _sorted_and_runs(hands_[0] + kitties[0])
        h1, r1 = _sorted_and_runs(hands_[1] + kitties[1])
        h2, r2 = _sorted_and_runs(hands_[2] + kitties[2])
        h3, r3 = _sorted_and_runs(hands_[3] + kitties[3])
        hands = (h0, h1, h2, h3)
        match = _copied_match(state.match)
        match.trump = suit
        match.caller = seat
        match.runs = (r0, r1, r2, r3)
        match.bella_seat = bella_holder(hands, suit)
        match.__class__ = MatchInfo
        new = _copied(state)
        new.match = match
        new.phase = _DECLARING
        new.turn = (match.dealer + 1) % PLAYERS
        new.hands = hands
        new.kitties = _NO_KITTIES
        new.log = (*state.log, (seat, (("type", "trump"), ("suit", suit))))
        new.__class__ = TarbishState
        return new

    def _declare(self, state: TarbishState, seat: int, points: int | None) -> TarbishState:
        declarations = state.declarations + ((seat, points),)
        new = _copied(state)
        new.declarations = declarations
        new.log = (*state.log, (seat, _PASS_MOVE if points is None else _DECLARE_MOVE))
        if len(declarations) < PLAYERS:
            new.turn = (seat + 1) % PLAYERS
            if state._public is not None:
                new._base = (_DELTA_DECLARE, state._public)
            new.__class__ = TarbishState
            return new
        m = state.match
        best = {s: best_run(m.runs[s], m.trump) for s, p in declarations if p is not None}
        winner = compare_runs(best, m.trump) if best else None  # type: ignore[arg-type]
        if winner is not None:  # else the match info stays as it is
            match = _copied_match(m)
            match.run_winner = winner
            match.__class__ = MatchInfo
            new.match = match
        new.phase = _PLAYING
        new.turn = (m.dealer + 1) % PLAYERS
        new.__class__ = TarbishState
        return new

    def _play(self, state: TarbishState, seat: int, card: object) -> TarbishState:
        hand = state.hands[seat]
        if not isinstance(card, str) or card not in _DECK_SET:
            raise IllegalAction(f"{card!r} is not a Tarabish card (like 'AS' or '10H').")
        if card not in hand:
            raise IllegalAction(f"You do not hold {card_name(card)}.")
        legal = legal_cards(hand, state.trick, state.match.trump)
        if card not in legal:
            raise IllegalAction(self._why_not(state, hand, card))
        return _play_card(state, seat, card)

    def _why_not(self, state: TarbishState, hand: Sequence[str], card: str) -> str:
        trump = state.match.trump
        led = _SUIT[state.trick[0][1]]
        has_led = any(_SUIT[c] == led for c in hand)
        if has_led and _SUIT[card] != led:
            return f"You must follow suit: you hold a {SUIT_SINGULAR[led]}."
        if has_led or any(_SUIT[c] == trump for c in hand):
            if _SUIT[card] != trump:
                return (
                    f"You must trump: you have no {SUIT_NAMES[led]} and you hold a "
                    f"{SUIT_SINGULAR[trump]} (trump)."  # type: ignore[index]
                )
            top = max(
                (c for _, c in state.trick if _SUIT[c] == trump), key=_TRUMP_STRENGTH.__getitem__
            )
            if led == trump:
                return f"You must head the trick: you hold a trump higher than {card_name(top)}."
            return f"You must overtrump: you hold a trump higher than {card_name(top)}."
        return f"You may not play {card_name(card)} now."

    def _finish_hand(self, state: TarbishState, last_team: int) -> TarbishState:
        m = state.match
        assert m.trump is not None and m.caller is not None
        last = (LAST_TRICK_BONUS, 0) if last_team == 0 else (0, LAST_TRICK_BONUS)
        runs = [0, 0]
        if m.run_winner is not None:
            runs[m.run_winner % 2] = self._run_points(state, m.run_winner)
        bella = [0, 0]
        if m.bella_seat is not None:
            bella[m.bella_seat % 2] = BELLA_POINTS
        taken = state.points_taken
        totals = (
            taken[0] + last[0] + runs[0] + bella[0],
            taken[1] + last[1] + runs[1] + bella[1],
        )
        added, result = settle(m.caller % 2, totals, m.half_bait)
        rec = _NEW(_MutableHandResult)
        rec.dealer = m.dealer
        rec.trump = m.trump
        rec.caller = m.caller
        rec.card_points = taken
        rec.last_trick = last
        rec.runs = (runs[0], runs[1])
        rec.bella = (bella[0], bella[1])
        rec.totals = totals
        rec.tricks_won = state.tricks_won
        rec.result = result
        rec.added = added
        rec.run_winner = m.run_winner
        rec.bella_seat = m.bella_seat
        rec.__class__ = HandResult
        scores = (m.scores[0] + added[0], m.scores[1] + added[1])
        history = (*m.history, rec)
        history_json = [*m.history_json, rec.to_json(len(history))]
        team = match_winner(scores, m.target)
        if team is not None:
            match = replace_match(
                m,
                scores=scores,
                history=history,
                history_json=history_json,
                winners=(team, team + 2),
            )
            return replace(state, match=match, phase=Phase.OVER)
        return _deal_hand(
            m, m.hand_index + 1, (m.dealer + 1) % PLAYERS, scores, history, history_json
        )

    @staticmethod
    def _run_points(state: TarbishState, seat: int | None) -> int:
        return 0 if seat is None else sum(r.points for r in state.match.runs[seat])

    # ---- what leaves the engine -------------------------------------------------------------

    def _revealed(self, state: TarbishState) -> list[dict[str, Any]]:
        if state.match.run_winner is None or state.tricks_played < 1:
            return []
        cards: list[str] = []
        for run in state.match.runs[state.match.run_winner]:
            cards.extend(run.cards)
        return [{"seat": state.match.run_winner, "cards": list(sort_cards(cards))}]

    def view(self, state: TarbishState, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see, JSON-able; None is a spectator.

        The part every seat sees alike is built once per state (``_public_view``) and each
        call returns a new top-level dict over it (nested values are shared: read-only).
        """
        view = dict(state._public or self._public_view(state))
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < PLAYERS:
            view["hand"] = list(state.hands[seat])
            view["legal"] = (
                self.legal_actions(state, seat)
                if seat == state.turn and state.phase is not _OVER
                else []
            )
        else:
            view["legal"] = []
        return view

    def _public_view(self, state: TarbishState) -> dict[str, Any]:
        """The view without ``hand`` (None) and ``legal`` ([]), cached on the state."""
        base = state._base
        if base is not None:
            kind, pub = base
            pub = dict(pub)
            turn = state.turn
            pub["to_act"] = [turn]
            if kind == _DELTA_PLAY:  # a card added to an unfinished trick
                hands = state.hands
                seat, card = state.trick[-1]
                pub["hand_counts"] = [
                    len(hands[0]), len(hands[1]), len(hands[2]), len(hands[3])
                ]
                pub["trick"] = [*pub["trick"], {"seat": seat, "card": card}]
            elif kind == _DELTA_DECLARE:  # one more declaration, the round not over
                seat, points = state.declarations[-1]
                pub["declarations"] = [
                    *pub["declarations"], {"seat": seat, "run": _run_name(points)}
                ]
            # _DELTA_PASS (trump not named yet): only the turn moved
            pub["log"] = state.match.views.log(state.log)
            _SET(state, "_base", None)
            _SET(state, "_public", pub)
            return pub
        match = state.match
        parts = match._parts or self._match_parts(match)
        phase = state.phase
        over = phase is _OVER
        shown = match.run_winner is not None and state.tricks_played >= 1
        hands, kitties = state.hands, state.kitties
        pub = {
            "phase": phase.value,
            "dealer": match.dealer,
            "eldest": (match.dealer + 1) % PLAYERS,
            "to_act": [] if over else [state.turn],
            "hand": None,
            "hand_counts": [len(hands[s]) + len(kitties[s]) for s in range(PLAYERS)],
            "kitty_count": [len(k) for k in kitties],
            "trick": [{"seat": s, "card": c} for s, c in state.trick],
            "leader": (
                (state.trick[0][0] if state.trick else state.turn)
                if phase is _PLAYING
                else None
            ),
            "trump": match.trump,
            "caller": match.caller,
            "calling_team": None if match.caller is None else match.caller % 2,
            "declarations": [
                {"seat": s, "run": _run_name(p)} for s, p in state.declarations
            ],
            "run_winner": match.run_winner if shown else None,
            "run_points": self._run_points(state, match.run_winner) if shown else 0,
            "revealed": self._revealed(state),
            "tricks_played": state.tricks_played,
            "tricks_won": list(state.tricks_won),
            "points_taken": list(state.points_taken),
            "last_trick": (
                {
                    "cards": [{"seat": s, "card": c} for s, c in state.last_trick],
                    "winner": state.last_winner,
                }
                if state.last_trick
                else None
            ),
            "scores": parts[0],
            "team_scores": parts[1],
            "teams": _TEAMS,
            "target": match.target,
            "half_bait": match.half_bait,
            "hand_number": match.hand_index + 1,
            "history": match.history_json,
            "legal": [],
            "winners": parts[2],
            "log": match.views.log(state.log),
        }
        _SET(state, "_base", None)
        _SET(state, "_public", pub)
        return pub

    @staticmethod
    def _match_parts(match: MatchInfo) -> tuple:
        """The view's lists that change only with the match info, built once per MatchInfo."""
        scores = match.scores
        parts = (
            [scores[0], scores[1], scores[0], scores[1]],
            [scores[0], scores[1]],
            list(match.winners) if match.winners is not None else None,
        )
        _SET(match, "_parts", parts)
        return parts

    def full_view(self, state: TarbishState) -> dict[str, Any]:
        """The spectator view plus every hand, kitty and taken card (for replays)."""
        view = self.view(state, None)
        # every card each seat holds, the face-down kitty included (matches hand_counts)
        view["hands"] = [list(sort_cards(h + k)) for h, k in zip(state.hands, state.kitties)]
        view["kitties"] = [list(k) for k in state.kitties]  # still face down
        view["won"] = [list(w) for w in state.won]
        view["deal"] = [list(d) for d in state.match.deals]
        view["bella_seat"] = state.match.bella_seat if state.match.trump is not None else None
        view["runs"] = [
            [{"run": _run_name(r.points), "cards": list(r.cards)} for r in runs]
            for runs in state.match.runs
        ]
        view["run_winner"] = state.match.run_winner
        return view

    def outcome(self, state: TarbishState) -> dict[str, Any] | None:
        """None until the match is over; then the final scores per seat and the winning seats."""
        if state.match.winners is None:
            return None
        s = state.match.scores
        return {"scores": [s[0], s[1], s[0], s[1]], "winners": list(state.match.winners)}

    def hand_records(self, state: TarbishState) -> list[dict[str, Any]]:
        """Every hand dealt so far: dealer, each seat's six cards and kitty, and per-seat scores."""
        records = []
        for i, (dealer, deals) in enumerate(state.match.past_deals):
            result = state.match.history[i] if i < len(state.match.history) else None
            records.append(
                {
                    "dealer": dealer,
                    "deal": {
                        "hands": [list(d[:6]) for d in deals],
                        "kitties": [list(d[6:]) for d in deals],
                    },
                    "trump": result.trump if result else None,
                    "caller": result.caller if result else None,
                    "scores": [result.added[s % 2] for s in range(PLAYERS)] if result else None,
                }
            )
        return records


GAME = Tarbish()
