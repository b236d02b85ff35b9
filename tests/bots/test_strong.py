"""The Strong bot: it never peeks, it is reproducible, and every level plays whole matches legally."""

from __future__ import annotations

import random

import pytest

from server.bots import LEVELS, get_bot
from server.bots.strong import StrongBot, Tally
from server.games import get_game
from server.rules.cards import NATURAL_STRENGTH, standard_deck
from server.rules.sampling import sample_state

SHORT = {
    "oh_hell": {"max_cards": 3, "rebound": False},
    "bid_whist": {"target": 3},
    "tarbish": {"target": 100},
    "ribs": {"target": 1},
}


def strong(game: str, seed: int, samples: int = 4, options: dict | None = None) -> StrongBot:
    """A Strong bot limited by its sample count, never by the clock: reproducible anywhere."""
    return StrongBot(game, random.Random(seed), options=options, think_ms=1e9, max_samples=samples)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(SHORT))
def test_every_level_plays_a_whole_match_of_every_game_legally(name, level):
    game = get_game(name)
    players = 5 if name == "ribs" else 4
    state = game.new_game(players=players, options=SHORT[name], seed=11, dealer=1)
    bots = [get_bot(name, random.Random(s), level=level, options=SHORT[name], think_ms=2) for s in range(players)]
    moves = 0
    while game.to_act(state):
        seat = game.to_act(state)[0]
        legal = game.legal_actions(state, seat)
        action = bots[seat].choose(game.view(state, seat), legal)
        assert action in legal
        state = game.apply(state, seat, action)
        moves += 1
    assert game.outcome(state) is not None and moves > 10


def test_get_bot_refuses_an_unknown_level_naming_the_levels():
    with pytest.raises(ValueError, match="easy, strong"):
        get_bot("oh_hell", level="grandmaster")


def two_deals_one_seat_cannot_tell_apart() -> tuple[list[str], list[str]]:
    """Oh Hell decks (4 players, 8 cards, dealer 0) that differ only in a card of seat 2 and
    one of seat 3 of the same suit, swapped: seats 0 and 1 see the same table."""
    deck = standard_deck()
    random.Random(4).shuffle(deck)
    other = list(deck)
    # Card k of the deal goes to seat (1 + k) % 4: seat 2 gets k = 1, 5, 9...; seat 3 gets k = 2, 6, 10...
    # The two lowest cards of one suit: the last either seat would play, so the tables agree long.
    pairs = [(i, j) for i in range(1, 32, 4) for j in range(2, 32, 4) if deck[i][-1] == deck[j][-1]]
    i, j = min(pairs, key=lambda p: NATURAL_STRENGTH[deck[p[0]][:-1]] + NATURAL_STRENGTH[deck[p[1]][:-1]])
    other[i], other[j] = other[j], other[i]
    return deck, other


def test_the_strong_bot_never_peeks_two_states_with_one_view_get_one_choice():
    game = get_game("oh_hell")
    options = {"max_cards": 8}
    deck_a, deck_b = two_deals_one_seat_cannot_tell_apart()
    a = game.new_game(players=4, options=options, seed=1, dealer=0, decks=[deck_a])
    b = game.new_game(players=4, options=options, seed=1, dealer=0, decks=[deck_b])
    assert game.view(a, 2)["hand"] != game.view(b, 2)["hand"]  # the states really differ
    easy = [get_bot("oh_hell", random.Random(s)) for s in range(4)]
    compared = 0
    while game.to_act(a) and game.view(a, None)["hand_number"] == 1:
        seat = game.to_act(a)[0]
        view_a, view_b = game.view(a, seat), game.view(b, seat)
        if seat in (0, 1):
            assert view_a == view_b
            choice_a = strong("oh_hell", 7, options=options).choose(view_a, game.legal_actions(a, seat))
            choice_b = strong("oh_hell", 7, options=options).choose(view_b, game.legal_actions(b, seat))
            assert choice_a == choice_b
            compared += 1
            action = choice_a
        else:
            action = easy[seat].choose(view_a, game.legal_actions(a, seat))
        if action not in game.legal_actions(b, seat):
            break  # the hidden difference now shows: the two tables part ways here
        a, b = game.apply(a, seat, action), game.apply(b, seat, action)
    assert compared >= 4


