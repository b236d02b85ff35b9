"""Ribs: the worked examples of RULES.md 1.8 on stacked decks, and one test per rule."""

from __future__ import annotations

import copy
import json

import pytest

from server.games import IllegalAction, NotYourTurn, get_game
from server.games.ribs.rules import (
    BEAT,
    BEATEN,
    DOUBLE_MATCH,
    FOLDED,
    RANK_INDEX,
    RETURNED,
    TAKEN,
    Play,
    resolve_trick,
    ribs_deck,
)
from server.rules.cards import deal, hand_rng, shuffled

GAME = get_game("ribs")
RUN = "A K Q J 10 9 8 7"


def stack(hands: list[str], dealer: int) -> list[str]:
    """The deck (top first) that deals ``hands`` two at a time from the dealer's left."""
    split = [h.split() for h in hands]
    n = len(split)
    deck: list[str] = []
    for packet in range(4):
        for k in range(1, n + 1):
            deck += split[(dealer + k) % n][2 * packet : 2 * packet + 2]
    return deck


def bid(value: int) -> dict:
    return {"type": "bid", "value": value}


PASS = {"type": "pass"}


def ribs(cards: str) -> dict:
    return {"type": "ribs", "cards": cards.split()}


def pair(cards: str, fold: bool = False) -> dict:
    return {"type": "pair", "cards": cards.split(), "fold": fold}


def run(state, steps):
    """Apply (seat, action) steps, checking each seat is the one to act."""
    for seat, action in steps:
        assert GAME.to_act(state) == [seat]
        state = GAME.apply(state, seat, action)
    return state


def ranks(cards: str) -> tuple[int, int]:
    a, b = (RANK_INDEX[c] for c in cards.split())
    return (min(a, b), max(a, b))


def resolve(bid_value, rib_cards, plays, leader=0, n=4):
    """Resolve one trick given plays as (seat, cards, folded)."""
    return resolve_trick(
        n,
        leader,
        bid_value,
        ranks(rib_cards),
        [Play(s, ranks(c), f) for s, c, f in plays],
        1,
    )


# ---- R1: one full 4-player hand ------------------------------------------------------

R1_HANDS = ["A A K Q J 10 8 7", "A K K Q J 9 8 7", "A K Q J 10 10 9 7", "Q J 10 9 9 8 8 7"]

R1_TRICK_1 = [
    (0, bid(2)),
    (1, bid(3)),
    (2, PASS),
    (3, PASS),
    (0, bid(4)),
    (1, PASS),
    (0, ribs("A A")),
    (1, pair("8 7")),
    (2, pair("9 7", fold=True)),
    (3, pair("9 8")),
]
R1_TRICK_2 = [
    (0, bid(2)),
    (1, bid(3)),
    (2, bid(4)),
    (3, PASS),
    (0, PASS),
    (1, PASS),
    (2, ribs("J 10")),
    (3, pair("Q 9")),
    (0, pair("8 7")),
    (1, pair("K 9")),
]
R1_TRICK_3 = [
    (2, bid(2)),
    (3, PASS),
    (0, bid(3)),
    (1, PASS),
    (2, PASS),
    (0, ribs("K Q")),
    (1, pair("A J")),
    (2, pair("K Q")),
    (3, pair("8 7", fold=True)),
]
R1_TRICK_4 = [
    (0, bid(2)),
    (1, bid(3)),
    (2, PASS),
    (3, PASS),
    (0, PASS),
    (1, ribs("K Q")),
    (2, pair("A 10")),
    (3, pair("J 10")),
    (0, pair("J 10")),
]


def r1_start(**options):
    return GAME.new_game(4, options=options or None, seed=11, dealer=0, decks=[stack(R1_HANDS, 0)])


def test_r1_deal_gives_each_seat_its_eight_cards_two_at_a_time_from_the_dealers_left():
    state = r1_start()
    for seat, hand in enumerate(R1_HANDS):
        assert GAME.view(state, seat)["hand"] == hand.split()
    record = GAME.hand_records(state)[0]
    assert record["dealer"] == 0 and record["scores"] is None
    # packets of two from P1: the first packet of the deck is P1's A K
    assert record["deal"]["deck"][:2] == ["A", "K"]
    assert sorted(record["deal"]["hands"][3]) == sorted(R1_HANDS[3].split())


