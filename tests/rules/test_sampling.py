"""The sampler deals the unseen cards so that the seat could not tell the sample from the truth.

Random positions of every game (Easy bots play real matches) are sampled from the acting
seat's view; the sample's view for that seat must equal the real one in every key of the
current hand, and the hidden cards must really be re-dealt (not copied from the real state).
"""

from __future__ import annotations

import random

import pytest

from server.bots import get_bot
from server.games import get_game
from server.rules.cards import standard_deck
from server.rules.sampling import HAND_KEYS, SamplingError, sample_state

TABLES = [
    ("oh_hell", 4, {"max_cards": 6}),
    ("oh_hell", 5, {"max_cards": 4, "scoring": "basic"}),
    # house options: no turned card, no trump, a blind 1-card hand (server/games/oh_hell/rules.md)
    ("oh_hell", 4, {"max_cards": 3, "trump": "rotation", "blind_one": True}),
    ("oh_hell", 3, {"max_cards": 4, "trump": "no_trump_largest", "scoring": "squared"}),
    ("oh_hell", 5, {"max_cards": 3, "trump": "no_trump", "blind_one": True, "hook_last_hand": False}),
    ("bid_whist", 4, {"target": 9}),
    ("tarbish", 4, {"target": 200}),
    ("ribs", 4, {"target": 2}),
    ("ribs", 6, {"target": 1}),
]


def positions(name: str, players: int, options: dict, seed: int, every: int = 3):
    """(state, seat, view) at every ``every``-th decision of a match played by Easy bots."""
    game = get_game(name)
    rng = random.Random(seed)
    state = game.new_game(players=players, options=options, seed=seed, dealer=rng.randrange(players))
    bots = [get_bot(name, random.Random(seed * 31 + s)) for s in range(players)]
    move = 0
    while game.to_act(state):
        seat = game.to_act(state)[0]
        view = game.view(state, seat)
        if move % every == 0:
            yield state, seat, view
        state = game.apply(state, seat, bots[seat].choose(view, game.legal_actions(state, seat)))
        move += 1


def hands_of_others(game, state, seat: int) -> list:
    return [game.view(state, s)["hand"] for s in range(len(game.view(state, None)["hand_counts"])) if s != seat]


@pytest.mark.parametrize(("name", "players", "options"), TABLES)
def test_a_sampled_state_shows_the_seat_exactly_its_own_view_of_the_hand(name, players, options):
    game = get_game(name)
    checked = redealt = 0
    for seed in (1, 2):
        for state, seat, view in positions(name, players, options, seed):
            assert view.get("log") is not None, "the sampler needs the view's public log"
            sample = sample_state(get_game(name), options, view, seat, random.Random(checked))
            mine = game.view(sample, seat)
            for key in HAND_KEYS:
                assert mine.get(key) == view.get(key), (name, key)
            redealt += hands_of_others(game, sample, seat) != hands_of_others(game, state, seat)
            checked += 1
    assert checked > 40
    # Only the last cards of a hand can be fully known; most samples re-deal the unseen cards.
    assert redealt > checked // 2


def test_a_sample_never_gives_a_seat_a_suit_it_has_shown_it_lacks():
    game = get_game("oh_hell")
    checked = 0
    for _, seat, view in positions("oh_hell", 4, {"max_cards": 8}, seed=5, every=1):
        voids: dict[int, set[str]] = {}
        trick: list[str] = []
        for entry in view["log"]:
            if entry["action"]["type"] != "play":
                continue
            card = entry["action"]["card"]
            if trick and card[-1] != trick[0][-1]:
                voids.setdefault(entry["seat"], set()).add(trick[0][-1])
            trick = [] if "won" in entry else trick + [card]
        if not voids:
            continue
        for k in range(3):
            sample = sample_state(get_game("oh_hell"), {"max_cards": 8}, view, seat, random.Random(k))
            for s, suits in voids.items():
                held = game.view(sample, s)["hand"]
                assert not [c for c in held if c[-1] in suits], (s, suits, held)
        checked += 1
    assert checked > 5


