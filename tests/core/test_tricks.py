"""Follow suit and trick winners, with and without trump, with other rank orders."""

from __future__ import annotations

import pytest

from server.rules.tricks import follow_suit, holds_suit, led_suit, strength_map, trick_winner

TARBISH_TRUMP = strength_map(["J", "9", "A", "10", "K", "Q", "8", "7", "6"])
TARBISH_PLAIN = strength_map(["A", "10", "K", "Q", "J", "9", "8", "7", "6"])


def test_a_player_holding_the_suit_led_must_play_it():
    assert follow_suit(["AS", "2H", "KH"], "H") == ["2H", "KH"]


def test_a_player_void_in_the_suit_led_may_play_anything():
    assert follow_suit(["AS", "2C"], "H") == ["AS", "2C"]
    assert follow_suit(["AS", "2C"], None) == ["AS", "2C"]


def test_the_suit_led_is_the_first_cards_suit():
    assert led_suit([(2, "10D"), (3, "AS")]) == "D" and led_suit([]) is None
    assert holds_suit(["10D"], "D") and not holds_suit(["10D"], "S")


def test_without_trump_the_highest_card_of_the_suit_led_wins():
    assert trick_winner([(0, "2H"), (1, "AS"), (2, "KH"), (3, "QH")], trump=None) == 2


def test_any_trump_beats_the_suit_led_and_the_highest_trump_wins():
    assert trick_winner([(0, "AH"), (1, "2S"), (2, "KH"), (3, "3S")], trump="S") == 3
    assert trick_winner([(0, "AH"), (1, "2S")], trump="S") == 1


def test_tarabish_trump_order_puts_the_jack_and_nine_on_top():
    trick = [(0, "AH"), (1, "9H"), (2, "JH"), (3, "10H")]
    assert trick_winner(trick, "H", TARBISH_PLAIN, TARBISH_TRUMP) == 2
    assert trick_winner(trick[:2], "H", TARBISH_PLAIN, TARBISH_TRUMP) == 1


def test_tarabish_plain_order_puts_the_ten_above_the_king():
    assert trick_winner([(0, "KD"), (1, "10D"), (2, "JD")], "S", TARBISH_PLAIN, TARBISH_TRUMP) == 1


def test_an_empty_trick_has_no_winner():
    with pytest.raises(ValueError):
        trick_winner([], None)
