"""Bid Whist's house options (server/games/bid_whist/rules.md, "House options"): hands worked out by
hand from that page on stacked decks (made and set contracts uptown, downtown and in no
trump, the jokers in trump and in no trump, a Boston each way, the thirteen-book game and
its marks), the bidding with directions, the sported kitty and the options' validation.
The random-game invariants over option combinations are in test_bid_whist_random.py and
test_contract.py."""

from __future__ import annotations

import random

import pytest

from server.games import IllegalAction, get_game
from server.games.bid_whist.house import playable, trick_winner
from server.games.bid_whist.rules import Phase
from tests.rules.test_bid_whist import refuse, stack

GAME = get_game("bid_whist")

# The mirror deal: team A (P0, P2) holds the low cards 2-7 of every suit, team B (P1, P3) the
# high cards 8-K; P0 and P1 hold spades and hearts, P2 and P3 diamonds and clubs; the aces
# (and the jokers, when the table plays them) are the kitty.
LOW = ["2", "3", "4", "5", "6", "7"]
HIGH = ["8", "9", "10", "J", "Q", "K"]
MIRROR = [
    [r + "S" for r in LOW] + [r + "H" for r in LOW],
    [r + "S" for r in HIGH] + [r + "H" for r in HIGH],
    [r + "D" for r in LOW] + [r + "C" for r in LOW],
    [r + "D" for r in HIGH] + [r + "C" for r in HIGH],
]
ACES = ["AS", "AH", "AD", "AC"]
# The mirror deal with P0's 7S and P1's KS swapped: P0 then holds one high spade.
SWAPPED = [
    [c if c != "7S" else "KS" for c in MIRROR[0]],
    [c if c != "KS" else "7S" for c in MIRROR[1]],
    MIRROR[2],
    MIRROR[3],
]
# The mirror deal with the jokers dealt: P0 the big joker (for its 7S), P2 the little joker
# (for its 7C); the kitty is the aces, 7S and 7C.
JOKERS_DEALT = [
    [c if c != "7S" else "BJ" for c in MIRROR[0]],
    MIRROR[1],
    [c if c != "7C" else "LJ" for c in MIRROR[2]],
    MIRROR[3],
]
DIRECTIONS = {"directions": True, "no_trump": True}


def start(options, hands=MIRROR, kitty=ACES, dealer=3, more=()):
    return GAME.new_game(4, options=options, seed=5, dealer=dealer, decks=[stack(hands, kitty, dealer), *more])


def act(state, action):
    seat = GAME.to_act(state)[0]
    assert action in GAME.legal_actions(state, seat) or action["type"] == "discard", action
    return GAME.apply(state, seat, action)


def auction(state, *calls):
    """The calls in turn order: "pass", "take", ("take", direction) or (value, direction)."""
    for call in calls:
        if call == "pass" or call == "take":
            action = {"type": call}
        elif call[0] == "take":
            action = {"type": "take", "direction": call[1]}
        else:
            action = {"type": "bid", "value": call[0]}
            if call[1] is not None:
                action["direction"] = call[1]
        state = act(state, action)
    return state


def trick(state, **cards):
    """One trick: the seats named (``p0="AS"``) play those cards, the others their first
    legal card; returns the state and the seat that took the trick."""
    for _ in range(4):
        seat = GAME.to_act(state)[0]
        card = cards.get(f"p{seat}") or GAME.legal_actions(state, seat)[0]["card"]
        state = act(state, {"type": "play", "card": card})
    return state, state.history[-1].last_trick[1] if not state.tricks else state.tricks[-1][1]


def tricks(state, script):
    """Play ``script``: one (cards, expected winner) per trick."""
    for cards, winner in script:
        state, took = trick(state, **cards)
        assert took == winner, (cards, took)
    return state


