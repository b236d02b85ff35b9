"""Tarabish (Tarbish): four players in two partnerships, a 36-card deck, trumps, runs and bait.

The rules this engine enforces, in full:

- Four players; partners sit opposite. Team 0 is seats 0 and 2, team 1 is seats 1 and 3.
  The deck is 36 cards, ``6 7 8 9 10 J Q K A`` in each suit.
- Deal: three cards at a time, clockwise from eldest (the dealer's left), three times round.
  Each player sees only their first six cards; their third packet (cards 7-9) is the face-down
  kitty, unseen by everyone, its owner included, until trump is named. Later hands' dealer
  moves one seat clockwise.
- Naming trump: one round from eldest; each player names a suit or passes; the first suit
  named is trump and that player's team is the calling team. If the first three pass, the
  dealer must name a suit (no redeal). Then every player picks up their kitty.
- Option ``no_trump`` (default off): whoever may name trump may also call no trump (a
  ``trump`` action with suit ``"N"``). Every suit is then plain (A 10 K Q J 9 8 7 6, card
  points A 11, 10 10, K 4, Q 3, J 2: 120, and 130 with the last trick), players follow suit or
  play anything, nobody scores bella, and equal best runs score for nobody (no trump
  tie-break). The view's ``trump`` is then null and its ``no_trump`` true.
- Option ``dealer_forced`` (default on): with it off, a dealer whose three others passed may
  pass too; the hand is thrown in (nobody scores, no history entry) and the next dealer deals
  a new hand. After three thrown-in hands in a row the next dealer must name trump.
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
from enum import Enum
from functools import partial
from operator import itemgetter
from typing import Any, ClassVar, NamedTuple

from pydantic import Field

from server.rules.cards import (
    SUITS,
    card_code,
    card_name,
    hand_rng,
    shuffled,
    suited_deck,
)
from server.rules.game import (
    Action,
    Game,
    GameError,
    GameOptions,
    Sections,
    Setup,
    Teams,
    action_type,
    shared_action,
    shared_actions,
)
from server.rules.state import State, ViewMemo
from server.rules.tricks import Ranks, TrickPlay, strength_map, trick_winner, trump_duty, why_not_trump

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
RANKS = Ranks(PLAIN_ORDER, TRUMP_ORDER)  # card -> strength, for legality and trick winners
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "10": 10, "K": 4, "Q": 3}
PLAIN_POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2}

RANKS_36: tuple[str, ...] = ("A", "K", "Q", "J", "10", "9", "8", "7", "6")
DECK: tuple[str, ...] = tuple(suited_deck(RANKS_36))  # the 36-card deck
_DECK_SET = frozenset(DECK)
_NATURAL: dict[str, int] = {c: NATURAL_ORDER.index(c[:-1]) for c in DECK}
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}
# Display order: by suit S H D C, then A high to 6.
_SORT_KEY: dict[str, int] = {c: _SUIT_INDEX[c[-1]] * 10 + RANKS_36.index(c[:-1]) for c in DECK}
# Per trump suit, card -> card points.
_POINTS: dict[str | None, dict[str, int]] = {
    t: {c: TRUMP_POINTS.get(c[:-1], 0) if c[-1] == t else PLAIN_POINTS.get(c[:-1], 0) for c in DECK}
    for t in (*SUITS, None)  # None: no trump, every card plain
}
# The actions legal_actions offers, one shared object each (server.rules.game).
NO_TRUMP = "N"  # the ``suit`` of a no-trump call
_TRUMP_ACTIONS = tuple(shared_actions("trump", "suit", SUITS).values())
_NO_TRUMP_ACTIONS = tuple(shared_actions("trump", "suit", (*SUITS, NO_TRUMP)).values())
MAX_THROW_INS = 3  # thrown-in hands in a row after which the next dealer is forced
_DECLARE_ACTION = shared_action(type="declare")
_PASS_ACTION = shared_action(type="pass")
_PLAY_ACTION = shared_actions("play", "card", DECK)
_play_action = _PLAY_ACTION.__getitem__
# Each move's public form, as the log keeps it (see server.rules.state).
_PLAY_MOVE = {card: (("type", "play"), ("card", card)) for card in DECK}
_PASS_MOVE = (("type", "pass"),)
_DECLARE_MOVE = (("type", "declare"),)
_TRUMP_MOVE = {suit: (("type", "trump"), ("suit", suit)) for suit in (*SUITS, NO_TRUMP)}
_TEAMS = [[0, 2], [1, 3]]  # the view's "teams": one shared constant (views are read-only)
_NOT_SHOWN = ()  # the source of ``revealed`` while no run is shown
# The deal, three at a time clockwise from ``first``, three times round: per ``first``, per
# seat, a getter of that seat's nine cards (in the order received) from the deck, top first.
_DEAL: tuple[tuple[Any, ...], ...] = tuple(
    tuple(
        itemgetter(*(12 * r + 3 * ((seat - first) % PLAYERS) + k for r in range(HAND_SIZE // 3) for k in range(3)))
        for seat in range(PLAYERS)
    )
    for first in range(PLAYERS)
)


class Phase(str, Enum):
    """The stages of a Tarabish hand."""

    NAMING = "naming"  # naming trump, one round from eldest, dealer forced
    DECLARING = "declaring"  # one round of run declarations from eldest
    PLAYING = "playing"  # nine tricks
    OVER = "over"  # the match has ended


_NAMING, _DECLARING, _PLAYING, _OVER = Phase.NAMING, Phase.DECLARING, Phase.PLAYING, Phase.OVER


class Run(NamedTuple):
    """A run: three or more cards of one suit in a row in natural order."""

    points: int  # 20 (a twenty) or 50 (a fifty)
    top: int  # natural index of the top card, 0 = 6 ... 8 = A
    suit: str
    cards: tuple[str, ...]  # low to high


MAX_TARGET = 1000


class TarbishOptions(GameOptions):
    """The options of a Tarabish match."""

    # About 160-200 points a hand: 1000 (a double game) is a dozen hands or so.
    target: int = Field(
        500,
        ge=1,
        le=MAX_TARGET,
        description="Points a team needs to win the match (both past it: higher wins).",
    )
    half_bait: bool = Field(
        False,
        description=(
            "On an exact tie the callers score 0 and the opponents keep only their own points"
            " (default: a tie is whole bait)."
        ),
    )
    no_trump: bool = Field(
        False,
        description="A player naming trump may call no trump instead (every suit plain, 130 points).",
    )
    dealer_forced: bool = Field(
        True,
        description=(
            "When the other three pass the dealer must name trump (off: the dealer may pass and"
            " the next dealer deals again; after three thrown-in hands the dealer is forced)."
        ),
    )


class HandResult(NamedTuple):
    """What one finished hand scored, per team."""

    number: int  # 1 for the first deal (thrown-in deals count: numbers may skip)
    dealer: int
    trump: str | None  # None: no trump
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
    final_trick: tuple[tuple[int, str], ...]  # the hand's last trick; its winner is below
    final_winner: int

    def to_json(self) -> dict[str, Any]:
        """This hand as a history entry of the view."""
        return {
            "hand": self.number,
            "dealer": self.dealer,
            "trump": self.trump,
            "no_trump": self.trump is None,
            "caller": self.caller,
            "calling_team": self.caller % 2,
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
            "final_trick": _last_trick_json(self.final_trick, self.final_winner),
        }


class MatchInfo(State):
    """The slow-changing part of the match: options, deals, trump, runs, scores, history."""

    target: int
    half_bait: bool
    no_trump: bool  # the option: no trump may be called
    dealer_forced: bool
    throw_ins: int  # hands thrown in in a row just before this one
    seed: int | str
    first_dealer: int
    decks: tuple[tuple[str, ...], ...]  # stacked decks, top first
    hand_index: int
    dealer: int
    deals: tuple[tuple[str, ...], ...]  # this hand: each seat's 9 cards as received
    trump: str | None  # None before the call, or after a no-trump call
    caller: int | None  # set once trump (or no trump) is called
    runs: tuple[tuple[Run, ...], ...]  # each seat's runs, known once trump is named
    run_winner: int | None  # decided when the declarations are over
    bella_seat: int | None
    scores: tuple[int, int]
    history: tuple[HandResult, ...]
    past_deals: tuple[tuple[int, tuple[tuple[str, ...], ...]], ...]  # (dealer, deals) per hand
    winners: tuple[int, ...] | None


class TarbishState(State):
    """The whole match (``server.rules.state``). Fields that change on every card live here;
    the rest sit in ``match``, so a card played copies only a dozen fields; ``apply``
    returns a fresh clone, never changing the one it is given."""

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
    log: tuple  # this hand's moves, a chain (see server.rules.state)
    views: ViewMemo


_NO_RUNS: tuple[tuple[Run, ...], ...] = ((),) * PLAYERS
_NO_KITTIES: tuple[tuple[str, ...], ...] = ((),) * PLAYERS


# ---- rules as plain functions -----------------------------------------------------------


def sort_cards(cards: Sequence[str]) -> tuple[str, ...]:
    """Cards in display order: spades, hearts, diamonds, clubs, each A high to 6."""
    return tuple(sorted(cards, key=_SORT_KEY.__getitem__))


def card_points(card: str, trump: str | None) -> int:
    """The card points of one card under ``trump``."""
    if card[-1] == trump:
        return TRUMP_POINTS.get(card[:-1], 0)
    return PLAIN_POINTS.get(card[:-1], 0)


def legal_cards(hand: Sequence[str], trick: Sequence[tuple[int, str]], trump: str | None) -> list[str]:
    """The cards of ``hand`` that may be played to ``trick`` (follow, head, trump, overtrump)."""
    return trump_duty(hand, trick, trump, RANKS)


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
        by_suit.setdefault(c[-1], []).append(_NATURAL[c])
    for suit in SUITS:
        idx = sorted(by_suit.get(suit, ()))
        start = 0
        for i in range(1, len(idx) + 1):
            if i == len(idx) or idx[i] != idx[i - 1] + 1:
                length = i - start
                if length >= 3:
                    seq = tuple(card_code(NATURAL_ORDER[k], suit) for k in idx[start:i])
                    runs.append(Run(FIFTY if length >= 4 else TWENTY, idx[i - 1], suit, seq))
                start = i
    return runs


_SUIT_I: dict[str, int] = {c: _SUIT_INDEX[c[-1]] for c in DECK}
_NAT_BIT: dict[str, int] = {c: 1 << _NATURAL[c] for c in DECK}
# Per suit index, per 9-bit mask of natural ranks held: that suit's runs.
_RUNS: tuple[tuple[tuple[Run, ...], ...], ...] = tuple(
    tuple(
        tuple(_scan_runs([card_code(NATURAL_ORDER[k], suit) for k in range(9) if mask >> k & 1]))
        for mask in range(1 << 9)
    )
    for suit in SUITS
)
# Per suit index, per 9-bit mask of natural ranks held: those cards in display order.
_SORTED: tuple[tuple[tuple[str, ...], ...], ...] = tuple(
    tuple(sort_cards([card_code(NATURAL_ORDER[k], suit) for k in range(9) if mask >> k & 1]) for mask in range(1 << 9))
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


def may_pass(state: TarbishState) -> bool:
    """Passing is always allowed, except to a forced dealer whose three others passed."""
    return state.phase is not _NAMING or state.turn != state.match.dealer or not dealer_forced(state.match)


def dealer_forced(match: MatchInfo) -> bool:
    """Whether this hand's dealer must name trump once the three others have passed."""
    return match.dealer_forced or match.throw_ins >= MAX_THROW_INS


