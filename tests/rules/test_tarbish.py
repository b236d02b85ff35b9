"""Tarabish: the worked examples of RULES.md 3.9 and one test per rule, on stacked decks."""

from __future__ import annotations

import json
import re

import pytest

from server.games import IllegalAction, NotYourTurn, get_game
from server.games.tarbish.rules import (
    DECK,
    Phase,
    Run,
    best_run,
    card_points,
    compare_runs,
    find_runs,
    legal_cards,
    match_winner,
    settle,
)

GAME = get_game("tarbish")

# RULES 3.9 T1: "first 6 | kitty 3"; P3 deals, so P0 is eldest.
T1_HANDS = {
    0: "AS 9S 7S JH 9H QD | JS KH 7C",
    1: "10S 8S 10H 10D JC 6C | QS QH KD",
    2: "6S 8H 6H 9D 8D AC | 6D QC 9C",
    3: "KS AH JD 7D 10C 8C | 7H AD KC",
}
T1_PLAY = """
T1 P0:JH P1:QH{10H,QH} P2:6H{6H,8H} P3:7H{AH,7H}   -> P0 23
T2 P0:9H P1:10H P2:8H P3:AH                         -> P0 35
T3 P0:AS P1:8S{10S,8S,QS} P2:6S P3:KS              -> P0 15
T4 P0:QD P1:KD{10D,KD} P2:6D{9D,8D,6D} P3:AD{7D,JD,AD} -> P3 18
T5 P3:10C P0:7C P1:JC{JC,6C} P2:AC{AC,QC,9C}       -> P2 23
T6 P2:QC P3:KC{8C,KC} P0:KH{KH}(void C, must trump) P1:6C -> P0 11
T7 P0:JS P1:QS{10S,QS} P2:9D P3:JD                  -> P1 7
T8 P1:10D P2:8D P3:7D P0:7S                         -> P1 10
T9 P1:10S P2:9C P3:8C P0:9S                         -> P1 10 (+10 last)
"""

# A run scenario (trump hearts): P0 9S-10S-JS twenty, P1 6D-9D fifty, P3 QH-KH-AH trump twenty
# and bella (KH+QH); P2 has no run.
RUNS_HANDS = {
    0: "9S 10S JS KS 6H 9H | 6C 8C AD",
    1: "6D 7D 8D 9D 6S 8S | 10C QC 7H",
    2: "AS 8H 10H JH 10D QD | JC KC AC",
    3: "QH KH AH 7S QS 7C | 9C JD KD",
}
# RULES 3.9 T4, last bullet: P2 holds 7D-8D-9D and JS-QS-KS-AS (the ace in the kitty).
TWO_RUNS_HANDS = {
    0: "6S 9C 6H 8S 9H 10H | 6C 10C 7H",
    1: "JD 7C KH KD 10D KC | 7S AH 9S",
    2: "7D 8D 9D JS QS KS | AS QH AD",
    3: "10S QD AC 8C QC 8H | JC JH 6D",
}
# T4 fourth bullet: P0 10S-JS-QS and P1 10C-JC-QC, trump hearts: an exact tie.
TIE_HANDS = {
    0: "10S JS QS JH 9C QD | 7H KH AH",
    1: "10C JC QC 8S 6C 8D | KS AS JD",
    2: "6H 9S 9H KC 10D QH | 7D KD AC",
    3: "7S 8H 10H 6S 8C 9D | 7C 6D AD",
}
# T4 third bullet: P0 10S-JS-QS and P1 10H-JH-QH (trump): trump breaks the tie.
TRUMP_TIE_HANDS = {
    0: "10S JS QS KH 8D 6S | 8S AS KC",
    1: "10H JH QH 10C JC AD | 7C 10D 9D",
    2: "9S 8H 8C AC AH 7H | JD 6C KS",
    3: "7S KD 6D QD 9H 9C | 6H 7D QC",
}
# T4 second bullet: P2 JC-QC-KC and P3 8H-9H-10H (trump): the top K beats the top 10.
TOP_CARD_HANDS = {
    0: "10C AC 7H QD JD JS | AS QH 9C",
    1: "7S 8D QS 7C 8S KS | 10S JH 9D",
    2: "JC QC KC AH 6S 6D | KH 7D AD",
    3: "8H 9H 10H 6C KD 9S | 8C 10D 6H",
}