@pytest.mark.parametrize("name", ["bid_whist", "tarbish", "ribs"])
def test_the_strong_bot_never_peeks_in_any_game(name):
    """The second state deals the cards the seat cannot see anew (the sampler builds it from the
    seat's view): both states show the seat the same view, so the bot must choose the same."""
    game = get_game(name)
    state = game.new_game(players=4, options=SHORT[name], seed=8, dealer=1)
    easy = get_bot(name, random.Random(2))
    for _ in range(14):
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, easy.choose(game.view(state, seat), game.legal_actions(state, seat)))
    seat = game.to_act(state)[0]
    other = sample_state(get_game(name), SHORT[name], game.view(state, seat), seat, random.Random(5))
    assert game.view(other, seat) == game.view(state, seat)
    assert any(game.view(other, s)["hand"] != game.view(state, s)["hand"] for s in range(4) if s != seat)
    choices = [
        strong(name, 7, options=SHORT[name]).choose(game.view(s, seat), game.legal_actions(s, seat))
        for s in (state, other)
    ]
    assert choices[0] == choices[1]


@pytest.mark.parametrize("name", list(SHORT))
def test_the_same_seed_and_sample_count_give_the_same_choice(name):
    game = get_game(name)
    state = game.new_game(players=4, options=SHORT[name], seed=5, dealer=2)
    easy = get_bot(name, random.Random(1))
    decided = 0
    while game.to_act(state) and decided < 6:
        seat = game.to_act(state)[0]
        view, legal = game.view(state, seat), game.legal_actions(state, seat)
        if len(legal) > 1:
            first = strong(name, 3, options=SHORT[name]).choose(view, legal)
            again = strong(name, 3, options=SHORT[name]).choose(view, legal)
            assert first == again and first in legal
            decided += 1
        state = game.apply(state, seat, easy.choose(view, legal))


def first_lead(seed: int):
    """A Bid Whist hand at the declarer's choice of trump (its bids are the Easy bot's)."""
    game = get_game("bid_whist")
    state = game.new_game(players=4, options={}, seed=seed, dealer=3)
    easy = get_bot("bid_whist", random.Random(1))
    while game.view(state, None)["phase"] != "trump_or_lead":
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, easy.choose(game.view(state, seat), game.legal_actions(state, seat)))
    seat = game.to_act(state)[0]
    return game.view(state, seat), game.legal_actions(state, seat)


def test_the_strong_bot_stops_thinking_when_its_budget_is_spent():
    view, legal = first_lead(2)
    bot = StrongBot("bid_whist", random.Random(0), think_ms=1, max_samples=10_000)
    bot.choose(view, legal)
    assert 1 <= bot.samples_used < 10_000


def test_a_candidate_replaces_the_easy_choice_only_when_better_on_average():
    tally = Tally(2, baseline=0)
    for results in ([0, 1], [0, -1], [0, 1], [0, -1]):
        tally.add(results)
    assert tally.choice() == 0  # no better on average: the Easy choice stays
    better = Tally(3, baseline=1)
    for results in ([0, 0, 3], [0, 0, -2], [5, 0, 0], [0, 0, 1]):
        better.add(results)
    assert better.choice() == 0  # 5/4 against 2/4 better than the baseline: the best mean wins
    weighed = Tally(2, baseline=0)
    weighed.add([0, 4], weight=0.1)
    weighed.add([0, -1], weight=1.0)
    assert weighed.choice() == 0  # a deal that explains the bids badly counts for little


def test_with_a_margin_the_best_must_beat_the_easy_choice_by_that_many_standard_errors():
    noisy = Tally(2, baseline=0, margin=1.0)
    for results in ([0, 3], [0, -2], [0, 2], [0, -2]):  # mean +0.25, standard error ~1.2
        noisy.add(results)
    assert noisy.choice() == 0  # better on average, but within its error: the Easy choice stays
    assert Tally(2, baseline=0).choice() == 0
    plain = Tally(2, baseline=0)
    for results in ([0, 3], [0, -2], [0, 2], [0, -2]):
        plain.add(results)
    assert plain.choice() == 1  # without a margin the best mean wins (Oh Hell, Tarabish, Ribs)
    clear = Tally(2, baseline=0, margin=1.0)
    for results in ([0, 1], [0, 2], [0, 1], [0, 0]):
        clear.add(results)
    assert clear.choice() == 1  # mean +1 against an error of ~0.35: played
    assert get_game("bid_whist").bots.margin > 0 and get_game("oh_hell").bots.margin == 0


