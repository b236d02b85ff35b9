"""Oh Hell: the worked examples of RULES.md 2.8 on stacked decks, then one test per rule and option."""

from __future__ import annotations

import copy
import json

import pytest

from server.games import IllegalAction, NotYourTurn, get_game
from server.games.oh_hell.rules import (
    MAX_EXTRA_HANDS,
    hand_sizes,
    score_hand,
)
from server.rules.cards import hand_rng, shuffled, standard_deck

GAME = get_game("oh_hell")


def stacked(
    hands: dict[int, list[str]], turned: str, dealer: int, players: int, rest: list[str] | None = None
) -> list[str]:
    """A deck that deals ``hands`` (by seat) one card at a time from the dealer's left."""
    size = len(hands[0])
    deck: list[str] = []
    for k in range(size):
        for i in range(players):
            deck.append(hands[(dealer + 1 + i) % players][k])
    deck.append(turned)
    used = set(deck)
    tail = [c for c in (rest or []) if c not in used]
    deck += tail + [c for c in standard_deck() if c not in used and c not in tail]
    return deck


def bid(state, seat, value):
    return GAME.apply(state, seat, {"type": "bid", "value": value})


def play(state, seat, card):
    return GAME.apply(state, seat, {"type": "play", "card": card})


def bid_values(state, seat):
    return {a["value"] for a in GAME.legal_actions(state, seat)}


def play_cards(state, seat):
    return {a["card"] for a in GAME.legal_actions(state, seat)}


def one_hand(options=None):
    """Options for a match that is one hand of ``max_cards``."""
    opts = {"start": "high", "rebound": False}
    opts.update(options or {})
    return opts


O1_HANDS = {
    1: ["AS", "7H", "3D"],
    2: ["KS", "4S", "9C"],
    3: ["QH", "KD", "2C"],
    0: ["2S", "AH", "JD"],
}


def o1_state(scoring="standard"):
    deck = stacked(O1_HANDS, "5H", dealer=0, players=4)
    return GAME.new_game(
        4,
        {"max_cards": 3, "start": "high", "rebound": False, "scoring": scoring},
        seed=1,
        dealer=0,
        decks=[deck],
    )


def play_o1(scoring):
    s = o1_state(scoring)
    for seat, value in ((1, 1), (2, 1), (3, 0), (0, 2)):
        s = bid(s, seat, value)
    for seat, card in ((1, "AS"), (2, "4S"), (3, "2C"), (0, "2S")):
        s = play(s, seat, card)
    assert GAME.view(s, None)["last_trick"]["winner"] == 1
    for seat, card in ((1, "3D"), (2, "9C"), (3, "KD"), (0, "JD")):
        s = play(s, seat, card)
    assert GAME.view(s, None)["last_trick"]["winner"] == 3
    for seat, card in ((3, "QH"), (0, "AH"), (1, "7H"), (2, "KS")):
        s = play(s, seat, card)
    return s


# ---- RULES 2.8 worked examples ----------------------------------------------------------


def test_o1_deal_gives_each_seat_its_cards_and_turns_the_five_of_hearts_for_trump():
    s = o1_state()
    for seat, cards in O1_HANDS.items():
        assert sorted(GAME.view(s, seat)["hand"]) == sorted(cards)
    v = GAME.view(s, None)
    assert v["turned"] == "5H" and v["trump"] == "H"
    assert v["to_act"] == [1] and v["dealer"] == 0 and v["hand_size"] == 3


def test_o1_dealer_may_not_bid_one_under_the_hook_and_bids_two():
    s = o1_state()
    for seat, value in ((1, 1), (2, 1), (3, 0)):
        s = bid(s, seat, value)
    assert bid_values(s, 0) == {0, 2, 3}
    assert GAME.view(s, 2)["forbidden_bid"] == 1
    with pytest.raises(IllegalAction, match="hook"):
        bid(s, 0, 1)
    s = bid(s, 0, 2)
    assert GAME.view(s, None)["bids"] == [2, 1, 1, 0]
    assert GAME.view(s, None)["phase"] == "playing"


