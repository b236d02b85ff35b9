"""Spades (RULES.md §6): golden stacked-deck hands for every scoring example of §6.7 and the
rules of §6.1-6.6, then random matches checking the invariants.

The golden hands are written as each seat's thirteen cards (``deck_for`` stacks them one at a
time from the dealer's left, as the table deals). Their tricks come from a fixed way of
playing: every seat plays the first card its legal list offers (hands are sorted spades,
hearts, diamonds, clubs, high to low), so each hand's tricks per seat are known and checked
before its score is.
"""

from __future__ import annotations

import random

import pytest

from server.games import IllegalAction, NotYourTurn, get_game
from server.games.spades.rules import SpadesOptions, blind_nil_seats, may_lead, score_team, take_bags

GAME = get_game("spades")

# Hands by seat P0..P3, for the dealer named; the tricks each seat takes under first-card play.
NINE_FOUR = (  # dealer 0: tricks (5, 3, 4, 1): team 0 takes 9, team 1 takes 4
    "AS AH KH JH 10H 8H 3H KD 4D KC QC 10C 9C",
    "KS QS 10S 5S QH 9H 2H QD 3D 2D AC 3C 2C",
    "7S 6S 4S 3S 2S 5H 4H AD JD 9D 5D 6C 4C",
    "JS 9S 8S 7H 6H 10D 8D 7D 6D JC 8C 7C 5C",
)
NIL_MADE = (  # dealer 0: tricks (0, 3, 5, 5)
    "KS 5S 4S JH 8H 4H 9D 6D 3D QC 8C 5C 3C",
    "AS QS 8S KH 6H 3H JD 10D 2D JC 10C 9C 4C",
    "10S 7S 6S 10H 9H 7H 5H 2H AD 8D 7D 7C 6C",
    "JS 9S 3S 2S AH QH KD QD 5D 4D AC KC 2C",
)
NIL_FAILED = (  # dealer 0: tricks (2, 7, 3, 1)
    "10S KH JH 5H 3H 2H QD 4D 3D AC KC JC 7C",
    "KS QS JS 8S 6S 3S 10H 8H KD 5D 9C 5C 2C",
    "9S 4S AH QH 9H 7H 6H JD 9D 8D 7D 10C 6C",
    "AS 7S 5S 2S 4H AD 10D 6D 2D QC 8C 4C 3C",
)
TEN_THREE = (  # dealer 0: tricks (6, 1, 4, 2)
    "AS KS QS JH 9H 8H 4H AD KD 7D 4D QC 5C",
    "9S 6S 5S QH 10H 3D 2D AC KC 10C 8C 7C 3C",
    "10S 8S 7S 3S AH KH 6H 5H 8D 5D 9C 6C 4C",
    "JS 4S 2S 7H 3H 2H QD JD 10D 9D 6D JC 2C",
)
EIGHT_FIVE = (  # dealer 1: tricks (3, 4, 5, 1)
    "KS 10S 7S 2S 9H 7H 4H 2H 8D 4D QC 8C 2C",
    "AS QS 9S 6S 5S 3S JH 8H 6H KC 9C 5C 3C",
    "4S AH 10H 5H 3H 10D 9D 5D 2D AC JC 6C 4C",
    "JS 8S KH QH AD KD QD JD 7D 6D 3D 10C 7C",
)
BOTH_NIL = (  # dealer 0: tricks (0, 11, 0, 2)
    "9S 4S 3S JH 7H 6H 5H 3H 2H 10D 7D 6D 2D",
    "AS KS QS JS 10S 6S AD KD 5D 4D KC 6C 4C",
    "8S 2S KH QH QD JD 3D AC QC 10C 7C 5C 3C",
    "7S 5S AH 10H 9H 8H 4H 9D 8D JC 9C 8C 2C",
)
BLIND_MADE = (  # dealer 1: tricks (0, 3, 9, 1)
    "10S 8S 4S 3S 8H 5H 2H 8D 7D AC KC 8C 3C",
    "JS 9S 6S 5S KH 6H 3H JD 6D 4D 3D 7C 4C",
    "AS KS QS AH 10H 9H 7H KD 9D 2D JC 9C 5C",
    "7S 2S QH JH 4H AD QD 10D 5D QC 10C 6C 2C",
)
BLIND_FAILED = (  # dealer 1: tricks (2, 2, 4, 5)
    "9S 6S 5S 3S AH 7H 7D KC JC 7C 6C 5C 2C",
    "AS JS 4S 2S 10H 6H AD 10D 9D 8D 6D 3D 2D",
    "QS 10S QH JH 5H 4H 2H 5D 4D AC QC 8C 4C",
    "KS 8S 7S KH 9H 8H 3H KD QD JD 10C 9C 3C",
)
FOUR_NINE = (  # dealer 1: tricks (1, 5, 3, 4)
    "JS 9S 8S 7H 6H 10D 8D 7D 6D JC 8C 7C 5C",
    "AS AH KH JH 10H 8H 3H KD 4D KC QC 10C 9C",
    "KS QS 10S 5S QH 9H 2H QD 3D 2D AC 3C 2C",
    "7S 6S 4S 3S 2S 5H 4H AD JD 9D 5D 6C 4C",
)


