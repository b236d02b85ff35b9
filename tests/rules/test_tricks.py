"""Follow suit and trick winners, with and without trump, with other rank orders."""

from __future__ import annotations

import random

import pytest

from server.rules.cards import SUITS
from server.rules.tricks import (
    NATURAL,
    Ranks,
    follow_suit,
    led_suit,
    trick_winner,
    trump_duty,
    why_not_follow,
    why_not_trump,
)

TARBISH = Ranks(["A", "10", "K", "Q", "J", "9", "8", "7", "6"], ["J", "9", "A", "10", "K", "Q", "8", "7", "6"])


def test_a_player_holding_the_suit_led_must_play_it():
    assert follow_suit(["AS", "2H", "KH"], "H") == ["2H", "KH"]


def test_a_player_void_in_the_suit_led_may_play_anything():
    assert follow_suit(["AS", "2C"], "H") == ["AS", "2C"]
    assert follow_suit(["AS", "2C"], None) == ["AS", "2C"]


def test_the_suit_led_is_the_first_cards_suit():
    assert led_suit([(2, "10D"), (3, "AS")]) == "D" and led_suit([]) is None
    assert why_not_follow(["10D", "AS"], "AS", "D") is not None  # holds the suit led
    assert why_not_follow(["10D", "AS"], "AS", "H") is None  # void in it


def test_without_trump_the_highest_card_of_the_suit_led_wins():
    assert trick_winner([(0, "2H"), (1, "AS"), (2, "KH"), (3, "QH")], trump=None) == 2


def test_any_trump_beats_the_suit_led_and_the_highest_trump_wins():
    assert trick_winner([(0, "AH"), (1, "2S"), (2, "KH"), (3, "3S")], trump="S") == 3
    assert trick_winner([(0, "AH"), (1, "2S")], trump="S") == 1


def test_tarabish_trump_order_puts_the_jack_and_nine_on_top():
    trick = [(0, "AH"), (1, "9H"), (2, "JH"), (3, "10H")]
    assert trick_winner(trick, "H", TARBISH) == 2
    assert trick_winner(trick[:2], "H", TARBISH) == 1


def test_tarabish_plain_order_puts_the_ten_above_the_king():
    assert trick_winner([(0, "KD"), (1, "10D"), (2, "JD")], "S", TARBISH) == 1


def test_an_empty_trick_has_no_winner():
    with pytest.raises(ValueError):
        trick_winner([], None)


def test_why_not_follow_names_the_suit_held_and_allows_a_void_player_anything():
    assert why_not_follow(["AS", "2H"], "AS", "H") == "You must follow suit: you hold a heart."
    assert why_not_follow(["AS", "2H"], "2H", "H") is None
    assert why_not_follow(["AS", "2C"], "AS", "H") is None
    assert why_not_follow(["AS"], "AS", None) is None


def test_trumps_led_must_be_headed_when_the_hand_can():
    trick = [(0, "AH")]  # hearts trump: the ace is the third trump
    assert trump_duty(["9H", "KH", "AS"], trick, "H", TARBISH) == ["9H"]
    assert why_not_trump(["9H", "KH", "AS"], trick, "H", TARBISH, "KH") == (
        "You must head the trick: you hold a trump higher than A\u2665."
    )
    # a hand that cannot head plays any trump
    assert trump_duty(["KH", "QH", "AS"], trick, "H", TARBISH) == ["KH", "QH"]


def test_a_void_player_must_trump_and_overtrump_if_possible():
    trick = [(0, "AS"), (1, "9H")]
    assert trump_duty(["JH", "KH", "AD"], trick, "H", TARBISH) == ["JH"]
    assert why_not_trump(["JH", "KH", "AD"], trick, "H", TARBISH, "AD") == (
        "You must trump: you have no spades and you hold a heart (trump)."
    )
    assert why_not_trump(["JH", "KH", "AD"], trick, "H", TARBISH, "KH") == (
        "You must overtrump: you hold a trump higher than 9\u2665."
    )
    # unable to overtrump: undertrump; with no trump either: anything
    assert trump_duty(["KH", "AD"], trick, "H", TARBISH) == ["KH"]
    assert trump_duty(["AD", "7C"], trick, "H", TARBISH) == ["AD", "7C"]
    assert why_not_trump(["AD", "7C"], trick, "H", TARBISH, "7C") is None


def test_following_suit_comes_before_trumping():
    trick = [(0, "AS")]
    assert trump_duty(["7S", "JH"], trick, "H", TARBISH) == ["7S"]
    assert why_not_trump(["7S", "JH"], trick, "H", TARBISH, "JH") == ("You must follow suit: you hold a spade.")


def test_why_not_trump_refuses_exactly_the_cards_trump_duty_leaves_out():
    # Every hand of up to four cards from a small deck, against tricks of one to three cards.
    import itertools

    deck = ["JH", "9H", "AH", "KH", "AS", "10S", "7S", "AD", "6C"]
    tricks = (
        [[(0, a)] for a in deck]
        + [[(0, a), (1, b)] for a, b in itertools.permutations(deck, 2)]
        + [[(0, "AS"), (1, "9H"), (2, "KH")], [(0, "KH"), (1, "AS"), (2, "JH")]]
    )
    for trick in tricks:
        played = {c for _, c in trick}
        rest = [c for c in deck if c not in played]
        for size in range(1, 5):
            for hand in itertools.combinations(rest, size):
                for trump in ("H", "S", None):
                    allowed = trump_duty(hand, trick, trump, TARBISH)
                    for card in hand:
                        refused = why_not_trump(hand, trick, trump, TARBISH, card)
                        assert (refused is None) == (card in allowed), (hand, trick, trump, card)


@pytest.mark.parametrize("ranks", [NATURAL, TARBISH], ids=["natural", "tarabish"])
def test_trick_winner_is_the_highest_trump_else_the_highest_card_of_the_suit_led(ranks):
    """Against the rule read literally, on 3,000 random tricks of two to four cards per
    trump (and none): the strength table is only a faster way of saying it."""
    rng = random.Random(17)
    deck = list(ranks.plain)
    for trump in (*SUITS, None):
        for _ in range(3_000):
            cards = rng.sample(deck, rng.randint(2, 4))
            trick = list(zip(rng.sample(range(4), len(cards)), cards, strict=True))
            trumps = [(s, c) for s, c in trick if c[-1] == trump]
            led = [(s, c) for s, c in trick if c[-1] == cards[0][-1]]
            contenders, table = (trumps, ranks.trump) if trumps else (led, ranks.plain)
            expected = max(contenders, key=lambda play: table[play[1]])[0]
            assert trick_winner(trick, trump, ranks) == expected, (trick, trump)