def cards(spec: str) -> list[str]:
    return spec.replace("|", " ").split()


def stack(hands: dict[int, str], dealer: int = 3) -> list[str]:
    """The deck, top first, that deals these hands in threes from the dealer's left."""
    deck: list[str] = []
    for packet in range(3):
        for i in range(4):
            seat = (dealer + 1 + i) % 4
            deck += cards(hands[seat])[3 * packet : 3 * packet + 3]
    return deck


def start(hands: dict[int, str], dealer: int = 3, **options):
    deck = stack(hands, dealer)
    return GAME.new_game(4, options=options or None, seed=11, dealer=dealer, decks=[deck])


def legal_cards_of(state, seat: int) -> list[str]:
    return [a["card"] for a in GAME.legal_actions(state, seat)]


def name_and_declare(state, suit: str, declarers: set[int] = frozenset()):
    """Eldest names ``suit``; then every seat in turn declares if listed, else passes."""
    state = GAME.apply(state, GAME.to_act(state)[0], {"type": "trump", "suit": suit})
    for _ in range(4):
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, {"type": "declare" if seat in declarers else "pass"})
    assert state.phase is Phase.PLAYING
    return state


def play_first_legal(state, until_hand_over: bool = True):
    """Play the first legal action until the current hand is scored."""
    hands_done = len(state.match.history)
    while GAME.to_act(state) and len(state.match.history) == hands_done:
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    return state


def play_t1(**options):
    state = start(T1_HANDS, **options)
    return name_and_declare(state, "H")


def play_lines(state, text: str, check=None):
    for line in text.strip().splitlines():
        for m in re.finditer(r"P(\d):(\w+)(?:\{([^}]*)\})?", line):
            seat, card, shown = int(m[1]), m[2], m[3]
            assert GAME.to_act(state) == [seat], line
            if shown:
                assert sorted(legal_cards_of(state, seat)) == sorted(shown.split(",")), line
            state = GAME.apply(state, seat, {"type": "play", "card": card})
        if check:
            check(state, line)
    return state


# ---- worked examples -------------------------------------------------------------------------


def test_worked_example_t1_plays_every_trick_with_the_legal_sets_shown_and_scores_107_to_55():
    state = start(T1_HANDS)
    assert GAME.to_act(state) == [0]
    state = GAME.apply(state, 0, {"type": "trump", "suit": "H"})
    assert state.match.bella_seat is None  # KH with P0, QH with P1
    for seat in (0, 1, 2, 3):
        assert GAME.legal_actions(state, seat) == [{"type": "pass"}]  # nobody holds a run
        state = GAME.apply(state, seat, {"type": "pass"})

    def check(st, line):
        winner, points = re.search(r"-> P(\d) (\d+)", line).groups()
        view = GAME.view(st, None)
        if st.match.history:  # the ninth trick ended the hand and the next one is dealt
            assert line.startswith("T9")
            return
        assert view["last_trick"]["winner"] == int(winner)
        trick_cards = [p["card"] for p in view["last_trick"]["cards"]]
        assert sum(card_points(c, "H") for c in trick_cards) == int(points)

    state = play_lines(state, T1_PLAY, check)
    (entry,) = GAME.view(state, 0)["history"]
    a, b = entry["teams"]
    assert (a["card_points"], a["last_trick"], a["total"]) == (107, 0, 107)
    assert (b["card_points"], b["last_trick"], b["total"]) == (45, 10, 55)
    assert entry["made"] is True and entry["bait"] is False
    assert entry["scores"] == [107, 55, 107, 55]
    assert GAME.view(state, 2)["scores"] == [107, 55, 107, 55]
    assert GAME.view(state, 2)["team_scores"] == [107, 55]