def deck_for(hands: tuple[str, ...], dealer: int) -> list[str]:
    """The deck that deals ``hands`` (P0..P3) one card at a time from the dealer's left."""
    cards = [h.split() for h in hands]
    order = [(dealer + 1 + k) % 4 for k in range(4)]
    return [cards[seat][i] for i in range(13) for seat in order]


def bid(value: int) -> dict:
    return {"type": "bid", "value": value}


BLIND_NIL = {"type": "bid", "value": 0, "blind": True}
LOOK = {"type": "look"}


def bid_round(state, calls: dict[int, list[dict] | int]):
    """Every seat's calls in turn (an int is a plain bid); the seats must come in bidding order."""
    for _ in range(4):
        seat = GAME.to_act(state)[0]
        moves = calls[seat]
        for move in moves if isinstance(moves, list) else [bid(moves)]:
            state = GAME.apply(state, seat, move)
    return state


def play_out(state):
    """Play the hand to its end, each seat playing the first legal card."""
    hands = len(state.results)
    while GAME.to_act(state) and len(state.results) == hands:
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, GAME.legal_actions(state, seat)[0])
    return state


def hand(state, calls):
    return play_out(bid_round(state, calls))


def last(state) -> dict:
    return GAME.view(state, None)["history"][-1]


def start(*decks: tuple[tuple[str, ...], int], **options):
    first_dealer = decks[0][1]
    stacked = [deck_for(h, d) for h, d in decks]
    return GAME.new_game(options=options, seed=1, dealer=first_dealer, decks=stacked)


# ---- RULES §6.7: the scoring examples ------------------------------------------------------


def test_contract_made_with_overtricks_and_contract_set():
    """Team 0 bids 4 + 3 = 7 and takes 9: +72, 2 bags. Team 1 bids 5 + 2 = 7 and takes 4: -70."""
    state = hand(start((NINE_FOUR, 0)), {0: 4, 1: 5, 2: 3, 3: 2})
    entry = last(state)
    assert entry["tricks"] == [5, 3, 4, 1]
    assert entry["bids"] == [4, 5, 3, 2]
    assert entry["scores"] == [72, -70, 72, -70]
    assert entry["bags"] == [2, 0, 2, 0]
    assert GAME.view(state, 1)["scores"] == [72, -70, 72, -70]


def test_nil_made_and_partner_overtrick():
    """P0 bids nil and takes none; P2 bids 4 and takes 5: +100 + 41 = +141, 1 bag."""
    state = hand(start((NIL_MADE, 0)), {0: 0, 1: 3, 2: 4, 3: 5})
    entry = last(state)
    assert entry["tricks"] == [0, 3, 5, 5]
    assert entry["scores"][0] == entry["scores"][2] == 141
    assert entry["bags"][0] == 1
    assert entry["scores"][1] == 80  # 3 + 5 = 8 bid, 8 taken