def test_r1_trick_1_bidding_offers_the_dealer_any_opening_and_others_only_a_raise_of_one():
    state = r1_start()
    assert GAME.to_act(state) == [0]
    opening = GAME.legal_actions(state, 0)
    assert opening == [bid(v) for v in range(2, 13)]
    state = GAME.apply(state, 0, bid(2))
    assert GAME.legal_actions(state, 1) == [bid(3), PASS]
    state = run(state, R1_TRICK_1[1:5])
    view = GAME.view(state, 1)
    assert view["high_bid"] == 4 and view["passed"] == [False, False, True, True]
    assert GAME.legal_actions(state, 1) == [bid(5), PASS]


def test_r1_trick_1_leader_captures_aces_and_beaten_pairs_and_the_fold_is_discarded():
    state = run(r1_start(), R1_TRICK_1)
    last = GAME.view(state, 0)["last_trick"]
    assert last["leader"] == 0 and last["bid"] == 4 and last["ribs"] == ["A", "A"]
    assert last["made"] is True and last["beaten_points"] == 4
    assert [(p["seat"], p["result"]) for p in last["plays"]] == [(1, BEATEN), (2, FOLDED), (3, BEATEN)]
    assert last["plays"][1]["cards"] is None
    assert last["captured"] == [4, 0, 0, 0]
    assert GAME.view(state, 0)["points"] == [4, 0, 0, 0]
    assert GAME.view(state, 3)["fold_used"] == [False, False, True, False]
    assert state.discard == ranks("9 7")


def test_r1_trick_2_pairs_above_the_jack_capture_themselves_and_the_failed_leader_loses_the_ribs():
    state = run(r1_start(), R1_TRICK_1)
    assert GAME.view(state, 0)["opener"] == 0  # the Leader of trick 1 opens trick 2
    state = run(state, R1_TRICK_2)
    last = GAME.view(state, 2)["last_trick"]
    assert last["leader"] == 2 and last["bid"] == 4 and last["made"] is False
    assert [(p["seat"], p["result"]) for p in last["plays"]] == [(3, BEAT), (0, RETURNED), (1, BEAT)]
    assert last["captured"] == [2, 3, 0, 3]
    assert last["ribs_discarded"] is True
    assert GAME.view(state, 2)["points"] == [6, 3, 0, 3]


def test_r1_trick_3_double_match_takes_the_pair_that_would_have_beaten_the_ribs():
    state = run(r1_start(), R1_TRICK_1 + R1_TRICK_2)
    assert GAME.view(state, 2)["opener"] == 2
    state = run(state, R1_TRICK_3)
    last = GAME.view(state, 0)["last_trick"]
    assert last["double_match"] == 2 and last["made"] is False
    assert [(p["seat"], p["result"]) for p in last["plays"]] == [(1, TAKEN), (2, DOUBLE_MATCH), (3, FOLDED)]
    assert last["captured"] == [0, 0, 10, 0]
    assert GAME.view(state, 0)["points"] == [6, 3, 10, 3]


def test_r1_trick_4_p3_cannot_fold_twice_and_the_leader_makes_the_bid():
    state = run(r1_start(), R1_TRICK_1 + R1_TRICK_2 + R1_TRICK_3 + R1_TRICK_4[:7])
    assert GAME.to_act(state) == [3]
    assert all(a["fold"] is False for a in GAME.legal_actions(state, 3))
    with pytest.raises(IllegalAction, match="already folded"):
        GAME.apply(state, 3, pair("J 10", fold=True))
    state = run(state, R1_TRICK_4[7:])
    view = GAME.view(state, 1)
    final = view["history"][0]
    assert [(p["seat"], p["result"]) for p in final["final_trick"]["plays"]] == [(2, BEAT), (3, BEATEN), (0, BEATEN)]
    assert final["final_trick"]["captured"] == [0, 10, 1, 0]