def test_worked_example_t4_a_fifty_beats_any_twenty_and_only_that_players_runs_score():
    p0 = find_runs(cards("9S 10S JS"))
    p1 = find_runs(cards("6D 7D 8D 9D"))
    p3 = find_runs(cards("QH KH AH"))
    assert [r.points for r in p0 + p1 + p3] == [20, 50, 20]
    assert compare_runs({0: p0[0], 1: p1[0], 3: p3[0]}, "H") == 1


def test_worked_example_t4_top_card_beats_trump():
    p2 = find_runs(cards("JC QC KC"))[0]
    p3 = find_runs(cards("8H 9H 10H"))[0]
    assert compare_runs({2: p2, 3: p3}, "H") == 2


def test_worked_example_t4_trump_breaks_a_tie_of_type_and_top_card():
    p0 = find_runs(cards("10S JS QS"))[0]
    p1 = find_runs(cards("10H JH QH"))[0]
    assert compare_runs({0: p0, 1: p1}, "H") == 1


def test_worked_example_t4_an_exact_non_trump_tie_scores_for_nobody():
    p0 = find_runs(cards("10S JS QS"))[0]
    p1 = find_runs(cards("10C JC QC"))[0]
    assert compare_runs({0: p0, 1: p1}, "H") is None


def test_worked_example_t4_a_winner_with_a_fifty_and_a_twenty_scores_70():
    runs = find_runs(cards("7D 8D 9D JS QS KS AS"))
    assert sorted(r.points for r in runs) == [20, 50]
    assert best_run(runs, "H").points == 50


def run_scenario(hands, declarers, trump="H"):
    state = name_and_declare(start(hands), trump, declarers)
    return play_first_legal(state)


def test_stacked_t4_fifty_wins_over_twenties_and_the_partners_trump_run_scores_nothing():
    state = run_scenario(RUNS_HANDS, {0, 1, 3})
    (entry,) = GAME.view(state, None)["history"]
    assert entry["run_winner"] == 1
    assert [t["runs"] for t in entry["teams"]] == [0, 50]  # P3's trump twenty does not add 20
    assert [t["bella"] for t in entry["teams"]] == [0, 20]  # P3 holds KH and QH
    assert sum(t["total"] for t in entry["teams"]) == 162 + 50 + 20


def test_stacked_t4_top_card_king_beats_a_trump_run_topped_by_ten():
    state = run_scenario(TOP_CARD_HANDS, {2, 3})
    (entry,) = GAME.view(state, None)["history"]
    assert entry["run_winner"] == 2
    assert [t["runs"] for t in entry["teams"]] == [20, 0]


def test_stacked_t4_trump_run_wins_an_equal_type_and_top():
    state = run_scenario(TRUMP_TIE_HANDS, {0, 1})
    (entry,) = GAME.view(state, None)["history"]
    assert entry["run_winner"] == 1
    assert [t["runs"] for t in entry["teams"]] == [0, 20]


def test_stacked_t4_exact_tie_nobody_scores_and_nothing_is_revealed():
    state = name_and_declare(start(TIE_HANDS), "H", {0, 1})
    for _ in range(4):
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    assert GAME.view(state, None)["revealed"] == []
    state = play_first_legal(state)
    (entry,) = GAME.view(state, None)["history"]
    assert entry["run_winner"] is None
    assert [t["runs"] for t in entry["teams"]] == [0, 0]


def test_stacked_t4_a_winner_scores_all_own_runs_fifty_plus_twenty():
    state = run_scenario(TWO_RUNS_HANDS, {2})
    (entry,) = GAME.view(state, None)["history"]
    assert entry["run_winner"] == 2
    assert [t["runs"] for t in entry["teams"]] == [70, 0]


# ---- the deal and hidden kitties -------------------------------------------------------------