def run_points(match: MatchInfo, seat: int | None) -> int:
    """What ``seat``'s runs are worth together (0 for nobody)."""
    return 0 if seat is None else sum(r.points for r in match.runs[seat])


def _run_name(points: int | None) -> str | None:
    return None if points is None else ("fifty" if points == FIFTY else "twenty")


# ---- deriving the next state ---------------------------------------------------------------


def _finish_trick(
    state: TarbishState, hands: tuple[tuple[str, ...], ...], trick: tuple[tuple[int, str], ...]
) -> TarbishState:
    """The state after the fourth card of a trick (``apply`` checked it and took it out of
    its hand): the trick is taken (and maybe the hand)."""
    trump = state.match.trump
    winner = trick_winner(trick, trump, RANKS)
    (_, c0), (_, c1), (_, c2), (_, c3) = trick
    points_of = _POINTS[trump]
    points = points_of[c0] + points_of[c1] + points_of[c2] + points_of[c3]
    (t0, t1), (n0, n1), (w0, w1) = state.points_taken, state.tricks_won, state.won
    if winner % 2:
        t1, n1, w1 = t1 + points, n1 + 1, w1 + (c0, c1, c2, c3)
    else:
        t0, n0, w0 = t0 + points, n0 + 1, w0 + (c0, c1, c2, c3)
    new = state.clone()
    new.turn = winner
    new.hands = hands
    new.trick = ()
    new.tricks_played = state.tricks_played + 1
    new.tricks_won = (n0, n1)
    new.points_taken = (t0, t1)
    new.won = (w0, w1)
    new.last_trick = trick
    new.last_winner = winner
    new.log = (state.log, trick[-1][0], _PLAY_MOVE[c3], winner)
    return new if new.tricks_played < TRICKS else _finish_hand(new, winner % 2)


