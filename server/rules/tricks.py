"""Trick rules shared by every engine: who may play what, and who takes the trick.

Every game that plays tricks gets these rules from here, fed by its own rank tables:

- The suit led is the suit of the first card of the trick (``led_suit``).
- A player who holds a card of the suit led must play one (``follow_suit`` lists the cards
  that may be played, ``why_not_follow`` says why one may not). Oh Hell, Bid Whist and Ribs
  stop there.
- Tarabish adds duties about trumps (``trump_duty``, ``why_not_trump``): when trumps are led
  you must head the trick (beat its highest trump) if you can; void in the suit led you must
  trump, and overtrump if you can, otherwise undertrump.
- A trick goes to the highest trump played; if no trump was played, to the highest card of
  the suit led (``trick_winner``).

A hand's trick play as a whole is a ``TrickPlay``: what ``Game.trick_play`` tells a claim's
search (server/rules/claims.py) of it, in the game's own terms: each seat's cards, the trick
so far, whose card is next, each seat's side, and the game's own rules for the trick.

"Highest" comes from a ``Ranks``: card -> strength tables built once per game from rank
orders written high to low, so the natural A-high order and Tarabish's trump order
(J 9 A 10 K Q 8 7 6) and plain order (A 10 K Q J 9 8 7 6) fit side by side. Cards are codes
like ``"10H"``: the suit is the last character.

How an engine uses this module::

    RANKS = Ranks(RANK_ORDER)                      # once, at import
    legal = follow_suit(hand, led_suit(trick))     # legal_actions
    problem = why_not_follow(hand, card, led)      # the engine's why-illegal function
    winner = trick_winner(trick, trump, RANKS)     # when the trick is complete
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from server.rules.cards import RANKS, SUIT_NAMES, SUIT_SINGULAR, SUITS, card_code, card_name

# A play on the table: (seat, card).
Play = tuple[int, str]


class TrickPlay(NamedTuple):
    """A hand's trick play as it stands (``Game.trick_play``), for a claim's search.

    ``order[card]`` is the card's suit as it is played (None: a card of no suit, such as a
    joker at no trump) and its strength in that suit this hand (higher beats lower), so that
    two cards of one hand with no other live card between them can be known as one move;
    ``winner`` is the game's own rule for who takes a complete trick this hand.
    """

    hands: tuple[tuple[str, ...], ...]  # each seat's cards
    trick: tuple[Play, ...]  # the trick so far
    turn: int  # the seat whose card is next
    sides: tuple[int, ...]  # each seat's side: partners share one, else a seat is its own
    trump: str | None
    order: Mapping[str, tuple[str | None, int]]
    winner: Callable[[Sequence[Play]], int]


# Every card code of each suit (the 13 ranks; Tarabish's 36 cards are among them). The cards
# of a suit in a hand are ``[*filter(_IN_SUIT[suit], hand)]``, the set's bound ``__contains__``:
# the test runs in C, cheaper than a comprehension testing ``card[-1]``, and cheaper again with
# the method bound once (docs/decisions/0003).
OF_SUIT: Mapping[str | None, frozenset[str]] = {
    **{suit: frozenset(card_code(rank, suit) for rank in RANKS) for suit in SUITS},
    None: frozenset(),  # no suit (no trump): no card
}
_IN_SUIT = {suit: cards.__contains__ for suit, cards in OF_SUIT.items()}  # bound once


def strength_map(order_high_to_low: Sequence[str]) -> dict[str, int]:
    """A rank -> strength map from a rank order written high to low (highest = largest)."""
    n = len(order_high_to_low)
    return {rank: n - i for i, rank in enumerate(order_high_to_low)}


class Ranks:
    """A game's rank tables, keyed by card: ``plain[card]`` and ``trump[card]`` strengths.

    ``plain_order`` (and ``trump_order``, by default the same) are rank orders high to low.
    A trump always beats a plain card whatever the numbers; strengths only compare cards
    of one suit. ``in_trick[trump][led][card]`` puts that together for ``trick_winner``:
    how strongly a card contends for a trick led in ``led`` under ``trump`` (None: no
    trump), every trump above every card of the suit led, any other card 0.
    ``heads[trump][led][high]`` is the set of cards that would head such a trick whose best
    card so far contends with strength ``high`` (the duty to head a trick asks it of a hand).
    """

    __slots__ = ("heads", "in_trick", "plain", "trump")

    def __init__(self, plain_order: Sequence[str], trump_order: Sequence[str] | None = None) -> None:
        plain = strength_map(plain_order)
        trump = plain if trump_order is None else strength_map(trump_order)
        self.plain: Mapping[str, int] = {card_code(r, s): plain[r] for s in SUITS for r in plain}
        self.trump: Mapping[str, int] = {card_code(r, s): trump[r] for s in SUITS for r in trump}
        above = max(self.plain.values())  # a trump's strength is raised above every plain card
        self.in_trick: Mapping[str | None, Mapping[str, Mapping[str, int]]] = {
            trump_suit: {
                led: {
                    card: (
                        above + strength_of_trump
                        if card[-1] == trump_suit
                        else self.plain[card]
                        if card[-1] == led
                        else 0
                    )
                    for card, strength_of_trump in self.trump.items()
                }
                for led in SUITS
            }
            for trump_suit in (*SUITS, None)
        }
        top = above + max(self.trump.values())
        self.heads: Mapping[str | None, Mapping[str, tuple[frozenset[str], ...]]] = {
            trump_suit: {
                led: tuple(
                    frozenset(card for card, contending in strength.items() if contending > high)
                    for high in range(top + 1)
                )
                for led, strength in by_led.items()
            }
            for trump_suit, by_led in self.in_trick.items()
        }


#: Ace high down to 2 in every suit, trump or not (Oh Hell, Bid Whist, Ribs).
NATURAL = Ranks(RANKS)


def led_suit(trick: Sequence[Play]) -> str | None:
    """The suit of the first card of the trick, or None for an empty trick."""
    return trick[0][1][-1] if trick else None


def follow_suit(hand: Sequence[str], led: str | None) -> list[str]:
    """The cards that may be played under plain follow-suit: the led suit if held, else any."""
    if led is not None:
        same = [*filter(_IN_SUIT[led], hand)]
        if same:
            return same
    return list(hand)


def why_not_follow(hand: Sequence[str], card: str, led: str | None) -> str | None:
    """Why ``card`` (held) breaks follow-suit, or None when it may be played."""
    # Void in the suit led: no card of it in the hand (a set test in C, stopping at the first).
    if led is None or card[-1] == led or OF_SUIT[led].isdisjoint(hand):
        return None
    return f"You must follow suit: you hold a {SUIT_SINGULAR[led]}."


def _heads(trick: Sequence[Play], trump: str | None, led: str, ranks: Ranks) -> frozenset[str]:
    """The cards that would head the trick now: stronger, by ``in_trick``, than its best card
    (a trump above every card of the suit led, any other card 0)."""
    strength = ranks.in_trick[trump][led]
    high = 0
    for _, card in trick:
        contending = strength[card]
        if contending > high:
            high = contending
    return ranks.heads[trump][led][high]


def trump_duty(hand: Sequence[str], trick: Sequence[Play], trump: str | None, ranks: Ranks) -> list[str]:
    """The cards that may be played when follow-suit comes with the duty to trump and head.

    Follow suit; when trumps are led, beat the highest trump in the trick if you can; void in
    the suit led, trump (overtrumping if you can, else undertrumping); with neither, any card.
    """
    if not trick:
        return list(hand)
    led = trick[0][1][-1]
    same = [*filter(_IN_SUIT[led], hand)]
    if same and led != trump:
        return same
    trumps = same or [*filter(_IN_SUIT[trump], hand)]
    if not trumps:
        return list(hand)
    # A trump played heads the trick when it beats the highest trump in it (any trump heads
    # a trick of the plain suit led): each card's strength in this trick says it at once.
    return [*filter(_heads(trick, trump, led, ranks).__contains__, trumps)] or trumps


def why_not_trump(hand: Sequence[str], trick: Sequence[Play], trump: str | None, ranks: Ranks, card: str) -> str | None:
    """Why ``card`` (held) breaks ``trump_duty``, or None when it may be played.

    The same duty checked for one card, without listing the others (building
    ``trump_duty``'s lists to look one card up costs more than the check):
    follow suit; a card that is not of the suit led needs a void in it, and is a trump
    whenever the hand holds one; a trump played to trumps led or on a void must head the
    trick if any card held does (tests/rules/test_tricks.py checks that the two agree on
    every hand of a small deck).
    """
    if not trick:
        return None
    led = trick[0][1][-1]
    suit = card[-1]
    if suit == led != trump:  # following a plain suit led: always allowed (and common)
        return None
    if suit != led:
        problem = why_not_follow(hand, card, led)
        if problem is not None:
            return problem
        if suit != trump:
            if OF_SUIT[trump].isdisjoint(hand):  # holding no trump
                return None
            return (
                f"You must trump: you have no {SUIT_NAMES[led]} and you hold a "
                f"{SUIT_SINGULAR[trump]} (trump)."  # type: ignore[index]
            )
    # A trump, led or on a void. Held cards of other suits have no strength in this trick,
    # and a void holds none of the suit led, so a held card heads the trick only as a trump.
    heads = _heads(trick, trump, led, ranks)
    if card in heads or heads.isdisjoint(hand):
        return None  # it heads the trick, or no card held does (then any trump may be played)
    top = max((c for _, c in trick if c[-1] == trump), key=ranks.trump.__getitem__)
    if led == trump:
        return f"You must head the trick: you hold a trump higher than {card_name(top)}."
    return f"You must overtrump: you hold a trump higher than {card_name(top)}."


def trick_winner(trick: Sequence[Play], trump: str | None, ranks: Ranks = NATURAL) -> int:
    """The seat that wins the trick: highest trump, else highest card of the suit led."""
    if not trick:
        raise ValueError("an empty trick has no winner")
    strength = ranks.in_trick[trump][trick[0][1][-1]]
    winner, best = trick[0][0], 0
    for seat, card in trick:
        contending = strength[card]
        if contending > best:
            winner, best = seat, contending
    return winner
