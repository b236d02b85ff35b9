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
from typing import Any, NamedTuple

from pydantic import Field

from server.cards import (
    SUIT_NAMES,
    SUIT_SINGULAR,
    SUITS,
    TARBISH_RANKS,
    card_name,
    check_deck,
    deal,
    hand_rng,
    shuffled,
    tarbish_deck,
)
from server.games.base import (
    Action,
    Game,
    GameOptions,
    IllegalAction,
    action_type,
)
from server.tricks import strength_map, trick_winner

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
    # ``history`` as the view shows it, built once per hand and shared by every later view
    # (views are read-only), so a view costs the same late in a match as early.
    history_json: list = field(default_factory=list, compare=False, hash=False)


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


_MISSING: Any = object()


def _make_evolve(cls: type) -> Any:
    # dataclasses.replace re-runs __init__ with keyword checks: far too slow for bots that
    # simulate thousands of hands. This generated copier sets each slot once.
    names = [f.name for f in fields(cls)]
    params = ", ".join(f"{n}=_M" for n in names)
    body = "".join(f"    _set(new, '{n}', s.{n} if {n} is _M else {n})\n" for n in names)
    doc = f"    \"\"\"A copy of a {cls.__name__} with the given fields changed.\"\"\"\n"
    src = f"def evolve(s, *, {params}):\n{doc}    new = _new(_S)\n{body}    return new\n"
    scope = {"_M": _MISSING, "_set": object.__setattr__, "_new": object.__new__, "_S": cls}
    exec(src, scope)  # noqa: S102 - generated from the dataclass's own field names
    return scope["evolve"]


replace = _make_evolve(TarbishState)
replace_match = _make_evolve(MatchInfo)


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
    led = _SUIT[trick[0][1]]
    hi = 0
    for _, card in trick:
        if _SUIT[card] == trump and _TRUMP_STRENGTH[card] > hi:
            hi = _TRUMP_STRENGTH[card]
    same = [c for c in hand if _SUIT[c] == led]
    if same and led != trump:
        return same
    trumps = same if same else [c for c in hand if _SUIT[c] == trump]
    if not trumps:
        return list(hand)
    over = [c for c in trumps if _TRUMP_STRENGTH[c] > hi]
    return over if over else trumps


def find_runs(cards: Sequence[str]) -> list[Run]:
    """Every maximal run in ``cards``: 3 in a row is a twenty (20), 4 or more a fifty (50)."""
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


# ---- the engine -----------------------------------------------------------------------------