def test_r1_capture_piles_are_6_13_11_3_with_7_discarded_and_p1_earns_the_game_point():
    state = run(r1_start(), R1_TRICK_1 + R1_TRICK_2 + R1_TRICK_3 + R1_TRICK_4)
    view = GAME.view(state, None)
    assert view["history"][0]["points"] == [6, 13, 11, 3]
    assert view["history"][0]["discarded"] == 7
    assert view["history"][0]["scores"] == [0, 1, 0, 0]
    assert view["scores"] == view["game_points"] == [0, 1, 0, 0]
    assert GAME.hand_records(state)[0]["scores"] == [0, 1, 0, 0]
    # the next hand is dealt by P1 and is a fresh hand
    assert view["dealer"] == 1 and view["hand_number"] == 2 and view["phase"] == "bidding"
    assert view["last_trick"] is None and view["points"] == [0, 0, 0, 0]
    assert view["fold_used"] == [False] * 4 and view["to_act"] == [1]


def test_r1_with_target_one_ends_the_session_with_p1_the_sole_winner():
    state = run(r1_start(target=1), R1_TRICK_1 + R1_TRICK_2 + R1_TRICK_3 + R1_TRICK_4)
    assert GAME.to_act(state) == []
    assert GAME.outcome(state) == {"scores": [0, 1, 0, 0], "winners": [1]}
    assert GAME.view(state, 0)["phase"] == "over"


# ---- R2: bidding with 5 players ----------------------------------------------------------


def test_r2_five_player_bidding_ends_with_p1_leading_at_5_and_jump_raises_refused():
    state = GAME.new_game(5, seed=3, dealer=0)
    state = run(state, [(0, bid(2)), (1, bid(3)), (2, PASS), (3, bid(4)), (4, PASS), (0, PASS)])
    assert GAME.to_act(state) == [1]
    with pytest.raises(IllegalAction, match="exactly one more than the high bid of 4"):
        GAME.apply(state, 1, bid(6))
    state = run(state, [(1, bid(5)), (3, PASS)])
    view = GAME.view(state, 0)
    assert view["leader"] == 1 and view["bid"] == 5 and view["phase"] == "playing"
    assert GAME.to_act(state) == [1]
    assert {a["type"] for a in GAME.legal_actions(state, 1)} == {"ribs"}
    assert [(b["seat"], b["bid"], b["pass"]) for b in view["bids"]] == [
        (0, 2, False),
        (1, 3, False),
        (2, None, True),
        (3, 4, False),
        (4, None, True),
        (0, None, True),
        (1, 5, False),
        (3, None, True),
    ]


# ---- bidding -----------------------------------------------------------------------------


def test_opener_may_not_pass():
    state = GAME.new_game(4, seed=1, dealer=2)
    assert PASS not in GAME.legal_actions(state, 2)
    with pytest.raises(IllegalAction, match="may not pass"):
        GAME.apply(state, 2, PASS)


@pytest.mark.parametrize("n", [4, 7, 10])
def test_opening_bid_is_any_value_from_2_to_four_times_the_other_players(n):
    state = GAME.new_game(n, seed=1)
    assert [a["value"] for a in GAME.legal_actions(state, 0)] == list(range(2, 4 * (n - 1) + 1))
    for bad in (0, 1, 4 * (n - 1) + 1):
        with pytest.raises(IllegalAction, match="opening bid"):
            GAME.apply(state, 0, bid(bad))


def test_raises_are_exactly_one_more_than_the_high_bid():
    state = GAME.apply(GAME.new_game(4, seed=1), 0, bid(5))
    assert GAME.legal_actions(state, 1) == [bid(6), PASS]
    for bad in (5, 7, 12):
        with pytest.raises(IllegalAction, match="exactly one more than the high bid of 5"):
            GAME.apply(state, 1, bid(bad))