# P1 declares downtown (or no trump played downtown) with the high cards, keeping AS 8S-QS and
# AH 8H-QH: it takes the two aces, then P0's low cards win every trick (RULES: downtown, A 2 3 ... K).
P1_DOWNTOWN_SET = [
    ({"p1": "AS", "p0": "7S"}, 1),
    ({"p1": "AH", "p0": "7H"}, 1),
    ({"p1": "8S", "p0": "2S"}, 0),
    ({"p0": "3S", "p1": "9S"}, 0),
    ({"p0": "4S", "p1": "10S"}, 0),
    ({"p0": "5S", "p1": "JS"}, 0),
    ({"p0": "6S", "p1": "QS"}, 0),
    ({"p0": "2H", "p1": "8H"}, 0),
    ({"p0": "3H", "p1": "9H"}, 0),
    ({"p0": "4H", "p1": "10H"}, 0),
    ({"p0": "5H", "p1": "JH"}, 0),
    ({"p0": "6H", "p1": "QH"}, 0),
]


def p1_declares(options, call, discard, hands=MIRROR, kitty=ACES, more=()):
    """P0 passes, P1 calls ``call``, P2 passes, the dealer P3 grants; P1 discards."""
    state = auction(start(options, hands, kitty, more=more), "pass", call, "pass", "pass")
    assert state.declarer == 1 and state.phase is Phase.DISCARDING
    return act(state, {"type": "discard", "cards": discard})


# ---- downtown ------------------------------------------------------------------------------


def test_downtown_set_the_low_cards_beat_the_high_ones_and_the_ace_stays_best():
    state = p1_declares({"directions": True}, (4, "downtown"), ["AD", "AC", "KS", "KH"])
    view = GAME.view(state, None)
    assert view["direction"] == "downtown" and view["play_direction"] == "downtown"
    state = act(state, {"type": "trump", "suit": "S"})
    state = tricks(state, P1_DOWNTOWN_SET)
    last = GAME.view(state, None)["history"][-1]
    assert last["tricks"] == [10, 2] and not last["made"]
    # set (seed books): the defenders score 4 + (10 - 6)
    assert last["team_scores"] == [8, 0]
    assert last["direction"] == "downtown" and last["doubled"] is False


def test_downtown_made_with_every_trick_is_a_boston_that_wins_the_game():
    state = auction(start({"directions": True}), (7, "downtown"), "pass", "pass", "pass")
    state = act(state, {"type": "discard", "cards": ["AD", "AC", "7S", "7H"]})
    state = act(state, {"type": "trump", "suit": "S"})
    script = [({"p0": c}, 0) for c in ["AS", "2S", "3S", "4S", "5S", "6S", "AH", "2H", "3H", "4H", "5H", "6H"]]
    state = tricks(state, script)
    assert state.phase is Phase.OVER and list(state.winners) == [0, 2]
    last = GAME.view(state, None)["history"][-1]
    assert last["made"] and last["chicago"] and last["team_scores"] == [7, 0]


def test_a_boston_under_quadruple_scores_four_times_and_the_game_goes_on():
    options = {"directions": True, "boston": "quadruple", "target": 50}
    state = auction(start(options), (7, "downtown"), "pass", "pass", "pass")
    state = act(state, {"type": "discard", "cards": ["AD", "AC", "7S", "7H"]})
    state = act(state, {"type": "trump", "suit": "S"})
    script = [({"p0": c}, 0) for c in ["AS", "2S", "3S", "4S", "5S", "6S", "AH", "2H", "3H", "4H", "5H", "6H"]]
    state = tricks(state, script)
    last = GAME.view(state, None)["history"][-1]
    assert last["team_scores"] == [28, 0] and last["quadrupled"]
    assert state.phase is Phase.BIDDING and list(state.team_scores) == [28, 0]


# ---- uptown --------------------------------------------------------------------------------


