"""Bid Whist's house options (server/games/bid_whist/rules.md, "House options"): the pure rules a
table with any option away from the seed's game plays by.

``HouseRules.of(options)`` turns a table's options into one frozen record, or None when the
options are the seed's game (only ``target`` may differ): the engine then plays the seed's
rules alone. With house rules:

Cards
    ``jokers`` adds ``"BJ"`` (big) then ``"LJ"`` (little) to the 52 cards; the kitty holds
    4 + jokers cards. In a trump contract a joker is the highest trump (big, little, then
    the trump ace) and belongs to the trump suit for following (a joker led is a trump
    lead). In no trump a joker has no suit and never wins: the suit led is that of the
    first card that is not a joker; a player void in it may play anything, or, with
    ``joker_no_trump: "must_play"``, must play a joker when holding one.

Directions
    Uptown ranks A K Q ... 2; downtown A 2 3 ... K (the ace stays best). A no-trump contract
    is played uptown or downtown as its declarer chooses. Bids compare by number, then by
    direction: no trump, then downtown over uptown (``downtown_beats_uptown``) or the reverse.

Scoring
    ``books: "seed"``: 12 tricks, a book of 5; made scores tricks - 5, set gives the
    defenders k + max(0, their tricks - 6). ``books: "thirteen"``: the discard is a book
    (13 in all), a book of 6; made scores books - 6, set loses k; the defenders never score.
    A no-trump contract counts double with ``no_trump_double``; a side taking every trick
    (a Boston) wins the game (``boston: "wins"``) or scores four times (``"quadruple"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from server.rules.cards import JOKERS, NATURAL_STRENGTH, RANKS, SUITS, card_code

UPTOWN = "uptown"
DOWNTOWN = "downtown"
NO_TRUMP = "no_trump"
DIRECTION_WORDS = {UPTOWN: "uptown", DOWNTOWN: "downtown", NO_TRUMP: "no trump"}
PLAY_DIRECTIONS = (UPTOWN, DOWNTOWN)

# A card's strength within its suit, uptown and downtown (the ace best either way); the
# jokers above every card, big over little.
_UP = {card_code(r, s): NATURAL_STRENGTH[r] for s in SUITS for r in RANKS}
_DOWN = {card: (14 if card[0] == "A" else 15 - n) for card, n in _UP.items()}
_JOKER_STRENGTH = {"BJ": 16, "LJ": 15}
STRENGTH = {False: {**_UP, **_JOKER_STRENGTH}, True: {**_DOWN, **_JOKER_STRENGTH}}
_TRUMP_BONUS = 100
# Per trump (None: no trump), each card's suit as it is played: ``suit_in_play`` looked up.
_SUIT_IN_PLAY: dict[str | None, dict[str, str | None]] = {
    trump: {**{card: card[-1] for card in _UP}, **dict.fromkeys(_JOKER_STRENGTH, trump)} for trump in (*SUITS, None)
}


@dataclass(frozen=True, slots=True)
class HouseRules:
    """A table's house options, read once when the match starts."""

    jokers: tuple[str, ...]
    deck: tuple[str, ...]
    kitty_size: int
    jokers_must_play: bool
    thirteen: bool
    min_contract: int
    game_to: int
    directions: tuple[str, ...]  # the directions a bid may name; () without ``directions``
    direction_rank: dict[str, int]
    no_trump_double: bool
    quadruple: bool
    sport_kitty: bool

    @staticmethod
    def of(options: Any, full_deck: Sequence[str]) -> HouseRules | None:
        """The house rules of ``options``, or None for the seed's game."""
        if all(
            getattr(options, name) == field.default
            for name, field in type(options).model_fields.items()
            if name != "target"
        ):
            return None
        directions: tuple[str, ...] = ()
        if options.directions:
            directions = (UPTOWN, DOWNTOWN, NO_TRUMP) if options.no_trump else (UPTOWN, DOWNTOWN)
        down_first = options.downtown_beats_uptown
        jokers = JOKERS[: options.jokers]
        return HouseRules(
            jokers=jokers,
            deck=(*full_deck, *jokers),
            kitty_size=4 + len(jokers),
            jokers_must_play=options.joker_no_trump == "must_play",
            thirteen=options.books == "thirteen",
            min_contract=options.min_bid,
            game_to=options.game_to,
            directions=directions,
            direction_rank={UPTOWN: 0 if down_first else 1, DOWNTOWN: 1 if down_first else 0, NO_TRUMP: 2},
            no_trump_double=options.no_trump_double,
            quadruple=options.boston == "quadruple",
            sport_kitty=options.sport_kitty,
        )

    def outranks(self, value: int, direction: str | None, high: int | None, high_direction: str | None) -> bool:
        """True when the bid (value, direction) is above the high bid (None: no bid yet)."""
        if high is None:
            return True
        if value != high or not self.directions:
            return value > high
        return self.direction_rank[direction] > self.direction_rank[high_direction]  # type: ignore[index]