def test_equivalent_cards_are_weighed_once():
    view = {
        "hand": ["AS", "KS", "QS", "9S", "8S", "2H"],
        "trump": "H",
        "log": [{"seat": 1, "action": {"type": "play", "card": "10S"}}],
    }
    legal = [{"type": "play", "card": c} for c in ["AS", "KS", "QS", "9S", "8S"]]
    kept = get_game("oh_hell").bots.candidates(view, legal, {"type": "play", "card": "KS"})
    # A K Q touch; the J is out, so 9 and 8 (the 10 is gone) are the other group.
    assert [a["card"] for a in kept] == ["KS", "9S"]
    # In Tarabish a card's points matter too: only the pointless 9 and 8 merge.
    kept = get_game("tarbish").bots.candidates(view, legal, {"type": "play", "card": "8S"})
    assert [a["card"] for a in kept] == ["AS", "KS", "QS", "8S"]


def test_a_fixed_sample_count_searches_exactly_that_many_deals_whatever_the_clock():
    view, legal = first_lead(2)
    bot = get_bot("bid_whist", random.Random(0), level="strong", think_ms=0.001, samples=6)
    choice = bot.choose(view, legal)
    assert bot.samples_used == 6
    again = get_bot("bid_whist", random.Random(0), level="strong", samples=6).choose(view, legal)
    assert choice == again


def stacked(hand: list[str], seat: int, dealer: int, players: int, size: int, after: list[str]) -> list[str]:
    """A full deck dealt one card at a time from the dealer's left that gives ``seat`` ``hand``
    and puts ``after`` right behind the hands (Oh Hell's turned card, Bid Whist's kitty)."""
    rest = [c for c in standard_deck() if c not in hand and c not in after]
    random.Random(3).shuffle(rest)
    deck = []
    for k in range(players * size):
        deck.append(hand.pop() if (dealer + 1 + k) % players == seat else rest.pop())
    return deck + after + rest


def test_the_strong_oh_hell_bot_bids_nothing_on_low_cards_at_a_big_table():
    game = get_game("oh_hell")
    options = {"max_cards": 5, "rebound": False}
    deck = stacked(["2C", "3C", "2D", "3D", "2H"], seat=1, dealer=0, players=7, size=5, after=["AS"])
    state = game.new_game(players=7, options=options, seed=1, dealer=0, decks=[deck])
    assert game.to_act(state) == [1] and game.view(state, 1)["trump"] == "S"
    bid = strong("oh_hell", 5, samples=8, options=options).choose(game.view(state, 1), game.legal_actions(state, 1))
    assert bid == {"type": "bid", "value": 0}


def test_the_strong_bid_whist_declarer_keeps_its_trumps_and_names_them():
    game = get_game("bid_whist")
    hand = ["AS", "KS", "QS", "JS", "10S", "9S", "8S", "AH", "KH", "AD", "KD", "AC"]
    deck = stacked(list(hand), seat=0, dealer=3, players=4, size=12, after=["2H", "3D", "7S", "4C"])
    state = game.new_game(players=4, options={}, seed=1, dealer=3, decks=[deck])
    easy = get_bot("bid_whist", random.Random(1))
    while game.view(state, None)["phase"] == "bidding":
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, easy.choose(game.view(state, seat), game.legal_actions(state, seat)))
    assert game.view(state, None)["declarer"] == 0
    bot = strong("bid_whist", 2, samples=6)
    discard = bot.choose(game.view(state, 0), game.legal_actions(state, 0))
    assert discard["type"] == "discard" and not any(c.endswith("S") for c in discard["cards"])
    state = game.apply(state, 0, discard)
    assert bot.choose(game.view(state, 0), game.legal_actions(state, 0)) == {"type": "trump", "suit": "S"}


def test_the_strong_bid_whist_bot_bids_by_the_easy_bidders_conventions_its_partner_reads():
    game = get_game("bid_whist")
    calls = 0
    for seed in range(6):
        state = game.new_game(players=4, options={}, seed=seed, dealer=seed % 4)
        while game.view(state, None)["phase"] == "bidding":
            seat = game.to_act(state)[0]
            view, legal = game.view(state, seat), game.legal_actions(state, seat)
            easy = get_bot("bid_whist", random.Random(0)).choose(view, legal)
            assert strong("bid_whist", seed).choose(view, legal) == easy
            state = game.apply(state, seat, easy)
            calls += 1
    assert calls == 24