SWAPPED_UPTOWN = [
    ({"p1": "AS", "p0": "2S"}, 1),
    ({"p1": "QS", "p0": "KS"}, 0),  # P0's lone high spade
    ({"p0": "3S", "p1": "8S"}, 1),
    ({"p1": "9S", "p0": "4S"}, 1),
    ({"p1": "10S", "p0": "5S"}, 1),
    ({"p1": "JS", "p0": "6S"}, 1),
    ({"p1": "AH", "p0": "2H"}, 1),
    ({"p1": "KH", "p0": "3H"}, 1),
    ({"p1": "QH", "p0": "4H"}, 1),
    ({"p1": "JH", "p0": "5H"}, 1),
    ({"p1": "10H", "p0": "6H"}, 1),
    ({"p1": "9H", "p0": "7H"}, 1),
]


def test_uptown_made_scores_the_tricks_over_the_book():
    state = p1_declares({"directions": True}, (4, "uptown"), ["AD", "AC", "7S", "8H"], SWAPPED)
    state = act(state, {"type": "trump", "suit": "S"})
    state = tricks(state, SWAPPED_UPTOWN)
    last = GAME.view(state, None)["history"][-1]
    assert last["tricks"] == [1, 11] and last["made"] and last["team_scores"] == [0, 6]
    assert last["direction"] == "uptown" and last["play_direction"] == "uptown"


def test_uptown_set_with_the_low_cards():
    state = auction(start({"directions": True}), (4, "uptown"), "pass", "pass", "pass")
    state = act(state, {"type": "discard", "cards": ["AD", "AC", "2S", "2H"]})
    state = act(state, {"type": "trump", "suit": "S"})
    script = [({"p0": "AS"}, 0), ({"p0": "AH"}, 0), ({"p0": "3S", "p1": "8S"}, 1)]
    state = tricks(state, script)
    # P1 leads its high cards from here; P0 follows and never wins
    for _ in range(9):
        state, took = trick(state)
        assert took in (1, 3)
    last = GAME.view(state, None)["history"][-1]
    assert last["tricks"] == [2, 10] and not last["made"] and last["team_scores"] == [0, 8]


# ---- no trump ------------------------------------------------------------------------------


def test_no_trump_downtown_set_counts_double_and_the_declarer_chooses_the_direction():
    state = p1_declares(DIRECTIONS, (4, "no_trump"), ["AD", "AC", "KS", "KH"])
    assert GAME.legal_actions(state, 1) == [
        {"type": "direction", "direction": "uptown"},
        {"type": "direction", "direction": "downtown"},
    ]
    refuse(state, 1, {"type": "trump", "suit": "S"}, "direction")
    refuse(state, 1, {"type": "play", "card": "AS"}, "direction")
    state = act(state, {"type": "direction", "direction": "downtown"})
    view = GAME.view(state, 0)
    assert view["direction"] == "no_trump" and view["play_direction"] == "downtown"
    assert view["trump"] is None and view["log"][-1]["action"] == {"type": "direction", "direction": "downtown"}
    state = tricks(state, P1_DOWNTOWN_SET)
    last = GAME.view(state, None)["history"][-1]
    assert last["tricks"] == [10, 2] and last["team_scores"] == [16, 0] and last["doubled"]
    assert last["trump"] is None and last["direction"] == "no_trump"


def test_no_trump_without_doubling_scores_once():
    options = {**DIRECTIONS, "no_trump_double": False}
    state = p1_declares(options, (4, "no_trump"), ["AD", "AC", "KS", "KH"])
    state = act(state, {"type": "direction", "direction": "downtown"})
    state = tricks(state, P1_DOWNTOWN_SET)
    last = GAME.view(state, None)["history"][-1]
    assert last["team_scores"] == [8, 0] and not last["doubled"]


