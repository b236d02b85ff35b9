"""Rotate partners: the seating of the next table of a partnership game (partners sit
opposite: seats 0 and 2, 1 and 3) that pairs people who have partnered least tonight.

Four people split into two partnerships three ways; over a night of three tables the rotation
gives each of the six pairs one match together, as clubs do. Empty seats and bots (None) are
seated as they were counted: a pair with a bot is no one's partnership.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

Pair = frozenset[str]
# The three ways to split seats 0-3 into two pairs; the first is the current partnerships.
SPLITS = (((0, 2), (1, 3)), ((0, 1), (2, 3)), ((0, 3), (1, 2)))


def pairs_of(seating: Sequence[str | None]) -> list[Pair]:
    """The partnerships of a four-seat seating (pairs with an empty seat or a bot left out)."""
    out = []
    for a, b in SPLITS[0]:
        first, second = seating[a], seating[b]
        if first is not None and second is not None and first != second:
            out.append(frozenset((first, second)))
    return out


def together(seatings: Iterable[Sequence[str | None]]) -> Counter[Pair]:
    """How often each pair partnered over these seatings."""
    counts: Counter[Pair] = Counter()
    for seating in seatings:
        counts.update(pairs_of(seating))
    return counts


def rotated(seating: Sequence[str | None], counts: Counter[Pair]) -> list[str | None]:
    """The next seating: the split whose partnerships have been together least (ties: the one
    that changes partners, then the order of ``SPLITS``); seat 0 keeps its player."""

    def cost(split: tuple[tuple[int, int], tuple[int, int]]) -> tuple[int, int]:
        together = 0
        for a, b in split:
            first, second = seating[a], seating[b]
            if first and second:
                together += counts[frozenset((first, second))]
        return together, 0 if split is not SPLITS[0] else 1

    best = min(SPLITS, key=cost)
    (a, b), (c, d) = best
    if 0 not in (a, b):
        (a, b), (c, d) = (c, d), (a, b)
    first = a if a == 0 else b
    partner = b if first == a else a
    return [seating[first], seating[c], seating[partner], seating[d]]
