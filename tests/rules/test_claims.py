"""Proven claims (server/rules/claims.py) against a brute force: a plain search over every
legal card of every seat (the game's own ``legal_actions`` and ``apply``, no merging, no
memory) says whether the claimant's side takes every remaining trick whatever the others play;
the claim search must accept exactly then, at every point of random hands in every game of
tricks and their key house options, and its winning line must take every trick."""

from __future__ import annotations

import random

import pytest

from server.games import get_game
from server.rules.cards import standard_deck
from server.rules.claims import NODE_BUDGET, ClaimSearch, is_certain, winning_line

# (game, players, options, cards in hand at most when the checks start)
TABLES = [
    ("oh_hell", 3, {"max_cards": 5, "start": "high"}, 5),
    ("oh_hell", 4, {"max_cards": 4, "start": "high"}, 4),
    ("oh_hell", 5, {"max_cards": 3, "start": "high", "trump": "no_trump"}, 3),
    ("oh_hell", 4, {"max_cards": 4, "start": "high", "trump": "no_trump"}, 4),
    ("bid_whist", 4, None, 4),
    ("bid_whist", 4, {"jokers": 2}, 4),
    ("bid_whist", 4, {"jokers": 2, "directions": True, "no_trump": True}, 4),
    ("bid_whist", 4, {"jokers": 1, "directions": True, "no_trump": True, "joker_no_trump": "must_play"}, 4),
    ("tarbish", 4, None, 4),
    ("tarbish", 4, {"no_trump": True}, 4),
    ("spades", 4, None, 4),
]


def trick_play_positions(game, state, rng, cards):
    """From a new match: random moves until the hand's tricks are played with at most
    ``cards`` in the acting seat's hand, then every position to the hand's end."""
    while True:
        play = game.trick_play(state)
        if play is not None and len(play.hands[play.turn]) <= cards:
            break
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
    positions = []
    while play is not None:
        positions.append(state)
        seat = play.turn
        last = len(play.trick) + 1 == len(play.sides) and len(play.hands[seat]) == 1
        if last:
            break
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        play = game.trick_play(state)
    return positions


def brute_force(game, state, side):
    """Whether ``side`` takes every remaining trick whatever the others play: every legal card
    of every seat, the trick's winner read from the game (the seat that leads next; for the
    hand's last trick, the game's own rule)."""
    play = game.trick_play(state)
    seat = play.turn
    ours = play.sides[seat] == side
    outcomes = []
    for action in game.legal_actions(state, seat):
        trick = (*play.trick, (seat, action["card"]))
        if len(trick) == len(play.sides) and len(play.hands[seat]) == 1:
            won = play.sides[play.winner(trick)] == side
        else:
            after = game.apply(state, seat, action)
            if len(trick) == len(play.sides):
                won = play.sides[game.to_act(after)[0]] == side and brute_force(game, after, side)
            else:
                won = brute_force(game, after, side)
        outcomes.append(won)
    return any(outcomes) if ours else all(outcomes)


def played_out(game, state, line, side):
    """Apply a winning line; every trick it completes must go to ``side``."""
    taken = 0
    for seat, action in line:
        play = game.trick_play(state)
        assert play is not None and play.turn == seat
        trick = (*play.trick, (seat, action["card"]))
        if len(trick) == len(play.sides):
            assert play.sides[play.winner(trick)] == side
            taken += 1
        state = game.apply(state, seat, action)
    return taken


@pytest.mark.parametrize(("name", "players", "options", "cards"), TABLES)
def test_claim_accepted_exactly_when_certain(name, players, options, cards):
    game = get_game(name)
    rng = random.Random(f"{name}{options}")
    checked = accepted = 0
    for deal in range(5):
        state = game.new_game(players, options, seed=rng.randrange(10**9), dealer=deal % players)
        for position in trick_play_positions(game, state, rng, cards):
            play = game.trick_play(position)
            for claimant in range(players):
                side = play.sides[claimant]
                certain = brute_force(game, position, side)
                line = winning_line(game, position, claimant)
                assert (line is not None) == certain, (name, options, play, claimant)
                checked += 1
                if line is not None:
                    accepted += 1
                    tricks_left = (sum(map(len, play.hands)) + len(play.trick)) // players
                    assert played_out(game, position, line, side) == tricks_left
                    assert len(line) == sum(map(len, play.hands))
    assert checked > 100
    assert 0 < accepted < checked  # both answers were met


