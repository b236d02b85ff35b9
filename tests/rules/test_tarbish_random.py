"""Tarabish: random whole matches by the thousand, checking the invariants at every step, over
random combinations of the options (``half_bait``, ``no_trump``, ``dealer_forced``)."""

from __future__ import annotations

import copy
import json
import random
import re

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from legality_helpers import check_why_illegal

from server.games import IllegalAction, NotYourTurn, get_game
from server.games.tarbish.rules import DECK, Phase

GAME = get_game("tarbish")
SORTED_DECK = sorted(DECK)
PRIVATE_KEYS = {"hand", "legal"}
JUNK = [
    None,
    7,
    "play",
    {},
    {"type": None},
    {"type": "bid", "value": 3},
    {"type": "play"},
    {"type": "play", "card": 10},
    {"type": "play", "card": "1S"},
    {"type": "play", "card": ["AS"]},
    {"type": "trump", "suit": "N"},
    {"type": "trump", "suit": None},
    {"type": "take"},
]


QUOTED = re.compile(r'"([^"\\]*)"')


def strings_in(obj, out: set[str]) -> set[str]:
    """Every string in a view, checking on the way that it holds only JSON types."""
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            strings_in(v, out)
    elif isinstance(obj, list):
        for v in obj:
            strings_in(v, out)
    else:
        assert obj is None or isinstance(obj, (int, bool)), f"not JSON-able: {obj!r}"
    return out


def check_no_leak(state, seat, view) -> None:
    shown = set()
    for r in view["revealed"]:
        shown |= set(r["cards"])
    hidden = set()
    for s in range(4):
        if s != seat:
            hidden |= set(state.hands[s])
        hidden |= set(state.kitties[s])  # a kitty is unseen even by its owner
    hidden -= shown
    # a finished hand's last trick was played face up; its cards are dealt again later, so
    # they are left out here and checked against the play in play_match
    view = {**view, "history": [{**h, "final_trick": None} for h in view["history"]]}
    leaked = set(QUOTED.findall(orjson.dumps(view).decode())) & hidden
    assert not leaked, f"seat {seat} sees {leaked}"
    if seat is not None and state.kitties[seat]:
        assert len(view["hand"]) == 6
        assert not set(view["hand"]) & set(state.kitties[seat])


def check_step(state, options) -> None:
    full = GAME.full_view(state)
    held = [c for h in full["hands"] for c in h]
    assert all(set(k) <= set(h) for h, k in zip(full["hands"], full["kitties"], strict=True))
    table = [t["card"] for t in full["trick"]] + [c for w in full["won"] for c in w]
    if state.phase is not Phase.OVER:
        assert sorted(held + table) == SORTED_DECK
    spectator = GAME.view(state, None)
    if len(state.trick) == 1 or state.phase is not Phase.PLAYING:
        strings_in(spectator, set())  # only JSON types: no tuples, no sets
        strings_in(GAME.view(state, GAME.to_act(state)[0] if GAME.to_act(state) else 0), set())
    assert spectator["hand"] is None and spectator["legal"] == []
    public = {k: v for k, v in spectator.items() if k not in PRIVATE_KEYS}
    acting = GAME.to_act(state)
    for seat in range(4):
        view = GAME.view(state, seat)
        assert {k: v for k, v in view.items() if k not in PRIVATE_KEYS} == public
        assert view["hand"] == list(state.hands[seat])
        if seat in acting:
            assert view["legal"] == GAME.legal_actions(state, seat)
            assert view["legal"]
        else:
            assert view["legal"] == [] and GAME.legal_actions(state, seat) == []
        check_no_leak(state, seat, view)
    check_no_leak(state, None, spectator)
    assert public["hand_counts"] == [len(h) for h in full["hands"]]
    scores = public["team_scores"]
    assert public["scores"] == [scores[0], scores[1], scores[0], scores[1]]
    assert [sum(h["team_scores"][t] for h in public["history"]) for t in (0, 1)] == scores
    assert public["target"] == options["target"]
    assert public["no_trump_allowed"] == options.get("no_trump", False)
    assert public["no_trump"] == (state.match.caller is not None and state.match.trump is None)
    forced = options.get("dealer_forced", True) or state.match.throw_ins >= 3
    assert public["dealer_forced"] == forced and 0 <= public["throw_ins"] <= 3


