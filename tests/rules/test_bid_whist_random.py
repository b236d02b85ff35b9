"""Bid Whist: random whole matches by the thousand, checking what is Bid Whist's own at every
step (who sees the discards and the kitty, team scores) and at the end (the target, Chicago,
replay with the options). What every game keeps (cards conserved, refusals, purity, replay,
the seat-key split) is tests/rules/test_contract.py."""

from __future__ import annotations

import json
import random
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.games import get_game
from server.rules.cards import hand_rng, is_card, shuffled, standard_deck
from server.rules.tricks import trick_winner

GAME = get_game("bid_whist")
PUBLIC_ONLY = ("hand", "legal", "discards", "kitty")


def cards_in(obj, found):
    """Collect every card code (jokers too) anywhere inside a view."""
    if isinstance(obj, str):
        if is_card(obj) or obj in ("BJ", "LJ"):
            found.add(obj)
    elif isinstance(obj, dict):
        for value in obj.values():
            cards_in(value, found)
    elif isinstance(obj, list):
        for value in obj:
            cards_in(value, found)
    else:
        assert obj is None or isinstance(obj, (int, bool)), f"not JSON-able: {obj!r}"
    return found


def check_views(state, full):
    """No seat (nor a spectator) sees a card it may not; public keys agree; legal matches."""
    hands = full["hands"]
    on_table = {p["card"] for p in full["trick"]}
    if full["tricks"]:
        on_table |= {p["card"] for p in full["tricks"][-1]["cards"]}
    # every card played this hand stays public in the move log
    on_table |= {p["card"] for t in full["tricks"] for p in t["cards"]}
    discards_open = bool(full["discards"]) and not full["tricks"] and not full["trick"]
    if full["sported"] is not None:  # the sported kitty: everyone sees it while it is shown
        assert full["phase"] == "discarding" and full["sported"] == full["kitty"]
        on_table |= set(full["sported"])
    size = full["kitty_size"]
    public = None
    for seat in (0, 1, 2, 3, None):
        view = GAME.view(state, seat)
        allowed = set(on_table)
        if seat is not None:
            allowed |= set(hands[seat])
            if seat == full["declarer"] and discards_open:
                allowed |= set(full["discards"])
            if seat == full["declarer"] and full["kitty_count"] == 0 and full["phase"] != "over":
                # the kitty's cards, to the declarer only; the discarded ones while open
                kitty = [c for c in full["kitty"] if discards_open or c not in full["discards"]]
                if full["phase"] == "discarding":
                    kitty = full["kitty"]
                allowed |= set(kitty)
                assert view["kitty"] == kitty
            else:
                assert view["kitty"] is None
            assert view["hand"] == hands[seat]
            if seat in GAME.to_act(state):
                legal = GAME.legal_actions(state, seat)
                if full["phase"] == "discarding":
                    assert view["legal"] == [{"type": "discard", "count": size}]
                    assert len(legal) == comb(12 + size, size)
                else:
                    assert view["legal"] == legal
            else:
                assert view["legal"] == [] and GAME.legal_actions(state, seat) == []
        else:
            assert view["hand"] is None and view["legal"] == []
        # a finished hand's last trick was played face up; its cards are dealt again later,
        # so they are left out here and checked against the play in play_match
        shown = {**view, "history": [{**h, "last_trick": None} for h in view["history"]]}
        seen = cards_in(shown, set())
        assert seen <= allowed, f"seat {seat} sees {sorted(seen - allowed)}"
        rest = {k: v for k, v in view.items() if k not in PUBLIC_ONLY}
        if public is None:
            public = rest
        else:
            assert rest == public
        assert view["revealed"] == []
        assert view["scores"][0] == view["scores"][2] == view["team_scores"][0]
        assert view["scores"][1] == view["scores"][3] == view["team_scores"][1]