def no_trump_with_jokers(joker_rule, boston="wins", target=21):
    """P1 bids Four no trump on the deal with P0 holding the big joker and P2 the little one,
    keeps AS 9S-KS and AH 9H-KH, plays uptown and leads every card from the top."""
    options = {**DIRECTIONS, "jokers": 2, "joker_no_trump": joker_rule, "boston": boston, "target": target}
    kitty = ["AS", "AH", "AD", "AC", "7S", "7C"]
    state = p1_declares(options, (4, "no_trump"), ["AD", "AC", "7C", "7S", "8S", "8H"], JOKERS_DEALT, kitty)
    return act(state, {"type": "direction", "direction": "uptown"})


def test_no_trump_free_a_void_player_may_keep_a_joker_and_a_player_who_can_follow_must():
    state = no_trump_with_jokers("free")
    state = act(state, {"type": "play", "card": "AS"})
    # P2 is void in spades: any card, the little joker too
    assert len(GAME.legal_actions(state, 2)) == 12
    state = act(state, {"type": "play", "card": "2D"})
    state = act(state, {"type": "play", "card": "8D"})
    # P0 holds spades: the big joker is no spade in no trump
    assert [a["card"] for a in GAME.legal_actions(state, 0)] == ["6S", "5S", "4S", "3S", "2S"]
    refuse(state, 0, {"type": "play", "card": "BJ"}, "follow suit")


def test_no_trump_must_play_a_void_player_must_throw_a_joker_and_jokers_never_win():
    state = no_trump_with_jokers("must_play")
    state = act(state, {"type": "play", "card": "AS"})
    assert GAME.legal_actions(state, 2) == [{"type": "play", "card": "LJ"}]
    refuse(state, 2, {"type": "play", "card": "2D"}, "joker")
    state = act(state, {"type": "play", "card": "LJ"})
    state = act(state, {"type": "play", "card": "8D"})
    state = act(state, {"type": "play", "card": "6S"})
    assert state.tricks[-1][1] == 1
    for card in ["KS", "QS", "JS", "10S"]:  # P0 follows with its spades
        state, took = trick(state, p1=card)
        assert took == 1
    # P0 is void in spades at the last one: it must throw the big joker, which does not win
    state = act(state, {"type": "play", "card": "9S"})
    state = act(state, {"type": "play", "card": GAME.legal_actions(state, 2)[0]["card"]})
    state = act(state, {"type": "play", "card": GAME.legal_actions(state, 3)[0]["card"]})
    assert GAME.legal_actions(state, 0) == [{"type": "play", "card": "BJ"}]
    state = act(state, {"type": "play", "card": "BJ"})
    assert state.tricks[-1][1] == 1
    for card in ["AH", "KH", "QH", "JH", "10H", "9H"]:
        state, took = trick(state, p1=card)
        assert took == 1
    last = GAME.view(state, None)["history"][-1]
    # a Boston in no trump: 7 doubled; it wins the game at once
    assert last["tricks"] == [0, 12] and last["team_scores"] == [0, 14] and last["chicago"]
    assert state.phase is Phase.OVER and list(state.winners) == [1, 3]


def test_a_no_trump_boston_under_quadruple_is_doubled_and_quadrupled():
    state = no_trump_with_jokers("must_play", boston="quadruple", target=50)
    for card in ["AS", "KS", "QS", "JS", "10S", "9S", "AH", "KH", "QH", "JH", "10H", "9H"]:
        state, took = trick(state, p1=card)
        assert took == 1
    last = GAME.view(state, None)["history"][-1]
    assert last["team_scores"] == [0, 56] and last["doubled"] and last["quadrupled"]
    assert state.phase is Phase.OVER and list(state.winners) == [1, 3]


def test_no_trump_a_joker_led_lets_the_first_real_card_set_the_suit():
    trick_ = [(0, "BJ"), (1, "5H")]
    assert playable(["2S", "9H", "LJ"], trick_, None, False) == ["9H"]
    assert playable(["2S", "LJ"], [(0, "BJ")], None, True) == ["2S", "LJ"]
    assert playable(["2S", "3D", "LJ"], trick_, None, True) == ["LJ"]
    assert trick_winner([(0, "BJ"), (1, "5H"), (2, "9H"), (3, "KS")], None, False) == 2
    assert trick_winner([(0, "BJ"), (1, "5H"), (2, "9H"), (3, "LJ")], None, True) == 1


