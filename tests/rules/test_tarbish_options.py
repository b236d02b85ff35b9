"""Tarabish's house options (server/games/tarbish/rules.md): ``no_trump`` and ``dealer_forced``, on
stacked decks worked out by hand from the rules page."""

from __future__ import annotations

import pytest

from server.games import IllegalAction, get_game
from server.games.tarbish.rules import DECK, Phase, card_points, legal_cards
from tests.rules.test_tarbish import stack

GAME = get_game("tarbish")

# Each seat holds one whole suit (first six | kitty): everyone is void in the suit led, so
# every trick goes to its leader, and everyone holds a fifty topped by the ace.
SUITED = {
    0: "6S 7S 8S 9S 10S JS | QS KS AS",
    1: "6H 7H 8H 9H 10H JH | QH KH AH",
    2: "6D 7D 8D 9D 10D JD | QD KD AD",
    3: "6C 7C 8C 9C 10C JC | QC KC AC",
}
SPADES_DOWN = ["AS", "10S", "KS", "QS", "JS", "9S", "8S", "7S", "6S"]
NO_TRUMP = {"type": "trump", "suit": "N"}
PASS = {"type": "pass"}


def act(state, seat, action):
    assert GAME.to_act(state) == [seat]
    return GAME.apply(state, seat, action)


def declare(state, declarers):
    for seat in (0, 1, 2, 3):
        state = act(state, seat, {"type": "declare" if seat in declarers else "pass"})
    assert state.phase is Phase.PLAYING
    return state


def p0_leads_every_spade(state):
    """P0 leads its spades high to low; the others, void, throw their suit's cards high to low
    (any card, as nothing is trump): P0 takes every trick."""
    others = {s: sorted(GAME.view(state, s)["hand"], key=lambda c: -card_points(c, None)) for s in (1, 2, 3)}
    for k, card in enumerate(SPADES_DOWN):
        state = act(state, 0, {"type": "play", "card": card})
        for seat in (1, 2, 3):
            if k == 0:  # nothing to follow or trump: the whole hand is legal
                assert sorted(a["card"] for a in GAME.legal_actions(state, seat)) == sorted(others[seat])
            state = act(state, seat, {"type": "play", "card": others[seat][k]})
    return state


def test_no_trump_card_points_are_the_plain_values_in_every_suit_120_in_all():
    assert sum(card_points(c, None) for c in DECK) == 120
    assert [card_points(c, None) for c in ("JS", "9H", "AD", "10C", "KS", "QH")] == [2, 0, 11, 10, 4, 3]


def test_no_trump_follow_suit_if_you_can_else_any_card():
    hand = ["AS", "KH", "7D", "JC"]
    assert legal_cards(hand, [(0, "9S")], None) == ["AS"]
    assert sorted(legal_cards(["KH", "7D", "JC"], [(0, "9S")], None)) == ["7D", "JC", "KH"]


def test_no_trump_made_130_with_the_last_trick_no_bella_and_tied_runs_score_for_nobody():
    state = GAME.new_game(4, options={"no_trump": True}, seed=3, dealer=3, decks=[stack(SUITED, 3)])
    assert {"type": "trump", "suit": "N"} in GAME.legal_actions(state, 0)
    state = act(state, 0, NO_TRUMP)
    view = GAME.view(state, 2)
    assert view["trump"] is None and view["no_trump"] is True and view["caller"] == 0
    assert len(view["hand"]) == 9  # the kitties are picked up
    assert state.match.bella_seat is None  # P1 holds KH and QH, but nothing is trump
    state = declare(state, {0, 1})  # two fifties topped by the ace: no trump breaks the tie
    state = p0_leads_every_spade(state)
    (entry,) = GAME.view(state, 0)["history"]
    a, b = entry["teams"]
    assert entry["trump"] is None and entry["no_trump"] is True
    assert (a["card_points"], a["last_trick"], a["runs"], a["bella"], a["total"]) == (120, 10, 0, 0, 130)
    assert (b["card_points"], b["last_trick"], b["runs"], b["bella"], b["total"]) == (0, 0, 0, 0, 0)
    assert entry["run_winner"] is None and entry["result"] == "made"
    assert entry["team_scores"] == [130, 0]
    assert GAME.view(state, None)["no_trump"] is False  # the next hand: nothing called yet