def test_no_one_may_raise_above_four_times_the_other_players():
    state = GAME.apply(GAME.new_game(4, seed=1), 0, bid(12))
    assert GAME.legal_actions(state, 1) == [PASS]
    with pytest.raises(IllegalAction):
        GAME.apply(state, 1, bid(13))


def test_when_everyone_passes_at_once_the_opener_leads_at_the_opening_bid():
    state = run(
        GAME.new_game(6, seed=1, dealer=3), [(3, bid(2)), (4, PASS), (5, PASS), (0, PASS), (1, PASS), (2, PASS)]
    )
    view = GAME.view(state, None)
    assert view["leader"] == 3 and view["bid"] == 2 and GAME.to_act(state) == [3]


def test_bidding_goes_round_in_laps_skipping_seats_that_passed():
    state = run(GAME.new_game(4, seed=1), [(0, bid(2)), (1, PASS), (2, bid(3)), (3, bid(4)), (0, bid(5))])
    assert GAME.to_act(state) == [2]  # seat 1 passed and is skipped
    state = run(state, [(2, PASS), (3, bid(6)), (0, PASS)])
    assert GAME.view(state, 0)["leader"] == 3 and GAME.view(state, 0)["bid"] == 6


def test_the_opener_may_pass_on_a_later_lap():
    state = run(GAME.new_game(4, seed=1), [(0, bid(2)), (1, bid(3)), (2, PASS), (3, PASS)])
    assert PASS in GAME.legal_actions(state, 0)
    state = GAME.apply(state, 0, PASS)
    assert GAME.view(state, 0)["leader"] == 1


# Seat 0 holds three aces; the other seats hold the rest of the four runs.
SKEWED = ["A A A K 8 8 7 7", RUN, "K Q Q J J 10 9 8", "K Q J 10 10 9 9 7"]


# ---- play --------------------------------------------------------------------------------


def _led(n=4, dealer=0, seed=5):
    state = GAME.new_game(n, seed=seed, dealer=dealer)
    steps = [(dealer, bid(2))] + [((dealer + k) % n, PASS) for k in range(1, n)]
    return run(state, steps)


def test_pairs_are_played_clockwise_from_the_leaders_left():
    state = _led(n=5, dealer=3)
    assert GAME.view(state, 0)["play_order"] == [3, 4, 0, 1, 2]
    hand = GAME.view(state, 3)["hand"]
    state = GAME.apply(state, 3, ribs(f"{hand[0]} {hand[1]}"))
    order = []
    while GAME.view(state, None)["trick_number"] == 1:
        seat = GAME.to_act(state)[0]
        order.append(seat)
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    assert order == [4, 0, 1, 2]


def test_the_leader_lays_ribs_and_may_not_fold():
    state = _led()
    legal = GAME.legal_actions(state, 0)
    assert legal and all(a["type"] == "ribs" and "fold" not in a for a in legal)
    hand = GAME.view(state, 0)["hand"]
    with pytest.raises(IllegalAction, match="Leader"):
        GAME.apply(state, 0, pair(f"{hand[0]} {hand[1]}", fold=True))


def test_legal_pairs_list_each_distinct_rank_pair_once_high_first_with_fold_variants():
    deck = stack(SKEWED, 3)
    state = GAME.new_game(4, seed=0, dealer=3, decks=[deck])
    state = run(state, [(3, bid(2)), (0, PASS), (1, PASS), (2, PASS), (3, ribs("K 7"))])
    legal = GAME.legal_actions(state, 0)
    expected_pairs = [
        ["A", "A"],
        ["A", "K"],
        ["A", "8"],
        ["A", "7"],
        ["K", "8"],
        ["K", "7"],
        ["8", "8"],
        ["8", "7"],
        ["7", "7"],
    ]
    assert [a["cards"] for a in legal[::2]] == expected_pairs
    assert [a["fold"] for a in legal] == [False, True] * len(expected_pairs)
    assert GAME.view(state, 0)["legal"] == legal