def test_nil_failed_tricks_are_bags_and_never_help_the_partner():
    """P0 bids nil and takes 2; P2 bids 4 and takes 3: -100 - 40 = -140, 2 bags."""
    state = hand(start((NIL_FAILED, 0)), {0: 0, 1: 7, 2: 4, 3: 1})
    entry = last(state)
    assert entry["tricks"] == [2, 7, 3, 1]
    assert entry["scores"][0] == -140
    assert entry["bags"][0] == 2


def test_bags_reaching_the_limit_cost_100_and_carry_the_rest():
    """A team with 8 bags makes a contract of 5 with 8 tricks: +53, 11 bags: -100, 1 carried: -47."""
    state = hand(start((TEN_THREE, 0), (EIGHT_FIVE, 1)), {0: 1, 1: 1, 2: 1, 3: 2})
    first = last(state)
    assert first["tricks"] == [6, 1, 4, 2] and first["scores"][0] == 28 and first["bags"][0] == 8
    state = hand(state, {2: 3, 3: 1, 0: 2, 1: 4})
    second = last(state)
    assert second["tricks"] == [3, 4, 5, 1]
    assert second["scores"][0] == -47
    assert second["bags"][0] == 1
    assert GAME.view(state, 0)["scores"][0] == 28 - 47
    assert GAME.view(state, 0)["bags"] == [1, 0, 1, 0]


def test_bags_crossing_the_limit_twice_in_one_hand():
    """bag_limit 3: team 0 bids 1 + 1 and takes 9: +27 with 7 bags, -200 and 1 carried."""
    state = hand(start((NINE_FOUR, 0), bag_limit=3), {0: 1, 1: 1, 2: 1, 3: 1})
    entry = last(state)
    assert entry["scores"][0] == 27 - 200
    assert entry["bags"][0] == 1
    assert entry["scores"][1] == 20 + 2 and entry["bags"][1] == 2


def test_scoring_functions_match_every_example():
    assert score_team([4, 3], [False, False], [4, 5]) == (72, 2)
    assert score_team([5, 2], [False, False], [2, 2]) == (-70, 0)
    assert score_team([0, 4], [False, False], [0, 5]) == (141, 1)
    assert score_team([0, 4], [False, False], [2, 3]) == (-140, 2)
    assert score_team([0, 4], [True, False], [0, 4]) == (240, 0)
    assert score_team([0, 0], [False, False], [0, 3]) == (0, 3)
    assert take_bags(8, 3, 10) == (1, 100)
    assert take_bags(8, 13, 10) == (1, 200)


# ---- RULES §6.4: both partners nil; blind nil ------------------------------------------------


def test_both_partners_nil_have_no_contract():
    state = hand(start((BOTH_NIL, 0)), {0: 0, 1: 9, 2: 0, 3: 4})
    entry = last(state)
    assert entry["tricks"] == [0, 11, 0, 2]
    assert entry["scores"][0] == 200 and entry["bags"][0] == 0
    state = hand(start((NIL_MADE, 0)), {0: 0, 1: 3, 2: 0, 3: 5})
    entry = last(state)
    assert entry["scores"][0] == 100 - 100 and entry["bags"][0] == 5  # P2's five tricks are bags


def behind(second: tuple[str, ...], **options):
    """A match whose first hand leaves team 0 152 points behind (team 0 set for 13: -130)."""
    state = start((NINE_FOUR, 0), (second, 1), blind_nil=True, **options)
    assert GAME.view(state, 0)["blind_nil_seats"] == []  # 0 - 0: nobody is behind
    return hand(state, {0: 7, 1: 1, 2: 6, 3: 1})


