"""Cards, decks, seeded shuffles and deals: the mechanics every game shares.

A card is a string, rank then suit: ``"AS"``, ``"10H"``, ``"7C"``. Ranks are
``A K Q J 10 9 8 7 6 5 4 3 2`` and suits ``S H D C``. Ribs ignores suits and uses bare
ranks (``"A"``, ``"10"``); a Ribs deck for ``N`` players holds ``N`` copies of the run
``A K Q J 10 9 8 7``. Jokers, where a game adds them, are ``"BJ"`` (big) and ``"LJ"``
(little): no rank, no suit.

Randomness enters a match once, as its seed. Each hand's shuffle comes from a generator
derived from the seed and the hand's index, so a hand can be re-dealt on its own and a
whole match replays exactly from its seed and its action log.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable, Sequence
from functools import lru_cache

SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RANKS: tuple[str, ...] = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")

# The jokers some games add (Bid Whist's ``jokers`` option): big, then little.
BIG_JOKER = "BJ"
LITTLE_JOKER = "LJ"
JOKERS: tuple[str, ...] = (BIG_JOKER, LITTLE_JOKER)
JOKER_NAMES = {BIG_JOKER: "the big joker", LITTLE_JOKER: "the little joker"}

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
SUIT_SINGULAR = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}

# Natural strength, A high: "2" -> 2 ... "A" -> 14.
NATURAL_STRENGTH: dict[str, int] = {rank: 14 - i for i, rank in enumerate(RANKS)}

_RANK_SET = frozenset(RANKS)
_SUIT_SET = frozenset(SUITS)


def rank_of(card: str) -> str:
    """The rank part of a card code ("10H" -> "10")."""
    return card[:-1]


def suit_of(card: str) -> str:
    """The suit part of a card code ("10H" -> "H")."""
    return card[-1]


def is_card(code: object) -> bool:
    """True when ``code`` is a well-formed suited card code."""
    return isinstance(code, str) and 2 <= len(code) <= 3 and code[-1] in _SUIT_SET and code[:-1] in _RANK_SET


def parse_card(code: object) -> tuple[str, str]:
    """Split a card code into (rank, suit), refusing anything that is not a card."""
    if not is_card(code):
        raise ValueError(f"{code!r} is not a card (expected rank then suit, like 'AS' or '10H')")
    assert isinstance(code, str)
    return code[:-1], code[-1]


def format_card(rank: str, suit: str) -> str:
    """Join a rank and a suit into a card code."""
    if rank not in _RANK_SET or suit not in _SUIT_SET:
        raise ValueError(f"{rank!r}{suit!r} is not a card")
    return card_code(rank, suit)


def card_code(rank: str, suit: str) -> str:
    """The code of a card, as the one string object every deck and table shares.

    Every code the rules build goes through here (``sys.intern``), so a dict or set keyed by
    cards finds a card held, played or offered by identity, without comparing characters
    (docs/decisions/0003).
    Codes that arrive from a client are equal strings, found the same way, only slower.
    """
    return sys.intern(rank + suit)


def card_name(card: str) -> str:
    """A card as a player reads it: "10\u2665" (rank, then the suit's symbol)."""
    if card in RANKS:  # a bare rank (a deck without suits) is its own name
        return card
    if card in JOKER_NAMES:
        return JOKER_NAMES[card]
    return rank_of(card) + SUIT_SYMBOLS.get(suit_of(card), "?")


def standard_deck() -> list[str]:
    """The 52-card deck, suit by suit, A high to 2."""
    return [card_code(rank, suit) for suit in SUITS for rank in RANKS]


def suited_deck(ranks: Sequence[str]) -> list[str]:
    """A short deck: ``ranks`` in each suit, suit by suit (the 36-card deck: A down to 6)."""
    return [card_code(rank, suit) for suit in SUITS for rank in ranks]


def bare_deck(ranks: Sequence[str], runs: int) -> list[str]:
    """A deck without suits: ``runs`` runs of ``ranks``, each card its bare rank."""
    return [rank for _ in range(runs) for rank in ranks]


def hand_rng(seed: int | str, hand_index: int) -> random.Random:
    """The random generator for one hand of a match, derived from the match's seed."""
    return random.Random(f"felt:{seed}:{hand_index}")


@lru_cache(maxsize=32)
def _shuffle_steps(n: int) -> tuple[tuple[int, int, int], ...]:
    # random.Random.shuffle's steps for n cards, last position first: (position, bound, bits);
    # it draws each swap index with getrandbits(bits), again while the draw is >= bound.
    return tuple((i, i + 1, (i + 1).bit_length()) for i in range(n - 1, 0, -1))


def shuffled(cards: Iterable[str], rng: random.Random) -> list[str]:
    """A shuffled copy of ``cards``: exactly ``rng.shuffle``'s order, drawn about twice as fast.

    Every deal of every engine goes through here, so ``random.Random.shuffle`` is unrolled:
    the same draws in the same order (checked against it when this module loads; where they
    ever differ, ``rng.shuffle`` itself is used), so seeds replay the same deals.
    """
    deck = list(cards)
    if not _UNROLLED:
        rng.shuffle(deck)
        return deck
    getrandbits = rng.getrandbits
    for i, size, bits in _shuffle_steps(len(deck)):
        j = getrandbits(bits)
        while j >= size:
            j = getrandbits(bits)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _unrolled_is_stdlib() -> bool:
    cards = [f"c{i}" for i in range(80)]
    for n in (0, 1, 2, 3, 20, 32, 36, 40, 48, 52, 64, 80):
        for k in range(6):
            stdlib = cards[:n]
            random.Random(f"probe:{n}:{k}").shuffle(stdlib)
            if shuffled(cards[:n], random.Random(f"probe:{n}:{k}")) != stdlib:
                return False
    return True


_UNROLLED = True
_UNROLLED = _unrolled_is_stdlib()


def deal(
    deck: Sequence[str], players: int, per_player: int, first: int, packet: int = 1
) -> tuple[list[list[str]], list[str]]:
    """Deal ``per_player`` cards to each seat in packets, clockwise from seat ``first``.

    Returns the hands indexed by seat (each in the order received) and the undealt rest,
    top first.
    """
    if per_player % packet:
        raise ValueError("cards per player must be a whole number of packets")
    needed = players * per_player
    if needed > len(deck):
        raise ValueError(f"cannot deal {needed} cards from a deck of {len(deck)}")
    hands: list[list[str]] = [[] for _ in range(players)]
    pos = 0
    for _ in range(per_player // packet):
        for i in range(players):
            seat = (first + i) % players
            hands[seat].extend(deck[pos : pos + packet])
            pos += packet
    return hands, list(deck[pos:])


def check_deck(deck: Sequence[str], expected: Sequence[str]) -> list[str]:
    """Check that a stacked deck is exactly a permutation of ``expected``; return it as a list."""
    cards = list(deck)
    if sorted(cards) != sorted(expected):
        missing = sorted(set(expected) - set(cards))
        extra = sorted(set(cards) - set(expected))
        raise ValueError(
            f"a stacked deck must hold exactly the game's {len(expected)} cards"
            f" (got {len(cards)}; missing {missing[:5]}, unexpected {extra[:5]})"
        )
    return cards


def sort_hand(cards: Iterable[str], suit_order: Sequence[str] = SUITS) -> list[str]:
    """A hand sorted for display: by suit, then high to low."""
    order = {suit: i for i, suit in enumerate(suit_order)}
    return sorted(cards, key=lambda c: (order.get(suit_of(c), 9), -NATURAL_STRENGTH[rank_of(c)]))
