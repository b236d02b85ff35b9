"""Ribs: random whole sessions for 4 to 10 players, checking the invariants at every step."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from legality_helpers import check_why_illegal

from server.games import IllegalAction, NotYourTurn, get_game
from server.games.ribs.rules import POINTS, RANKS

GAME = get_game("ribs")
PRIVATE = ("hand", "legal", "my_face_down")
RANK_SET = set(RANKS)


def rank_strings(value, counter: Counter) -> None:
    """Count every string in a JSON value that is a card rank."""
    if isinstance(value, str):
        if value in RANK_SET:
            counter[value] += 1
    elif isinstance(value, list):
        for v in value:
            rank_strings(v, counter)
    elif isinstance(value, dict):
        for v in value.values():
            rank_strings(v, counter)
    else:
        assert value is None or isinstance(value, (int, bool)), repr(value)


def public_cards(state) -> Counter:
    """Every rank the table has seen face up and still shows: this hand's tricks, the last
    trick (shown twice: in ``tricks`` and ``last_trick``), each finished hand's final trick,
    and the face-up pairs of the trick in play."""
    seen: Counter = Counter()

    def add_trick(rec, times=1):
        for r in rec.ribs:
            seen[RANKS[r]] += times
        for play in rec.plays:
            if not play.folded:
                for r in play.pair:
                    seen[RANKS[r]] += times

    for rec in state.tricks:
        add_trick(rec)
    if state.tricks:
        add_trick(state.tricks[-1])
    for h in state.history:
        add_trick(h.final_trick)
    for play in state.plays:
        if not play.folded:
            for r in play.pair:
                seen[RANKS[r]] += 1
    return seen


def own_face_down(state, seat) -> Counter:
    mine: Counter = Counter()
    if state.ribs is not None and state.leader == seat:
        mine.update(RANKS[r] for r in state.ribs)
    for play in state.plays + tuple(p for t in state.tricks for p in t.plays):
        if play.folded and play.seat == seat:
            mine.update(RANKS[r] for r in play.pair)
    return mine


def check_conservation(state) -> None:
    n = state.cfg.n
    counts = [0] * 8
    for hand in state.hands:
        for r, c in enumerate(hand):
            counts[r] += c
    for pile in state.won:
        for r in pile:
            counts[r] += 1
    for r in state.discard:
        counts[r] += 1
    if state.ribs is not None:
        for r in state.ribs:
            counts[r] += 1
    for play in state.plays:
        for r in play.pair:
            counts[r] += 1
    assert counts == [n] * 8
    for seat in range(n):
        assert state.points[seat] == sum(POINTS[r] for r in state.won[seat])
    in_hands = sum(c * POINTS[r] for hand in state.hands for r, c in enumerate(hand))
    on_table = sum(POINTS[r] for p in state.plays for r in p.pair)
    on_table += sum(POINTS[r] for r in state.ribs or ())
    discarded = sum(POINTS[r] for r in state.discard)
    assert sum(state.points) + discarded + in_hands + on_table == 10 * n


def check_views(state) -> None:
    n = state.cfg.n
    spectator = GAME.view(state, None)
    assert spectator["hand"] is None and spectator["legal"] == []
    assert spectator["my_face_down"] == []
    public = {k: v for k, v in spectator.items() if k not in PRIVATE and k != "log"}
    seen: Counter = Counter()
    rank_strings(public, seen)
    assert seen == public_cards(state), "a view shows a card that is not face up"
    logged: Counter = Counter()
    rank_strings(spectator["log"], logged)  # the log repeats face-up pairs, never more
    assert logged <= seen, "the log shows a card that is not face up"
    acting = GAME.to_act(state)
    assert spectator["to_act"] == acting
    for seat in range(n):
        view = GAME.view(state, seat)
        assert {k: v for k, v in view.items() if k not in PRIVATE and k != "log"} == public
        assert view["log"] == spectator["log"]
        hand = Counter(view["hand"])
        assert hand == Counter({RANKS[r]: c for r, c in enumerate(state.hands[seat]) if c})
        assert view["hand_counts"][seat] == len(view["hand"])
        mine: Counter = Counter()
        for entry in view["my_face_down"]:
            mine.update(entry["cards"])
        assert mine == own_face_down(state, seat)
        legal = GAME.legal_actions(state, seat)
        assert view["legal"] == legal
        assert bool(legal) == (seat in acting)
    assert json.loads(json.dumps(spectator)) == spectator


def check_refusals(state, rng: random.Random) -> None:
    """Off-list actions raise with a sentence and change nothing."""
    n = state.cfg.n
    before = copy.deepcopy(state)
    acting = GAME.to_act(state)
    seat = acting[0]
    other = (seat + rng.randrange(1, n)) % n
    legal = GAME.legal_actions(state, seat)
    attempts = [(other, legal[0]), (seat, {"type": "play", "card": "AS"}), (seat, {"cards": []})]
    if state.phase.value == "bidding":
        high = state.high_bid
        attempts += [(seat, {"type": "bid", "value": v}) for v in (0, 1, high, high + 2, state.cfg.max_bid + 1)]
    else:
        absent = [r for r in RANKS if not state.hands[seat][RANKS.index(r)]]
        if absent:
            attempts.append((seat, {"type": legal[0]["type"], "cards": [absent[0], absent[-1]]}))
        attempts.append((seat, {"type": "pass"}))
        if state.ribs is not None and state.fold_used[seat]:
            attempts.append((seat, dict(legal[0], fold=True)))
    for who, action in attempts:
        if who == seat and action in legal:
            continue
        with pytest.raises((IllegalAction, NotYourTurn)) as err:
            GAME.apply(state, who, action)
        assert str(err.value)
    assert state == before


def play_session(n, options, seed, rng, full_checks=True, dealer=None):
    """Play one random session; return the final state and the action log."""
    dealer = rng.randrange(n) if dealer is None else dealer
    state = GAME.new_game(n, options=options, seed=seed, dealer=dealer)
    log = []
    hands_seen = 1
    steps = 0
    while True:
        check_conservation(state)
        if full_checks:
            check_views(state)
        acting = GAME.to_act(state)
        if not acting:
            break
        seat = acting[0]
        if full_checks and steps % 7 == 0:
            check_refusals(state, rng)
        action = rng.choice(GAME.legal_actions(state, seat))
        prior = state
        if full_checks and steps % 11 == 0:
            snapshot = copy.deepcopy(prior)
        state = GAME.apply(state, seat, action)
        if full_checks and steps % 11 == 0:
            assert prior == snapshot
        log.append((seat, action))
        steps += 1
        if len(state.history) > len(prior.history):
            entry = state.history[-1]
            assert sum(entry.points) + entry.discarded == 10 * n
            best = max(entry.points)
            assert entry.scores == tuple(int(p == best) for p in entry.points)
            hands_seen += 1
        assert steps < 100_000
    result = GAME.outcome(state)
    assert result is not None
    history = GAME.view(state, None)["history"]
    totals = [sum(h["scores"][s] for h in history) for s in range(n)]
    assert totals == result["scores"] == list(state.scores)
    top = max(result["scores"])
    assert top >= state.cfg.target
    assert result["winners"] == [s for s in range(n) if result["scores"][s] == top]
    if state.cfg.until_sole_winner:
        assert len(result["winners"]) == 1
    records = GAME.hand_records(state)
    assert len(records) == len(history)
    assert [r["scores"] for r in records] == [h["scores"] for h in history]
    assert [r["dealer"] for r in records] == [(dealer + i) % n for i in range(len(records))]
    return state, log, dealer


def replay(n, options, seed, dealer, log):
    state = GAME.new_game(n, options=options, seed=seed, dealer=dealer)
    for seat, action in log:
        state = GAME.apply(state, seat, action)
    return state


@pytest.mark.slow
@pytest.mark.parametrize("n", range(4, 11))
def test_random_sessions_with_full_checks_keep_every_invariant(n):
    rng = random.Random(1000 + n)
    for i in range(8 if n <= 6 else 5):
        options = {"target": 1 + i % 2, "until_sole_winner": i % 3 == 0}
        state, log, dealer = play_session(n, options, seed=f"full-{n}-{i}", rng=rng)
        if i % 2 == 0:
            again = replay(n, options, f"full-{n}-{i}", dealer, log)
            assert GAME.full_view(again) == GAME.full_view(state)
            assert all(GAME.view(again, s) == GAME.view(state, s) for s in range(n))
            assert GAME.hand_records(again) == GAME.hand_records(state)


@pytest.mark.slow
@pytest.mark.parametrize("n", range(4, 11))
def test_many_random_sessions_conserve_cards_and_points(n):
    rng = random.Random(n)
    for i in range(130):
        options = {"target": 1 + (i % 5 == 0), "until_sole_winner": i % 4 == 0}
        play_session(n, options, seed=i, rng=rng, full_checks=False)


def test_a_default_session_to_five_game_points_ends_with_the_top_scorers_winning():
    rng = random.Random(5)
    for n in (4, 6, 10):
        state, log, dealer = play_session(n, None, seed=n, rng=rng, full_checks=False)
        assert max(GAME.outcome(state)["scores"]) == 5
        assert GAME.full_view(replay(n, None, n, dealer, log)) == GAME.full_view(state)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), n=st.integers(4, 10), dealer=st.integers(0, 9))
def test_any_seed_deals_every_seat_eight_cards_of_the_full_deck_and_replays(seed, n, dealer):
    dealer %= n
    rng = random.Random(seed)
    state, log, _ = play_session(n, {"target": 1}, seed=seed, rng=rng, full_checks=False, dealer=dealer)
    first = GAME.hand_records(state)[0]
    assert all(len(h) == 8 for h in first["deal"]["hands"])
    assert Counter(first["deal"]["deck"]) == Counter({r: n for r in RANKS})
    again = replay(n, {"target": 1}, seed, dealer, log)
    assert GAME.full_view(again) == GAME.full_view(state)


def _containers(value, out):
    """Every dict and list inside ``value`` (``value`` included), by id."""
    if isinstance(value, (dict, list)):
        out.append(id(value))
        for item in value.values() if isinstance(value, dict) else value:
            _containers(item, out)
    return out


@pytest.mark.parametrize("n", [4, 7, 10])
def test_views_reuse_unchanged_public_parts_and_match_a_fresh_build(n):
    """Cached views equal views built from scratch; unchanged public parts are the previous
    state's very objects; no object appears twice in one view (patches apply in place)."""
    rng = random.Random(100 + n)
    reused = Counter()
    for i in range(6):
        state = GAME.new_game(players=n, options={"target": 1}, seed=i, dealer=i % n)
        prev = None
        while True:
            if rng.random() < 0.8:  # also views after states whose views were never built
                views = [GAME.view(state, s) for s in (None, *range(n))]
                fresh = GAME._public(state, False)
                for v in views:
                    assert {k: v[k] for k in fresh} == fresh
                    ids = _containers(v, [])
                    assert len(ids) == len(set(ids))
                assert views[1] is not GAME.view(state, 0)
                if prev is not None:
                    for key in ("history", "scores", "tricks", "bids", "passed", "points"):
                        if views[0][key] is prev[key]:
                            reused[key] += 1
                prev = views[0]
            acting = GAME.to_act(state)
            if not acting:
                break
            state = GAME.apply(state, acting[0], rng.choice(GAME.legal_actions(state, acting[0])))
    for key in ("history", "scores", "tricks", "bids", "passed", "points"):
        assert reused[key] > 0, key


def _every_action(n: int) -> list[dict]:
    """Every action a seat could send: each bid, pass, and each pair as Ribs, face up, folded."""
    pairs = [[a, b] for i, a in enumerate(RANKS) for b in RANKS[i:]]
    return (
        [{"type": "bid", "value": v} for v in range(0, 4 * n + 2)]
        + [{"type": "pass"}]
        + [{"type": "ribs", "cards": p} for p in pairs]
        + [{"type": "pair", "cards": p, "fold": f} for p in pairs for f in (False, True)]
    )


@pytest.mark.parametrize("n", [4, 6, 10])
def test_why_illegal_is_none_exactly_for_the_legal_actions_of_each_seat(n):
    """One rule, two uses: ``legal_actions`` lists what ``why_illegal`` lets through."""
    rng = random.Random(n)
    every = _every_action(n)
    state = GAME.new_game(players=n, options={"target": 1}, seed=n, dealer=n % 3)
    while GAME.to_act(state):
        check_why_illegal(GAME, state, every)
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
