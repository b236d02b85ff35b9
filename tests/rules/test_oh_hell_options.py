"""Oh Hell's house options (server/games/oh_hell/rules.md): hands written by hand from that page on
stacked decks, one per trump mode, scoring, blind_one and hook_last_hand; what a seat may
see in a blind hand; the options' validation; bots of both levels playing every option.
The random-game invariants over option combinations are in test_oh_hell_random.py and
test_contract.py."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_contract import Run
from test_oh_hell import O1_HANDS, bid, bid_values, play, stacked

from server.bots import LEVELS, get_bot
from server.bots.strong import StrongBot
from server.games import get_game
from server.rules.sampling import sample_state

GAME = get_game("oh_hell")


def o1_with(options):
    """RULES.md's O1 deal (P0 deals 3 cards each; 5H is the card after the deal)."""
    deck = stacked(O1_HANDS, "5H", dealer=0, players=4)
    opts = {"max_cards": 3, "start": "high", "rebound": False, **options}
    return GAME.new_game(4, opts, seed=1, dealer=0, decks=[deck])


def bids(state, values):
    for seat, value in values:
        state = bid(state, seat, value)
    return state


def plays(state, cards):
    for seat, card in cards:
        state = play(state, seat, card)
    return state


def last_winner(state):
    """The last trick's taker (from the history once the next hand is dealt)."""
    view = GAME.view(state, None)
    return (view["last_trick"] or view["history"][-1]["last_trick"])["winner"]


# ---- trump modes ------------------------------------------------------------------------------


def test_no_trump_largest_plays_the_largest_hand_without_trump_and_turns_a_card_after():
    hands = {1: ["AS", "2C"], 2: ["KS", "3C"], 3: ["5H", "QC"], 0: ["4S", "AC"]}
    deck = stacked(hands, "9H", dealer=0, players=4)
    s = GAME.new_game(
        4, {"max_cards": 2, "rebound": False, "trump": "no_trump_largest"}, seed=3, dealer=0, decks=[deck]
    )
    v = GAME.view(s, None)
    assert v["hand_size"] == 2 and v["turned"] is None and v["trump"] is None
    assert "9H" in GAME.full_view(s)["stock"] and len(GAME.full_view(s)["stock"]) == 44
    s = bids(s, ((1, 1), (2, 0), (3, 0)))
    assert bid_values(s, 0) == {0, 2}  # the hook as usual
    s = bid(s, 0, 0)
    s = plays(s, ((1, "AS"), (2, "KS"), (3, "5H"), (0, "4S")))
    assert last_winner(s) == 1  # 5H would trump with hearts turned; without trump AS wins
    s = plays(s, ((1, "2C"), (2, "3C"), (3, "QC"), (0, "AC")))
    entry = GAME.view(s, None)["history"][0]
    assert entry["turned"] is None and entry["trump"] is None
    assert entry["scores"] == [0, 11, 10, 10]
    v = GAME.view(s, None)  # the 1-card hand is not the largest: a card is turned
    assert v["hand_size"] == 1 and v["turned"] is not None and v["trump"] == v["turned"][-1]


def test_rotation_runs_hearts_diamonds_clubs_spades_no_trump_and_turns_no_card():
    s = o1_with({"trump": "rotation", "rebound": True})  # 3, 2, 1, 2, 3
    v = GAME.view(s, None)
    assert v["turned"] is None and v["trump"] == "H"
    assert "5H" in GAME.full_view(s)["stock"]
    s = bids(s, ((1, 1), (2, 1), (3, 0), (0, 2)))
    s = plays(s, ((1, "AS"), (2, "4S"), (3, "2C"), (0, "2S")))
    s = plays(s, ((1, "3D"), (2, "9C"), (3, "KD"), (0, "JD")))
    s = plays(s, ((3, "QH"), (0, "AH"), (1, "7H"), (2, "KS")))
    assert last_winner(s) == 0
    assert GAME.view(s, None)["history"][0]["scores"] == [0, 11, 0, 0]
    while GAME.to_act(s):
        seat = GAME.to_act(s)[0]
        s = GAME.apply(s, seat, GAME.legal_actions(s, seat)[0])
    history = GAME.view(s, None)["history"]
    assert [e["trump"] for e in history] == ["H", "D", "C", "S", None]
    assert all(e["turned"] is None for e in history)