def test_the_deck_is_dealt_in_threes_from_the_dealers_left_and_the_third_packet_is_the_kitty():
    deck = list(DECK)
    state = GAME.new_game(4, seed=1, dealer=1, decks=[deck])
    full = GAME.full_view(state)
    # dealer 1: seat 2 gets cards 0-2, seat 3 3-5, seat 0 6-8, seat 1 9-11, then round two...
    assert sorted(full["deal"][2]) == sorted(deck[0:3] + deck[12:15] + deck[24:27])
    assert full["kitties"][2] == deck[24:27]
    assert full["kitties"][1] == deck[33:36]
    assert sorted(GAME.view(state, 2)["hand"]) == sorted(deck[0:3] + deck[12:15])


def test_before_trump_each_player_sees_six_cards_and_nobody_sees_any_kitty():
    state = start(T1_HANDS)
    for seat in range(4):
        view = GAME.view(state, seat)
        assert len(view["hand"]) == 6
        assert view["hand_counts"] == [9, 9, 9, 9]
        assert view["kitty_count"] == [3, 3, 3, 3]
        kitty = cards(T1_HANDS[seat].split("|")[1])
        assert not set(kitty) & set(json.dumps(view).replace('"', " ").replace(",", " ").split())
    assert GAME.view(state, None)["hand"] is None


def test_naming_trump_hands_every_player_their_kitty():
    state = GAME.apply(start(T1_HANDS), 0, {"type": "pass"})
    state = GAME.apply(state, 1, {"type": "trump", "suit": "C"})
    for seat in range(4):
        view = GAME.view(state, seat)
        assert sorted(view["hand"]) == sorted(cards(T1_HANDS[seat]))
        assert view["kitty_count"] == [0, 0, 0, 0]
    assert GAME.view(state, 0)["trump"] == "C"
    assert GAME.view(state, 0)["caller"] == 1
    assert GAME.to_act(state) == [0]  # declarations start at eldest


def test_hand_records_keep_each_seats_six_cards_and_kitty():
    state = start(T1_HANDS)
    (record,) = GAME.hand_records(state)
    assert record["dealer"] == 3 and record["scores"] is None
    assert record["deal"]["kitties"][0] == ["JS", "KH", "7C"]
    state = play_lines(play_t1(), T1_PLAY)
    assert GAME.hand_records(state)[0]["scores"] == [107, 55, 107, 55]
    assert GAME.hand_records(state)[1]["dealer"] == 0


# ---- naming trump ----------------------------------------------------------------------------


def test_the_first_suit_named_is_trump_and_ends_the_round():
    state = GAME.apply(start(T1_HANDS), 0, {"type": "trump", "suit": "S"})
    assert state.phase is Phase.DECLARING
    assert state.match.trump == "S" and state.match.caller == 0


def test_dealer_is_forced_to_name_trump_when_the_other_three_pass():
    state = start(T1_HANDS)
    for seat in (0, 1, 2):
        assert {"type": "pass"} in GAME.legal_actions(state, seat)
        state = GAME.apply(state, seat, {"type": "pass"})
    assert GAME.to_act(state) == [3]
    legal = GAME.legal_actions(state, 3)
    assert legal == [{"type": "trump", "suit": s} for s in "SHDC"]
    with pytest.raises(IllegalAction, match="dealer must name"):
        GAME.apply(state, 3, {"type": "pass"})
    state = GAME.apply(state, 3, {"type": "trump", "suit": "D"})
    assert state.match.caller == 3 and state.match.trump == "D"


def test_an_unknown_suit_is_refused():
    with pytest.raises(IllegalAction):
        GAME.apply(start(T1_HANDS), 0, {"type": "trump", "suit": "X"})


# ---- the legal-card rule ----------------------------------------------------------------------


def test_the_leader_may_play_any_card():
    hand = cards("AS 9S JH 7C")
    assert legal_cards(hand, (), "H") == hand


def test_a_plain_suit_must_be_followed_without_heading():
    hand = cards("AS 7S JH 7C")
    assert legal_cards(hand, ((0, "KS"),), "H") == ["AS", "7S"]


def test_following_a_plain_suit_that_was_trumped_is_still_any_card_of_that_suit():
    hand = cards("AS 7S JH 7C")
    assert legal_cards(hand, ((0, "KS"), (1, "6H")), "H") == ["AS", "7S"]