def test_o1_tricks_go_to_p1_p3_and_p0_and_p2_must_follow_spades():
    s = o1_state()
    for seat, value in ((1, 1), (2, 1), (3, 0), (0, 2)):
        s = bid(s, seat, value)
    s = play(s, 1, "AS")
    assert play_cards(s, 2) == {"KS", "4S"}
    with pytest.raises(IllegalAction, match=r"You must follow suit: you hold a spade\."):
        play(s, 2, "9C")
    s = play_o1("standard")
    assert GAME.view(s, None)["history"][0]["tricks_won"] == [1, 1, 0, 1]
    assert GAME.view(s, None)["history"][0]["last_trick"] == {
        "cards": [
            {"seat": 3, "card": "QH"},
            {"seat": 0, "card": "AH"},
            {"seat": 1, "card": "7H"},
            {"seat": 2, "card": "KS"},
        ],
        "winner": 0,
    }


@pytest.mark.parametrize(
    "scoring, expected",
    [
        ("standard", [0, 11, 0, 0]),
        ("basic", [1, 11, 0, 1]),
        ("penalty", [-1, 11, -1, -1]),
    ],
)
def test_o1_scores_under_each_scoring_method(scoring, expected):
    s = play_o1(scoring)
    assert GAME.view(s, None)["history"][0]["scores"] == expected
    assert GAME.view(s, None)["scores"] == expected


def test_o3_dealer_is_free_when_the_forbidden_value_is_out_of_range():
    deck = stacked({1: ["AS", "KS"], 2: ["AH", "KH"], 3: ["AD", "KD"], 0: ["AC", "KC"]}, "2S", dealer=0, players=4)
    s = GAME.new_game(4, one_hand({"max_cards": 2}), dealer=0, decks=[deck])
    for seat, value in ((1, 2), (2, 1), (3, 0)):
        s = bid(s, seat, value)
    assert bid_values(s, 0) == {0, 1, 2}
    assert GAME.view(s, 0)["forbidden_bid"] is None