def _name_trump(state: TarbishState, seat: int, call: str) -> TarbishState:
    """Trump (or no trump) named: every kitty joins its hand, runs are found and bella is known."""
    suit = None if call == NO_TRUMP else call
    hands, runs = zip(*[_sorted_and_runs(h + k) for h, k in zip(state.hands, state.kitties, strict=True)], strict=True)
    # The match and the hand change together: both cloned and set (docs/decisions/0003).
    match = state.match.clone()
    match.trump, match.caller, match.throw_ins = suit, seat, 0
    match.runs = runs
    match.bella_seat = None if suit is None else bella_holder(hands, suit)
    new = state.clone()
    new.match, new.phase, new.turn = match, _DECLARING, (match.dealer + 1) % PLAYERS
    new.hands, new.kitties = hands, _NO_KITTIES
    new.log = (state.log, seat, _TRUMP_MOVE[call])
    return new


def _declare(state: TarbishState, seat: int, points: int | None) -> TarbishState:
    """One declaration (or pass); after the fourth the best run is known and play starts."""
    declarations = state.declarations + ((seat, points),)
    log = (state.log, seat, _PASS_MOVE if points is None else _DECLARE_MOVE)
    if len(declarations) < PLAYERS:  # the next seat declares
        new = state.clone()
        new.declarations = declarations
        new.turn = (seat + 1) % PLAYERS
        new.log = log
        return new
    m = state.match
    best = {s: best_run(m.runs[s], m.trump) for s, p in declarations if p is not None}
    winner = compare_runs(best, m.trump) if best else None  # type: ignore[arg-type]
    new = state.clone()
    new.match = m if winner is None else m.evolve(run_winner=winner)
    new.declarations, new.log = declarations, log
    new.phase, new.turn = _PLAYING, (m.dealer + 1) % PLAYERS
    return new


