"""Trick mechanics shared by Oh Hell, Bid Whist and Tarabish.

- The suit led is the suit of the first card of the trick.
- A player who holds a card of the suit led must play one (``follow_suit``); Tarabish adds
  its own duties on top of this.
- A trick goes to the highest trump played; if no trump was played, to the highest card of
  the suit led. "Highest" is given by a rank order passed in, so that Tarabish's trump order
  (J 9 A 10 K Q 8 7 6) and plain order (A 10 K Q J 9 8 7 6) fit beside the natural A-high one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from server.rules.cards import NATURAL_STRENGTH

# A play on the table: (seat, card).
Play = tuple[int, str]


def led_suit(trick: Sequence[Play]) -> str | None:
    """The suit of the first card of the trick, or None for an empty trick."""
    return trick[0][1][-1] if trick else None


def holds_suit(hand: Sequence[str], suit: str) -> bool:
    """True when the hand holds at least one card of ``suit``."""
    for card in hand:
        if card[-1] == suit:
            return True
    return False


def cards_of_suit(hand: Sequence[str], suit: str) -> list[str]:
    """The cards of ``suit`` in the hand, in hand order."""
    return [card for card in hand if card[-1] == suit]


def follow_suit(hand: Sequence[str], led: str | None) -> list[str]:
    """The cards that may be played under plain follow-suit: the led suit if held, else any."""
    if led is None:
        return list(hand)
    same = [card for card in hand if card[-1] == led]
    return same if same else list(hand)


def strength_map(order_high_to_low: Sequence[str]) -> dict[str, int]:
    """A rank -> strength map from a rank order written high to low."""
    n = len(order_high_to_low)
    return {rank: n - i for i, rank in enumerate(order_high_to_low)}


def trick_winner(
    trick: Sequence[Play],
    trump: str | None,
    plain_rank: Mapping[str, int] = NATURAL_STRENGTH,
    trump_rank: Mapping[str, int] | None = None,
) -> int:
    """The seat that wins the trick: highest trump, else highest card of the suit led."""
    if not trick:
        raise ValueError("an empty trick has no winner")
    if trump_rank is None:
        trump_rank = plain_rank
    led = trick[0][1][-1]
    best_seat, best_card = trick[0]
    best_is_trump = led == trump
    for seat, card in trick[1:]:
        suit = card[-1]
        if suit == trump:
            if not best_is_trump or trump_rank[card[:-1]] > trump_rank[best_card[:-1]]:
                best_seat, best_card, best_is_trump = seat, card, True
        elif not best_is_trump and suit == led:
            if plain_rank[card[:-1]] > plain_rank[best_card[:-1]]:
                best_seat, best_card = seat, card
    return best_seat