def test_o5_four_player_default_sequence_is_ten_down_to_one_and_back_in_19_hands():
    sizes = hand_sizes(4, GAME.parse_options({}))
    assert sizes == (10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
    assert GAME.view(GAME.new_game(4), None)["hands_total"] == 19


def test_o5_min_cards_three_gives_ten_down_to_three_and_back_in_15_hands():
    sizes = hand_sizes(4, GAME.parse_options({"min_cards": 3}))
    assert sizes == (10, 9, 8, 7, 6, 5, 4, 3, 4, 5, 6, 7, 8, 9, 10)


def test_o5_six_player_default_is_eight_down_to_one_and_back_in_15_hands():
    sizes = hand_sizes(6, GAME.parse_options({}))
    assert sizes == (8, 7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7, 8)


def test_o5_five_players_start_low_without_rebound_play_one_to_ten():
    sizes = hand_sizes(5, GAME.parse_options({"start": "low", "rebound": False}))
    assert sizes == tuple(range(1, 11))


# ---- players, sequence, options --------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_three_to_seven_players_can_play(players):
    s = GAME.new_game(players)
    assert GAME.players(s) == players
    assert GAME.view(s, None)["hand_counts"] == [min(10, 51 // players)] * players


@pytest.mark.parametrize("players", [2, 8, 0])
def test_fewer_than_three_or_more_than_seven_players_are_refused(players):
    with pytest.raises(ValueError, match="3 to 7"):
        GAME.new_game(players)


def test_seven_players_default_to_seven_cards_down_to_one_and_back_in_13_hands():
    assert hand_sizes(7, GAME.parse_options({})) == (7, 6, 5, 4, 3, 2, 1, 2, 3, 4, 5, 6, 7)


def test_start_low_with_rebound_goes_up_and_back_down():
    assert hand_sizes(4, GAME.parse_options({"start": "low", "max_cards": 4})) == (1, 2, 3, 4, 3, 2, 1)


def test_start_high_without_rebound_only_goes_down():
    assert hand_sizes(3, GAME.parse_options({"rebound": False, "min_cards": 3, "max_cards": 5})) == (5, 4, 3)


def test_equal_min_and_max_cards_make_a_single_hand():
    assert hand_sizes(4, GAME.parse_options({"min_cards": 3, "max_cards": 3})) == (3,)


@pytest.mark.parametrize("players, cap", [(3, 17), (4, 12), (5, 10), (6, 8), (7, 7)])
def test_max_cards_up_to_51_over_n_is_accepted_and_leaves_a_card_to_turn(players, cap):
    s = GAME.new_game(players, {"max_cards": cap})
    assert GAME.view(s, 0)["hand_size"] == cap
    assert GAME.full_view(s)["turned"] is not None
    assert len(GAME.full_view(s)["stock"]) == 52 - 1 - players * cap


@pytest.mark.parametrize("players, cap", [(3, 17), (4, 12), (5, 10), (6, 8), (7, 7)])
def test_max_cards_above_51_over_n_is_refused_naming_the_option(players, cap):
    with pytest.raises(ValueError, match="max_cards"):
        GAME.new_game(players, {"max_cards": cap + 1})


def test_max_cards_below_min_cards_is_refused_naming_the_option():
    with pytest.raises(ValueError, match=r"max_cards.*min_cards"):
        GAME.new_game(4, {"min_cards": 3, "max_cards": 2})


def test_min_cards_must_be_one_or_three():
    with pytest.raises(ValueError, match="min_cards"):
        GAME.new_game(4, {"min_cards": 2})


def test_vienna_with_anderson_is_refused_with_a_clear_message():
    with pytest.raises(ValueError, match="'vienna' cannot be combined with scoring 'anderson'"):
        GAME.new_game(4, {"vienna": True, "scoring": "anderson"})
    with pytest.raises(ValueError, match="vienna"):
        GAME.parse_options({"vienna": True, "scoring": "anderson"})


def test_unknown_options_and_bad_values_are_refused_naming_the_option():
    with pytest.raises(ValueError, match="unknown option 'trumps'"):
        GAME.new_game(4, {"trumps": True})
    with pytest.raises(ValueError, match="scoring"):
        GAME.new_game(4, {"scoring": "golf"})
    with pytest.raises(ValueError, match="start"):
        GAME.new_game(4, {"start": "middle"})


def test_options_default_to_the_rules_defaults_and_describe_themselves():
    opts = GAME.parse_options(None)
    assert opts.model_dump() == {
        "start": "high",
        "rebound": True,
        "min_cards": 1,
        "max_cards": None,
        "hook": True,
        "scoring": "standard",
        "vienna": False,
        "until_clear_winner": False,
        "hook_last_hand": True,
        "trump": "turn",
        "blind_one": False,
    }
    schema = GAME.options_schema()["properties"]
    assert all(prop.get("description") for prop in schema.values())
    assert "provisional" in schema["scoring"]["description"]


def test_dealer_rotates_clockwise_every_hand_from_the_given_first_dealer():
    s = GAME.new_game(5, {"max_cards": 3}, seed=4, dealer=3)
    dealers = []
    while GAME.to_act(s):
        dealers.append(GAME.view(s, None)["dealer"])
        seat = GAME.to_act(s)[0]
        s = GAME.apply(s, seat, GAME.legal_actions(s, seat)[0])
    hands = [r["dealer"] for r in GAME.hand_records(s)]
    assert hands == [3, 4, 0, 1, 2]
    assert dealers[0] == 3


# ---- deal and trump ----------------------------------------------------------------------------


def test_cards_are_dealt_one_at_a_time_from_the_dealers_left_and_the_next_card_is_turned():
    deck = standard_deck()
    s = GAME.new_game(3, one_hand({"max_cards": 2}), dealer=1, decks=[deck])
    full = GAME.full_view(s)
    # dealer 1: eldest is seat 2, then 0, then 1
    assert set(full["hands"][2]) == {deck[0], deck[3]}
    assert set(full["hands"][0]) == {deck[1], deck[4]}
    assert set(full["hands"][1]) == {deck[2], deck[5]}
    assert full["turned"] == deck[6] and full["trump"] == deck[6][-1]
    assert full["stock"] == deck[7:]


def test_hands_beyond_the_stacked_decks_are_shuffled_from_the_seed():
    deck = standard_deck()
    s = GAME.new_game(4, {"max_cards": 2, "rebound": False}, seed=9, decks=[deck])
    while GAME.view(s, None)["hand_number"] == 1:
        seat = GAME.to_act(s)[0]
        s = GAME.apply(s, seat, GAME.legal_actions(s, seat)[0])
    expected = shuffled(standard_deck(), hand_rng(9, 1))
    record = GAME.hand_records(s)[1]
    assert record["deal"]["turned"] == expected[4]
    assert record["deal"]["stock"] == expected[5:]


def test_a_stacked_deck_that_is_not_the_52_cards_is_refused():
    with pytest.raises(ValueError, match="52"):
        GAME.new_game(4, decks=[standard_deck()[:-1]])
    with pytest.raises(ValueError):
        GAME.new_game(4, decks=[standard_deck()[:-1] + ["AS"]])


def test_the_same_seed_deals_the_same_hands_and_another_seed_does_not():
    a, b, c = (GAME.full_view(GAME.new_game(4, seed=x)) for x in (5, 5, 6))
    assert a == b
    assert a["hands"] != c["hands"]


# ---- bidding ------------------------------------------------------------------------------------


def test_bidding_starts_left_of_the_dealer_and_the_dealer_bids_last():
    s = GAME.new_game(4, one_hand({"max_cards": 3}), dealer=2, seed=1)
    order = []
    while GAME.view(s, None)["phase"] == "bidding":
        seat = GAME.to_act(s)[0]
        order.append(seat)
        s = bid(s, seat, 0 if seat != 2 else 1)
    assert order == [3, 0, 1, 2]


def test_a_bid_is_a_whole_number_from_zero_to_the_hand_size():
    s = GAME.new_game(4, one_hand({"max_cards": 3}), seed=1)
    assert bid_values(s, 1) == {0, 1, 2, 3}
    for bad in (4, -1):
        with pytest.raises(IllegalAction, match="from 0 to 3"):
            bid(s, 1, bad)
    for junk in ("2", 1.0, True, None):
        with pytest.raises(IllegalAction, match="whole number"):
            GAME.apply(s, 1, {"type": "bid", "value": junk})


def test_passing_and_playing_are_refused_while_bidding():
    s = GAME.new_game(4, one_hand({"max_cards": 3}), seed=1)
    with pytest.raises(IllegalAction, match="bid"):
        GAME.apply(s, 1, {"type": "pass"})
    with pytest.raises(IllegalAction, match="bid"):
        GAME.apply(s, 1, {"type": "play", "card": GAME.view(s, 1)["hand"][0]})


def test_dealer_may_not_bid_the_value_that_makes_bids_total_the_tricks():
    s = GAME.new_game(4, one_hand({"max_cards": 5}), seed=2)
    for seat, value in ((1, 2), (2, 0), (3, 1)):
        s = bid(s, seat, value)
    assert bid_values(s, 0) == {0, 1, 3, 4, 5}
    with pytest.raises(IllegalAction, match="may not bid 2"):
        bid(s, 0, 2)


def test_without_the_hook_the_dealer_may_make_the_bids_total_the_tricks():
    s = GAME.new_game(4, one_hand({"max_cards": 5, "hook": False}), seed=2)
    for seat, value in ((1, 2), (2, 0), (3, 1)):
        s = bid(s, seat, value)
    assert bid_values(s, 0) == {0, 1, 2, 3, 4, 5}
    assert GAME.view(s, 0)["forbidden_bid"] is None
    s = bid(s, 0, 2)
    assert GAME.view(s, None)["bids"] == [2, 2, 0, 1]


def test_forbidden_bid_is_shown_only_when_the_dealer_is_to_bid():
    s = GAME.new_game(4, one_hand({"max_cards": 2}), seed=3)
    assert GAME.view(s, None)["forbidden_bid"] is None
    for seat in (1, 2, 3):
        s = bid(s, seat, 0)
        expected = 2 if seat == 3 else None
        assert all(GAME.view(s, x)["forbidden_bid"] == expected for x in (None, 0, 1, 2, 3))


def test_bids_are_null_until_made_and_public_to_everyone():
    s = GAME.new_game(4, one_hand({"max_cards": 3}), seed=1)
    assert GAME.view(s, 2)["bids"] == [None, None, None, None]
    s = bid(s, 1, 2)
    assert GAME.view(s, None)["bids"] == [None, 2, None, None]
    assert GAME.view(s, 3)["bids"] == [None, 2, None, None]


# ---- play ------------------------------------------------------------------------------------------


def bid_out(state):
    while GAME.view(state, None)["phase"] == "bidding":
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    return state


def test_eldest_leads_the_first_trick_and_the_winner_leads_the_next():
    deck = stacked({1: ["2S", "3S"], 2: ["AS", "4S"], 3: ["5S", "6S"], 0: ["7S", "8S"]}, "2H", dealer=0, players=4)
    s = bid_out(GAME.new_game(4, one_hand({"max_cards": 2}), decks=[deck]))
    assert GAME.to_act(s) == [1]
    for seat, card in ((1, "2S"), (2, "AS"), (3, "5S"), (0, "7S")):
        s = play(s, seat, card)
    assert GAME.to_act(s) == [2]
    assert GAME.view(s, None)["tricks_won"] == [0, 0, 1, 0]


def test_a_player_void_in_the_suit_led_may_play_any_card():
    s = o1_state()
    s = bid_out(s)
    s = play(s, 1, "AS")
    s = play(s, 2, "4S")
    assert play_cards(s, 3) == {"QH", "KD", "2C"}


def test_trump_may_be_led_at_any_time():
    s = bid_out(o1_state())
    assert "7H" in play_cards(s, 1)
    s = play(s, 1, "7H")
    assert GAME.view(s, None)["led_suit"] == "H"
    assert play_cards(s, 2) == {"KS", "4S", "9C"}


def test_the_highest_trump_wins_even_against_a_higher_card_of_the_suit_led():
    deck = stacked({1: ["AS"], 2: ["2H"], 3: ["3H"], 0: ["KS"]}, "5H", dealer=0, players=4)
    s = bid_out(GAME.new_game(4, one_hand({"max_cards": 1}), decks=[deck]))
    for seat, card in ((1, "AS"), (2, "2H"), (3, "3H"), (0, "KS")):
        s = play(s, seat, card)
    assert GAME.view(s, None)["history"][0]["tricks_won"] == [0, 0, 0, 1]


def test_without_trump_a_higher_card_of_another_suit_does_not_win():
    deck = stacked({1: ["5D"], 2: ["AS"], 3: ["KC"], 0: ["9D"]}, "5H", dealer=0, players=4)
    s = bid_out(GAME.new_game(4, one_hand({"max_cards": 1}), decks=[deck]))
    for seat, card in ((1, "5D"), (2, "AS"), (3, "KC"), (0, "9D")):
        s = play(s, seat, card)
    assert GAME.view(s, None)["history"][0]["tricks_won"] == [1, 0, 0, 0]


def test_cards_not_held_and_junk_cards_are_refused():
    s = bid_out(o1_state())
    with pytest.raises(IllegalAction, match="You do not hold KS"):
        play(s, 1, "KS")
    for junk in ("ZZ", None, 5, ["AS"], "as"):
        with pytest.raises(IllegalAction):
            GAME.apply(s, 1, {"type": "play", "card": junk})
    with pytest.raises(IllegalAction, match="play a card"):
        bid(s, 1, 1)


def test_junk_actions_raise_illegal_action_and_never_another_error():
    s = o1_state()
    for junk in (
        None,
        3,
        "bid",
        [],
        {},
        {"type": None},
        {"type": "bid"},
        {"value": 1},
        {"type": "bid", "value": {"x": 1}},
    ):
        with pytest.raises(IllegalAction):
            GAME.apply(s, 1, junk)


def test_acting_out_of_turn_raises_not_your_turn():
    s = o1_state()
    for seat in (0, 2, 3, 4, -1, None, "1"):
        with pytest.raises(NotYourTurn):
            bid(s, seat, 0)
    assert GAME.legal_actions(s, 2) == []
    assert GAME.legal_actions(s, 9) == []


def test_apply_never_changes_the_state_it_was_given():
    s = bid_out(o1_state())
    before = copy.deepcopy(GAME.full_view(s))
    snapshot = copy.deepcopy(s)
    play(s, 1, "AS")
    with pytest.raises(IllegalAction):
        play(s, 1, "KS")
    assert GAME.full_view(s) == before
    assert s == snapshot


# ---- scoring -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scoring, bid_, taken, size, points",
    [
        ("standard", 2, 2, 5, 12),
        ("standard", 0, 0, 5, 10),
        ("standard", 2, 3, 5, 0),
        ("basic", 2, 2, 5, 12),
        ("basic", 2, 3, 5, 3),
        ("basic", 0, 0, 5, 10),
        ("penalty", 3, 3, 5, 13),
        ("penalty", 1, 4, 5, -3),
        ("penalty", 4, 1, 5, -3),
        ("anderson", 3, 3, 5, 0),
        ("anderson", 3, 2, 5, -1),
        ("anderson", 1, 3, 5, -3),
        ("anderson", 0, 3, 5, -6),
        ("anderson", 5, 1, 5, -10),
    ],
)
def test_each_scoring_method_scores_made_and_missed_bids_as_the_rules_table_says(scoring, bid_, taken, size, points):
    assert score_hand(scoring, False, bid_, taken, size) == points


@pytest.mark.parametrize("scoring", ["standard", "basic", "penalty"])
def test_vienna_makes_a_made_zero_bid_worth_the_hand_size_plus_five_and_leaves_misses_alone(scoring):
    assert score_hand(scoring, True, 0, 0, 7) == 12
    assert score_hand(scoring, True, 2, 2, 7) == score_hand(scoring, False, 2, 2, 7)
    assert score_hand(scoring, True, 0, 1, 7) == score_hand(scoring, False, 0, 1, 7)


def test_vienna_in_play_scores_p3s_made_zero_bid_in_o1_as_three_plus_five():
    # O1 with P3 taking no trick: P3 plays 2C on the first diamond instead of KD.
    hands = dict(O1_HANDS)
    hands[3] = ["QH", "2D", "2C"]
    deck = stacked(hands, "5H", dealer=0, players=4)
    s = GAME.new_game(4, one_hand({"max_cards": 3, "vienna": True}), decks=[deck])
    for seat, value in ((1, 1), (2, 1), (3, 0), (0, 2)):
        s = bid(s, seat, value)
    for seat, card in (
        (1, "AS"),
        (2, "4S"),
        (3, "2C"),
        (0, "2S"),
        (1, "3D"),
        (2, "9C"),
        (3, "2D"),
        (0, "JD"),
        (0, "AH"),
        (1, "7H"),
        (2, "KS"),
        (3, "QH"),
    ):
        s = play(s, seat, card)
    entry = GAME.view(s, None)["history"][0]
    assert entry["tricks_won"] == [2, 1, 0, 0]
    assert entry["scores"] == [12, 11, 0, 8]


def test_anderson_scores_o1_as_zero_for_the_made_bid_and_minus_one_for_each_miss_by_one():
    assert GAME.view(play_o1("anderson"), None)["scores"] == [-1, 0, -1, -1]


# ---- end of the match ---------------------------------------------------------------------------------


def test_tied_leaders_are_co_winners():
    deck = stacked({1: ["AS"], 2: ["KS"], 3: ["QS"], 0: ["JS"]}, "2H", dealer=0, players=4)
    s = GAME.new_game(4, one_hand({"max_cards": 1}), decks=[deck])
    for seat in (1, 2, 3, 0):
        s = bid(s, seat, 0)
    for seat, card in ((1, "AS"), (2, "KS"), (3, "QS"), (0, "JS")):
        s = play(s, seat, card)
    assert GAME.outcome(s) == {"scores": [10, 0, 10, 10], "winners": [0, 2, 3]}
    assert GAME.to_act(s) == [] and GAME.view(s, None)["phase"] == "over"


def test_a_single_top_scorer_is_the_only_winner():
    deck = stacked({1: ["AS"], 2: ["KS"], 3: ["QS"], 0: ["JS"]}, "2H", dealer=0, players=4)
    s = GAME.new_game(4, one_hand({"max_cards": 1}), decks=[deck])
    for seat, value in ((1, 1), (2, 0), (3, 0), (0, 1)):
        s = bid(s, seat, value)
    for seat, card in ((1, "AS"), (2, "KS"), (3, "QS"), (0, "JS")):
        s = play(s, seat, card)
    assert GAME.outcome(s) == {"scores": [0, 11, 10, 10], "winners": [1]}


def test_until_clear_winner_deals_an_extra_hand_of_the_last_size_when_the_lead_is_tied():
    first = stacked({1: ["AS"], 2: ["KS"], 3: ["QS"], 0: ["JS"]}, "2H", dealer=0, players=4)
    second = stacked({2: ["AD"], 3: ["KD"], 0: ["QD"], 1: ["JD"]}, "2H", dealer=1, players=4)
    s = GAME.new_game(4, one_hand({"max_cards": 1, "until_clear_winner": True}), decks=[first, second])
    for seat in (1, 2, 3, 0):
        s = bid(s, seat, 0)
    for seat, card in ((1, "AS"), (2, "KS"), (3, "QS"), (0, "JS")):
        s = play(s, seat, card)
    assert GAME.outcome(s) is None
    v = GAME.view(s, None)
    assert (v["hand_number"], v["hands_total"], v["hand_size"], v["dealer"]) == (2, 2, 1, 1)
    for seat, value in ((2, 0), (3, 0), (0, 0), (1, 0)):
        s = bid(s, seat, value)
    for seat, card in ((2, "AD"), (3, "KD"), (0, "QD"), (1, "JD")):
        s = play(s, seat, card)
    assert GAME.view(s, None)["scores"] == [20, 10, 10, 20]
    # seats 0 and 3 still tie at 20: a third hand follows
    assert GAME.outcome(s) is None and GAME.view(s, None)["hand_number"] == 3


def test_until_clear_winner_stops_after_the_extra_hand_limit_with_co_winners():
    opts = one_hand({"max_cards": 1, "until_clear_winner": True, "scoring": "anderson", "hook": False})
    s = GAME.new_game(4, opts, seed=11)
    while GAME.to_act(s):
        # Everyone bids exactly what they will take, so all stay tied at 0.
        full = GAME.full_view(s)
        dry = s
        for _ in range(4):
            seat = GAME.to_act(dry)[0]
            dry = bid(dry, seat, 0)
        for _ in range(4):
            seat = GAME.to_act(dry)[0]
            dry = play(dry, seat, full["hands"][seat][0])
        winner = GAME.view(dry, None)["history"][-1]["last_trick"]["winner"]
        for _ in range(4):
            seat = GAME.to_act(s)[0]
            s = bid(s, seat, 1 if seat == winner else 0)
        for _ in range(4):
            seat = GAME.to_act(s)[0]
            s = play(s, seat, full["hands"][seat][0])
    assert len(GAME.hand_records(s)) == 1 + MAX_EXTRA_HANDS
    assert GAME.outcome(s) == {"scores": [0, 0, 0, 0], "winners": [0, 1, 2, 3]}


def test_without_until_clear_winner_a_tie_ends_the_match():
    deck = stacked({1: ["AS"], 2: ["KS"], 3: ["QS"], 0: ["JS"]}, "2H", dealer=0, players=4)
    s = GAME.new_game(4, one_hand({"max_cards": 1}), decks=[deck])
    for seat in (1, 2, 3, 0):
        s = bid(s, seat, 0)
    for seat, card in ((1, "AS"), (2, "KS"), (3, "QS"), (0, "JS")):
        s = play(s, seat, card)
    assert len(GAME.hand_records(s)) == 1 and GAME.outcome(s)["winners"] == [0, 2, 3]


# ---- views and records ---------------------------------------------------------------------------------


VIEW_KEYS = {
    "phase",
    "dealer",
    "to_act",
    "hand",
    "hand_counts",
    "trick",
    "led_suit",
    "trump",
    "turned",
    "bids",
    "forbidden_bid",
    "tricks_won",
    "last_trick",
    "hand_size",
    "hand_number",
    "hands_total",
    "scores",
    "history",
    "legal",
    "revealed",
    "log",
}


def test_the_view_has_the_protocol_keys_and_the_oh_hell_keys_and_is_json():
    s = o1_state()
    for seat in (None, 0, 1):
        v = GAME.view(s, seat)
        assert set(v) == VIEW_KEYS
        assert json.loads(json.dumps(v)) == v


def test_a_spectator_sees_no_hand_and_no_legal_actions():
    v = GAME.view(o1_state(), None)
    assert v["hand"] is None and v["legal"] == []
    assert not {"AS", "KS", "QH", "2S"} & set(json.dumps(v).replace('"', " ").split())


def test_legal_is_shown_only_to_the_seat_that_must_act():
    s = o1_state()
    assert GAME.view(s, 1)["legal"] == GAME.legal_actions(s, 1)
    assert GAME.view(s, 2)["legal"] == []


def test_history_records_each_hand_and_a_new_hand_clears_the_trick_and_last_trick():
    s = GAME.new_game(4, {"max_cards": 2, "rebound": False}, seed=5)
    while GAME.view(s, None)["hand_number"] == 1:
        seat = GAME.to_act(s)[0]
        s = GAME.apply(s, seat, GAME.legal_actions(s, seat)[0])
    v = GAME.view(s, None)
    assert v["trick"] == [] and v["last_trick"] is None and v["tricks_won"] == [0] * 4
    assert v["bids"] == [None] * 4 and v["hand_size"] == 1
    (entry,) = v["history"]
    assert set(entry) == {
        "hand_number",
        "dealer",
        "hand_size",
        "turned",
        "trump",
        "bids",
        "tricks_won",
        "scores",
        "last_trick",
    }
    assert entry["hand_size"] == 2 and sum(entry["tricks_won"]) == 2
    assert v["scores"] == entry["scores"]


def test_hand_records_show_each_deal_with_scores_once_the_hand_is_over():
    s = o1_state()
    (record,) = GAME.hand_records(s)
    assert record["dealer"] == 0 and record["scores"] is None
    assert sorted(record["deal"]["hands"][1]) == sorted(O1_HANDS[1])
    assert record["deal"]["turned"] == "5H"
    done = play_o1("standard")
    assert GAME.hand_records(done)[0]["scores"] == [0, 11, 0, 0]
    assert len(GAME.hand_records(done)) == 2 and GAME.hand_records(done)[1]["scores"] is None


def test_hands_are_sorted_by_suit_then_high_to_low_and_legal_follows_that_order():
    s = o1_state()
    assert GAME.view(s, 0)["hand"] == ["2S", "AH", "JD"]
    s = bid_out(s)
    assert [a["card"] for a in GAME.legal_actions(s, 1)] == ["AS", "7H", "3D"]