def test_no_trump_lets_no_suit_trump_and_exact_scores_ten_plus_the_bid():
    s = o1_with({"trump": "no_trump", "scoring": "exact"})
    assert GAME.view(s, None)["trump"] is None and GAME.view(s, None)["turned"] is None
    s = bids(s, ((1, 1), (2, 1), (3, 0), (0, 2)))
    s = plays(s, ((1, "AS"), (2, "4S"), (3, "QH"), (0, "2S")))
    assert last_winner(s) == 1  # QH is no trump now: it cannot win a spade trick
    s = plays(s, ((1, "7H"), (2, "9C"), (3, "KD"), (0, "AH")))
    assert last_winner(s) == 0
    s = plays(s, ((0, "JD"), (1, "3D"), (2, "KS"), (3, "2C")))
    assert last_winner(s) == 0
    entry = GAME.view(s, None)["history"][0]
    assert entry["tricks_won"] == [2, 1, 0, 0]
    assert entry["scores"] == [12, 11, 0, 10]


def test_a_fixed_trump_suit_and_squared_scoring():
    s = o1_with({"trump": "C", "scoring": "squared"})
    v = GAME.view(s, None)
    assert v["trump"] == "C" and v["turned"] is None
    s = bids(s, ((1, 1), (2, 1), (3, 0), (0, 2)))
    s = plays(s, ((1, "AS"), (2, "4S"), (3, "2C"), (0, "2S")))
    assert last_winner(s) == 3  # the two of clubs trumps
    s = plays(s, ((3, "QH"), (0, "AH"), (1, "7H"), (2, "9C")))
    assert last_winner(s) == 2
    s = plays(s, ((2, "KS"), (3, "KD"), (0, "JD"), (1, "3D")))
    assert last_winner(s) == 2
    entry = GAME.view(s, None)["history"][0]
    assert entry["tricks_won"] == [0, 0, 2, 1]
    # missed by 2 (P0 bid 2, took 0) costs 4; missed by 1 costs 1
    assert entry["scores"] == [-4, -1, -1, -1]


def test_squared_rewards_a_made_bid_with_ten_plus_its_square():
    s = o1_with({"scoring": "squared"})
    s = bids(s, ((1, 1), (2, 1), (3, 0), (0, 2)))
    s = plays(s, ((1, "AS"), (2, "4S"), (3, "2C"), (0, "2S")))
    s = plays(s, ((1, "3D"), (2, "9C"), (3, "KD"), (0, "JD")))
    s = plays(s, ((3, "QH"), (0, "AH"), (1, "7H"), (2, "KS")))
    assert GAME.view(s, None)["history"][0]["scores"] == [-1, 11, -1, -1]


# ---- hook_last_hand ---------------------------------------------------------------------------


def test_without_hook_last_hand_the_dealer_bids_freely_in_the_one_card_hand_only():
    for option, free in ((True, {0}), (False, {0, 1})):
        s = GAME.new_game(4, {"max_cards": 1, "hook_last_hand": option}, seed=2, dealer=0)
        s = bids(s, ((1, 0), (2, 0), (3, 0)))
        assert bid_values(s, 0) == free
    s = GAME.new_game(4, {"max_cards": 2, "rebound": False, "hook_last_hand": False}, seed=2, dealer=0)
    s = bids(s, ((1, 0), (2, 1), (3, 0)))
    assert bid_values(s, 0) == {0, 2}  # a 2-card hand keeps the hook


# ---- blind_one --------------------------------------------------------------------------------