def _hand_result(state: TarbishState, last_team: int) -> HandResult:
    """The score of the hand just finished (runs, bella, last trick and bait settled)."""
    m = state.match
    assert m.caller is not None
    last = [0, 0]
    last[last_team] = LAST_TRICK_BONUS
    runs = [0, 0]
    if m.run_winner is not None:
        runs[m.run_winner % 2] = run_points(m, m.run_winner)
    bella = [0, 0]
    if m.bella_seat is not None:
        bella[m.bella_seat % 2] = BELLA_POINTS
    taken = state.points_taken
    totals = tuple(map(sum, zip(taken, last, runs, bella, strict=True)))
    added, result = settle(m.caller % 2, totals, m.half_bait)
    return HandResult(
        number=m.hand_index + 1,
        dealer=m.dealer,
        trump=m.trump,
        caller=m.caller,
        card_points=taken,
        last_trick=(last[0], last[1]),
        runs=(runs[0], runs[1]),
        bella=(bella[0], bella[1]),
        totals=totals,  # type: ignore[arg-type]
        tricks_won=state.tricks_won,
        result=result,
        added=added,
        run_winner=m.run_winner,
        bella_seat=m.bella_seat,
        final_trick=state.last_trick,
        final_winner=state.last_winner,  # type: ignore[arg-type]
    )