def test_card_order_inside_an_action_does_not_matter_and_fold_may_be_left_out():
    deck = stack(SKEWED, 3)
    state = GAME.new_game(4, seed=0, dealer=3, decks=[deck])
    state = run(state, [(3, bid(2)), (0, PASS), (1, PASS), (2, PASS), (3, ribs("7 K"))])
    after = GAME.apply(state, 0, {"type": "pair", "cards": ["7", "A"]})
    assert after.plays[0].pair == ranks("A 7") and after.plays[0].folded is False
    assert GAME.view(after, 0)["hand"] == ["A", "A", "K", "8", "8", "7"]


def test_cards_you_do_not_hold_are_refused():
    deck = stack(SKEWED, 3)
    state = GAME.new_game(4, seed=0, dealer=3, decks=[deck])
    state = run(state, [(3, bid(2)), (0, PASS), (1, PASS), (2, PASS), (3, ribs("K 7"))])
    with pytest.raises(IllegalAction, match="do not hold a Q"):
        GAME.apply(state, 0, pair("Q 7"))
    with pytest.raises(IllegalAction, match="two Ks"):
        GAME.apply(state, 0, pair("K K"))


def test_fold_is_allowed_once_per_hand_and_again_in_the_next_hand():
    state = _led()
    hand = GAME.view(state, 0)["hand"]
    state = GAME.apply(state, 0, ribs(f"{hand[0]} {hand[1]}"))
    state = GAME.apply(state, 1, GAME.legal_actions(state, 1)[1])  # the first fold variant
    assert GAME.view(state, 2)["fold_used"] == [False, True, False, False]
    # finish the hand with face-up plays, checking seat 1 is never offered a fold again
    while GAME.view(state, None)["hand_number"] == 1:
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        if seat == 1 and legal[0]["type"] == "pair":
            assert all(a["fold"] is False for a in legal)
        state = GAME.apply(state, seat, legal[0])
    assert GAME.view(state, None)["fold_used"] == [False] * 4
    assert GAME.view(state, None)["history"][0]["final_trick"]["trick_number"] == 4


# ---- the resolution algorithm ------------------------------------------------------------


def test_double_match_captures_the_ribs_and_every_face_up_pair_even_those_that_beat():
    rec = resolve(3, "K Q", [(1, "A J", False), (2, "Q K", False), (3, "8 7", True)])
    assert rec.double_match == 2 and rec.results == (TAKEN, DOUBLE_MATCH, FOLDED)
    assert rec.captured == (0, 0, 10, 0) and rec.made is False


def test_several_double_matches_go_to_the_earliest_in_play_order():
    # Leader 2: play order is 3, 0, 1; seats 0 and 1 both match, seat 0 plays first.
    rec = resolve(2, "9 9", [(3, "A K", False), (0, "9 9", False), (1, "9 9", False)], leader=2)
    assert rec.double_match == 0
    assert rec.results == (TAKEN, DOUBLE_MATCH, TAKEN)
    assert rec.captured == (2 + 2 + 2 + 2, 0, 0, 0)


def test_a_pair_sharing_one_rank_with_the_ribs_is_beaten_even_when_it_holds_a_higher_card():
    rec = resolve(2, "K 7", [(1, "K K", False), (2, "A 7", False), (3, "A Q", False)])
    assert rec.results == (BEATEN, BEATEN, BEAT)
    assert rec.captured == (4 + 1 + 3, 0, 0, 2)


def test_a_pair_higher_than_the_top_rib_with_no_match_beats_the_ribs():
    rec = resolve(1, "J 10", [(1, "Q 7", False), (2, "A 9", False), (3, "K Q", False)])
    assert rec.results == (BEAT, BEAT, BEAT)
    assert rec.captured == (0, 3, 1, 4) and rec.made is False and rec.ribs_discarded


def test_a_pair_lower_than_the_top_rib_is_beaten():
    rec = resolve(4, "A 9", [(1, "K Q", False), (2, "8 7", False), (3, "10 10", False)])
    assert rec.results == (BEATEN, BEATEN, BEATEN)
    assert rec.captured == (4 + 2 + 2 + 1, 0, 0, 0)