def test_budget_refuses_rather_than_searches_on():
    """A certain claim that needs more positions than the budget is refused."""
    game = get_game("oh_hell")
    rng = random.Random(7)
    for seed in range(200):
        state = game.new_game(3, {"max_cards": 5, "start": "high"}, seed=seed)
        for position in trick_play_positions(game, state, rng, 5):
            play = game.trick_play(position)
            if len(play.hands[play.turn]) < 4:
                continue
            for claimant in range(3):
                if is_certain(game, position, claimant):
                    assert not is_certain(game, position, claimant, budget=1)
                    assert winning_line(game, position, claimant, budget=1) is None
                    return
    pytest.fail("no certain claim of four tricks or more was dealt")


def test_no_claim_outside_trick_play_or_in_a_game_without_claims():
    oh_hell = get_game("oh_hell")
    bidding = oh_hell.new_game(4, None, seed=1)
    assert oh_hell.trick_play(bidding) is None
    assert all(winning_line(oh_hell, bidding, seat) is None for seat in range(4))
    ribs = get_game("ribs")
    assert not ribs.claims
    assert winning_line(ribs, ribs.new_game(None, None, seed=1), 0) is None


def test_thirteen_trumps_are_certain_at_the_first_lead_in_a_few_positions():
    """Every trump in one hand at thirteen cards: the others' discards are dead cards, so the
    proof takes a few dozen positions, and only that seat's claim stands."""
    game = get_game("oh_hell")
    deck = list(standard_deck())
    spades = [c for c in deck if c[-1] == "S"]
    others = [c for c in deck if c[-1] != "S"]
    random.Random(3).shuffle(others)
    rest = iter(others)
    stacked = [spades[k // 3] if k % 3 == 0 else next(rest) for k in range(39)] + list(rest)
    state = game.new_game(3, {"max_cards": 13, "start": "high", "trump": "S"}, seed=1, dealer=0, decks=[stacked])
    rng = random.Random(1)
    while game.trick_play(state) is None:
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
    play = game.trick_play(state)
    assert play.turn == 1 and len(play.hands[1]) == 13
    search = ClaimSearch(game, 1, NODE_BUDGET)
    assert search.wins(state, play) and search.nodes < 100
    line = winning_line(game, state, 1)
    assert line is not None and played_out(game, state, line, 1) == 13
    assert winning_line(game, state, 0) is None and winning_line(game, state, 2) is None


def test_a_claim_the_trick_in_progress_refutes_is_refused_in_a_few_positions():
    """A defender to lead at twelve cards holding the top card of a plain suit both seats of
    the claiming side hold: leading it takes the trick, and the search finds that first
    (before lines where the defence wins a trick late), in under twenty positions."""
    game = get_game("bid_whist")
    for seed in range(100):
        rng = random.Random(seed)
        state = game.new_game(4, None, seed=seed)
        while (play := game.trick_play(state)) is None or len(play.hands[play.turn]) > 12:
            seat = game.to_act(state)[0]
            state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
        if play.trick or len(play.hands[play.turn]) < 12:
            continue
        side = 1 - play.sides[play.turn]
        claiming = [seat for seat in range(4) if play.sides[seat] == side]
        live = [card for hand in play.hands for card in hand]
        for card in play.hands[play.turn]:
            suit, strength = play.order[card]
            if suit == play.trump or any(play.order[c] > (suit, strength) for c in live if play.order[c][0] == suit):
                continue
            if all(any(play.order[c][0] == suit for c in play.hands[seat]) for seat in claiming):
                search = ClaimSearch(game, side, NODE_BUDGET)
                assert not search.wins(state, play) and search.nodes < 20
                assert winning_line(game, state, claiming[0]) is None
                return
    pytest.fail("no defender's lead of an unbeatable card was dealt")