def suit_in_play(card: str, trump: str | None) -> str | None:
    """The suit a card counts as: a joker is a trump (no suit at all in no trump)."""
    if card in _JOKER_STRENGTH:
        return trump
    return card[-1]


def led_suit(trick: Sequence[tuple[int, str]], trump: str | None) -> str | None:
    """The suit led: the first card's (a joker leads trump); in no trump the first card that
    is not a joker sets it (None while only jokers are down)."""
    suit_of = _SUIT_IN_PLAY[trump]
    for _, card in trick:
        suit = suit_of[card]
        if suit is not None:
            return suit
    return None


def playable(
    hand: Sequence[str], trick: Sequence[tuple[int, str]], trump: str | None, jokers_must_play: bool
) -> list[str]:
    """The cards of ``hand`` that may be played to ``trick`` (follow the suit led if you can;
    in no trump, void, a joker first when ``jokers_must_play``)."""
    led = led_suit(trick, trump)
    if led is None:
        return list(hand)
    suit_of = _SUIT_IN_PLAY[trump]
    same = [card for card in hand if suit_of[card] == led]
    if same:
        return same
    if trump is None and jokers_must_play:
        jokers = [card for card in hand if card in _JOKER_STRENGTH]
        if jokers:
            return jokers
    return list(hand)


def trick_winner(trick: Sequence[tuple[int, str]], trump: str | None, downtown: bool) -> int:
    """The seat that takes the trick: the best trump (jokers on top), else the best card of
    the suit led in the hand's direction; a joker in no trump never wins."""
    strength = STRENGTH[downtown]
    led = led_suit(trick, trump)
    suit_of = _SUIT_IN_PLAY[trump]
    winner, best = trick[0][0], -1
    for seat, card in trick:
        suit = suit_of[card]
        if suit is None:
            contending = 0
        elif suit == trump:
            contending = _TRUMP_BONUS + strength[card]
        elif suit == led:
            contending = strength[card]
        else:
            contending = 0
        if contending > best:
            winner, best = seat, contending
    return winner


# A claim's view of the cards (``server.rules.tricks.TrickPlay``), per trump and direction:
# each card's suit in play and strength, and the trick's winner.
TRICK_ORDERS = {
    (trump, down): {card: (suit_of[card], STRENGTH[down][card]) for card in suit_of}
    for trump, suit_of in _SUIT_IN_PLAY.items()
    for down in (False, True)
}
TRICK_WINNERS = {
    (trump, down): partial(trick_winner, trump=trump, downtown=down)
    for trump in _SUIT_IN_PLAY
    for down in (False, True)
}


def hand_points(
    rules: HouseRules, side: int, contract: int, direction: str | None, team_tricks: Sequence[int]
) -> tuple[list[int], bool, bool, bool]:
    """A finished hand's points per team, and whether it was made, doubled and quadrupled."""
    tricks = team_tricks[side]
    points = [0, 0]
    if rules.thirteen:
        books = tricks + 1  # the discard is the first book
        made = books >= 6 + contract
        points[side] = books - 6 if made else -contract
    else:
        made = tricks >= 5 + contract
        if made:
            points[side] = tricks - 5
        else:
            points[1 - side] = contract + max(0, (12 - tricks) - 6)
    doubled = direction == NO_TRUMP and rules.no_trump_double
    quadrupled = rules.quadruple and 12 in team_tricks
    factor = (2 if doubled else 1) * (4 if quadrupled else 1)
    return [p * factor for p in points], made, doubled, quadrupled


def winning_team(rules: HouseRules | None, totals: Sequence[int], target: int) -> int | None:
    """The team that has won on these totals, or None (a Boston that wins is the caller's)."""
    if rules is None or not rules.thirteen:
        for team in (0, 1):
            if totals[team] >= target:
                return team
        return None
    for team in (0, 1):
        if totals[team] >= rules.game_to:
            return team
        if totals[team] <= -rules.game_to:
            return 1 - team
    return None