def play_match(seed, target, deep=True, rng=None, options=None):
    """One random match: check the invariants after every action; return the state and log."""
    rng = rng or random.Random(seed)
    dealer = seed % 4
    options = options or {"target": target}
    state = GAME.new_game(4, options=options, seed=seed, dealer=dealer)
    log = []
    steps = 0
    while GAME.outcome(state) is None:
        acting = GAME.to_act(state)
        assert len(acting) == 1
        seat = acting[0]
        legal = GAME.legal_actions(state, seat)
        assert legal, "the seat to act always has a legal action"
        action = rng.choice(legal)
        if action["type"] == "discard":
            action = {"type": "discard", "cards": rng.sample(action["cards"], len(action["cards"]))}
        prev, state = state, GAME.apply(state, seat, action)
        log.append((seat, action))
        steps += 1
        if len(state.history) > len(prev.history):
            final = state.history[-1].to_dict()["last_trick"]
            played = [*prev.trick, (seat, action["card"])]
            assert final["cards"] == [{"seat": s, "card": c} for s, c in played]
            if prev.house is None:
                assert final["winner"] == trick_winner(tuple(played), prev.trump)
        if deep:
            check_views(state, GAME.full_view(state))
        assert steps < 2000
    return state, log


def check_match_end(state, target):
    """Scores add up; the winners are the team that reached the target or went Chicago."""
    outcome = GAME.outcome(state)
    view = GAME.view(state, None)
    history = view["history"]
    sums = [sum(h["scores"][s] for h in history) for s in range(4)]
    assert sums == view["scores"] == outcome["scores"]
    assert [h["scores"] for h in history] == [r["scores"] for r in GAME.hand_records(state)]
    for h in history:
        assert h["scores"] == [h["team_scores"][0], h["team_scores"][1]] * 2
        assert min(h["team_scores"]) == 0 and sum(h["tricks"]) == 12
    last = history[-1]
    running = [0, 0]
    for h in history[:-1]:
        assert not h["chicago"]
        running = [running[0] + h["team_scores"][0], running[1] + h["team_scores"][1]]
        assert max(running) < target, "the match went on after a team reached the target"
    if last["chicago"]:
        team = 0 if last["tricks"][0] == 12 else 1
    else:
        team = 0 if outcome["scores"][0] >= target else 1
        assert outcome["scores"][team] >= target > outcome["scores"][1 - team]
        assert outcome["scores"][team] == max(outcome["scores"])
    assert outcome["winners"] == [team, team + 2]
    assert GAME.to_act(state) == [] and view["phase"] == "over"


def replay(seed, target, log):
    """Replay a match from its seed, dealer, options and action log."""
    state = GAME.new_game(4, options={"target": target}, seed=seed, dealer=seed % 4)
    for seat, action in log:
        state = GAME.apply(state, seat, action)
    return state


@pytest.mark.slow
def test_a_thousand_short_random_matches_keep_every_invariant_and_replay_exactly():
    for seed in range(1000):
        target = 1 + seed % 7
        deep = seed % 10 == 0
        state, log = play_match(seed, target, deep=deep)
        check_match_end(state, target)
        if seed % 5 == 0:
            again = replay(seed, target, log)
            assert GAME.full_view(again) == GAME.full_view(state)
            for seat in (0, 1, 2, 3, None):
                assert GAME.view(again, seat) == GAME.view(state, seat)
            assert GAME.hand_records(again) == GAME.hand_records(state)
            assert json.loads(json.dumps(GAME.hand_records(state))) == GAME.hand_records(state)


def test_random_matches_with_every_check_at_every_step():
    for seed in range(1000, 1020):
        target = 3 + seed % 5
        state, _ = play_match(seed, target, deep=True)
        check_match_end(state, target)


@pytest.mark.slow
def test_random_matches_to_twenty_one_end_with_the_right_winner():
    for seed in range(2000, 2040):
        state, log = play_match(seed, 21, deep=seed % 8 == 0)
        check_match_end(state, 21)
        if seed % 3 == 0:
            assert GAME.full_view(replay(seed, 21, log)) == GAME.full_view(state)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**40), choice_seed=st.integers(0, 10**6))
def test_any_seed_replays_to_the_same_states_from_its_log(seed, choice_seed):
    state, log = play_match(seed, 4, deep=False, rng=random.Random(choice_seed))
    again = replay(seed, 4, log)
    assert GAME.full_view(again) == GAME.full_view(state)
    assert GAME.outcome(again) == GAME.outcome(state)


def test_the_same_seed_deals_the_same_hands_and_different_seeds_differ():
    a = GAME.full_view(GAME.new_game(4, seed=42))
    b = GAME.full_view(GAME.new_game(4, seed=42))
    c = GAME.full_view(GAME.new_game(4, seed=43))
    assert a["hands"] == b["hands"] and a["kitty"] == b["kitty"]
    assert a["hands"] != c["hands"]


