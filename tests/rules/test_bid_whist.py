"""Bid Whist (RULES.md §4): the worked examples on stacked decks, and one test per rule."""

from __future__ import annotations

import json

import pytest

from server.games import IllegalAction, NotYourTurn, get_game
from server.games.bid_whist.rules import Phase
from server.rules.cards import sort_hand, standard_deck
from server.rules.state import ViewMemo

GAME = get_game("bid_whist")

B1_HANDS = [
    ["QS", "10S", "6S", "5S", "7H", "6H", "4H", "2H", "AD", "10D", "7D", "JC"],
    ["9S", "3S", "2S", "KH", "JH", "10H", "5H", "3D", "2D", "8C", "7C", "5C"],
    ["JS", "7S", "4S", "AH", "QH", "9H", "8H", "3H", "QD", "9D", "KC", "4C"],
    ["AS", "KS", "8S", "KD", "8D", "6D", "AC", "10C", "9C", "6C", "3C", "2C"],
]
B1_KITTY = ["JD", "5D", "4D", "QC"]
B1_TRICKS = [
    "P3:AC P0:JC P1:5C P2:4C -> P3",
    "P3:QC P0:2H P1:7C P2:KC -> P2",
    "P2:AH P3:2C P0:4H P1:5H -> P3",
    "P3:10C P0:5S P1:8C P2:3H -> P3",
    "P3:9C P0:6S P1:2S P2:4S -> P3",
    "P3:6C P0:6H P1:2D P2:7S -> P3",
    "P3:3C P0:7H P1:3D P2:8H -> P3",
    "P3:AS P0:10S P1:3S P2:JS -> P3",
    "P3:KS P0:QS P1:9S P2:9D -> P3",
    "P3:KD P0:AD P1:10H P2:QD -> P0",
    "P0:10D P1:JH P2:9H P3:JD -> P3",
    "P3:8D P0:7D P1:KH P2:QH -> P3",
]