# ---- jokers in trump -----------------------------------------------------------------------


def test_jokers_are_the_highest_trumps_and_belong_to_the_trump_suit():
    assert trick_winner([(0, "AS"), (1, "LJ"), (2, "BJ"), (3, "KS")], "S", False) == 2
    assert trick_winner([(0, "AS"), (1, "LJ"), (2, "2S"), (3, "KS")], "S", True) == 1
    assert trick_winner([(0, "AS"), (1, "2S"), (2, "3S"), (3, "KS")], "S", True) == 0
    assert trick_winner([(0, "3S"), (1, "2S"), (2, "KS"), (3, "4H")], "S", True) == 1
    assert trick_winner([(0, "3H"), (1, "KH"), (2, "2H"), (3, "KS")], "S", True) == 3
    # a joker led is a trump lead: follow with a trump; void in the suit led, a joker trumps
    assert playable(["2S", "9H"], [(0, "BJ")], "S", False) == ["2S"]
    assert playable(["LJ", "9H"], [(0, "AS")], "S", False) == ["LJ"]
    assert playable(["LJ", "9H"], [(0, "AD")], "S", False) == ["LJ", "9H"]


def test_jokers_in_trump_a_hand_played_to_the_last_card_and_set():
    options = {"directions": True, "jokers": 2}
    kitty = ["AS", "AH", "AD", "AC", "BJ", "LJ"]
    state = auction(start(options, kitty=kitty), (4, "uptown"), "pass", "pass", "pass")
    assert GAME.view(state, 0)["legal"] == [{"type": "discard", "count": 6}]
    refuse(state, 0, {"type": "discard", "cards": ["AD", "AC", "2S", "3S"]}, "six")
    state = act(state, {"type": "discard", "cards": ["AD", "AC", "2S", "3S", "2H", "3H"]})
    assert GAME.view(state, 0)["hand"][:2] == ["BJ", "LJ"]
    # the trump is named before a joker may lead
    assert {"type": "play", "card": "BJ"} not in GAME.legal_actions(state, 0)
    refuse(state, 0, {"type": "play", "card": "BJ"}, "name trump")
    state = act(state, {"type": "trump", "suit": "S"})
    state = act(state, {"type": "play", "card": "BJ"})
    assert [a["card"] for a in GAME.legal_actions(state, 1)] == HIGH_SPADES_DOWN
    script = [
        ({"p1": "8S"}, 0),  # the big joker, led
        ({"p0": "LJ", "p1": "9S"}, 0),
        ({"p0": "AS", "p1": "10S"}, 0),
        ({"p0": "AH", "p1": "8H"}, 0),
        ({"p0": "4S", "p1": "JS"}, 1),
        ({"p1": "KS", "p0": "5S"}, 1),
        ({"p1": "QS", "p0": "6S"}, 1),
        ({"p1": "KH", "p0": "4H"}, 1),
        ({"p1": "QH", "p0": "5H"}, 1),
        ({"p1": "JH", "p0": "6H"}, 1),
        ({"p1": "10H", "p0": "7H"}, 1),
        ({"p1": "9H", "p0": "7S"}, 0),  # void in hearts, P0 trumps
    ]
    first, *rest = script
    state = act(state, {"type": "play", "card": "8S"})
    for _ in range(2):
        seat = GAME.to_act(state)[0]
        state = act(state, GAME.legal_actions(state, seat)[0])
    assert state.tricks[-1][1] == first[1]
    state = tricks(state, rest)
    last = GAME.view(state, None)["history"][-1]
    assert last["tricks"] == [5, 7] and not last["made"] and last["team_scores"] == [0, 5]