BLIND_HANDS = {1: ["AS"], 2: ["KH"], 3: ["2C"], 0: ["QS"]}


def blind_state(own_card="AS"):
    hands = {**BLIND_HANDS, 1: [own_card]}
    deck = stacked(hands, "5H", dealer=0, players=4)
    return GAME.new_game(4, {"max_cards": 1, "blind_one": True}, seed=5, dealer=0, decks=[deck])


def test_blind_one_hides_the_seats_own_card_while_it_bids_and_shows_the_others():
    s = blind_state()
    v1 = GAME.view(s, 1)
    assert v1["hand"] == [] and v1["hand_counts"] == [1, 1, 1, 1]
    assert v1["blind_cards"] == ["QS", None, "KH", "2C"]
    assert "AS" not in str({k: v for k, v in v1.items() if k != "history"})
    assert [a["value"] for a in v1["legal"]] == [0, 1]
    assert GAME.view(s, 2)["blind_cards"] == ["QS", "AS", None, "2C"]
    spectator = GAME.view(s, None)
    assert spectator["hand"] is None and "blind_cards" not in spectator
    assert not {"AS", "KH", "2C", "QS"} & set(str(spectator).replace("'", " ").split())
    s = bids(s, ((1, 0), (2, 1), (3, 0)))
    assert bid_values(s, 0) == {1}  # the hook: 1 - 1 = 0 is forbidden
    s = bid(s, 0, 1)
    v1 = GAME.view(s, 1)
    assert v1["phase"] == "playing" and v1["hand"] == ["AS"]
    assert v1["blind_cards"] == ["QS", None, "KH", "2C"]
    s = play(s, 1, "AS")
    assert GAME.view(s, 2)["blind_cards"] == ["QS", None, None, "2C"]
    s = plays(s, ((2, "KH"), (3, "2C"), (0, "QS")))
    entry = GAME.view(s, None)["history"][0]
    assert entry["tricks_won"] == [0, 0, 1, 0]  # KH trumps (5H turned)
    assert entry["scores"] == [0, 10, 11, 10]


def test_blind_one_changes_no_hand_bigger_than_one_card():
    s = GAME.new_game(4, {"max_cards": 2, "rebound": False, "blind_one": True}, seed=5, dealer=0)
    assert GAME.view(s, 1)["hand"] and "blind_cards" not in GAME.view(s, 1)


def test_the_easy_bot_bids_blind_from_the_cards_it_sees():
    s = blind_state()
    easy = get_bot("oh_hell", random.Random(1))
    # seat 1 sees the king of trump on seat 2: its own card rarely wins
    assert easy.choose(GAME.view(s, 1), GAME.legal_actions(s, 1)) == {"type": "bid", "value": 0}
    # leading against 3D, 2C and 4S with hearts trump, 45 of the 48 cards it may hold win
    deck = stacked({1: ["9S"], 2: ["3D"], 3: ["2C"], 0: ["4S"]}, "5H", dealer=0, players=4)
    s = GAME.new_game(4, {"max_cards": 1, "blind_one": True}, seed=5, dealer=0, decks=[deck])
    assert easy.choose(GAME.view(s, 1), GAME.legal_actions(s, 1)) == {"type": "bid", "value": 1}


def test_the_sampler_deals_the_seats_own_blind_card_too():
    s = blind_state()
    view = GAME.view(s, 1)
    dealt = set()
    for k in range(20):
        sample = sample_state(get_game("oh_hell"), {"max_cards": 1, "blind_one": True}, view, 1, random.Random(k))
        assert GAME.view(sample, 1) == view
        full = GAME.full_view(sample)
        assert [full["hands"][s] for s in (0, 2, 3)] == [["QS"], ["KH"], ["2C"]]
        dealt.add(full["hands"][1][0])
    assert len(dealt) > 5  # not the real card: any card seat 1 has not seen