def test_when_trumps_are_led_you_must_head_the_trick_if_you_can():
    hand = cards("9H 8H 7S")
    assert legal_cards(hand, ((0, "AH"),), "H") == ["9H"]


def test_when_trumps_are_led_and_you_cannot_head_any_trump_will_do():
    hand = cards("8H 7H AS")
    assert legal_cards(hand, ((0, "JH"),), "H") == ["8H", "7H"]


def test_when_void_in_the_suit_led_you_must_trump():
    hand = cards("7H AD KD")
    assert legal_cards(hand, ((0, "AS"),), "H") == ["7H"]


def test_when_void_you_must_overtrump_if_you_can():
    hand = cards("JH 6H AD")
    assert legal_cards(hand, ((0, "AS"), (1, "9H")), "H") == ["JH"]


def test_when_void_and_unable_to_overtrump_you_must_still_undertrump():
    hand = cards("7H 6H AD")
    assert legal_cards(hand, ((0, "AS"), (1, "9H")), "H") == ["7H", "6H"]


def test_when_void_in_the_suit_led_and_in_trumps_any_card_may_be_played():
    hand = cards("AD KC")
    assert legal_cards(hand, ((0, "AS"), (1, "9H")), "H") == ["AD", "KC"]


def test_there_is_no_partner_exception_to_trumping():
    hand = cards("7H AD")
    # seat 0 leads AS and is winning; its partner seat 2 is void in spades and must trump it.
    assert legal_cards(hand, ((0, "AS"), (1, "6S")), "H") == ["7H"]


def test_an_illegal_card_is_refused_with_a_reason_and_changes_nothing():
    state = play_t1()
    state = GAME.apply(state, 0, {"type": "play", "card": "JH"})
    before = GAME.full_view(state)
    with pytest.raises(IllegalAction, match="follow suit: you hold a heart"):
        GAME.apply(state, 1, {"type": "play", "card": "QS"})
    with pytest.raises(IllegalAction, match="do not hold"):
        GAME.apply(state, 1, {"type": "play", "card": "AS"})
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 2, {"type": "play", "card": "6H"})
    assert GAME.full_view(state) == before
    # trumps led: P2 must head 9H with JH; in a plain suit a void player must trump
    state = name_and_declare(start(RUNS_HANDS), "H")
    state = play_lines(state, "P0:9H P1:7H")
    with pytest.raises(IllegalAction, match="head the trick: you hold a trump higher than 9"):
        GAME.apply(state, 2, {"type": "play", "card": "8H"})
    state = play_lines(play_t1(), "\n".join(T1_PLAY.strip().splitlines()[:5]) + "\nP2:QC P3:KC")
    with pytest.raises(IllegalAction, match="You must trump: you have no clubs"):
        GAME.apply(state, 0, {"type": "play", "card": "7S"})


def test_trick_order_trump_j_9_a_and_plain_a_10_k():
    state = play_t1()
    state = play_lines(state, "P0:JH P1:QH P2:6H P3:7H\nP0:9H P1:10H P2:8H P3:AH")
    assert state.last_winner == 0  # 9H beats AH in trumps
    state = play_lines(state, "P0:AS P1:8S P2:6S P3:KS")
    assert state.last_winner == 0
    state = play_lines(state, "P0:QD P1:KD P2:6D P3:AD")
    assert state.last_winner == 3


def test_card_points_add_up_to_152_whatever_the_trump():
    for trump in "SHDC":
        assert sum(card_points(c, trump) for c in DECK) == 152


# ---- runs ------------------------------------------------------------------------------------


def test_three_in_a_row_is_a_twenty():
    (run,) = find_runs(cards("8C 9C 10C KD"))
    assert run == Run(20, 4, "C", ("8C", "9C", "10C"))


def test_four_or_more_in_a_row_is_one_fifty():
    assert [r.points for r in find_runs(cards("6S 7S 8S 9S"))] == [50]
    assert [r.points for r in find_runs(cards("6S 7S 8S 9S 10S JS QS"))] == [50]