def _finish_hand(state: TarbishState, last_team: int) -> TarbishState:
    """The hand is scored; the match ends, or the next dealer deals."""
    m = state.match
    rec = _hand_result(state, last_team)
    scores = (m.scores[0] + rec.added[0], m.scores[1] + rec.added[1])
    match = m.evolve(scores=scores, history=(*m.history, rec))
    team = match_winner(scores, m.target)
    if team is not None:
        return state.evolve(match=match.evolve(winners=(team, team + 2)), phase=_OVER)
    return _deal(state, match, m.hand_index + 1, (m.dealer + 1) % PLAYERS)


def _throw_in(state: TarbishState) -> TarbishState:
    """All four passed (the dealer was not forced): nobody scores, the next dealer deals."""
    m = state.match
    match = m.evolve(throw_ins=m.throw_ins + 1)
    return _deal(state, match, m.hand_index + 1, (m.dealer + 1) % PLAYERS)


def _deal(state: TarbishState, match: MatchInfo, index: int, dealer: int) -> TarbishState:
    """Hand ``index`` dealt by ``dealer``, the match info ``match`` carried over."""
    new = state.clone()
    _start_hand(new, match, index, dealer)
    return new


def _start_hand(new: TarbishState, match: MatchInfo, index: int, dealer: int) -> None:
    """Set every field of ``new`` (a state nobody has seen yet) but ``views`` to the start
    of hand ``index``, dealt by ``dealer``: a new hand resets nearly every field
    (docs/decisions/0003)."""
    if index < len(match.decks):
        deck: Sequence[str] = match.decks[index]
    else:
        deck = shuffled(DECK, hand_rng(match.seed, index))
    first = (dealer + 1) % PLAYERS
    deals = tuple([get(deck) for get in _DEAL[first]])
    match = match.clone()
    match.hand_index, match.dealer, match.deals = index, dealer, deals
    match.trump = match.caller = match.run_winner = match.bella_seat = None
    match.runs = _NO_RUNS
    match.past_deals = match.past_deals + ((dealer, deals),)
    new.match, new.phase, new.turn = match, _NAMING, first
    new.hands = tuple([sort_cards(d[:6]) for d in deals])
    new.kitties = tuple([d[6:] for d in deals])
    new.declarations = new.trick = new.last_trick = new.log = ()
    new.tricks_played, new.last_winner = 0, None
    new.tricks_won = new.points_taken = (0, 0)
    new.won = ((), ())


# ---- the engine -----------------------------------------------------------------------------


# A claim's view of the cards (``trick_play``) per trump (None: no trump): each card's suit
# and strength, and the trick's winner.
_ORDERS = {t: {c: (c[-1], RANKS.trump[c] if c[-1] == t else RANKS.plain[c]) for c in DECK} for t in (*SUITS, None)}
_WINNERS = {t: partial(trick_winner, trump=t, ranks=RANKS) for t in (*SUITS, None)}
_SIDES = (0, 1, 0, 1)