def test_a_sample_never_gives_a_seat_a_card_it_is_said_to_lack_and_drops_beliefs_no_deal_fits():
    game = get_game("oh_hell")
    options = {"max_cards": 6}
    state = game.new_game(players=4, options=options, seed=8, dealer=0)
    view = game.view(state, 2)
    unseen = [c for c in standard_deck() if c not in view["hand"] and c != view["turned"]]
    lacks = {1: set(unseen[:30]), 3: set(unseen[10:40])}
    for k in range(20):
        sample = sample_state(get_game("oh_hell"), options, view, 2, random.Random(k), lacks=lacks)
        for s, cards in lacks.items():
            assert not cards & set(game.view(sample, s)["hand"])
    # Seats 1 and 3 both lacking all but 8 of the same unseen cards: no deal fits (12 needed).
    lacks = {1: set(unseen[8:]), 3: set(unseen[8:])}
    sample = sample_state(get_game("oh_hell"), options, view, 2, random.Random(0), lacks=lacks)
    assert game.view(sample, 2)["hand"] == view["hand"]


def test_the_same_generator_gives_the_same_sample():
    for _, seat, view in positions("bid_whist", 4, {"target": 5}, seed=3, every=17):
        a = sample_state(get_game("bid_whist"), {"target": 5}, view, seat, random.Random(9))
        b = sample_state(get_game("bid_whist"), {"target": 5}, view, seat, random.Random(9))
        game = get_game("bid_whist")
        assert [game.view(a, s) for s in range(4)] == [game.view(b, s) for s in range(4)]


def test_a_view_no_deal_can_explain_is_refused_with_a_sampling_error():
    game = get_game("oh_hell")
    state = game.new_game(players=4, options={"max_cards": 3}, seed=1, dealer=0)
    view = dict(game.view(state, 1))
    view["hand"] = ["AS", "AS", "AS"]  # three aces of spades: no deal gives this hand
    with pytest.raises(SamplingError):
        sample_state(get_game("oh_hell"), {"max_cards": 3}, view, 1, random.Random(0))


def test_a_judge_makes_deals_that_explain_the_other_seats_moves_come_up_more_often():
    game = get_game("oh_hell")
    options = {"max_cards": 6}
    state = game.new_game(players=4, options=options, seed=8, dealer=0)
    state = game.apply(state, 1, {"type": "bid", "value": 2})  # seat 1 bids; seat 2 samples
    view = game.view(state, 2)
    ace = next(c for c in ("AS", "AH", "AD", "AC") if c not in view["hand"] and c != view["turned"])

    def judge(before, seat, action):  # "seat 1 bid as it did only when it held that ace"
        return 1.0 if ace in game.view(before, seat)["hand"] else 0.02

    def share(**kwargs) -> float:
        held = 0
        for k in range(40):
            sample = sample_state(get_game("oh_hell"), options, view, 2, random.Random(k), **kwargs)
            held += ace in game.view(sample, 1)["hand"]
        return held / 40

    assert share(judge=judge) > 0.8 > 0.5 > share()
    sample, chance = sample_state(get_game("oh_hell"), options, view, 2, random.Random(1), judge, weighted=True)
    assert chance == (1.0 if ace in game.view(sample, 1)["hand"] else 0.02)


def test_a_tarabish_sample_keeps_the_declared_run_types_and_the_revealed_runs():
    """Seat 1 declares a twenty (9-8-7 of spades) while the 10 of spades is unseen: a sample
    that deals it that 10 would make the run a fifty, which the table was never told."""
    name, options = "tarbish", {"target": 100}
    game = get_game(name)
    state = game.new_game(players=4, options=options, seed=8, dealer=1)
    easy = get_bot(name, random.Random(2))
    for _ in range(13):  # trump named, runs declared, the first trick played
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, easy.choose(game.view(state, seat), game.legal_actions(state, seat)))
    seat = game.to_act(state)[0]
    view = game.view(state, seat)
    assert {"seat": 1, "run": "twenty"} in view["declarations"]
    for k in range(20):
        mine = game.view(sample_state(get_game(name), options, view, seat, random.Random(k)), seat)
        assert mine["declarations"] == view["declarations"]
        assert mine["revealed"] == view["revealed"] and mine["run_points"] == view["run_points"]