def check_hand_entry(entry, half_bait: bool) -> None:
    teams = entry["teams"]
    no_trump = entry["no_trump"]
    assert no_trump == (entry["trump"] is None)
    assert sum(t["card_points"] for t in teams) == (120 if no_trump else 152)
    assert sorted(t["last_trick"] for t in teams) == [0, 10]
    assert sum(t["tricks_won"] for t in teams) == 9
    for t in teams:
        assert t["total"] == t["card_points"] + t["last_trick"] + t["runs"] + t["bella"]
    runs = sum(t["runs"] for t in teams)
    bella = sum(t["bella"] for t in teams)
    assert sum(t["total"] for t in teams) == (130 if no_trump else 162) + runs + bella
    assert runs in (0, 20, 40, 50, 70, 100) and bella in ((0,) if no_trump else (0, 20))
    assert 0 in (teams[0]["runs"], teams[1]["runs"])  # only one player's runs count
    callers = entry["calling_team"]
    c, o = teams[callers]["total"], teams[1 - callers]["total"]
    scored = [t["scored"] for t in teams]
    if c > o:
        assert entry["result"] == "made" and scored == [teams[0]["total"], teams[1]["total"]]
    elif c == o and half_bait:
        assert entry["result"] == "half_bait" and scored[callers] == 0 and scored[1 - callers] == o
    else:
        assert entry["result"] == "bait" and scored[callers] == 0 and scored[1 - callers] == c + o
    assert entry["team_scores"] == scored
    assert entry["scores"] == [scored[0], scored[1], scored[0], scored[1]]


def try_illegal(state, seat, legal, rng) -> None:
    before = copy.deepcopy(state)
    other = rng.choice([s for s in range(4) if s != seat])
    with pytest.raises(NotYourTurn) as err:
        GAME.apply(state, other, legal[0])
    assert str(err.value)
    bad = [{"type": "play", "card": c} for c in DECK] + [{"type": "pass"}, {"type": "declare"}]
    bad += [{"type": "trump", "suit": s} for s in "SHDCN"]
    bad = [a for a in bad if a not in legal]
    junk = [a for a in JUNK if a not in legal]  # no trump is legal with the option
    for action in rng.sample(bad, 3) + [rng.choice(junk)]:
        with pytest.raises(IllegalAction) as err:
            GAME.apply(state, seat, action)
        assert str(err.value)
    assert state == before


def play_match(seed: int, options: dict, dealer: int, full_checks: bool, rng: random.Random):
    """Play one random match; return the final state and the action log."""
    state = GAME.new_game(4, options=options, seed=seed, dealer=dealer)
    log = []
    hands_seen = 0
    steps = 0
    while True:
        if full_checks:
            check_step(state, options)
        acting = GAME.to_act(state)
        if not acting:
            break
        (seat,) = acting
        legal = GAME.legal_actions(state, seat)
        assert legal and all(legal.count(a) == 1 for a in legal)
        forced = GAME.view(state, None)["dealer_forced"]
        if state.phase is Phase.NAMING and seat == state.match.dealer:
            assert ({"type": "pass"} not in legal) == forced
        action = rng.choice(legal)
        if not options.get("dealer_forced", True) and state.phase is Phase.NAMING:
            # pass often, so that hands are thrown in, sometimes three in a row
            action = {"type": "pass"} if {"type": "pass"} in legal and rng.random() < 0.85 else action
        if full_checks and rng.random() < 0.06:
            try_illegal(state, seat, legal, rng)
            before = copy.deepcopy(state)
            new = GAME.apply(state, seat, action)
            assert state == before
        else:
            new = GAME.apply(state, seat, action)
        log.append((seat, action))
        if new.match.hand_index > state.match.hand_index and len(new.match.history) == hands_seen:
            # thrown in: only an unforced dealer passing after three passes does it
            assert action == {"type": "pass"} and seat == state.match.dealer and not forced
            assert new.match.scores == state.match.scores
            assert new.match.throw_ins == state.match.throw_ins + 1 <= 3
        prev, state = state, new
        steps += 1
        assert steps < 5000, "the match does not end"
        history = state.match.history
        if len(history) > hands_seen:
            hands_seen = len(history)
            entry = history[-1].to_json()
            assert entry["hand"] == prev.match.hand_index + 1  # thrown-in deals are numbered too
            check_hand_entry(entry, options["half_bait"])
            final = entry["final_trick"]
            played = [*prev.trick, (seat, action["card"])]
            assert final["cards"] == [{"seat": s, "card": c} for s, c in played]
            assert entry["teams"][final["winner"] % 2]["last_trick"] == 10
    return state, log