class Tarbish(Game):
    """Tarabish for four players in two partnerships."""

    action_fields: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "trump": ("suit",),
        "pass": (),
        "declare": (),
        "play": ("card",),
    }

    name = "tarbish"
    title = "Tarabish (Tarbish)"
    short_title = "Tarabish"
    partnerships: ClassVar[Teams] = {4: ((0, 2), (1, 3))}
    phases: ClassVar[Sections] = {
        "naming": "naming-trump",
        "declaring": "runs-and-bella",
        "playing": "play",
        "over": "scoring",
    }
    declarer_key = "caller"
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

    def deck(self, options: GameOptions, players: int) -> Sequence[str]:
        """The 36 cards, six to ace."""
        return DECK

    def start(self, setup: Setup) -> TarbishState:
        """Start a match and deal its first hand."""
        options, dealer = setup.options, setup.dealer
        match = MatchInfo(
            target=options.target,  # type: ignore[attr-defined]
            half_bait=options.half_bait,  # type: ignore[attr-defined]
            no_trump=options.no_trump,  # type: ignore[attr-defined]
            dealer_forced=options.dealer_forced,  # type: ignore[attr-defined]
            throw_ins=0,
            seed=setup.seed,
            first_dealer=dealer,
            decks=setup.decks,
            hand_index=-1,
            dealer=dealer,
            deals=(),
            trump=None,
            caller=None,
            runs=_NO_RUNS,
            run_winner=None,
            bella_seat=None,
            scores=(0, 0),
            history=(),
            past_deals=(),
            winners=None,
        )
        state = TarbishState(**dict.fromkeys(TarbishState._fields))  # filled in below
        _start_hand(state, match, 0, dealer)
        state.views = ViewMemo()
        return state

    # ---- turns and legality -----------------------------------------------------------------

    def players(self, state: TarbishState) -> int:
        """Always four."""
        return PLAYERS

    claims = True

    def trick_play(self, state: TarbishState) -> TrickPlay | None:
        """The hand's tricks as they stand, partners on one side; None before the lead."""
        if state.phase is not _PLAYING:
            return None
        trump = state.match.trump
        return TrickPlay(state.hands, state.trick, state.turn, _SIDES, trump, _ORDERS[trump], _WINNERS[trump])

    def to_act(self, state: TarbishState) -> list[int]:
        """The one seat that must act now; [] when the match is over."""
        return [] if state.phase is _OVER else [state.turn]

    def legal_actions(self, state: TarbishState, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now, in a fixed order."""
        phase = state.phase
        if seat != state.turn or phase is _OVER:
            return []
        if phase is _PLAYING:
            cards = trump_duty(state.hands[seat], state.trick, state.match.trump, RANKS)
            return list(map(_play_action, cards))
        if phase is _NAMING:
            actions = list(_NO_TRUMP_ACTIONS if state.match.no_trump else _TRUMP_ACTIONS)
        else:
            actions = [_DECLARE_ACTION] if state.match.runs[seat] else []
        if may_pass(state):
            actions.append(_PASS_ACTION)
        return actions

    def why_illegal(self, state: TarbishState, seat: int, action: Any) -> str | None:
        """Why ``seat`` may not play ``action`` now (a sentence), or None when it may: the
        engine's one legality check, which ``apply`` raises with (``check_legal``)."""
        phase = state.phase
        kind = action.get("type") if isinstance(action, dict) else None
        if kind != "play" or phase is not _PLAYING or seat != state.turn:  # not the common case
            problem = self._why_not_move(state, seat, action, kind)
            if problem is not None or phase is not _PLAYING:
                return problem
        # A card, while the cards are played, from the seat to act: is it held and allowed?
        # (Checked here, not in a function of its own: a call costs more than the check.)
        card = action.get("card")
        hand = state.hands[seat]
        if card not in hand:  # (unhashable junk is in no tuple either)
            if not isinstance(card, str) or card not in _DECK_SET:
                return f"{card!r} is not a Tarabish card (like 'AS' or '10H')."
            return f"You do not hold {card_name(card)}."
        return why_not_trump(hand, state.trick, state.match.trump, RANKS, card)

    def _why_not_move(self, state: TarbishState, seat: int, action: Any, kind: Any) -> str | None:
        """``why_illegal`` for all but a card from the seat to act while cards are played (a
        card in play that passes here is then checked by ``why_illegal``)."""
        phase = state.phase
        try:
            if phase is _OVER or seat != state.turn:
                self.require_turn(state, seat)
            if type(kind) is not str:
                kind = action_type(action)
        except GameError as err:
            return str(err)
        if phase is _PLAYING:
            if kind != "play":
                return "The cards are being played: play a card."
            return None
        if kind == "pass":
            if may_pass(state):
                return None
            if state.match.dealer_forced:
                return "The other three passed, so the dealer must name a trump suit."
            return f"{MAX_THROW_INS} hands in a row were thrown in, so the dealer must name trump."
        if phase is _NAMING:
            if kind != "trump":
                return "Trump has not been named yet: name a trump suit or pass."
            suit = action.get("suit")
            if suit == NO_TRUMP and state.match.no_trump:
                return None
            if not isinstance(suit, str) or suit not in _SUIT_INDEX:
                if state.match.no_trump:
                    return "Name a trump suit ('S', 'H', 'D' or 'C') or 'N' for no trump."
                return "Name a trump suit: 'S', 'H', 'D' or 'C'."
            return None
        if kind != "declare":
            return "Runs are being declared: declare a run or pass."
        if not state.match.runs[seat]:
            return "You have no run to declare (three or more in a row in one suit)."
        return None

    # ---- applying actions ---------------------------------------------------------------

    def apply(self, state: TarbishState, seat: int, action: Mapping[str, Any]) -> TarbishState:
        """The state after ``seat`` plays ``action``; the given state is unchanged."""
        if self.why_illegal(state, seat, action) is not None:
            self.check_legal(state, seat, action)  # raises, saying why
        if state.phase is _PLAYING:  # so the action is a card (one read less than its type)
            # A card is played: the trick goes on, or is taken (every card comes this way:
            # docs/decisions/0003).
            card = action["card"]
            hands = state.hands
            held = list(hands[seat])
            held.remove(card)
            changed = list(hands)  # the seat's hand, one card fewer
            changed[seat] = tuple(held)
            trick = state.trick + ((seat, card),)
            if len(trick) == PLAYERS:
                return _finish_trick(state, tuple(changed), trick)
            new = state.clone()
            new.turn = (seat + 1) % PLAYERS
            new.hands = tuple(changed)
            new.trick = trick
            new.log = (state.log, seat, _PLAY_MOVE[card])
            return new
        kind = action["type"]
        if kind == "trump":
            return _name_trump(state, seat, action["suit"])
        if kind == "pass":
            if state.phase is _NAMING:
                if seat == state.match.dealer:  # all four passed: the hand is thrown in
                    return _throw_in(state)
                new = state.clone()  # the next seat bids
                new.turn = (seat + 1) % PLAYERS
                new.log = (state.log, seat, _PASS_MOVE)
                return new
            return _declare(state, seat, None)
        best = best_run(state.match.runs[seat], state.match.trump)
        return _declare(state, seat, best.points)  # type: ignore[union-attr]

    # ---- what leaves the engine -------------------------------------------------------------

    def take_back_marks(self, state: TarbishState, seat: int) -> tuple[tuple[Any, ...], Sequence[Any]]:
        """The fixed keys of the public view (no seat's differ here) and ``seat``'s hand."""
        return self.fixed_marks(state, state.hands[seat])

    def view(self, state: TarbishState, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see, JSON-able; None is a spectator.

        The part every seat sees alike is built once per state and each call returns a new
        top-level dict over it (nested values are shared: read-only).
        """
        view = dict(state.views.public(state, _public_view))
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < PLAYERS:
            view["hand"] = state.views.part(("hand", seat), state.hands[seat], list)
            view["legal"] = self.legal_actions(state, seat)
        else:
            view["legal"] = []
        return view

    def full_view(self, state: TarbishState) -> dict[str, Any]:
        """The spectator view plus every hand, kitty and taken card (for replays)."""
        view = self.view(state, None)
        # every card each seat holds, the face-down kitty included (matches hand_counts)
        view["hands"] = [list(sort_cards(h + k)) for h, k in zip(state.hands, state.kitties, strict=True)]
        view["kitties"] = [list(k) for k in state.kitties]  # still face down
        view["won"] = [list(w) for w in state.won]
        view["deal"] = [list(d) for d in state.match.deals]
        view["bella_seat"] = state.match.bella_seat
        view["runs"] = [
            [{"run": _run_name(r.points), "cards": list(r.cards)} for r in runs] for runs in state.match.runs
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
        # A thrown-in deal has no history entry: results are found by their deal's number.
        results = {rec.number - 1: rec for rec in state.match.history}
        for i, (dealer, deals) in enumerate(state.match.past_deals):
            result = results.get(i)
            records.append(
                {
                    "dealer": dealer,
                    "deal": {
                        "hands": [list(d[:6]) for d in deals],
                        "kitties": [list(d[6:]) for d in deals],
                    },
                    "trump": result.trump if result else None,
                    "no_trump": result.trump is None if result else False,
                    "caller": result.caller if result else None,
                    "scores": [result.added[s % 2] for s in range(PLAYERS)] if result else None,
                }
            )
        return records


# ---- the view -------------------------------------------------------------------------------


def _public_view(state: TarbishState) -> dict[str, Any]:
    """The view without ``hand`` (None) and ``legal`` ([]): the same for every seat.

    Every nested value comes from the match's view memo, so a part whose source did not
    change is the previous view's very object (the room's differ skips it by identity).
    """
    memo, match, phase = state.views, state.match, state.phase
    shown = match.run_winner is not None and state.tricks_played >= 1
    return {
        "phase": phase.value,
        "dealer": match.dealer,
        "eldest": (match.dealer + 1) % PLAYERS,
        "to_act": [] if phase is _OVER else [state.turn],
        "hand": None,
        "hand_counts": memo.part("hand_counts", state.hands, lambda _: _hand_counts(state)),
        "kitty_count": memo.part("kitty_count", state.kitties, _lengths),
        "trick": memo.grown("trick", state.trick, _play_json),
        "leader": ((state.trick[0][0] if state.trick else state.turn) if phase is _PLAYING else None),
        "trump": match.trump,
        "no_trump": match.caller is not None and match.trump is None,
        "caller": match.caller,
        "calling_team": None if match.caller is None else match.caller % 2,
        "declarations": memo.grown("declarations", state.declarations, _declaration_json),
        "run_winner": match.run_winner if shown else None,
        "run_points": run_points(match, match.run_winner) if shown else 0,
        "revealed": memo.part(
            "revealed",
            match.runs[match.run_winner] if shown else _NOT_SHOWN,  # type: ignore[index]
            lambda runs: _revealed(match.run_winner, runs),
        ),
        "tricks_played": state.tricks_played,
        "tricks_won": memo.part("tricks_won", state.tricks_won, list),
        "points_taken": memo.part("points_taken", state.points_taken, list),
        "last_trick": memo.part("last_trick", state.last_trick, lambda t: _last_trick_json(t, state.last_winner)),
        "scores": memo.part("scores", match.scores, _seat_scores),
        "team_scores": memo.part("team_scores", match.scores, list),
        "teams": _TEAMS,
        "target": match.target,
        "half_bait": match.half_bait,
        "no_trump_allowed": match.no_trump,
        "dealer_forced": dealer_forced(match),
        "throw_ins": match.throw_ins,
        "hand_number": match.hand_index + 1,
        "history": memo.grown("history", match.history, HandResult.to_json),
        "legal": [],
        "winners": memo.part("winners", match.winners, _winners_json),
        "log": memo.log(state.log),
    }


def _hand_counts(state: TarbishState) -> list[int]:
    return [len(h) + len(k) for h, k in zip(state.hands, state.kitties, strict=True)]


def _lengths(parts: Sequence[Sequence[Any]]) -> list[int]:
    return [len(p) for p in parts]


def _play_json(play: tuple[int, str]) -> dict[str, Any]:
    return {"seat": play[0], "card": play[1]}


def _declaration_json(declaration: tuple[int, int | None]) -> dict[str, Any]:
    return {"seat": declaration[0], "run": _run_name(declaration[1])}


def _revealed(seat: int | None, runs: Sequence[Run]) -> list[dict[str, Any]]:
    if not runs:
        return []
    cards = [card for run in runs for card in run.cards]
    return [{"seat": seat, "cards": list(sort_cards(cards))}]


def _last_trick_json(trick: Sequence[tuple[int, str]], winner: int | None) -> dict | None:
    if not trick:
        return None
    return {"cards": [_play_json(p) for p in trick], "winner": winner}


def _seat_scores(scores: tuple[int, int]) -> list[int]:
    return [scores[0], scores[1], scores[0], scores[1]]


def _winners_json(winners: tuple[int, ...] | None) -> list[int] | None:
    return None if winners is None else list(winners)
