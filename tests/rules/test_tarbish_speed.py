"""Tarabish: the fast paths (cached public view, cached legal cards, direct card play) give
exactly what the plain computation gives."""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest

from server.games import IllegalAction, NotYourTurn, get_game
from server.games.tarbish.rules import Phase, legal_cards
from server.rules.state import ViewMemo

GAME = get_game("tarbish")
SEATS = (0, 1, 2, 3, None)


class FrozenAction(Mapping):
    """An action that is a Mapping but not a dict: it takes the checked path of ``apply``."""

    def __init__(self, action: dict) -> None:
        self._a = dict(action)

    def __getitem__(self, key):
        return self._a[key]

    def __iter__(self):
        return iter(self._a)

    def __len__(self) -> int:
        return len(self._a)


def fresh(state):
    """The same state with an empty view memo: its view is built from scratch."""
    return state.evolve(views=ViewMemo())


def play_match(seed: int, view_every: float):
    """Yield (state before, seat, action, state after) of a random match; views are taken
    of a random share of the states, so some states build on a cached view and some not."""
    rng = random.Random(seed)
    options = {"half_bait": seed % 2 == 0}
    state = GAME.new_game(players=4, options=options, seed=seed, dealer=seed % 4)
    while GAME.to_act(state):
        if rng.random() < view_every:
            for seat in SEATS:
                GAME.view(state, seat)
        seat = GAME.to_act(state)[0]
        action = rng.choice(GAME.legal_actions(state, seat))
        new = GAME.apply(state, seat, action)
        yield state, seat, action, new
        state = new


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("view_every", [1.0, 0.5])
def test_views_equal_views_built_from_scratch(seed, view_every):
    for _, _, _, state in play_match(seed, view_every):
        views = [GAME.view(state, seat) for seat in SEATS]
        for seat, view in zip(SEATS, views, strict=True):
            assert view == GAME.view(fresh(state), seat)
            assert list(view) == list(GAME.view(fresh(state), seat))  # same key order
        # every call returns a new top-level dict; the public parts are shared
        assert len({id(v) for v in views}) == len(views)
        assert GAME.view(state, 0) is not views[0]
        for key in ("trick", "history", "scores", "teams", "revealed", "declarations"):
            assert all(v[key] is views[0][key] for v in views)


def test_a_card_in_a_trick_keeps_the_unchanged_public_parts_the_same_objects():
    for before, _, action, after in play_match(3, 1.0):
        if action["type"] != "play" or not after.trick:
            continue  # only a card added to an unfinished trick
        old, new = GAME.view(before, None), GAME.view(after, None)
        for key in (
            "history",
            "scores",
            "team_scores",
            "teams",
            "last_trick",
            "declarations",
            "revealed",
            "tricks_won",
            "points_taken",
            "kitty_count",
        ):
            assert new[key] is old[key], key
        assert new["trick"][:-1] == old["trick"]
        assert all(a is b for a, b in zip(new["trick"], old["trick"], strict=False))


def test_replacing_top_level_values_of_a_view_changes_no_other_view():
    state = GAME.new_game(players=4, seed=1)
    view = GAME.view(state, 1)
    view["trick"] = ["junk"]
    view["hand"] = None
    assert GAME.view(state, 1) == GAME.view(fresh(state), 1)


@pytest.mark.parametrize("seed", range(4))
def test_legal_actions_and_apply_match_the_checked_path(seed):
    for before, seat, action, after in play_match(seed, 0.3):
        assert GAME.legal_actions(before, seat) == GAME.legal_actions(fresh(before), seat)
        if before.phase is Phase.PLAYING:
            expected = legal_cards(before.hands[seat], before.trick, before.match.trump)
            assert GAME.legal_actions(before, seat) == [{"type": "play", "card": c} for c in expected]
            for other in range(4):
                if other != seat:
                    assert GAME.legal_actions(before, other) == []
        # the checked path (a non-dict Mapping) gives the same state
        assert GAME.apply(fresh(before), seat, FrozenAction(action)) == after
        assert GAME.full_view(after) == GAME.full_view(fresh(after))
        # the old state is unchanged and still plays the same
        assert GAME.apply(before, seat, action) == after


def test_an_illegal_card_is_refused_even_after_legal_actions_was_cached():
    rng = random.Random(2)
    for before, seat, _, _ in play_match(2, 0.0):
        if before.phase is not Phase.PLAYING:
            continue
        legal = {a["card"] for a in GAME.legal_actions(before, seat)}
        illegal = [c for c in before.hands[seat] if c not in legal]
        for card in illegal:
            with pytest.raises(IllegalAction):
                GAME.apply(before, seat, {"type": "play", "card": card})
        held = {c for h in before.hands for c in h}
        others = sorted(held - set(before.hands[seat]))
        if others:
            with pytest.raises(IllegalAction):
                GAME.apply(before, seat, {"type": "play", "card": rng.choice(others)})
        with pytest.raises(NotYourTurn):
            GAME.apply(before, (seat + 1) % 4, {"type": "play", "card": before.hands[seat][0]})


def test_find_runs_by_table_equals_the_plain_scan():
    from server.games.tarbish.rules import DECK, _scan_runs, find_runs

    rng = random.Random(7)
    for n in list(range(37)) * 40:
        cards = rng.sample(DECK, n)
        assert find_runs(cards) == _scan_runs(cards)


@pytest.mark.parametrize("seed", range(30))
def test_the_deal_is_the_shared_shuffle_and_deal(seed):
    from server.games.tarbish.rules import DECK, HAND_SIZE, PLAYERS
    from server.rules.cards import deal, hand_rng, shuffled

    state = GAME.new_game(players=4, seed=seed, dealer=seed % 4)
    deck = shuffled(DECK, hand_rng(seed, 0))
    received, _ = deal(deck, PLAYERS, HAND_SIZE, (seed + 1) % 4, packet=3)
    assert state.match.deals == tuple(tuple(r) for r in received)


def test_default_options_are_the_parsed_defaults():
    for options in (None, {}):
        state = GAME.new_game(players=4, options=options, seed=5)
        assert state == GAME.new_game(players=4, options={"target": 500, "half_bait": False}, seed=5)


def test_sorted_and_runs_by_table_equal_sort_cards_and_find_runs():
    from server.games.tarbish.rules import DECK, _scan_runs, _sorted_and_runs, sort_cards

    rng = random.Random(11)
    for n in list(range(37)) * 40:
        cards = rng.sample(DECK, n)
        assert _sorted_and_runs(cards) == (sort_cards(cards), tuple(_scan_runs(cards)))