def test_no_trump_set_the_callers_runs_count_and_the_opponents_take_both_totals():
    state = GAME.new_game(4, options={"no_trump": True}, seed=3, dealer=3, decks=[stack(SUITED, 3)])
    state = act(state, 0, PASS)
    state = act(state, 1, NO_TRUMP)
    state = declare(state, {1})  # only P1 declares: its fifty (6H to AH) scores 50
    state = p0_leads_every_spade(state)
    (entry,) = GAME.view(state, 0)["history"]
    a, b = entry["teams"]
    assert entry["caller"] == 1 and entry["calling_team"] == 1 and entry["no_trump"] is True
    assert (a["card_points"], a["last_trick"], a["total"]) == (120, 10, 130)
    assert (b["runs"], b["bella"], b["total"]) == (50, 0, 50)
    assert entry["result"] == "bait" and entry["team_scores"] == [180, 0]


def test_the_forced_dealer_may_call_no_trump():
    state = GAME.new_game(4, options={"no_trump": True}, seed=3, dealer=3, decks=[stack(SUITED, 3)])
    for seat in (0, 1, 2):
        state = act(state, seat, PASS)
    assert PASS not in GAME.legal_actions(state, 3) and NO_TRUMP in GAME.legal_actions(state, 3)
    state = act(state, 3, NO_TRUMP)
    assert state.phase is Phase.DECLARING and GAME.view(state, 0)["no_trump"] is True


def test_without_the_option_no_trump_is_refused_and_not_offered():
    state = GAME.new_game(4, seed=3, dealer=3, decks=[stack(SUITED, 3)])
    assert NO_TRUMP not in GAME.legal_actions(state, 0)
    with pytest.raises(IllegalAction):
        GAME.apply(state, 0, NO_TRUMP)


@pytest.mark.parametrize(
    "options, named",
    [
        ({"no_trump": "maybe"}, "no_trump"),
        ({"dealer_forced": [1]}, "dealer_forced"),
        ({"no_trumps": True}, "no_trumps"),
    ],
)
def test_bad_option_values_are_refused_naming_the_option(options, named):
    with pytest.raises(ValueError, match=named):
        GAME.new_game(4, options=options, seed=1)


def test_dealer_not_forced_all_passing_throws_in_and_the_fourth_deal_forces_the_dealer():
    # Deal i is dealt by seat (3 + i) % 4 from decks[i]; each deal gives seat 0 a different suit.
    rotated = [{s: SUITED[(s + i) % 4] for s in range(4)} for i in range(5)]
    decks = [stack(rotated[i], (3 + i) % 4) for i in range(5)]
    state = GAME.new_game(4, options={"dealer_forced": False}, seed=3, dealer=3, decks=decks)
    for i in range(3):
        dealer = (3 + i) % 4
        view = GAME.view(state, 0)
        assert (view["dealer"], view["hand_number"], view["throw_ins"]) == (dealer, i + 1, i)
        assert sorted(view["hand"]) == sorted(rotated[i][0].split()[:6])
        for k in range(1, 5):
            seat = (dealer + k) % 4
            assert PASS in GAME.legal_actions(state, seat)
            state = act(state, seat, PASS)
        assert state.match.history == () and state.match.scores == (0, 0)
    view = GAME.view(state, 0)
    assert (view["dealer"], view["hand_number"], view["throw_ins"], view["dealer_forced"]) == (2, 4, 3, True)
    assert sorted(view["hand"]) == sorted(rotated[3][0].split()[:6])
    for seat in (3, 0, 1):
        state = act(state, seat, PASS)
    assert PASS not in GAME.legal_actions(state, 2)
    with pytest.raises(IllegalAction, match="thrown in"):
        GAME.apply(state, 2, PASS)
    state = act(state, 2, {"type": "trump", "suit": "S"})
    assert GAME.view(state, 0)["throw_ins"] == 0
    hands_done = len(state.match.history)
    while len(state.match.history) == hands_done:
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    (entry,) = GAME.view(state, 0)["history"]
    assert entry["hand"] == 4 and entry["dealer"] == 2
    view = GAME.view(state, None)
    assert (view["dealer"], view["hand_number"], view["dealer_forced"]) == (3, 5, False)
    records = GAME.hand_records(state)
    assert [r["scores"] is None for r in records] == [True, True, True, False, True]
    assert records[3]["scores"] == entry["scores"]
    for seat in (0, 1, 2):
        state = act(state, seat, PASS)
    assert PASS in GAME.legal_actions(state, 3)  # a hand was played: the count starts again


def test_by_default_the_dealer_is_forced():
    state = GAME.new_game(4, seed=3, dealer=3, decks=[stack(SUITED, 3)])
    for seat in (0, 1, 2):
        state = act(state, seat, PASS)
    assert GAME.view(state, 0)["dealer_forced"] is True
    with pytest.raises(IllegalAction, match="dealer must name"):
        GAME.apply(state, 3, PASS)