def test_only_the_seats_the_table_lists_as_easy_bots_have_their_plays_read():
    # Oh Hell, 4 seats, hands of 3: play until each other seat has played at least once and
    # seat 0 is to play, then read the table from its view. Every seat plays by the Easy rule here, so each is read
    # when the table says nothing; listed as anything but Easy bots, they are not read at all.
    game = get_game("oh_hell")
    options = {"max_cards": 3, "rebound": False}
    state = game.new_game(players=4, options=options, seed=11, dealer=3)
    easy = [get_bot("oh_hell", random.Random(s)) for s in range(4)]

    def plays() -> int:
        return len([e for e in game.view(state, 0)["log"] if e["action"]["type"] == "play"])

    while plays() < 5 or game.to_act(state) != [0]:
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        state = game.apply(state, seat, easy[seat].choose(view, view["legal"]))
    view = game.view(state, 0)
    assert not view["history"]
    told_nothing = strong("oh_hell", 1, options=options).reading(view, 0)
    assert set(told_nothing) == {1, 2, 3} and any(told_nothing.values())
    bot = StrongBot("oh_hell", random.Random(1), options=options, max_samples=4, easy_seats=[2])
    assert bot.reading(view, 0) == {2: told_nothing[2]}
    assert StrongBot("oh_hell", random.Random(1), options=options, easy_seats=[]).reading(view, 0) == {}
    # A seat left unread may be dealt what the reading ruled out; a read seat never is.
    ruled_out = told_nothing[1]
    dealt_unread = set()
    for k in range(200):
        sampled, _ = sample_state(
            get_game("oh_hell"), options, view, 0, random.Random(k), None, weighted=True, lacks=bot.reading(view, 0)
        )
        dealt_unread |= ruled_out & set(game.view(sampled, 1)["hand"])
        assert not told_nothing[2] & set(game.view(sampled, 2)["hand"])
    assert dealt_unread
    # The other games read no plays, whatever the table says.
    assert StrongBot("ribs", random.Random(1), easy_seats=[1]).reading(view, 0) is None


@pytest.mark.parametrize(
    "extra", [{"no_trump": True}, {"dealer_forced": False}, {"no_trump": True, "dealer_forced": False}]
)
def test_the_strong_bot_plays_whole_tarabish_matches_under_each_house_option(extra):
    game = get_game("tarbish")
    options = {"target": 100, **extra}
    state = game.new_game(players=4, options=options, seed=21, dealer=2)
    bots = [strong("tarbish", s, samples=2, options=options) for s in range(4)]
    while game.to_act(state):
        seat = game.to_act(state)[0]
        legal = game.legal_actions(state, seat)
        action = bots[seat].choose(game.view(state, seat), legal)
        assert action in legal
        state = game.apply(state, seat, action)
    assert game.outcome(state) is not None


def test_sampling_a_no_trump_hand_and_a_dealer_forced_after_three_throw_ins():
    game = get_game("tarbish")
    options = {"target": 100, "no_trump": True, "dealer_forced": False}
    state = game.new_game(players=4, options=options, seed=4, dealer=0)
    for _ in range(15):  # three hands thrown in, then the others pass to the forced dealer
        state = game.apply(state, game.to_act(state)[0], {"type": "pass"})
    seat = game.to_act(state)[0]
    view = game.view(state, seat)
    assert seat == view["dealer"] and view["dealer_forced"] and {"type": "pass"} not in view["legal"]
    other = sample_state(get_game("tarbish"), options, view, seat, random.Random(5))
    assert game.view(other, seat) == {**view, "hand_number": 1, "throw_ins": 0}
    assert strong("tarbish", 3, options=options).choose(view, view["legal"]) in view["legal"]
    state = game.apply(state, seat, {"type": "trump", "suit": "N"})
    easy = get_bot("tarbish", random.Random(2))
    for _ in range(10):  # declarations, then a few cards of the no-trump hand
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, easy.choose(game.view(state, seat), game.legal_actions(state, seat)))
    seat = game.to_act(state)[0]
    view = game.view(state, seat)
    assert view["no_trump"] is True and view["trump"] is None
    other = sample_state(get_game("tarbish"), options, view, seat, random.Random(6))
    assert game.view(other, seat)["hand"] == view["hand"] and game.view(other, seat)["no_trump"] is True
    assert strong("tarbish", 3, options=options).choose(view, view["legal"]) in view["legal"]