def test_blind_nil_made_scores_200_and_look_shows_the_hand():
    state = behind(BLIND_MADE)
    view = GAME.view(state, 2)
    assert view["scores"] == [-130, 22, -130, 22]
    assert view["blind_nil_seats"] == [0, 2]
    assert view["to_act"] == [2]
    assert view["hand"] == [] and view["hand_counts"] == [13, 13, 13, 13]
    assert view["legal"] == [BLIND_NIL, LOOK]
    assert GAME.view(state, 0)["hand"] == []  # its partner has not looked either
    assert GAME.view(state, 1)["hand"] == BLIND_MADE[1].split()  # team 1 is not behind
    with pytest.raises(IllegalAction, match="look"):
        GAME.apply(state, 2, bid(3))
    state = GAME.apply(state, 2, LOOK)
    view = GAME.view(state, 2)
    assert view["hand"] == BLIND_MADE[2].split()
    assert BLIND_NIL not in view["legal"] and len(view["legal"]) == 14
    with pytest.raises(IllegalAction, match="blind nil"):
        GAME.apply(state, 2, BLIND_NIL)
    state = GAME.apply(state, 2, bid(3))
    state = GAME.apply(state, 3, bid(1))
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 2, LOOK)
    state = GAME.apply(state, 0, BLIND_NIL)
    assert GAME.view(state, 0)["hand"] == BLIND_MADE[0].split()
    assert GAME.view(state, 3)["blind_nil"] == [True, False, False, False]
    state = play_out(GAME.apply(state, 1, bid(1)))
    entry = last(state)
    assert entry["tricks"] == [0, 3, 9, 1]
    assert entry["bids"] == [0, 1, 3, 1] and entry["blind_nil"] == [True, False, False, False]
    assert entry["scores"][0] == 200 + 36 and entry["bags"][0] == 6
    assert GAME.view(state, 0)["log"] == []  # a new hand: its own log


def test_blind_nil_failed_loses_200_and_its_tricks_are_bags():
    state = behind(BLIND_FAILED)
    state = hand(state, {2: [LOOK, bid(4)], 3: 5, 0: [BLIND_NIL], 1: 2})
    entry = last(state)
    assert entry["tricks"] == [2, 2, 4, 5]
    assert entry["scores"][0] == -200 + 40 and entry["bags"][0] == 2


def test_blind_nil_needs_the_option_and_a_100_point_deficit():
    assert GAME.legal_actions(start((NINE_FOUR, 0)), 1) == [bid(v) for v in range(14)]
    state = start((NINE_FOUR, 0), (BLIND_MADE, 1), blind_nil=True)
    with pytest.raises(IllegalAction, match="blind nil"):
        GAME.apply(state, 1, BLIND_NIL)
    with pytest.raises(IllegalAction, match="already see"):
        GAME.apply(state, 1, LOOK)
    state = hand(state, {0: 4, 1: 3, 2: 5, 3: 1})  # team 0 9 of 9: 90; team 1 4 of 4: 40
    assert GAME.view(state, None)["scores"][:2] == [90, 40]
    assert GAME.view(state, None)["blind_nil_seats"] == []  # 50 behind is not enough
    without = hand(start((NINE_FOUR, 0), (BLIND_MADE, 1)), {0: 7, 1: 1, 2: 6, 3: 1})
    assert GAME.view(without, None)["blind_nil_seats"] == []  # the option is off


def test_blind_nil_is_offered_from_exactly_100_behind():
    on = SpadesOptions(blind_nil=True)
    assert blind_nil_seats(on, (0, 100)) == (0, 2)
    assert blind_nil_seats(on, (-40, -140)) == (1, 3)
    assert blind_nil_seats(on, (0, 99)) == ()
    assert blind_nil_seats(SpadesOptions(), (0, 500)) == ()


# ---- RULES §6.3: play ------------------------------------------------------------------------


def test_eldest_leads_and_spades_are_not_led_until_broken():
    state = bid_round(start((NINE_FOUR, 0)), {0: 4, 1: 5, 2: 3, 3: 2})
    assert GAME.to_act(state) == [1]  # eldest (the dealer's left) leads
    legal = [a["card"] for a in GAME.legal_actions(state, 1)]
    assert legal == ["QH", "9H", "2H", "QD", "3D", "2D", "AC", "3C", "2C"]
    with pytest.raises(IllegalAction, match="not broken"):
        GAME.apply(state, 1, {"type": "play", "card": "KS"})
    assert may_lead(["AS", "2S"], broken=False) == ["AS", "2S"]  # only spades: lead one
    assert may_lead(["AS", "2H"], broken=False) == ["2H"]
    assert may_lead(["AS", "2H"], broken=True) == ["AS", "2H"]