HIGH_SPADES_DOWN = ["KS", "QS", "JS", "10S", "9S", "8S"]


def test_stacked_decks_with_jokers_hold_the_52_cards_and_the_jokers():
    with pytest.raises(ValueError):
        start({"jokers": 1})  # the aces alone: no big joker in the deck
    state = start({"jokers": 1}, kitty=[*ACES, "BJ"])
    assert list(state.kitty) == [*ACES, "BJ"] and GAME.view(state, None)["kitty_count"] == 5


# ---- the thirteen-book game ----------------------------------------------------------------


def test_thirteen_books_the_discard_is_a_book_made_scores_books_over_six():
    options = {"directions": True, "books": "thirteen"}
    state = p1_declares(options, (4, "uptown"), ["AD", "AC", "7S", "8H"], SWAPPED)
    state = act(state, {"type": "trump", "suit": "S"})
    state = tricks(state, SWAPPED_UPTOWN)
    last = GAME.view(state, None)["history"][-1]
    # 11 tricks + the discard = 12 books: 12 - 6 = 6, short of +7: the next hand is dealt
    assert last["team_scores"] == [0, 6] and state.phase is Phase.BIDDING
    assert GAME.view(state, None)["game_to"] == 7


def test_thirteen_books_reaching_game_to_wins():
    options = {"directions": True, "books": "thirteen", "game_to": 6}
    state = p1_declares(options, (4, "uptown"), ["AD", "AC", "7S", "8H"], SWAPPED)
    state = act(state, {"type": "trump", "suit": "S"})
    state = tricks(state, SWAPPED_UPTOWN)
    assert state.phase is Phase.OVER and list(state.winners) == [1, 3]
    assert GAME.outcome(state)["scores"] == [0, 6, 0, 6]


def test_thirteen_books_set_loses_the_bid_and_minus_game_to_loses_the_game():
    options = {**DIRECTIONS, "books": "thirteen"}
    state = p1_declares(options, (4, "no_trump"), ["AD", "AC", "KS", "KH"])
    state = act(state, {"type": "direction", "direction": "downtown"})
    state = tricks(state, P1_DOWNTOWN_SET)
    last = GAME.view(state, None)["history"][-1]
    # set in no trump: -4 doubled = -8, past -7: team B loses, team A wins
    assert last["team_scores"] == [0, -8] and last["doubled"]
    assert state.phase is Phase.OVER and list(state.winners) == [0, 2]
    assert GAME.outcome(state)["scores"] == [0, -8, 0, -8]


def test_thirteen_books_a_boston_is_all_thirteen():
    options = {"directions": True, "books": "thirteen", "boston": "quadruple", "game_to": 50}
    state = auction(start(options), (7, "downtown"), "pass", "pass", "pass")
    state = act(state, {"type": "discard", "cards": ["AD", "AC", "7S", "7H"]})
    state = act(state, {"type": "trump", "suit": "S"})
    script = [({"p0": c}, 0) for c in ["AS", "2S", "3S", "4S", "5S", "6S", "AH", "2H", "3H", "4H", "5H", "6H"]]
    state = tricks(state, script)
    last = GAME.view(state, None)["history"][-1]
    assert last["team_scores"] == [28, 0] and last["quadrupled"]  # (13 - 6) x 4


def test_min_bid_three_the_dealer_is_forced_at_three_and_chooses_the_direction():
    options = {**DIRECTIONS, "books": "thirteen", "min_bid": 3}
    state = auction(start(options), "pass", "pass", "pass")
    assert GAME.legal_actions(state, 3) == [
        {"type": "take", "direction": d} for d in ("uptown", "downtown", "no_trump")
    ]
    refuse(state, 3, {"type": "take"}, "direction")
    state = auction(state, ("take", "downtown"))
    assert (state.contract, state.direction, state.forced) == (3, "downtown", True)
    assert GAME.view(state, 0)["log"][-1]["action"] == {"type": "take", "direction": "downtown"}