def test_the_bid_is_made_when_the_beaten_points_equal_it_exactly():
    rec = resolve(5, "A K", [(1, "Q 7", False), (2, "A Q", False), (3, "9 9", True)])
    assert rec.made is True and rec.captured == (5 + 2, 0, 0, 0)
    assert rec.beaten_points == 5
    rec = resolve(6, "A K", [(1, "Q 7", False), (2, "A Q", False), (3, "9 9", True)])
    assert rec.made is False and rec.captured == (0, 3, 2, 0)


def test_a_failed_bid_returns_beaten_pairs_to_their_owners_and_discards_the_ribs():
    rec = resolve(8, "A K", [(1, "Q 7", False), (2, "A Q", False), (3, "9 9", False)])
    assert rec.made is False and rec.ribs_discarded
    assert rec.results == (RETURNED, RETURNED, RETURNED)
    assert rec.captured == (0, 3, 2, 2)


def test_folded_pairs_go_to_nobody_and_do_not_count_toward_the_bid():
    rec = resolve(2, "A A", [(1, "K K", True), (2, "8 7", False), (3, "9 9", True)])
    assert rec.results == (FOLDED, BEATEN, FOLDED)
    assert rec.beaten_points == 2 and rec.captured == (2, 0, 0, 0)


def test_a_folded_pair_matching_the_ribs_is_no_double_match():
    rec = resolve(2, "Q J", [(1, "Q J", True), (2, "J 7", False), (3, "10 9", False)])
    assert rec.double_match == -1 and rec.results == (FOLDED, BEATEN, BEATEN)
    assert rec.made is True and rec.captured == (3 + 2 + 4, 0, 0, 0)


# ---- hidden information ----------------------------------------------------------------------


def test_ribs_stay_hidden_until_every_pair_is_down_and_folds_stay_hidden_after():
    state = run(r1_start(), R1_TRICK_1[:9])  # ribs A A laid, P1 up, P2 folded
    for seat in (None, 1, 2, 3):
        trick = GAME.view(state, seat)["trick"]
        assert trick[0] == {"seat": 0, "cards": None, "ribs": True, "folded": False}
        assert trick[1]["cards"] == ["8", "7"]
        assert trick[2] == {"seat": 2, "cards": None, "ribs": False, "folded": True}
    assert GAME.view(state, 0)["my_face_down"] == [{"trick_number": 1, "cards": ["A", "A"], "fold": False}]
    assert GAME.view(state, 2)["my_face_down"] == [{"trick_number": 1, "cards": ["9", "7"], "fold": True}]
    assert GAME.view(state, 1)["my_face_down"] == []
    state = run(state, R1_TRICK_1[9:])
    for seat in (None, 0, 1, 3):
        view = GAME.view(state, seat)
        assert view["last_trick"]["ribs"] == ["A", "A"]
        assert view["last_trick"]["plays"][1]["cards"] is None
        assert view["trick"] == []
        assert view["my_face_down"] == []
    assert GAME.full_view(state)["last_trick"]["plays"][1]["cards"] == ["9", "7"]
    state = run(state, R1_TRICK_2 + R1_TRICK_3)
    for seat in (None, 0, 1, 2, 3):
        tricks = GAME.view(state, seat)["tricks"]
        assert tricks[0]["plays"][1]["cards"] is None and tricks[2]["plays"][2]["cards"] is None
    assert GAME.view(state, 2)["my_face_down"] == [{"trick_number": 1, "cards": ["9", "7"], "fold": True}]
    assert GAME.view(state, 3)["my_face_down"] == [{"trick_number": 3, "cards": ["8", "7"], "fold": True}]


def test_public_keys_are_the_same_for_every_seat_and_spectators_see_no_hand():
    state = run(r1_start(), R1_TRICK_1 + R1_TRICK_2[:8])
    private = {"hand", "legal", "my_face_down"}
    public = {k: v for k, v in GAME.view(state, None).items() if k not in private}
    for seat in range(4):
        view = GAME.view(state, seat)
        assert {k: v for k, v in view.items() if k not in private} == public
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["legal"] == []