def test_a_spade_played_on_a_void_breaks_spades_and_wins():
    hands = (  # P1 leads hearts; P3 has none and trumps with the 2S
        "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S AH",
        "KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H AD",
        "KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D AC",
        "2S KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C",
    )
    state = bid_round(start((hands, 0)), {0: 12, 1: 0, 2: 0, 3: 1})
    assert not GAME.view(state, None)["spades_broken"]
    state = GAME.apply(state, 1, {"type": "play", "card": "KH"})
    state = GAME.apply(state, 2, {"type": "play", "card": "2D"})
    state = GAME.apply(state, 3, {"type": "play", "card": "2S"})
    assert GAME.view(state, None)["spades_broken"]
    with pytest.raises(IllegalAction, match="follow suit"):
        GAME.apply(state, 0, {"type": "play", "card": "AS"})
    state = GAME.apply(state, 0, {"type": "play", "card": "AH"})
    assert GAME.view(state, None)["last_trick"]["winner"] == 3
    assert GAME.to_act(state) == [3]
    # P3 now holds only clubs; P0, holding only spades, could lead them when broken or not.


def test_a_leader_holding_only_spades_leads_one():
    hands = (
        "AS KS QS JS 10S 9S 8S 7S 6S 5S 4S 3S 2S",
        "AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H 2H",
        "AD KD QD JD 10D 9D 8D 7D 6D 5D 4D 3D 2D",
        "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C",
    )
    state = bid_round(start((hands, 3)), {0: 13, 1: 0, 2: 0, 3: 0})
    assert GAME.to_act(state) == [0]  # dealer 3: eldest is P0
    assert len(GAME.legal_actions(state, 0)) == 13
    state = play_out(state)
    entry = last(state)
    assert entry["tricks"] == [13, 0, 0, 0]
    assert entry["scores"] == [130 + 100, 200, 130 + 100, 200]  # P2 nil made; P1 and P3 nils made


# ---- RULES §6.5: the end of the match; dealer rotation ----------------------------------------


def test_target_reached_with_equal_scores_plays_another_hand():
    state = start((NINE_FOUR, 0), (FOUR_NINE, 1), target=100)
    state = hand(state, {0: 1, 1: 1, 2: 5, 3: 1})
    assert GAME.view(state, None)["scores"] == [63, 22, 63, 22]
    state = hand(state, {2: 3, 3: 7, 0: 1, 1: 1})
    view = GAME.view(state, None)
    assert view["scores"] == [103, 103, 103, 103]
    assert GAME.outcome(state) is None and view["hand_number"] == 3 and view["dealer"] == 2
    assert GAME.to_act(state) == [3]


def test_target_reached_ends_the_match_and_the_higher_wins():
    state = hand(start((NINE_FOUR, 0), target=70), {0: 4, 1: 5, 2: 3, 3: 2})
    assert GAME.outcome(state) == {"scores": [72, -70, 72, -70], "winners": [0, 2]}
    assert GAME.to_act(state) == [] and GAME.view(state, 0)["phase"] == "over"


def test_lose_at_ends_the_match_and_equal_losers_play_on():
    state = hand(start((NINE_FOUR, 0), lose_at=-100), {0: 7, 1: 1, 2: 6, 3: 1})
    assert GAME.outcome(state) == {"scores": [-130, 22, -130, 22], "winners": [1, 3]}
    state = hand(start((NINE_FOUR, 0), lose_at=-100), {0: 7, 1: 7, 2: 6, 3: 6})
    assert GAME.view(state, None)["scores"] == [-130] * 4
    assert GAME.outcome(state) is None and GAME.view(state, None)["hand_number"] == 2


def test_the_deal_passes_to_the_left_and_eldest_bids_first():
    state = GAME.new_game(seed=5, dealer=2)
    for number in range(1, 6):
        view = GAME.view(state, None)
        assert view["hand_number"] == number and view["dealer"] == (1 + number) % 4
        assert GAME.to_act(state) == [(view["dealer"] + 1) % 4]
        state = hand(state, {s: 3 for s in range(4)})