def test_min_bid_three_a_three_can_win_the_auction():
    options = {"books": "thirteen", "min_bid": 3}
    state = auction(start(options), (3, None), "pass", "pass")
    assert {"type": "pass"} in GAME.legal_actions(state, 3)
    state = auction(state, "pass")
    assert (state.declarer, state.contract) == (0, 3)


def test_min_bid_four_a_lone_three_forces_the_dealer_at_four():
    options = {"books": "thirteen"}
    state = auction(start(options), (3, None), "pass", "pass")
    assert GAME.legal_actions(state, 3) == [{"type": "take"}]
    state = auction(state, "take")
    assert (state.declarer, state.contract, state.forced) == (3, 4, True)


# ---- bidding with directions ---------------------------------------------------------------


def test_equal_numbers_downtown_beats_uptown_and_no_trump_beats_both():
    state = auction(start(DIRECTIONS), (4, "uptown"))
    legal = GAME.legal_actions(state, 1)
    assert {"type": "bid", "value": 4, "direction": "downtown"} in legal
    assert {"type": "bid", "value": 4, "direction": "uptown"} not in legal
    state = auction(state, (4, "downtown"))
    assert {"type": "bid", "value": 4, "direction": "no_trump"} in GAME.legal_actions(state, 2)
    refuse(state, 2, {"type": "bid", "value": 4, "direction": "uptown"}, "Four downtown")
    refuse(state, 2, {"type": "bid", "value": 5}, "direction")
    state = auction(state, (4, "no_trump"))
    assert GAME.view(state, 0)["bid_directions"] == ["uptown", "downtown", "no_trump", None]
    assert GAME.view(state, 0)["high_direction"] == "no_trump"
    # the dealer takes the high bid as it stands, its direction too
    assert GAME.legal_actions(state, 3)[:2] == [{"type": "take"}, {"type": "pass"}]
    refuse(state, 3, {"type": "take", "direction": "uptown"}, "no direction")
    state = auction(state, "take")
    assert (state.declarer, state.contract, state.direction) == (3, 4, "no_trump")


def test_uptown_beats_downtown_when_the_option_says_so():
    options = {"directions": True, "downtown_beats_uptown": False}
    state = auction(start(options), (4, "downtown"))
    assert {"type": "bid", "value": 4, "direction": "uptown"} in GAME.legal_actions(state, 1)
    state = auction(state, (4, "uptown"))
    refuse(state, 2, {"type": "bid", "value": 4, "direction": "downtown"}, "higher")


def test_no_trump_bids_need_the_no_trump_option():
    state = start({"directions": True})
    refuse(state, 0, {"type": "bid", "value": 4, "direction": "no_trump"}, "direction")


# ---- the sported kitty ---------------------------------------------------------------------


def test_the_sported_kitty_is_shown_to_everyone_from_the_contract_to_the_discard():
    options = {"sport_kitty": True}
    state = start(options)
    assert all(GAME.view(state, s)["sported"] is None for s in (0, 1, 2, 3, None))
    state = auction(state, (4, None), "pass", "pass", "pass")
    for seat in (0, 1, 2, 3, None):
        assert GAME.view(state, seat)["sported"] == ACES
    state = act(state, {"type": "discard", "cards": ["AD", "AC", "2S", "2H"]})
    assert all(GAME.view(state, s)["sported"] is None for s in (0, 1, 2, 3, None))


def test_without_the_option_the_kitty_is_never_sported():
    state = auction(start({"jokers": 1}, kitty=[*ACES, "BJ"]), (4, None), "pass", "pass", "pass")
    assert GAME.view(state, 1)["sported"] is None and GAME.view(state, 1)["kitty"] is None


