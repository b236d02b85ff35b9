"""Card codes, decks, seeded shuffles and deals."""

from __future__ import annotations

import pytest

from server.games.ribs.rules import ribs_deck
from server.games.tarbish.rules import DECK as TARBISH_DECK
from server.rules.cards import (
    NATURAL_STRENGTH,
    card_name,
    check_deck,
    deal,
    hand_rng,
    is_card,
    parse_card,
    shuffled,
    sort_hand,
    standard_deck,
)


def test_card_codes_parse_into_rank_and_suit():
    assert parse_card("AS") == ("A", "S")
    assert parse_card("10H") == ("10", "H")
    assert parse_card("7C") == ("7", "C")


@pytest.mark.parametrize("bad", ["", "A", "1S", "11H", "AX", "as", "10", 10, None, ["AS"], "AS "])
def test_anything_that_is_not_a_card_code_is_refused_with_the_input_quoted(bad):
    assert not is_card(bad)
    with pytest.raises(ValueError, match="not a card"):
        parse_card(bad)


def test_each_game_has_its_own_deck():
    assert len(standard_deck()) == len(set(standard_deck())) == 52
    assert len(TARBISH_DECK) == 36 and not any(c[:-1] in {"2", "3", "4", "5"} for c in TARBISH_DECK)
    assert ribs_deck(5).count("A") == 5 and len(ribs_deck(5)) == 40


def test_the_same_seed_and_hand_give_the_same_shuffle_and_other_hands_differ():
    a = shuffled(standard_deck(), hand_rng(42, 0))
    b = shuffled(standard_deck(), hand_rng(42, 0))
    c = shuffled(standard_deck(), hand_rng(42, 1))
    d = shuffled(standard_deck(), hand_rng(43, 0))
    assert a == b and a != c and a != d and sorted(a) == sorted(standard_deck())


@pytest.mark.parametrize("size", [0, 1, 2, 32, 36, 40, 48, 52, 56, 64, 72, 80])
def test_the_unrolled_shuffle_is_exactly_random_shuffle_for_every_deck_the_games_use(size, monkeypatch):
    import random

    import server.rules.cards as cards

    deck = [f"c{i}" for i in range(size)]
    for seed in range(40):
        expected = list(deck)
        hand_rng(seed * 7919, seed).shuffle(expected)
        assert shuffled(deck, hand_rng(seed * 7919, seed)) == expected
    assert cards._UNROLLED  # the import-time check found it equal, so the unrolled path ran
    monkeypatch.setattr(cards, "_UNROLLED", False)  # the fallback: rng.shuffle itself
    expected = list(deck)
    random.Random(3).shuffle(expected)
    assert shuffled(deck, random.Random(3)) == expected


def test_a_deal_goes_clockwise_from_the_first_seat_in_packets():
    deck = [str(i) for i in range(12)]
    hands, rest = deal(deck, players=3, per_player=3, first=1)
    assert hands == [["2", "5", "8"], ["0", "3", "6"], ["1", "4", "7"]] and rest == ["9", "10", "11"]
    hands, rest = deal(deck, players=2, per_player=4, first=0, packet=2)
    assert hands == [["0", "1", "4", "5"], ["2", "3", "6", "7"]]


def test_a_deal_that_needs_more_cards_than_the_deck_is_refused():
    with pytest.raises(ValueError):
        deal(standard_deck(), players=6, per_player=9, first=0)
    with pytest.raises(ValueError):
        deal(standard_deck(), players=4, per_player=5, first=0, packet=2)


def test_a_stacked_deck_must_be_exactly_the_games_cards():
    deck = standard_deck()
    assert check_deck(list(reversed(deck)), deck) == list(reversed(deck))
    with pytest.raises(ValueError, match="exactly"):
        check_deck(deck[:-1] + ["AS"], deck)


def test_cards_read_with_suit_symbols_and_sort_for_display():
    assert card_name("10H") == "10\u2665" and card_name("K") == "K"
    assert sort_hand(["2S", "AH", "KS", "3D"]) == ["KS", "2S", "AH", "3D"]
    assert NATURAL_STRENGTH["A"] > NATURAL_STRENGTH["K"] > NATURAL_STRENGTH["2"]
