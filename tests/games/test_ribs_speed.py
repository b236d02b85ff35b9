"""Ribs: the fast paths (records built without their frozen ``__init__``) give exactly what
the plain computation gives. (The shuffle is ``server.rules.cards.shuffled``: tests/core.)"""

from __future__ import annotations

import pytest

from server.rules.games.ribs import (
    DealRecord,
    HandResult,
    Play,
    TrickRecord,
    _deal_record,
    _hand_result,
    _trick_record,
)


def test_records_built_fast_equal_those_built_by_their_dataclass():
    plays = (Play(1, (0, 2), False), Play(2, (3, 3), True))
    trick = (2, 0, 5, (1, 4), plays, ("beat", "folded"), (0, 2, 0, 0), False, -1, 0, True)
    assert _trick_record(*trick) == TrickRecord(*trick)
    assert type(_trick_record(*trick)) is TrickRecord
    hand = (1, 3, (1, 0, 0, 0), (12, 4, 8, 6), 10, TrickRecord(*trick))
    assert _hand_result(*hand) == HandResult(*hand)
    deal = (3, ("A", "K"), (("A",), ("K",)))
    assert _deal_record(*deal) == DealRecord(*deal)
    with pytest.raises(AttributeError):
        _deal_record(*deal).dealer = 0  # still frozen