# ---- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"no_trump": True}, "no_trump"),
        ({"min_bid": 3}, "min_bid"),
        ({"game_to": 5}, "game_to"),
        ({"jokers": 3}, "jokers"),
        ({"books": "twelve"}, "books"),
        ({"boston": "double"}, "boston"),
        ({"joker_no_trump": "never"}, "joker_no_trump"),
        ({"books": "thirteen", "min_bid": 5}, "min_bid"),
        ({"books": "thirteen", "game_to": 0}, "game_to"),
    ],
)
def test_bad_options_and_combinations_are_refused_naming_the_option(options, named):
    with pytest.raises(ValueError, match=named):
        GAME.new_game(4, options=options, seed=1)


def test_the_seed_options_play_the_seed_game_and_its_view_keys_stay_neutral():
    state = GAME.new_game(4, options={"target": 15}, seed=1)
    assert state.house is None
    view = GAME.view(state, None)
    assert view["direction"] is None and view["jokers"] == 0 and view["kitty_size"] == 4
    assert view["books"] == "seed" and view["game_to"] is None and view["directions"] == []
    assert GAME.new_game(4, options={"jokers": 1}, seed=1).house is not None


def test_illegal_direction_actions_are_refused_with_a_sentence():
    state = p1_declares(DIRECTIONS, (4, "no_trump"), ["AD", "AC", "KS", "KH"])
    refuse(state, 1, {"type": "direction", "direction": "sideways"}, "uptown or downtown")
    with pytest.raises(IllegalAction):
        GAME.apply(state, 1, {"type": "direction"})


def test_the_room_keeps_a_bids_direction_and_drops_what_no_action_has():
    """What a room applies and stores is ``canonical_action``: a direction is part of the move."""
    assert GAME.canonical_action({"type": "bid", "value": 4, "direction": "downtown", "note": "hi"}) == {
        "type": "bid",
        "value": 4,
        "direction": "downtown",
    }
    assert GAME.canonical_action({"type": "take", "direction": "uptown", "seat": 2}) == {
        "type": "take",
        "direction": "uptown",
    }
    assert GAME.canonical_action({"type": "direction", "direction": "uptown", "x": 1}) == {
        "type": "direction",
        "direction": "uptown",
    }


def test_a_joker_refused_in_a_trump_contract_is_called_a_trump_not_no_trump():
    """Refusing a joker when the suit led (not trump) can be followed names that suit, and
    never speaks of no trump in a trump contract."""
    game = get_game("bid_whist")
    for seed in range(40):
        state = game.new_game(4, {"jokers": 2, "directions": True}, seed=seed)
        rng = random.Random(seed)
        while game.outcome(state) is None and state.hand_number == 0:
            seat = game.to_act(state)[0]
            hand = state.hands[seat]
            if state.phase == "playing" and state.trump is not None and state.trick:
                led = state.trick[0][1][-1]
                if state.trick[0][1] not in ("BJ", "LJ") and led != state.trump and any(c[-1] == led for c in hand):
                    for joker in {"BJ", "LJ"} & set(hand):
                        reason = game.why_illegal(state, seat, {"type": "play", "card": joker})
                        assert reason is not None and "no trump" not in reason, reason
                        return
            action = rng.choice(game.legal_actions(state, seat))
            state = game.apply(state, seat, action)
    raise AssertionError("no joker held against a followable side suit in 40 deals")


@pytest.mark.parametrize(
    ("options", "house"),
    [({}, False), ({"target": 5}, False), ({"books": "thirteen"}, True), ({"sport_kitty": True}, True)],
)
def test_a_history_entry_says_whether_the_table_plays_house_options(options, house):
    """The sheet calls a sweep a Chicago in the seed's game and a Boston with house options."""
    game = get_game("bid_whist")
    state = game.new_game(4, options, seed=3)
    rng = random.Random(3)
    while not state.history:
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
    assert game.view(state, 0)["history"][0]["house"] is house