class Tarbish(Game):
    """Tarabish for four players in two partnerships."""

    name = "tarbish"
    title = "Tarabish (Tarbish)"
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
        opts = self.parse_options(options)
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < PLAYERS:
            raise ValueError(f"dealer must be a seat from 0 to {PLAYERS - 1}")
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
            history_json=[],
        )
        state = TarbishState(
            match=match,
            phase=Phase.NAMING,
            turn=0,
            hands=((),) * PLAYERS,
            kitties=((),) * PLAYERS,
            declarations=(),
            trick=(),
            tricks_played=0,
            tricks_won=(0, 0),
            points_taken=(0, 0),
            won=((), ()),
            last_trick=(),
            last_winner=None,
        )
        return self._deal(state, 0, dealer)

    def _deal(self, state: TarbishState, index: int, dealer: int) -> TarbishState:
        if index < len(state.match.decks):
            deck = list(state.match.decks[index])
        else:
            deck = shuffled(DECK, hand_rng(state.match.seed, index))
        received, _ = deal(deck, PLAYERS, HAND_SIZE, (dealer + 1) % PLAYERS, packet=3)
        deals = tuple(tuple(r) for r in received)
        match = replace_match(
            state.match,
            hand_index=index,
            dealer=dealer,
            deals=deals,
            trump=None,
            caller=None,
            runs=((),) * PLAYERS,
            run_winner=None,
            bella_seat=None,
            past_deals=state.match.past_deals + ((dealer, deals),),
        )
        return TarbishState(
            match=match,
            phase=Phase.NAMING,
            turn=(dealer + 1) % PLAYERS,
            hands=tuple(sort_cards(d[:6]) for d in deals),
            kitties=tuple(d[6:] for d in deals),
            declarations=(),
            trick=(),
            tricks_played=0,
            tricks_won=(0, 0),
            points_taken=(0, 0),
            won=((), ()),
            last_trick=(),
            last_winner=None,
        )

    # ---- turns and legality -----------------------------------------------------------------

    def players(self, state: TarbishState) -> int:
        """Always four."""
        return PLAYERS

    def to_act(self, state: TarbishState) -> list[int]:
        """The one seat that must act now; [] when the match is over."""
        return [] if state.phase is Phase.OVER else [state.turn]

    def legal_actions(self, state: TarbishState, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now, in a fixed order."""
        phase = state.phase
        if phase is Phase.OVER or seat != state.turn:
            return []
        if phase is Phase.PLAYING:
            return [
                {"type": "play", "card": c}
                for c in legal_cards(state.hands[seat], state.trick, state.match.trump)
            ]
        if phase is Phase.NAMING:
            actions = [dict(a) for a in _TRUMP_ACTIONS]
            if not self._is_forced(state):
                actions.append({"type": "pass"})
            return actions
        actions = [{"type": "declare"}] if state.match.runs[seat] else []
        actions.append({"type": "pass"})
        return actions

    @staticmethod
    def _is_forced(state: TarbishState) -> bool:
        return state.turn == state.match.dealer

    # ---- applying actions ---------------------------------------------------------------

    def apply(self, state: TarbishState, seat: int, action: Mapping[str, Any]) -> TarbishState:
        """The state after ``seat`` plays ``action``; the given state is unchanged."""
        self.require_turn(state, seat)
        kind = action_type(action)
        phase = state.phase
        if phase is Phase.PLAYING:
            if kind != "play":
                raise IllegalAction("The cards are being played: play a card.")
            return self._play(state, seat, action.get("card"))
        if phase is Phase.NAMING:
            if kind == "trump":
                return self._name_trump(state, seat, action.get("suit"))
            if kind == "pass":
                if self._is_forced(state):
                    raise IllegalAction(
                        "The other three passed, so the dealer must name a trump suit."
                    )
                return replace(state, turn=(seat + 1) % PLAYERS)
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
            best = best_run(runs, state.match.trump)
            assert best is not None
            return self._declare(state, seat, best.points)
        raise IllegalAction("Runs are being declared: declare a run or pass.")

    def _name_trump(self, state: TarbishState, seat: int, suit: object) -> TarbishState:
        if not isinstance(suit, str) or suit not in _SUIT_INDEX:
            raise IllegalAction("Name a trump suit: 'S', 'H', 'D' or 'C'.")
        hands = tuple(sort_cards(state.hands[s] + state.kitties[s]) for s in range(PLAYERS))
        match = replace_match(
            state.match,
            trump=suit,
            caller=seat,
            runs=tuple(tuple(find_runs(h)) for h in hands),
            bella_seat=bella_holder(hands, suit),
        )
        return replace(
            state,
            match=match,
            phase=Phase.DECLARING,
            turn=(state.match.dealer + 1) % PLAYERS,
            hands=hands,
            kitties=((),) * PLAYERS,
        )

    def _declare(self, state: TarbishState, seat: int, points: int | None) -> TarbishState:
        declarations = state.declarations + ((seat, points),)
        if len(declarations) < PLAYERS:
            return replace(state, declarations=declarations, turn=(seat + 1) % PLAYERS)
        best = {
            s: best_run(state.match.runs[s], state.match.trump)
            for s, p in declarations
            if p is not None
        }
        winner = compare_runs(best, state.match.trump)  # type: ignore[arg-type]
        return replace(
            state,
            match=replace_match(state.match, run_winner=winner),
            declarations=declarations,
            phase=Phase.PLAYING,
            turn=(state.match.dealer + 1) % PLAYERS,
        )

    def _play(self, state: TarbishState, seat: int, card: object) -> TarbishState:
        hand = state.hands[seat]
        if not isinstance(card, str) or card not in _DECK_SET:
            raise IllegalAction(f"{card!r} is not a Tarabish card (like 'AS' or '10H').")
        if card not in hand:
            raise IllegalAction(f"You do not hold {card_name(card)}.")
        legal = legal_cards(hand, state.trick, state.match.trump)
        if card not in legal:
            raise IllegalAction(self._why_not(state, hand, card))
        new_hand = tuple(c for c in hand if c != card)
        hands = state.hands[:seat] + (new_hand,) + state.hands[seat + 1 :]
        trick = state.trick + ((seat, card),)
        if len(trick) < PLAYERS:
            return replace(state, hands=hands, trick=trick, turn=(seat + 1) % PLAYERS)
        return self._finish_trick(state, hands, trick)

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

    def _finish_trick(
        self,
        state: TarbishState,
        hands: tuple[tuple[str, ...], ...],
        trick: tuple[tuple[int, str], ...],
    ) -> TarbishState:
        trump = state.match.trump
        winner = trick_winner(trick, trump, PLAIN_RANK, TRUMP_RANK)
        team = winner % 2
        pts = 0
        for _, c in trick:
            pts += _TRUMP_PTS[c] if _SUIT[c] == trump else _PLAIN_PTS[c]
        taken = list(state.points_taken)
        taken[team] += pts
        won_count = list(state.tricks_won)
        won_count[team] += 1
        won = list(state.won)
        won[team] = won[team] + tuple(c for _, c in trick)
        played = state.tricks_played + 1
        state = replace(
            state,
            hands=hands,
            trick=(),
            turn=winner,
            tricks_played=played,
            tricks_won=(won_count[0], won_count[1]),
            points_taken=(taken[0], taken[1]),
            won=(won[0], won[1]),
            last_trick=trick,
            last_winner=winner,
        )
        if played < TRICKS:
            return state
        return self._finish_hand(state, team)

    def _finish_hand(self, state: TarbishState, last_team: int) -> TarbishState:
        assert state.match.trump is not None and state.match.caller is not None
        last = (LAST_TRICK_BONUS, 0) if last_team == 0 else (0, LAST_TRICK_BONUS)
        runs = [0, 0]
        if state.match.run_winner is not None:
            runs[state.match.run_winner % 2] = self._run_points(state, state.match.run_winner)
        bella = [0, 0]
        if state.match.bella_seat is not None:
            bella[state.match.bella_seat % 2] = BELLA_POINTS
        totals = tuple(state.points_taken[t] + last[t] + runs[t] + bella[t] for t in (0, 1))
        added, result = settle(state.match.caller % 2, totals, state.match.half_bait)
        result_rec = HandResult(
            dealer=state.match.dealer,
            trump=state.match.trump,
            caller=state.match.caller,
            card_points=state.points_taken,
            last_trick=last,
            runs=(runs[0], runs[1]),
            bella=(bella[0], bella[1]),
            totals=(totals[0], totals[1]),
            tricks_won=state.tricks_won,
            result=result,
            added=added,
            run_winner=state.match.run_winner,
            bella_seat=state.match.bella_seat,
        )
        scores = (state.match.scores[0] + added[0], state.match.scores[1] + added[1])
        history = state.match.history + (result_rec,)
        history_json = [*state.match.history_json, result_rec.to_json(len(history))]
        team = match_winner(scores, state.match.target)
        if team is not None:
            match = replace_match(
                state.match,
                scores=scores,
                history=history,
                history_json=history_json,
                winners=(team, team + 2),
            )
            return replace(state, match=match, phase=Phase.OVER)
        state = replace(
            state,
            match=replace_match(
                state.match, scores=scores, history=history, history_json=history_json
            ),
        )
        return self._deal(state, state.match.hand_index + 1, (state.match.dealer + 1) % PLAYERS)

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
        """What ``seat`` may see, JSON-able; None is a spectator."""
        is_player = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < PLAYERS
        scores = state.match.scores
        over = state.phase is Phase.OVER
        shown = state.match.run_winner is not None and state.tricks_played >= 1
        return {
            "phase": state.phase.value,
            "dealer": state.match.dealer,
            "eldest": (state.match.dealer + 1) % PLAYERS,
            "to_act": [] if over else [state.turn],
            "hand": list(state.hands[seat]) if is_player else None,  # type: ignore[index]
            "hand_counts": [len(state.hands[s]) + len(state.kitties[s]) for s in range(PLAYERS)],
            "kitty_count": [len(k) for k in state.kitties],
            "trick": [{"seat": s, "card": c} for s, c in state.trick],
            "leader": (
                (state.trick[0][0] if state.trick else state.turn)
                if state.phase is Phase.PLAYING
                else None
            ),
            "trump": state.match.trump,
            "caller": state.match.caller,
            "calling_team": None if state.match.caller is None else state.match.caller % 2,
            "declarations": [
                {"seat": s, "run": _run_name(p)} for s, p in state.declarations
            ],
            "run_winner": state.match.run_winner if shown else None,
            "run_points": self._run_points(state, state.match.run_winner) if shown else 0,
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
            "scores": [scores[0], scores[1], scores[0], scores[1]],
            "team_scores": [scores[0], scores[1]],
            "teams": [[0, 2], [1, 3]],
            "target": state.match.target,
            "half_bait": state.match.half_bait,
            "hand_number": state.match.hand_index + 1,
            "history": state.match.history_json,
            "legal": (
                self.legal_actions(state, seat)  # type: ignore[arg-type]
                if is_player and not over and seat == state.turn
                else []
            ),
            "winners": list(state.match.winners) if state.match.winners is not None else None,
        }

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