def test_stacked_decks_cover_their_hands_and_later_hands_come_from_the_seed():
    deck = standard_deck()
    state = GAME.new_game(4, seed=5, dealer=0, decks=[deck])
    assert GAME.full_view(state)["kitty"] == deck[48:]
    rng = random.Random(3)
    while state.hand_number == 0:
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
    if GAME.outcome(state) is None:
        plain = GAME.new_game(4, seed=5, dealer=0)
        # Hand 2 is shuffled from the seed, whatever stacked hand 1.
        assert GAME.full_view(state)["kitty"] == shuffled(standard_deck(), hand_rng(5, 1))[48:]
        assert GAME.full_view(plain)["kitty"] == shuffled(standard_deck(), hand_rng(5, 0))[48:]


# ---- house options (server/games/bid_whist/rules.md): random matches over random combinations --------


def random_options(rng):
    """A valid combination of house options, each drawn at random."""
    options = {
        "jokers": rng.choice([0, 1, 2]),
        "joker_no_trump": rng.choice(["free", "must_play"]),
        "books": rng.choice(["seed", "thirteen"]),
        "directions": rng.random() < 0.7,
        "downtown_beats_uptown": rng.random() < 0.5,
        "no_trump_double": rng.random() < 0.5,
        "boston": rng.choice(["wins", "quadruple"]),
        "sport_kitty": rng.random() < 0.5,
        "target": rng.randint(3, 12),
    }
    options["no_trump"] = options["directions"] and rng.random() < 0.7
    if options["books"] == "thirteen":
        options["min_bid"] = rng.choice([3, 4])
        options["game_to"] = rng.randint(3, 9)
    return options


def check_house_end(state, options):
    """Scores add up and the winners are the team the options say won."""
    outcome = GAME.outcome(state)
    history = GAME.view(state, None)["history"]
    assert [sum(h["scores"][s] for h in history) for s in range(4)] == outcome["scores"]
    thirteen = options.get("books") == "thirteen"
    running = [0, 0]
    for i, h in enumerate(history):
        assert sum(h["tricks"]) == 12
        assert h["scores"] == [h["team_scores"][0], h["team_scores"][1]] * 2
        side = h["declarer"] % 2
        if thirteen:  # only the declarers score
            assert h["team_scores"][1 - side] == 0 and (h["team_scores"][side] > 0) == h["made"]
        else:
            assert min(h["team_scores"]) == 0
        factor = (2 if h["doubled"] else 1) * (4 if h["quadrupled"] else 1)
        assert all(p % factor == 0 for p in h["team_scores"])
        assert h["doubled"] == (h["direction"] == "no_trump" and options.get("no_trump_double", True))
        assert h["quadrupled"] == (h["chicago"] and options.get("boston") == "quadruple")
        running = [running[0] + h["team_scores"][0], running[1] + h["team_scores"][1]]
        mark = options.get("game_to", 7) if thirteen else options.get("target", 21)
        done = (h["chicago"] and not h["quadrupled"]) or max(running) >= mark or (thirteen and min(running) <= -mark)
        assert done == (i == len(history) - 1), "the match ends at the first hand that decides it"
    team = outcome["winners"][0] % 2
    last = history[-1]
    if last["chicago"] and not last["quadrupled"]:
        assert last["tricks"][team] == 12
    elif thirteen and min(running) <= -options["game_to"]:
        assert running[1 - team] <= -options["game_to"]
    else:
        assert running[team] >= max(running[1 - team], 1)
    assert outcome["winners"] == [team, team + 2]


HOUSE_SEEDS = [3, 17, 29, 41, 58, 64, 77, 90, 101, 123, 150, 177]


@pytest.mark.parametrize("seed", HOUSE_SEEDS)
def test_random_matches_over_random_option_combinations_keep_every_invariant(seed):
    rng = random.Random(seed)
    options = random_options(rng)
    state, log = play_match(seed, None, deep=True, rng=rng, options=options)
    check_house_end(state, options)
    again = GAME.new_game(4, options=options, seed=seed, dealer=seed % 4)
    for seat, action in log:
        again = GAME.apply(again, seat, action)
    assert GAME.full_view(again) == GAME.full_view(state)


@pytest.mark.slow
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**40), choice_seed=st.integers(0, 10**6))
def test_any_option_combination_keeps_every_invariant(seed, choice_seed):
    rng = random.Random(choice_seed)
    options = random_options(rng)
    state, _ = play_match(seed, None, deep=choice_seed % 3 == 0, rng=rng, options=options)
    check_house_end(state, options)