def test_runs_follow_natural_order_with_ten_between_nine_and_jack():
    assert [r.points for r in find_runs(cards("9D 10D JD"))] == [20]
    assert find_runs(cards("KD AD 6D")) == []  # no wrapping around
    assert find_runs(cards("9D JD QD")) == []


def test_several_separate_runs_are_all_found():
    runs = find_runs(cards("6H 7H 8H 10H JH QH KH AS AC"))
    assert sorted(r.points for r in runs) == [20, 50]
    runs = find_runs(cards("6S 7S 8S 6C 7C 8C 9C"))
    assert sorted(r.points for r in runs) == [20, 50]


def test_a_players_best_run_is_by_type_then_top_then_trump():
    runs = find_runs(cards("QS KS AS 6D 7D 8D 9D"))
    assert best_run(runs, "S").suit == "D"
    runs = find_runs(cards("QS KS AS JD QD KD"))
    assert best_run(runs, "D").suit == "S"
    runs = find_runs(cards("JS QS KS JD QD KD"))
    assert best_run(runs, "D").suit == "D"


def test_run_comparison_by_type_then_top_card_then_trump():
    fifty_low = find_runs(cards("6C 7C 8C 9C"))[0]
    twenty_high = find_runs(cards("QS KS AS"))[0]
    assert compare_runs({0: twenty_high, 1: fifty_low}, "S") == 1
    hi = find_runs(cards("QD KD AD"))[0]
    lo_trump = find_runs(cards("JS QS KS"))[0]
    assert compare_runs({0: lo_trump, 3: hi}, "S") == 3
    same = find_runs(cards("QS KS AS"))[0]
    assert compare_runs({0: same, 1: hi}, "S") == 0
    assert compare_runs({0: hi, 1: find_runs(cards("QC KC AC"))[0]}, "S") is None
    assert compare_runs({}, "S") is None


def test_declare_is_legal_only_with_a_run_and_pass_always():
    state = GAME.apply(start(RUNS_HANDS), 0, {"type": "trump", "suit": "H"})
    assert GAME.legal_actions(state, 0) == [{"type": "declare"}, {"type": "pass"}]
    state = GAME.apply(state, 0, {"type": "pass"})
    state = GAME.apply(state, 1, {"type": "declare"})
    assert GAME.legal_actions(state, 2) == [{"type": "pass"}]
    with pytest.raises(IllegalAction, match="no run"):
        GAME.apply(state, 2, {"type": "declare"})


def test_declarations_announce_only_the_type_and_the_cards_are_revealed_after_trick_one():
    state = GAME.apply(start(RUNS_HANDS), 0, {"type": "trump", "suit": "H"})
    for seat, kind in ((0, "declare"), (1, "declare"), (2, "pass"), (3, "declare")):
        state = GAME.apply(state, seat, {"type": kind})
    expected = [
        {"seat": 0, "run": "twenty"},
        {"seat": 1, "run": "fifty"},
        {"seat": 2, "run": None},
        {"seat": 3, "run": "twenty"},
    ]
    for seat in (None, 0, 1, 2, 3):
        view = GAME.view(state, seat)
        assert view["declarations"] == expected
        assert view["revealed"] == [] and view["run_winner"] is None
    for _ in range(3):
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
        assert GAME.view(state, None)["revealed"] == []
    seat = GAME.to_act(state)[0]
    state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    for seat in (None, 0, 1, 2, 3):
        view = GAME.view(state, seat)
        assert view["revealed"] == [{"seat": 1, "cards": ["9D", "8D", "7D", "6D"]}]
        assert view["run_winner"] == 1 and view["run_points"] == 50
    # P0's and P3's runs stay hidden from seat 1 and the spectator
    hidden = set(cards("9S 10S JS QH KH AH"))
    text = json.dumps(GAME.view(state, None))
    assert not any(f'"{c}"' in text for c in hidden - {c for _, c in state.last_trick})