# A deal where each seat holds one suit: P0 spades, P1 diamonds, P2 hearts, P3 clubs (A..3),
# and the four deuces are the kitty.
SUITED_HANDS = [
    [r + "S" for r in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"]],
    [r + "D" for r in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"]],
    [r + "H" for r in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"]],
    [r + "C" for r in ["A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3"]],
]
SUITED_KITTY = ["2S", "2D", "2H", "2C"]


def stack(hands: list[list[str]], kitty: list[str], dealer: int) -> list[str]:
    """The 52-card deck (top first) that deals ``hands`` one at a time from the dealer's left."""
    deck = []
    for i in range(12):
        for k in range(4):
            deck.append(hands[(dealer + 1 + k) % 4][i])
    return deck + kitty


def start(hands=B1_HANDS, kitty=B1_KITTY, dealer=3, options=None, more_decks=()):
    """A new match on a stacked first deal."""
    return GAME.new_game(
        4,
        options=options,
        seed=11,
        dealer=dealer,
        decks=[stack(hands, kitty, dealer), *more_decks],
    )


def act(state, seat, action):
    """Apply one action for ``seat`` (checking it is legal first)."""
    assert action in GAME.legal_actions(state, seat) or action["type"] == "discard"
    return GAME.apply(state, seat, action)


def bid_round(state, calls):
    """Play the bidding calls in turn order ("pass", "take" or a number)."""
    for call in calls:
        seat = GAME.to_act(state)[0]
        action = {"type": call} if isinstance(call, str) else {"type": "bid", "value": call}
        state = act(state, seat, action)
    return state


def play_card(state, card):
    """The seat to act plays ``card``."""
    return act(state, GAME.to_act(state)[0], {"type": "play", "card": card})


def first_legal_to_end_of_hand(state):
    """Everyone plays their first legal card until the hand ends."""
    hand = state.hand_number
    while state.phase is not Phase.OVER and state.hand_number == hand:
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    return state


def refuse(state, seat, action, words=""):
    """Assert the action is refused with a sentence (containing ``words``)."""
    with pytest.raises((IllegalAction, NotYourTurn)) as err:
        GAME.apply(state, seat, action)
    assert str(err.value).strip()
    assert words.lower() in str(err.value).lower()
    return str(err.value)


# ---- the engine surface ---------------------------------------------------------------------


def test_the_game_is_registered_for_exactly_four_players_with_a_target_option():
    assert GAME.name == "bid_whist" and GAME.title == "Bid Whist"
    assert GAME.min_players == GAME.max_players == GAME.default_players == 4
    schema = GAME.options_schema()
    assert schema["properties"]["target"]["default"] == 21
    assert schema["properties"]["target"]["description"]
    for players in (2, 3, 5):
        with pytest.raises(ValueError):
            GAME.new_game(players)


def test_unknown_or_bad_options_are_refused_naming_the_option():
    with pytest.raises(ValueError, match="colour"):
        GAME.new_game(4, options={"colour": "red"})
    with pytest.raises(ValueError, match="target"):
        GAME.new_game(4, options={"target": 0})
    with pytest.raises(ValueError, match="target"):
        GAME.new_game(4, options={"target": "lots"})


def test_a_stacked_deck_must_be_the_whole_pack():
    with pytest.raises(ValueError):
        GAME.new_game(4, decks=[standard_deck()[:-1]])
    with pytest.raises(ValueError):
        GAME.new_game(4, decks=[standard_deck()[:-1] + ["AS"]])


def test_the_deal_is_one_at_a_time_from_the_dealers_left_with_the_last_four_as_kitty():
    deck = standard_deck()
    state = GAME.new_game(4, dealer=1, decks=[deck])
    full = GAME.full_view(state)
    for seat in range(4):
        first = (seat - 2) % 4  # seat 2 is dealt first
        assert sorted(full["hands"][seat]) == sorted(deck[first:48:4])
    assert full["kitty"] == deck[48:]
    assert GAME.hand_records(state)[0]["deal"]["kitty"] == deck[48:]
    assert GAME.hand_records(state)[0]["scores"] is None


# ---- worked examples (RULES §4.7) -------------------------------------------------------


def test_b1_the_forced_dealer_makes_four_and_scores_five_trick_by_trick():
    state = start()
    assert GAME.view(state, 0)["hand"] == sort_hand(B1_HANDS[0])
    state = act(state, 0, {"type": "bid", "value": 3})
    state = act(state, 1, {"type": "pass"})
    state = act(state, 2, {"type": "pass"})
    assert GAME.legal_actions(state, 3) == [{"type": "take"}]
    state = act(state, 3, {"type": "take"})
    view = GAME.view(state, 3)
    assert view["declarer"] == 3 and view["contract"] == 4 and view["tricks_needed"] == 9
    assert view["forced"] is True
    assert sorted(view["hand"]) == sorted(B1_HANDS[3] + B1_KITTY)
    state = act(state, 3, {"type": "discard", "cards": ["8S", "6D", "5D", "4D"]})
    state = act(state, 3, {"type": "trump", "suit": "C"})
    assert sorted(GAME.view(state, 3)["hand"]) == sorted(
        ["AS", "KS", "KD", "JD", "8D", "AC", "QC", "10C", "9C", "6C", "3C", "2C"]
    )
    for number, line in enumerate(B1_TRICKS, start=1):
        plays, winner = line.split(" -> ")
        for play in plays.split():
            seat, card = play.split(":")
            assert GAME.to_act(state) == [int(seat[1])], f"trick {number}"
            state = act(state, int(seat[1]), {"type": "play", "card": card})
        if number < 12:
            last = GAME.view(state, None)["last_trick"]
            assert last["winner"] == int(winner[1]), f"trick {number}"
            assert [p["card"] for p in last["cards"]] == [p.split(":")[1] for p in plays.split()]
            assert GAME.to_act(state) == [int(winner[1])]
    view = GAME.view(state, None)
    entry = view["history"][0]
    assert entry["tricks"] == [2, 10]
    assert entry["declarer"] == 3 and entry["contract"] == 4 and entry["trump"] == "C"
    assert entry["made"] is True and entry["chicago"] is False
    assert entry["scores"] == [0, 5, 0, 5] and entry["team_scores"] == [0, 5]
    assert view["scores"] == [0, 5, 0, 5] and view["team_scores"] == [0, 5]
    # The next hand is dealt by P0, and the first hand's record carries its scores.
    assert view["dealer"] == 0 and view["hand_number"] == 2 and view["phase"] == "bidding"
    assert view["last_trick"] is None and view["trick"] == []
    assert GAME.hand_records(state)[0]["scores"] == [0, 5, 0, 5]
    assert GAME.outcome(state) is None


def test_b5_a_bid_must_be_higher_than_the_high_bid():
    state = start()
    state = act(state, 0, {"type": "bid", "value": 4})
    assert {"type": "bid", "value": 3} not in GAME.legal_actions(state, 1)
    assert {"type": "bid", "value": 4} not in GAME.legal_actions(state, 1)
    refuse(state, 1, {"type": "bid", "value": 3}, "higher than the high bid of four")


def test_b5_the_dealer_may_take_at_five_or_grant_to_the_high_bidder_but_not_take_at_four():
    state = bid_round(start(), ["pass", 3, 5])
    assert GAME.legal_actions(state, 3) == [{"type": "take"}, {"type": "pass"}]
    refuse(state, 3, {"type": "bid", "value": 4}, "dealer does not bid")
    refuse(state, 3, {"type": "take", "value": 4}, "five")
    taken = act(state, 3, {"type": "take"})
    assert (taken.declarer, taken.contract) == (3, 5)
    granted = act(state, 3, {"type": "pass"})
    assert (granted.declarer, granted.contract) == (2, 5)
    assert GAME.view(granted, None)["bids"] == ["pass", 3, 5, "pass"]


def test_b5_when_everyone_passes_the_dealer_must_take_four():
    state = bid_round(start(), ["pass", "pass", "pass"])
    assert GAME.legal_actions(state, 3) == [{"type": "take"}]
    refuse(state, 3, {"type": "pass"}, "must take the contract at four")
    state = act(state, 3, {"type": "take"})
    assert (state.declarer, state.contract, state.forced) == (3, 4, True)
    assert GAME.view(state, 0)["bids"] == ["pass", "pass", "pass", "take"]


# ---- bidding ----------------------------------------------------------------------------------


def test_bidding_goes_once_round_from_the_dealers_left_and_the_dealer_calls_last():
    state = start(dealer=1)
    order = []
    for _ in range(4):
        seat = GAME.to_act(state)[0]
        order.append(seat)
        state = act(state, seat, GAME.legal_actions(state, seat)[0])
    assert order == [2, 3, 0, 1]
    assert state.phase is Phase.DISCARDING


def test_only_the_seat_to_act_may_call():
    state = start()
    for seat in (1, 2, 3):
        refuse(state, seat, {"type": "pass"}, "not your turn")
    refuse(state, 7, {"type": "pass"})
    assert GAME.legal_actions(state, 1) == []


def test_three_can_only_be_the_first_bid_and_bids_run_three_to_seven():
    state = start()
    assert GAME.legal_actions(state, 0) == [{"type": "pass"}] + [{"type": "bid", "value": v} for v in range(3, 8)]
    refuse(state, 0, {"type": "bid", "value": 2}, "three to seven")
    refuse(state, 0, {"type": "bid", "value": 8}, "three to seven")
    state = act(state, 0, {"type": "pass"})
    assert {"type": "bid", "value": 3} in GAME.legal_actions(state, 1)
    state = act(state, 1, {"type": "bid", "value": 3})
    assert GAME.legal_actions(state, 2) == [{"type": "pass"}] + [{"type": "bid", "value": v} for v in range(4, 8)]
    state = act(state, 2, {"type": "bid", "value": 7})
    assert GAME.view(state, 0)["high_bid"] == 7 and GAME.view(state, 0)["high_bidder"] == 2


def test_junk_bids_are_refused_with_a_sentence():
    state = start()
    for junk in (
        None,
        "bid",
        3,
        [],
        {},
        {"type": 3},
        {"type": "bid"},
        {"type": "bid", "value": "4"},
        {"type": "bid", "value": 4.0},
        {"type": "bid", "value": True},
        {"type": "take"},
        {"type": "play", "card": "QS"},
        {"type": "discard", "cards": []},
        {"type": "shout"},
    ):
        refuse(state, 0, junk)


def test_the_dealer_takes_even_from_their_partner_and_the_contract_is_the_high_bid():
    state = bid_round(start(), [6, "pass", "pass"])  # P0 is the dealer P3's opponent
    state = act(state, 3, {"type": "take"})
    assert (state.declarer, state.contract, state.forced) == (3, 6, False)
    state = bid_round(start(), ["pass", 4, "pass"])  # P1 is the dealer's partner
    state = act(state, 3, {"type": "take"})
    assert (state.declarer, state.contract) == (3, 4)


def test_the_dealers_pass_grants_the_contract_to_the_high_bidder():
    state = bid_round(start(), [4, 5, "pass", "pass"])
    assert (state.declarer, state.contract, state.forced) == (1, 5, False)
    assert state.phase is Phase.DISCARDING and GAME.to_act(state) == [1]


def test_a_lone_three_forces_the_dealer_to_take_at_four():
    state = bid_round(start(), ["pass", "pass", 3])
    assert GAME.legal_actions(state, 3) == [{"type": "take"}]
    refuse(state, 3, {"type": "pass"}, "four")
    state = act(state, 3, {"type": "take"})
    assert (state.declarer, state.contract, state.forced) == (3, 4, True)


def test_non_dealers_may_not_take():
    refuse(start(), 0, {"type": "take"}, "only the dealer")


# ---- kitty and discard -----------------------------------------------------------------------


def test_nobody_sees_the_kitty_before_it_is_taken():
    state = bid_round(start(), [3, "pass", "pass"])
    for seat in (0, 1, 2, 3, None):
        view = GAME.view(state, seat)
        text = json.dumps(view)
        assert view["kitty_count"] == 4 and view["kitty"] is None
        for card in B1_KITTY:
            assert f'"{card}"' not in text


def test_the_declarer_picks_up_the_kitty_and_only_the_declarer_sees_it():
    state = bid_round(start(), [3, "pass", "pass", "take"])
    view = GAME.view(state, 3)
    assert view["phase"] == "discarding" and view["kitty_count"] == 0
    assert view["hand_counts"] == [12, 12, 12, 16]
    assert set(B1_KITTY) <= set(view["hand"])
    assert sorted(view["kitty"]) == sorted(B1_KITTY)
    for seat in (0, 1, 2, None):
        text = json.dumps(GAME.view(state, seat))
        for card in B1_KITTY:
            assert f'"{card}"' not in text


def test_the_discard_enumerates_all_1820_choices_once_and_the_view_shows_it_compactly():
    state = bid_round(start(), [3, "pass", "pass", "take"])
    legal = GAME.legal_actions(state, 3)
    assert len(legal) == 1820
    assert len({tuple(a["cards"]) for a in legal}) == 1820
    assert all(a["type"] == "discard" and len(set(a["cards"])) == 4 for a in legal)
    assert GAME.view(state, 3)["legal"] == [{"type": "discard", "count": 4}]
    assert GAME.view(state, 0)["legal"] == []
    assert GAME.legal_actions(state, 0) == []


def test_the_discard_accepts_its_cards_in_any_order_and_refuses_bad_ones():
    state = bid_round(start(), [3, "pass", "pass", "take"])
    a = act(state, 3, {"type": "discard", "cards": ["4D", "8S", "5D", "6D"]})
    b = act(state, 3, {"type": "discard", "cards": ["8S", "6D", "5D", "4D"]})
    assert GAME.full_view(a) == GAME.full_view(b)
    assert a.phase is Phase.TRUMP_OR_LEAD
    refuse(state, 3, {"type": "discard", "cards": ["8S", "6D", "5D"]}, "four")
    refuse(state, 3, {"type": "discard", "cards": ["8S", "6D", "5D", "4D", "JD"]}, "four")
    refuse(state, 3, {"type": "discard", "cards": ["8S", "8S", "5D", "4D"]}, "different")
    refuse(state, 3, {"type": "discard", "cards": ["8S", "6D", "5D", "QS"]}, "do not hold")
    refuse(state, 3, {"type": "discard", "cards": ["8S", "6D", "5D", "1X"]}, "not a card")
    refuse(state, 3, {"type": "discard", "cards": "8S6D5D4D"})
    refuse(state, 3, {"type": "discard", "cards": [1, 2, 3, 4]})
    refuse(state, 3, {"type": "play", "card": "AS"}, "discard")
    refuse(state, 3, {"type": "trump", "suit": "C"}, "discard")


def test_discards_are_seen_by_the_declarer_only_and_only_until_their_first_card():
    discards = ["8S", "6D", "5D", "4D"]
    state = bid_round(start(), [3, "pass", "pass", "take"])
    state = act(state, 3, {"type": "discard", "cards": discards})
    assert sorted(GAME.view(state, 3)["discards"]) == sorted(discards)
    state = act(state, 3, {"type": "trump", "suit": "C"})
    assert sorted(GAME.view(state, 3)["discards"]) == sorted(discards)
    for seat in (0, 1, 2, None):
        view = GAME.view(state, seat)
        assert view["discards"] is None
        for card in discards:
            assert f'"{card}"' not in json.dumps(view)
    assert sorted(GAME.view(state, 3)["kitty"]) == sorted(B1_KITTY)
    state = play_card(state, "AC")
    kept = [card for card in B1_KITTY if card not in discards]
    assert sorted(GAME.view(state, 3)["kitty"]) == sorted(kept)
    for seat in (0, 1, 2, 3, None):
        view = GAME.view(state, seat)
        assert view["discards"] is None
        for card in discards:
            assert f'"{card}"' not in json.dumps(view)
    assert sorted(GAME.full_view(state)["discards"]) == sorted(discards)
    assert sorted(GAME.hand_records(state)[0]["discards"]) == sorted(discards)


# ---- trump and play ----------------------------------------------------------------------------


def test_after_the_discard_the_declarer_may_name_trump_or_lead():
    state = bid_round(start(), [3, "pass", "pass", "take"])
    state = act(state, 3, {"type": "discard", "cards": ["8S", "6D", "5D", "4D"]})
    legal = GAME.legal_actions(state, 3)
    assert legal[:4] == [{"type": "trump", "suit": s} for s in "SHDC"]
    assert sorted(a["card"] for a in legal[4:]) == sorted(
        ["AS", "KS", "KD", "JD", "8D", "AC", "QC", "10C", "9C", "6C", "3C", "2C"]
    )
    assert GAME.view(state, None)["trump"] is None
    refuse(state, 3, {"type": "trump", "suit": "X"}, "suits")
    refuse(state, 3, {"type": "trump"}, "suits")
    named = act(state, 3, {"type": "trump", "suit": "H"})
    assert named.phase is Phase.PLAYING and GAME.view(named, 0)["trump"] == "H"
    assert all(a["type"] == "play" for a in GAME.legal_actions(named, 3))
    refuse(named, 3, {"type": "trump", "suit": "S"}, "play a card")


def test_leading_without_naming_trump_makes_the_suit_led_trump():
    state = bid_round(start(), [3, "pass", "pass", "take"])
    state = act(state, 3, {"type": "discard", "cards": ["8S", "6D", "5D", "4D"]})
    state = play_card(state, "KD")
    assert GAME.view(state, 1)["trump"] == "D" and state.phase is Phase.PLAYING
    assert GAME.view(state, 1)["leader"] == 3


def test_a_named_trump_is_kept_when_another_suit_is_led():
    state = bid_round(start(), [3, "pass", "pass", "take"])
    state = act(state, 3, {"type": "discard", "cards": ["8S", "6D", "5D", "4D"]})
    state = act(state, 3, {"type": "trump", "suit": "C"})
    state = play_card(state, "AS")
    assert GAME.view(state, 0)["trump"] == "C"


def test_you_must_follow_suit_when_you_can_and_may_play_anything_when_void():
    state = bid_round(start(), [3, "pass", "pass", "take"])
    state = act(state, 3, {"type": "discard", "cards": ["8S", "6D", "5D", "4D"]})
    state = act(state, 3, {"type": "trump", "suit": "C"})
    state = play_card(state, "KD")  # P0 holds AD 10D 7D
    assert sorted(a["card"] for a in GAME.legal_actions(state, 0)) == ["10D", "7D", "AD"]
    refuse(state, 0, {"type": "play", "card": "QS"}, "you must follow suit: you hold a diamond")
    refuse(state, 0, {"type": "play", "card": "KH"}, "do not hold")
    refuse(state, 0, {"type": "play", "card": "ZZ"}, "not a card")
    refuse(state, 0, {"type": "play"}, "not a card")
    refuse(state, 0, {"type": "play", "card": ["AD"]}, "not a card")
    state = play_card(state, "AD")
    state = play_card(state, "3D")
    state = play_card(state, "QD")
    assert GAME.view(state, 0)["last_trick"]["winner"] == 0  # highest of the suit led
    # P0 leads spades; P3 keeps AS KS, P1 9S 3S 2S, P2 JS 7S 4S: all must follow.
    state = play_card(state, "5S")
    assert [a["card"] for a in GAME.legal_actions(state, 1)] == ["9S", "3S", "2S"]


def test_the_highest_trump_wins_and_there_is_no_duty_to_trump():
    state = start(hands=SUITED_HANDS, kitty=SUITED_KITTY)
    state = bid_round(state, ["pass", "pass", "pass", "take"])
    state = act(state, 3, {"type": "discard", "cards": ["2S", "2D", "3C", "4C"]})
    state = act(state, 3, {"type": "trump", "suit": "D"})
    state = play_card(state, "2H")
    # P0 is void in hearts: any spade may be played.
    assert len(GAME.legal_actions(state, 0)) == 12
    state = play_card(state, "AS")
    # P1 (void in hearts) may trump or not: both are legal.
    assert {"type": "play", "card": "3D"} in GAME.legal_actions(state, 1)
    state = play_card(state, "3D")
    state = play_card(state, "AH")
    assert GAME.view(state, None)["last_trick"]["winner"] == 1


# ---- scoring (§4.5) -------------------------------------------------------------------------


def at_last_trick(declarer, contract, team_tricks_before, last_winner_team, scores=(0, 0), target=21):
    """A real match moved to the last trick of a hand, for the scoring clauses."""
    state = start(options={"target": target})
    a, b = team_tricks_before
    assert a + b == 11
    leader = last_winner_team  # seat 0 or 1 leads the ace and wins
    hands = [("3S",), ("4S",), ("5S",), ("6S",)]
    hands[leader] = ("AS",)
    filler = (((0, "2H"), (1, "3H"), (2, "4H"), (3, "5H")), 0)
    return state.evolve(
        phase=Phase.PLAYING,
        declarer=declarer,
        contract=contract,
        trump="C",
        kitty_taken=True,
        hands=tuple(hands),
        tricks=(filler,) * 11,
        tricks_won=(a, b, 0, 0),
        turn=leader,
        leader=leader,
        team_scores=scores,
        bids=("pass", "pass", "pass", "take"),
    )


def finish_trick(state):
    for _ in range(4):
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    return state


@pytest.mark.parametrize(
    "declarer, contract, before, last, expected, made",
    [
        (3, 4, (3, 8), 1, [0, 4], True),  # exactly 9 of a Four: D - 5 = 4
        (3, 4, (1, 10), 1, [0, 6], True),  # 11 tricks on a Four: more than bid, 6
        (0, 5, (9, 2), 0, [5, 0], True),  # exactly 10 of a Five
        (0, 6, (11, 0), 0, [7, 0], True),  # 12 of a Six (and Chicago)
        (1, 7, (0, 11), 1, [0, 7], True),  # a Seven made: all 12
        (3, 4, (4, 7), 1, [4, 0], False),  # 8 of 9: set, O = 4, defenders score k = 4
        (3, 4, (6, 5), 1, [4, 0], False),  # D = 6, O = 6: set, no tricks over six
        (3, 4, (7, 4), 1, [5, 0], False),  # D = 5, O = 7: 4 + 1
        (3, 5, (8, 3), 0, [8, 0], False),  # D = 3, O = 9: 5 + 3
        (2, 7, (10, 1), 1, [0, 7], False),  # 11 of 12 on a Seven: set by one, k = 7, O = 1
        (0, 6, (2, 9), 1, [0, 10], False),  # D = 2, O = 10: 6 + 4
    ],
)
def test_made_and_set_hands_score_as_section_4_5_says(declarer, contract, before, last, expected, made):
    state = finish_trick(at_last_trick(declarer, contract, before, last))
    entry = GAME.view(state, None)["history"][-1]
    assert entry["made"] is made
    assert entry["team_scores"] == expected
    assert entry["scores"] == [expected[0], expected[1], expected[0], expected[1]]
    assert GAME.view(state, 2)["team_scores"] == expected


def test_defenders_score_nothing_when_the_contract_is_made_and_declarers_nothing_when_set():
    made = finish_trick(at_last_trick(1, 5, (2, 9), 1))
    assert GAME.view(made, None)["history"][-1]["team_scores"] == [0, 5]
    setback = finish_trick(at_last_trick(1, 5, (3, 8), 0))
    assert GAME.view(setback, None)["history"][-1]["team_scores"] == [5, 0]


def test_chicago_by_the_declarers_wins_at_once_whatever_the_score():
    state = start(hands=SUITED_HANDS, kitty=SUITED_KITTY)
    state = state.evolve(team_scores=(15, 0))
    state = bid_round(state, ["pass", "pass", "pass", "take"])
    state = act(state, 3, {"type": "discard", "cards": ["2S", "2D", "2H", "3C"]})
    state = act(state, 3, {"type": "trump", "suit": "C"})
    state = first_legal_to_end_of_hand(state)
    view = GAME.view(state, 0)
    assert view["phase"] == "over" and view["history"][-1]["chicago"] is True
    assert view["history"][-1]["tricks"] == [0, 12]
    assert view["history"][-1]["team_scores"] == [0, 7]
    assert GAME.outcome(state) == {"scores": [15, 7, 15, 7], "winners": [1, 3]}
    assert GAME.to_act(state) == []


def test_chicago_by_the_defenders_wins_at_once_and_records_the_set():
    state = start(hands=SUITED_HANDS, kitty=SUITED_KITTY)
    state = bid_round(state, ["pass", "pass", "pass", "take"])
    state = act(state, 3, {"type": "discard", "cards": ["2S", "2D", "2H", "3C"]})
    state = act(state, 3, {"type": "trump", "suit": "S"})  # the defenders hold every spade
    state = first_legal_to_end_of_hand(state)
    entry = GAME.view(state, None)["history"][-1]
    assert entry["tricks"] == [12, 0] and entry["chicago"] is True and entry["made"] is False
    assert entry["team_scores"] == [4 + 6, 0]
    assert GAME.outcome(state) == {"scores": [10, 0, 10, 0], "winners": [0, 2]}


def test_the_game_ends_when_a_team_reaches_the_target():
    state = finish_trick(at_last_trick(3, 4, (3, 8), 1, scores=(20, 16)))
    assert state.phase is Phase.BIDDING and GAME.outcome(state) is None  # 16 + 4 = 20
    assert GAME.view(state, 0)["team_scores"] == [20, 20]
    state = finish_trick(at_last_trick(3, 4, (2, 9), 1, scores=(20, 16)))
    assert GAME.outcome(state) == {"scores": [20, 21, 20, 21], "winners": [1, 3]}
    assert GAME.view(state, 1)["phase"] == "over" and GAME.legal_actions(state, 1) == []
    refuse(state, 1, {"type": "pass"}, "over")


def test_a_custom_target_ends_the_game_sooner():
    state = finish_trick(at_last_trick(0, 4, (8, 3), 0, target=3))
    assert GAME.outcome(state) == {"scores": [4, 0, 4, 0], "winners": [0, 2]}
    assert GAME.view(state, None)["target"] == 3
    state = finish_trick(at_last_trick(0, 4, (8, 3), 0, target=5))
    assert GAME.outcome(state) is None and GAME.view(state, None)["team_scores"] == [4, 0]


def test_hands_short_of_the_target_deal_on_with_the_next_dealer():
    state = start()
    dealers = [state.dealer]
    while len(dealers) < 4:
        state = first_legal_to_end_of_hand(state)
        if state.phase is Phase.OVER:
            break
        dealers.append(state.dealer)
    assert dealers == [(3 + i) % 4 for i in range(len(dealers))]
    assert len(dealers) > 1


def test_views_are_json_with_the_protocol_keys_and_team_information():
    state = bid_round(start(), [3, "pass", "pass"])
    view = GAME.view(state, 3)
    for key in (
        "phase",
        "dealer",
        "to_act",
        "hand",
        "hand_counts",
        "trick",
        "trump",
        "scores",
        "history",
        "legal",
        "revealed",
        "bids",
        "high_bid",
        "declarer",
        "contract",
        "tricks_won",
        "team_tricks",
        "last_trick",
        "kitty_count",
        "discards",
        "teams",
        "team_scores",
        "target",
    ):
        assert key in view, key
    assert json.loads(json.dumps(view)) == view
    assert view["teams"] == [[0, 2], [1, 3]]
    assert view["bids"] == [3, "pass", "pass", None]
    assert view["legal"] == [{"type": "take"}]
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["legal"] == []


def _uncached(state):
    """The same state without any view cache (a clone with a fresh memo)."""
    return state.evolve(views=ViewMemo())


def test_cached_views_equal_fresh_views_and_share_unchanged_parts():
    import random

    rng = random.Random(5)
    for game_index in range(3):
        state = GAME.new_game(players=4, seed=rng.randrange(1 << 30), dealer=game_index)
        previous = None
        skip = False
        while True:
            if not skip:
                views = {seat: GAME.view(state, seat) for seat in (None, 0, 1, 2, 3)}
                fresh = _uncached(state)
                for seat, view in views.items():
                    assert view == GAME.view(fresh, seat)
                    again = GAME.view(state, seat)
                    assert again == view and again is not view, "a new top-level dict per call"
                    json.dumps(view)
                # Callers may replace top-level values; later views are unaffected.
                views[0]["trick"] = "replaced"
                views[0]["hand"] = None
                assert GAME.view(state, 0) == GAME.view(fresh, 0)
                assert GAME.full_view(state) == GAME.full_view(fresh)
                for seat in (None, 1):
                    assert views[seat]["history"] is views[3]["history"]
                    assert views[seat]["teams"] is views[3]["teams"]
                if previous is not None and previous.history is state.history:
                    # The state right before was viewed: unchanged parts are its very objects.
                    assert views[1]["history"] is GAME.view(previous, 1)["history"]
                previous = state
            else:
                previous = None
            acting = GAME.to_act(state)
            if not acting:
                break
            # Sometimes skip the views of a state, as a room that applies two actions would.
            skip = rng.random() < 0.2
            state = GAME.apply(state, acting[0], rng.choice(GAME.legal_actions(state, acting[0])))


def test_only_the_declarer_sees_the_kitty_from_the_pickup_to_the_end_of_the_hand():
    state = GAME.new_game(players=4, seed=3, dealer=0)
    kitty = None
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        full = GAME.full_view(state)
        if full["kitty_count"] == 0:
            kitty = full["kitty"]
            for other in (None, 0, 1, 2, 3):
                view = GAME.view(state, other)
                if other != full["declarer"]:
                    assert view["kitty"] is None
                    continue
                assert set(view["kitty"]) <= set(kitty)
                assert set(kitty) & set(view["hand"]) <= set(view["kitty"])
        else:
            assert all(GAME.view(state, s)["kitty"] is None for s in (None, 0, 1, 2, 3))
        before = GAME.hand_records(state)
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
        if len(GAME.hand_records(state)) > len(before):
            break
    assert kitty is not None and len(kitty) == 4
    assert all(GAME.view(state, s)["kitty"] is None for s in (None, 0, 1, 2, 3))