def test_options_are_checked_and_named():
    with pytest.raises(ValueError, match="bag_limit"):
        GAME.new_game(options={"bag_limit": 0})
    with pytest.raises(ValueError, match="lose_at"):
        GAME.new_game(options={"lose_at": 50})
    with pytest.raises(ValueError, match="jokers"):
        GAME.new_game(options={"jokers": 2})
    with pytest.raises(ValueError):
        GAME.new_game(players=3)
    assert GAME.parse_options(None).model_dump() == {
        "target": 500,
        "blind_nil": False,
        "bag_limit": 10,
        "lose_at": None,
    }


def test_bad_bids_are_refused():
    state = start((NINE_FOUR, 0))
    for junk in (bid(14), bid(-1), {"type": "bid", "value": "3"}, {"type": "bid", "value": 0, "blind": "yes"}):
        with pytest.raises(IllegalAction):
            GAME.apply(state, 1, junk)
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 2, bid(3))


# ---- random matches: invariants ---------------------------------------------------------------


def check_views(state) -> None:
    views = [GAME.view(state, s) for s in range(4)]
    public = GAME.view(state, None)
    assert public["hand"] is None and public["legal"] == []
    for s, view in enumerate(views):
        assert {k: v for k, v in view.items() if k not in ("hand", "legal")} == {
            k: v for k, v in public.items() if k not in ("hand", "legal")
        }
        held = state.hands[s]
        if state.looked[s]:
            assert view["hand"] == list(held)
        else:
            assert view["hand"] == []
        others = {c for o in range(4) if o != s for c in state.hands[o]}
        assert not others & set(view["hand"])
        if s in GAME.to_act(state):
            assert view["legal"] and view["legal"] == GAME.legal_actions(state, s)
        else:
            assert view["legal"] == []


def random_match(seed: int, options: dict) -> None:
    rng = random.Random(seed)
    state = GAME.new_game(options=options, seed=seed, dealer=seed % 4)
    moves = 0
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        assert legal
        if seed % 5 == 0:
            check_views(state)
        if legal[0]["type"] == "bid" and len(legal) == 14:  # bid about what the hand is worth
            action = legal[
                min(13, sum(c[0] in "AK" or c[-1] == "S" for c in state.hands[seat]) // 2 + rng.randrange(2))
            ]
        else:
            action = rng.choice(legal)
        state = GAME.apply(state, seat, action)
        moves += 1
        assert moves < 20_000
    history = GAME.view(state, None)["history"]
    totals, bags = [0, 0], [0, 0]
    for entry in history:
        assert sum(entry["tricks"]) == 13
        team_tricks = [entry["tricks"][0] + entry["tricks"][2], entry["tricks"][1] + entry["tricks"][3]]
        for team in (0, 1):
            seats = (team, team + 2)
            assert entry["scores"][team] == entry["scores"][team + 2]
            points, added = score_team(
                [entry["bids"][s] for s in seats],
                [entry["blind_nil"][s] for s in seats],
                [entry["tricks"][s] for s in seats],
            )
            bags[team], penalty = take_bags(bags[team], added, options.get("bag_limit", 10))
            assert entry["scores"][team] == points - penalty
            assert entry["bags"][team] == bags[team] < options.get("bag_limit", 10)
            totals[team] += entry["scores"][team]
            assert team_tricks[team] >= 0
    outcome = GAME.outcome(state)
    assert outcome["scores"] == [totals[0], totals[1], totals[0], totals[1]]
    winner = outcome["winners"][0] % 2
    assert outcome["winners"] == [winner, winner + 2] and totals[winner] > totals[1 - winner]


@pytest.mark.parametrize(
    "options",
    [
        {"target": 200, "lose_at": -200},
        {"target": 150, "blind_nil": True, "bag_limit": 4, "lose_at": -150},
        {"target": 300, "blind_nil": True, "lose_at": -300},
    ],
)
def test_random_matches_keep_the_invariants(options):
    for seed in range(300):
        random_match(seed, options)