def test_an_undeclared_run_scores_nothing():
    state = run_scenario(RUNS_HANDS, {0, 3})  # P1 holds the fifty but stays silent
    (entry,) = GAME.view(state, None)["history"]
    assert entry["run_winner"] == 3  # the trump twenty beats P0's twenty topped by J
    assert [t["runs"] for t in entry["teams"]] == [0, 20]


# ---- bella, last trick, bait -----------------------------------------------------------------


def test_bella_is_20_for_the_team_of_the_player_holding_k_and_q_of_trump():
    state = run_scenario(RUNS_HANDS, set())
    (entry,) = GAME.view(state, None)["history"]
    assert entry["bella_seat"] == 3
    assert [t["bella"] for t in entry["teams"]] == [0, 20]
    assert sum(t["total"] for t in entry["teams"]) == 182


def test_no_bella_when_k_and_q_of_trump_are_split():
    state = play_lines(play_t1(), T1_PLAY)
    (entry,) = GAME.view(state, None)["history"]
    assert entry["bella_seat"] is None
    assert [t["bella"] for t in entry["teams"]] == [0, 0]


def test_the_last_trick_is_worth_10():
    state = play_lines(play_t1(), T1_PLAY)
    (entry,) = GAME.view(state, None)["history"]
    assert [t["last_trick"] for t in entry["teams"]] == [0, 10]  # P1 took trick 9


def test_callers_strictly_ahead_make_it_and_both_teams_score_their_own():
    assert settle(0, (107, 55), False) == ((107, 55), "made")
    assert settle(1, (55, 107), False) == ((55, 107), "made")


def test_callers_behind_go_bait_and_the_opponents_score_both_totals():
    assert settle(0, (70, 92), False) == ((0, 162), "bait")
    assert settle(1, (120, 62), True) == ((182, 0), "bait")


def test_a_tie_is_whole_bait_by_default():
    assert settle(0, (81, 81), False) == ((0, 162), "bait")
    assert settle(1, (91, 91), False) == ((182, 0), "bait")


def test_with_half_bait_a_tie_leaves_the_opponents_only_their_own_points():
    assert settle(0, (81, 81), True) == ((0, 81), "half_bait")
    assert settle(1, (91, 91), True) == ((91, 0), "half_bait")


def test_t1_goes_bait_when_the_other_team_named_trump():
    # Same cards and play, but P1 names hearts after P0 passes: B's 55 loses to A's 107.
    state = GAME.apply(start(T1_HANDS), 0, {"type": "pass"})
    state = GAME.apply(state, 1, {"type": "trump", "suit": "H"})
    for seat in (0, 1, 2, 3):
        state = GAME.apply(state, seat, {"type": "pass"})
    state = play_lines(state, T1_PLAY)
    (entry,) = GAME.view(state, None)["history"]
    assert entry["bait"] is True and entry["made"] is False
    assert entry["scores"] == [162, 0, 162, 0]


def test_a_tie_in_play_is_whole_bait_and_half_bait_with_the_option():
    cases = ((False, [0, 162, 0, 162], "bait"), (True, [0, 81, 0, 81], "half_bait"))
    for half, expected, result in cases:
        state = play_t1(half_bait=half)
        body = T1_PLAY.strip().splitlines()
        state = play_lines(state, "\n".join(body[:8]))
        assert state.points_taken == (107, 35)
        # the last trick (10S 9C 8C 9S) is worth 10 + 10 to B; doctor the count to end 81-81
        state = state.evolve(points_taken=(81, 61))
        state = play_lines(state, body[8])
        (entry,) = GAME.view(state, None)["history"]
        assert [t["total"] for t in entry["teams"]] == [81, 81]
        assert entry["scores"] == expected and entry["result"] == result
        assert entry["half_bait"] is half


# ---- game end --------------------------------------------------------------------------------


def t1_from_scores(scores, target=500):
    state = play_t1(target=target)
    state = state.evolve(match=state.match.evolve(scores=scores))
    return play_lines(state, T1_PLAY)  # A +107, B +55