def test_view_has_the_protocol_keys_and_is_plain_json():
    view = GAME.view(r1_start(), 0)
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
        "leader",
        "opener",
        "passed",
        "fold_used",
        "trick_number",
        "points",
        "game_points",
        "target",
        "last_trick",
    ):
        assert key in view
    assert json.loads(json.dumps(view)) == view
    assert view["hand_counts"] == [8, 8, 8, 8] and view["trump"] is None
    assert view["trick_number"] == 1 and view["target"] == 5


# ---- scoring and session end ---------------------------------------------------------------


def _all_tie_steps():
    """Each seat leads once with Ribs 8 7 and fails; everyone else beats with A K, Q J, 10 9."""
    steps = [(0, bid(2)), (1, PASS), (2, PASS), (3, PASS)]
    played = {s: 0 for s in range(4)}
    pairs = ["A K", "Q J", "10 9"]
    for trick in range(4):
        leader = trick
        if trick:
            prev = trick - 1
            steps += [
                (prev, bid(2)),
                (leader, bid(3)),
                ((leader + 1) % 4, PASS),
                ((leader + 2) % 4, PASS),
                (prev, PASS),
            ]
        steps.append((leader, ribs("8 7")))
        for k in range(1, 4):
            seat = (leader + k) % 4
            steps.append((seat, pair(pairs[played[seat]])))
            played[seat] += 1
    return steps


def test_every_seat_tied_for_the_most_points_earns_a_game_point_even_when_all_tie():
    state = GAME.new_game(4, seed=2, dealer=0, decks=[stack([RUN] * 4, 0)])
    state = run(state, _all_tie_steps())
    entry = GAME.view(state, None)["history"][0]
    assert entry["points"] == [8, 8, 8, 8] and entry["discarded"] == 8
    assert entry["scores"] == [1, 1, 1, 1]


def test_only_the_tied_leaders_earn_a_game_point():
    state = GAME.new_game(4, seed=2, dealer=0, decks=[stack([RUN] * 4, 0)])
    steps = _all_tie_steps()
    # in trick 4 (leader P3) P2, last to play, folds its 10 9: P2 ends with 6 points
    steps = [(s, pair("10 9", fold=True)) if (s, a) == steps[-1] else (s, a) for s, a in steps]
    state = run(state, steps)
    entry = GAME.view(state, None)["history"][0]
    assert entry["points"] == [8, 8, 6, 8] and entry["scores"] == [1, 1, 0, 1]


def test_several_players_reaching_the_target_on_the_same_hand_are_co_winners():
    state = GAME.new_game(4, options={"target": 1}, seed=2, dealer=0, decks=[stack([RUN] * 4, 0)])
    state = run(state, _all_tie_steps())
    assert GAME.outcome(state) == {"scores": [1, 1, 1, 1], "winners": [0, 1, 2, 3]}
    assert GAME.to_act(state) == [] and GAME.legal_actions(state, 0) == []
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 0, bid(2))


def test_until_sole_winner_plays_on_until_one_player_leads_alone():
    state = GAME.new_game(
        4, options={"target": 1, "until_sole_winner": True}, seed=2, dealer=0, decks=[stack([RUN] * 4, 0)]
    )
    state = run(state, _all_tie_steps())
    assert GAME.outcome(state) is None
    assert GAME.view(state, None)["dealer"] == 1 and GAME.to_act(state) == [1]
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    result = GAME.outcome(state)
    assert len(result["winners"]) == 1
    top = max(result["scores"])
    assert result["scores"].count(top) == 1 and top >= 2


def test_later_hands_rotate_the_dealer_and_are_shuffled_from_the_seed():
    state = run(r1_start(), R1_TRICK_1 + R1_TRICK_2 + R1_TRICK_3 + R1_TRICK_4)
    deck = shuffled(ribs_deck(4), hand_rng(11, 1))
    hands, rest = deal(deck, 4, 8, 2, packet=2)
    assert rest == []
    for seat in range(4):
        assert sorted(GAME.view(state, seat)["hand"], key=RANK_INDEX.get) == sorted(hands[seat], key=RANK_INDEX.get)
    assert GAME.hand_records(state)[1]["dealer"] == 1
    assert GAME.hand_records(state)[1]["deal"]["deck"] == deck