def test_the_strong_bot_never_peeks_at_its_own_blind_card():
    options = {"max_cards": 1, "blind_one": True}
    choices = set()
    for own in ("AS", "3D", "AH"):
        s = blind_state(own)
        bot = StrongBot("oh_hell", random.Random(7), options=options, think_ms=1e9, max_samples=6)
        choices.add(tuple(sorted(bot.choose(GAME.view(s, 1), GAME.legal_actions(s, 1)).items())))
    assert len(choices) == 1


# ---- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("trump", "sometimes"),
        ("trump", "N"),
        ("hook_last_hand", [1]),
        ("scoring", "cubed"),
        ("blind_one", "maybe"),
    ],
)
def test_bad_values_of_the_new_options_are_refused_naming_the_option(option, value):
    with pytest.raises(ValueError, match=option):
        GAME.new_game(4, {option: value})


def test_vienna_works_with_squared_and_exact_and_scores_the_zero_bid_n_plus_five():
    s = o1_with({"scoring": "squared", "vienna": True})
    s = bids(s, ((1, 1), (2, 1), (3, 0), (0, 2)))
    s = plays(s, ((1, "AS"), (2, "4S"), (3, "2C"), (0, "2S")))
    s = plays(s, ((1, "3D"), (2, "9C"), (3, "KD"), (0, "JD")))
    s = plays(s, ((3, "QH"), (0, "AH"), (1, "7H"), (2, "KS")))
    assert GAME.view(s, None)["history"][0]["scores"] == [-1, 11, -1, -1]  # P3 bid 0, took 1


# ---- bots of both levels play every option -----------------------------------------------------

BOT_TABLES = [
    {"max_cards": 2, "trump": "no_trump_largest"},
    {"max_cards": 3, "rebound": False, "trump": "rotation", "scoring": "squared"},
    {"max_cards": 2, "trump": "no_trump", "scoring": "exact", "hook_last_hand": False},
    {"max_cards": 2, "trump": "S", "blind_one": True},
    {"max_cards": 2, "blind_one": True, "trump": "rotation", "hook_last_hand": False},
]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("options", BOT_TABLES)
def test_bots_of_every_level_finish_matches_under_each_option(options, level):
    players = 4
    state = GAME.new_game(players=players, options=options, seed=13, dealer=2)
    bots = [get_bot("oh_hell", random.Random(s), level=level, options=options, think_ms=2) for s in range(players)]
    moves = 0
    while GAME.to_act(state):
        seat = GAME.to_act(state)[0]
        legal = GAME.legal_actions(state, seat)
        action = bots[seat].choose(GAME.view(state, seat), legal)
        assert action in legal
        state = GAME.apply(state, seat, action)
        moves += 1
    assert GAME.outcome(state) is not None and moves > 10


# ---- the engine contract (cards, legality, views, leaks) over random option combinations --------


@settings(max_examples=25, deadline=None)
@given(
    players=st.integers(3, 7),
    seed=st.integers(0, 2**32),
    max_cards=st.integers(1, 2),
    rebound=st.booleans(),
    trump=st.sampled_from(["turn", "no_trump_largest", "rotation", "no_trump", "S", "H", "D", "C"]),
    hook=st.booleans(),
    hook_last_hand=st.booleans(),
    scoring=st.sampled_from(["standard", "basic", "penalty", "anderson", "squared", "exact"]),
    blind_one=st.booleans(),
    until_clear_winner=st.booleans(),
)
def test_any_option_combination_keeps_the_engine_contract(
    players, seed, max_cards, rebound, trump, hook, hook_last_hand, scoring, blind_one, until_clear_winner
):
    options = {
        "max_cards": max_cards,
        "rebound": rebound,
        "trump": trump,
        "hook": hook,
        "hook_last_hand": hook_last_hand,
        "scoring": scoring,
        "blind_one": blind_one,
        "until_clear_winner": until_clear_winner,
    }
    Run("oh_hell", seed, players, deep=True, options=options).play()