def test_the_first_team_to_reach_the_target_wins():
    state = t1_from_scores((393, 0))
    assert GAME.outcome(state) == {"scores": [500, 55, 500, 55], "winners": [0, 2]}
    assert GAME.to_act(state) == [] and GAME.view(state, None)["phase"] == "over"


def test_below_the_target_another_hand_is_dealt_by_the_next_dealer():
    state = t1_from_scores((392, 0))
    assert GAME.outcome(state) is None
    view = GAME.view(state, 0)
    assert view["phase"] == "naming" and view["dealer"] == 0 and view["hand_number"] == 2
    assert view["trick"] == [] and view["last_trick"] is None and view["trump"] is None


def test_when_both_teams_pass_the_target_the_higher_total_wins():
    state = t1_from_scores((400, 460))
    assert GAME.outcome(state) == {"scores": [507, 515, 507, 515], "winners": [1, 3]}


def test_an_exact_tie_past_the_target_plays_another_hand():
    state = t1_from_scores((400, 452))
    assert GAME.outcome(state) is None
    assert GAME.view(state, 0)["scores"] == [507, 507, 507, 507]
    assert state.phase is Phase.NAMING


def test_match_winner_rule():
    assert match_winner((499, 300), 500) is None
    assert match_winner((500, 300), 500) == 0
    assert match_winner((510, 600), 500) == 1
    assert match_winner((600, 600), 500) is None


# ---- options, surface, junk ------------------------------------------------------------------


def test_options_default_to_500_and_whole_bait_and_refuse_unknown_keys():
    state = GAME.new_game(4)
    assert GAME.view(state, None)["target"] == 500
    assert GAME.view(state, None)["half_bait"] is False
    with pytest.raises(ValueError, match="colour"):
        GAME.new_game(4, options={"colour": 1})
    with pytest.raises(ValueError, match="target"):
        GAME.new_game(4, options={"target": "lots"})
    schema = GAME.options_schema()["properties"]
    assert schema["target"]["default"] == 500 and schema["half_bait"]["default"] is False
    assert all(p.get("description") for p in schema.values())


def test_the_game_is_for_exactly_four_players():
    assert (GAME.name, GAME.title, GAME.min_players, GAME.max_players) == (
        "tarbish",
        "Tarabish (Tarbish)",
        4,
        4,
    )
    with pytest.raises(ValueError):
        GAME.new_game(3)


def test_a_stacked_deck_must_be_the_36_card_deck():
    with pytest.raises(ValueError):
        GAME.new_game(4, decks=[list(DECK)[:-1] + ["2S"]])


@pytest.mark.parametrize(
    "action",
    [
        None,
        "play",
        [],
        {},
        {"type": 3},
        {"type": "bid", "value": 3},
        {"type": "play"},
        {"type": "play", "card": 7},
        {"type": "play", "card": "ZZ"},
        {"type": "play", "card": ["AS"]},
        {"type": "trump"},
        {"type": "trump", "suit": ["H"]},
        {"type": "declare"},
    ],
)
def test_junk_actions_raise_illegal_action(action):
    state = start(T1_HANDS)
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, 0, action)
    assert str(err.value)
    playing = play_t1()
    with pytest.raises(IllegalAction):
        GAME.apply(playing, 0, action)


def test_the_view_is_json_and_public_keys_match_for_every_seat():
    state = play_lines(play_t1(), "P0:JH P1:QH")
    views = [GAME.view(state, s) for s in (None, 0, 1, 2, 3)]
    for v in views:
        json.dumps(v)
    private = {"hand", "legal"}
    for v in views[1:]:
        assert {k: x for k, x in v.items() if k not in private} == {
            k: x for k, x in views[0].items() if k not in private
        }
    assert views[3]["legal"] == GAME.legal_actions(state, 2)
    assert views[1]["legal"] == []
    assert views[0]["trick"] == [{"seat": 0, "card": "JH"}, {"seat": 1, "card": "QH"}]
    assert views[0]["tricks_won"] == [0, 0] and views[0]["caller"] == 0
    assert views[0]["teams"] == [[0, 2], [1, 3]]