# ---- options, setup and refusals ---------------------------------------------------------------


def test_options_default_to_target_five_and_refuse_unknown_or_bad_values():
    assert GAME.parse_options(None).target == 5
    assert GAME.parse_options(None).until_sole_winner is False
    with pytest.raises(ValueError, match="colour"):
        GAME.new_game(4, options={"colour": "red"})
    with pytest.raises(ValueError, match="target"):
        GAME.new_game(4, options={"target": 0})
    schema = GAME.options_schema()
    assert schema["properties"]["target"]["default"] == 5
    assert schema["properties"]["until_sole_winner"]["description"]


@pytest.mark.parametrize("players", [3, 11, "4"])
def test_player_counts_outside_four_to_ten_are_refused(players):
    with pytest.raises(ValueError):
        GAME.new_game(players)


def test_a_stacked_deck_must_hold_exactly_one_run_per_player():
    with pytest.raises(ValueError):
        GAME.new_game(4, decks=[stack([RUN] * 4, 0)[:-1] + ["A"]])
    with pytest.raises(ValueError):
        GAME.new_game(5, decks=[stack([RUN] * 4, 0)])


@pytest.mark.parametrize(
    "junk",
    [
        None,
        "bid",
        7,
        [],
        {},
        {"type": 3},
        {"type": "dance"},
        {"type": "bid"},
        {"type": "bid", "value": "3"},
        {"type": "bid", "value": 2.0},
        {"type": "bid", "value": True},
        {"type": "ribs", "cards": ["A", "K"]},
        {"type": "pair", "cards": ["A", "K"]},
    ],
)
def test_junk_during_bidding_is_refused_with_a_sentence_and_changes_nothing(junk):
    state = GAME.new_game(4, seed=1)
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, junk)
    assert str(err.value)
    assert state == before


@pytest.mark.parametrize(
    "junk",
    [
        {"type": "pair", "cards": "A K"},
        {"type": "pair", "cards": ["A"]},
        {"type": "pair", "cards": ["A", "K", "Q"]},
        {"type": "pair", "cards": ["AS", "KH"]},
        {"type": "pair", "cards": [1, 2]},
        {"type": "pair", "cards": [None, "A"]},
        {"type": "pair", "cards": [["A"], "K"]},
        {"type": "pair", "cards": ["A", "A"], "fold": "yes"},
        {"type": "ribs", "cards": ["A", "K"]},
        {"type": "bid", "value": 3},
        {"type": "pass"},
    ],
)
def test_junk_during_play_is_refused_with_a_sentence_and_changes_nothing(junk):
    deck = stack(SKEWED, 3)
    state = GAME.new_game(4, seed=0, dealer=3, decks=[deck])
    state = run(state, [(3, bid(2)), (0, PASS), (1, PASS), (2, PASS), (3, ribs("K 7"))])
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, junk)
    assert str(err.value)
    assert state == before


def test_acting_out_of_turn_raises_not_your_turn():
    state = GAME.new_game(4, seed=1)
    for seat in (1, 2, 3, 4, -1, None):
        with pytest.raises(NotYourTurn):
            GAME.apply(state, seat, bid(2))
    assert GAME.legal_actions(state, 1) == []
    assert GAME.view(state, 1)["legal"] == []


def test_apply_never_changes_the_state_it_was_given():
    state = r1_start()
    for seat, action in R1_TRICK_1 + R1_TRICK_2:
        before = copy.deepcopy(state)
        full = GAME.full_view(state)
        new = GAME.apply(state, seat, action)
        assert state == before and GAME.full_view(state) == full and new is not state
        state = new


def test_the_registry_describes_the_game():
    info = GAME.describe()
    assert info["name"] == "ribs" and info["title"] == "Ribs"
    assert (info["min_players"], info["max_players"]) == (4, 10)
    assert info["summary"]