def check_end(state, log, seed, options, dealer) -> None:
    out = GAME.outcome(state)
    assert out is not None
    view = GAME.view(state, None)
    assert out["scores"] == view["scores"]
    totals = [sum(h["scores"][s] for h in view["history"]) for s in range(4)]
    assert totals == out["scores"]
    top = max(out["scores"])
    assert top >= options["target"]
    assert sorted(out["winners"]) == [s for s in range(4) if out["scores"][s] == top]
    assert len(out["winners"]) == 2
    records = GAME.hand_records(state)
    assert len(records) == view["history"][-1]["hand"]  # every deal, thrown-in ones too
    scored = [r["scores"] for r in records if r["scores"] is not None]
    assert scored == [h["scores"] for h in view["history"]]
    json.dumps(records)
    # replay from seed, dealer, options and the log
    replay = GAME.new_game(4, options=options, seed=seed, dealer=dealer)
    for seat, action in log:
        replay = GAME.apply(replay, seat, action)
    assert replay == state
    assert GAME.full_view(replay) == GAME.full_view(state)
    assert all(GAME.view(replay, s) == GAME.view(state, s) for s in (None, 0, 1, 2, 3))


def run_matches(count: int, base_seed: int, targets, full_checks: bool) -> int:
    hands = 0
    for i in range(count):
        rng = random.Random(base_seed + i)
        seed = base_seed * 1000 + i
        options = {"target": rng.choice(targets), "half_bait": rng.random() < 0.5}
        # the house options from the match number (the generator's draws stay as they were)
        options.update(no_trump=i % 3 == 1, dealer_forced=i % 4 != 2)
        dealer = rng.randrange(4)
        state, log = play_match(seed, options, dealer, full_checks, rng)
        check_end(state, log, seed, options, dealer)
        hands += len(state.match.history)
    return hands


@pytest.mark.slow
def test_random_matches_with_every_invariant_checked_at_every_step():
    assert run_matches(150, 1, (150, 200, 300), full_checks=True) >= 150


@pytest.mark.slow
def test_a_thousand_random_short_matches_end_with_consistent_scores_and_replay():
    assert run_matches(1000, 7, (150, 200, 250, 300), full_checks=False) >= 1000


def test_random_matches_to_500_end_correctly():
    assert run_matches(60, 99, (500,), full_checks=False) >= 60 * 3
    run_matches(6, 123, (500,), full_checks=True)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(min_value=0, max_value=2**40),
    dealer=st.integers(0, 3),
    no_trump=st.booleans(),
    dealer_forced=st.booleans(),
)
def test_any_seed_gives_a_hand_whose_totals_are_162_plus_runs_plus_bella(seed, dealer, no_trump, dealer_forced):
    rng = random.Random(seed)
    options = {"target": 100, "half_bait": bool(seed % 2), "no_trump": no_trump, "dealer_forced": dealer_forced}
    state, log = play_match(seed, options, dealer, full_checks=True, rng=rng)
    check_end(state, log, seed, options, dealer)


# Every action a seat could send in any phase: each card, each suit named, pass, declare.
EVERY_ACTION = (
    [{"type": "play", "card": c} for c in DECK]
    + [{"type": "trump", "suit": s} for s in "SHDCN"]
    + [{"type": "pass"}, {"type": "declare"}]
)


@pytest.mark.parametrize("seed", range(12))
def test_why_illegal_is_none_exactly_for_the_legal_actions_of_the_seat_to_act(seed):
    """One rule, two uses: ``legal_actions`` lists what ``why_illegal`` lets through."""
    rng = random.Random(seed)
    options = {"target": 150, "no_trump": seed % 3 == 1, "dealer_forced": seed % 4 < 2}
    state = GAME.new_game(4, options=options, seed=seed, dealer=seed % 4)
    while GAME.to_act(state):
        check_why_illegal(GAME, state, EVERY_ACTION)
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
