"""The contract every registered game keeps, checked over random games of each.

A new game registered in ``server.games`` gets every check here for free; it adds one
line to ``CARD_PLACES`` (where its full view keeps each card of the hand). The checks:

- cards are conserved: every card of the hand's deal is in exactly one place;
- legality agrees with apply: every legal action applies, ``why_illegal`` says None for it,
  and sampled illegal actions are refused with ``why_illegal``'s sentence;
- refusals change nothing: the state and its views are as they were;
- replaying the seed and the action log gives equal states;
- no view shows a card held by another seat unless every view shows it (or the game's
  options show it to that seat: Oh Hell's ``blind_one`` shows each seat every other seat's
  card, ``blind_cards``, and must then hide the seat's own card while it bids);
- views of the same state are equal (a copied state's too), each a new top-level dict;
- the seat-key split holds: every key but ``Game.seat_keys`` equals the spectator's;
- ``log`` is public and complete: the same in every view, one entry per action since the
  deal, each by the seat that acted.
- legal actions (handed out again and again: shared objects) are plain JSON values, which
  copy and pickle into values that change freely, and ``apply`` never changes one (that
  nothing else does is checked at the end of every test run: tests/conftest.py).

The short runs are in every test run; the long ones are marked ``slow``.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from server.games import GameError, IllegalAction, NotYourTurn, game_names, get_game


def _cards(value: Any) -> list[str]:
    """Every card string inside a view value (dicts' ``card``/``cards`` and plain lists)."""
    out: list[str] = []
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list):
        for item in value:
            out.extend(_cards(item))
    elif isinstance(value, dict):
        for key in ("card", "cards"):
            if key in value:
                out.extend(_cards(value[key]))
    return out


def _keys(*names: str) -> Callable[[dict[str, Any]], list[str]]:
    return lambda view: [card for name in names for card in _cards(view[name])]


def _trick_cards(view: dict[str, Any]) -> list[str]:
    return _cards(view["trick"])


def _ribs_table(full: dict[str, Any]) -> list[str]:
    """Ribs: the pairs down in this trick (the Ribs themselves are ``ribs``)."""
    return [c for entry in full["trick"] if not entry["ribs"] for c in entry["cards"]]


# Per game: (the cards of the hand where the full view keeps them, the cards as dealt).
CARD_PLACES: dict[str, tuple[Callable[[dict], list[str]], Callable[[dict], list[str]]]] = {
    "oh_hell": (
        lambda f: _keys("hands", "stock", "tricks_played")(f) + _trick_cards(f) + [f["turned"]],
        lambda d: _keys("hands", "stock")(d) + [d["turned"]],
    ),
    "bid_whist": (
        lambda f: _keys("hands", "tricks", "discards")(f) + _trick_cards(f) + (f["kitty"] if f["kitty_count"] else []),
        _keys("hands", "kitty"),
    ),
    # Tarabish's full view counts each seat's face-down kitty in its hand
    "tarbish": (lambda f: _keys("hands", "won")(f) + _trick_cards(f), _keys("hands", "kitties")),
    "ribs": (lambda f: _keys("hands", "won", "discard")(f) + (f["ribs"] or []) + _ribs_table(f), _keys("deck")),
    "spades": (lambda f: _keys("hands", "tricks_played")(f) + _trick_cards(f), _keys("hands")),
}

# Options a random match needs to end: random Spades bids are set hand after hand, so without a
# losing score the match would never reach its target.
ENDING_OPTIONS: dict[str, dict[str, Any]] = {"spades": {"lose_at": -200}}

# Actions no game accepts, whatever the state.
JUNK: list[Any] = [
    None,
    7,
    "play",
    [],
    {},
    {"type": None},
    {"type": 3},
    {"type": "dance"},
    {"type": "play"},
    {"type": "play", "card": 5},
    {"type": "play", "card": "1X"},
    {"type": "bid"},
    {"type": "bid", "value": "three"},
    {"type": "bid", "value": 99},
    {"type": "bid", "value": True},
    {"type": "trump", "suit": "X"},
    {"type": "discard", "cards": "AS"},
    {"type": "pair", "cards": ["A"]},
]


def _mutations(action: dict[str, Any], others: list[str]) -> list[dict[str, Any]]:
    """Variants of a legal action that are likely illegal: a card not held, a wild value."""
    out = []
    if "card" in action:
        out += [{**action, "card": card} for card in others[:3]]
    if "cards" in action and isinstance(action["cards"], list):
        out += [{**action, "cards": [*action["cards"][:-1], card]} for card in others[:2]]
    if "value" in action:
        out.append({**action, "value": action["value"] + 50})
    return out


class Run:
    """One random match of one game, checking the contract after every action."""

    def __init__(self, name: str, seed: int, players: int, deep: bool, options: dict[str, Any] | None = None) -> None:
        self.game = get_game(name)
        self.options = dict(options or ENDING_OPTIONS.get(name, {}))
        self.name = name
        self.rng = random.Random(seed)
        self.seed = seed
        self.players = players
        self.dealer = seed % players
        self.deep = deep
        self.state = self.game.new_game(players=players, options=self.options, seed=seed, dealer=self.dealer)
        self.actions: list[tuple[int, dict[str, Any]]] = []
        self.since_deal = 0

    def play(self, max_actions: int = 20_000) -> None:
        self.check_state()
        for _ in range(max_actions):
            acting = self.game.to_act(self.state)
            if not acting:
                break
            seat = self.rng.choice(acting)
            legal = self.game.legal_actions(self.state, seat)
            assert legal, f"seat {seat} must act but has no legal action"
            if self.deep:
                handed_out = copy.deepcopy(legal)
                self.check_legality(seat, legal)
                self.check_refusals(seat, legal)
                self.check_shared_actions(legal, handed_out)
            self.step(seat, self.rng.choice(legal))
        assert self.game.outcome(self.state) is not None, "the match must end"
        self.check_replay()

    def step(self, seat: int, action: dict[str, Any]) -> None:
        hands_before = len(self.game.hand_records(self.state))
        assert self.game.why_illegal(self.state, seat, action) is None
        self.state = self.game.apply(self.state, seat, action)
        self.actions.append((seat, action))
        dealt = len(self.game.hand_records(self.state)) > hands_before
        self.since_deal = 0 if dealt else self.since_deal + 1
        if self.deep or dealt or not self.game.to_act(self.state):
            self.check_state(actor=None if dealt else seat)

    # ---- the checks -----------------------------------------------------------------------

    def check_shared_actions(self, legal: list[dict[str, Any]], handed_out: list[dict[str, Any]]) -> None:
        """Legal actions may be shared objects (games.base: ``shared_action``): changing one
        would change every state's. Each is a plain JSON value (dicts, lists, strings, ints,
        booleans); applying and refusing (``check_legality``, ``check_refusals``) left each
        as it was handed out; a copy or an unpickled one changes without touching it."""
        assert legal == handed_out, "applying or refusing actions changed a legal action"
        for action in legal:
            plain = json.loads(json.dumps(action))
            assert action == plain and orjson.loads(orjson.dumps(action)) == plain
            assert type(action) is dict and all(type(value) in (str, int, bool, list) for value in action.values())
            for copied in (copy.copy(action), copy.deepcopy(action), pickle.loads(pickle.dumps(action))):
                assert copied == plain
            deep = copy.deepcopy(action)
            deep["type"] = "changed"  # a deep copy changes freely, the shared action stays
            for value in deep.values():
                if isinstance(value, list):
                    value.append("changed")
            assert action == plain

    def check_state(self, actor: int | None = None) -> None:
        game, state = self.game, self.state
        full = game.full_view(state)
        self.check_cards(full)
        spectator = game.view(state, None)
        assert spectator["hand"] is None and spectator["legal"] == []
        shared = {k: v for k, v in spectator.items() if k not in game.seat_keys}
        log = spectator["log"]
        copied = copy.deepcopy(state)
        assert len(log) == self.since_deal, "the log holds every move since the deal"
        if actor is not None and log:
            assert log[-1]["seat"] == actor
        for seat in range(self.players):
            view = game.view(state, seat)
            assert {k: v for k, v in view.items() if k not in game.seat_keys} == shared
            again = game.view(state, seat)
            assert again == view and again is not view, "equal views, new top-level dicts"
            assert game.view(copied, seat) == view
            assert view["log"] == log
            legal = game.legal_actions(state, seat)
            assert (seat in game.to_act(state)) == bool(legal)
            self.check_hidden(seat, view, spectator, full)

    def check_cards(self, full: dict[str, Any]) -> None:
        held, dealt = CARD_PLACES[self.name]
        deal = self.game.hand_records(self.state)[-1]["deal"]
        if self.game.outcome(self.state) is None:
            assert Counter(held(full)) == Counter(dealt(deal)), "cards are conserved"

    def check_hidden(self, seat: int, view: dict, spectator: dict, full: dict) -> None:
        """A seat sees no card another seat holds unless everyone sees it."""
        deck = CARD_PLACES[self.name][1](self.game.hand_records(self.state)[-1]["deal"])
        if len(set(deck)) < len(deck):
            return  # Ribs: cards are ranks, several of each (tests/rules/test_ribs*.py)
        public = set(_cards([spectator[k] for k in spectator if k != "history"]))
        mine = set(_cards(view["hand"]))
        others = {c for s, hand in enumerate(full["hands"]) if s != seat for c in hand}
        if "kitties" in full:
            others |= {c for s, k in enumerate(full["kitties"]) if s != seat for c in k}
        seen = set(_cards([view[k] for k in view if k not in ("history", "legal")]))
        shown = set()
        if view.get("blind_cards") is not None:  # Oh Hell's blind_one hand
            shown = {c for s, c in enumerate(view["blind_cards"]) if c is not None}
            assert shown == {h[0] for s, h in enumerate(full["hands"]) if s != seat and h}
            assert not shown & public, "a spectator sees no blind card"
            if view["phase"] == "bidding":
                own = set(full["hands"][seat])
                assert not own & seen, f"seat {seat} sees its own blind card while it bids"
        leaked = (seen - public - mine - shown) & others
        assert not leaked, f"seat {seat} sees {sorted(leaked)} of another seat's cards"

    def check_legality(self, seat: int, legal: list[dict[str, Any]]) -> None:
        """Every legal action applies (a sample of a long list), why_illegal agrees, and
        applying leaves the state it was given as it was (apply is pure)."""
        sample = legal if len(legal) <= 30 else self.rng.sample(legal, 30)
        before = copy.deepcopy(self.state)
        for action in sample:
            assert self.game.why_illegal(self.state, seat, action) is None, action
            after = self.game.apply(self.state, seat, action)
            assert after is not self.state and after != before
            assert self.state == before, f"applying {action} changed the state it was given"

    def check_refusals(self, seat: int, legal: list[dict[str, Any]]) -> None:
        """Illegal actions are refused with why_illegal's sentence and change nothing."""
        game, state = self.game, self.state
        before = copy.deepcopy(state)
        views = [game.view(state, s) for s in (None, *range(self.players))]
        hands = game.full_view(state)["hands"]
        others = [c for c in _cards(hands) if c not in hands[seat]]
        candidates = JUNK + _mutations(self.rng.choice(legal), others)
        candidates = self.rng.sample(candidates, min(8, len(candidates)))
        for action in candidates:
            if action in legal:
                continue
            reason = game.why_illegal(state, seat, action)
            with pytest.raises(GameError) as refused:
                game.apply(state, seat, action)
            assert isinstance(refused.value, IllegalAction) and str(refused.value) == reason
            assert str(refused.value).strip(), "a refusal explains itself"
        for other in range(self.players):
            if other not in game.to_act(state):
                with pytest.raises(NotYourTurn):
                    game.apply(state, other, legal[0])
                assert game.why_illegal(state, other, legal[0])
        assert state == before, "a refusal changes nothing"
        assert [game.view(state, s) for s in (None, *range(self.players))] == views

    def check_replay(self) -> None:
        """The seed and the action log give the same state again."""
        game = self.game
        state = game.new_game(players=self.players, options=self.options, seed=self.seed, dealer=self.dealer)
        for seat, action in self.actions:
            state = game.apply(state, seat, action)
        assert state == self.state
        assert game.full_view(state) == game.full_view(self.state)
        assert game.outcome(state) == game.outcome(self.state)


def _players(name: str, seed: int) -> int:
    """A table size for the seed: the smallest few (big tables are the games' own tests)."""
    game = get_game(name)
    return game.min_players + seed % (min(game.max_players, game.min_players + 2) - game.min_players + 1)


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("seed", range(2))
def test_a_match_keeps_the_contract_at_every_step(name, seed):
    Run(name, seed, get_game(name).default_players, deep=True).play()


@pytest.mark.slow
@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("seed", range(2, 6))
def test_more_matches_keep_the_contract_at_every_step(name, seed):
    Run(name, seed, _players(name, seed), deep=True).play()


@pytest.mark.slow
@pytest.mark.parametrize("name", game_names())
def test_many_matches_conserve_cards_end_and_replay(name):
    for seed in range(100, 130):
        Run(name, seed, _players(name, seed), deep=False).play()


# House options (docs/rules/<game>.md): short matches at non-default combinations.
OPTION_MIXES = {
    "oh_hell": [
        {"max_cards": 3, "trump": "no_trump_largest", "blind_one": True},
        {"max_cards": 3, "trump": "rotation", "scoring": "squared", "hook_last_hand": False},
        {"max_cards": 2, "trump": "no_trump", "scoring": "exact", "blind_one": True},
        {"max_cards": 2, "trump": "D", "blind_one": True, "hook": False, "until_clear_winner": True},
    ],
    "bid_whist": [
        {"jokers": 2, "books": "thirteen", "directions": True, "no_trump": True, "min_bid": 3, "game_to": 5},
        {
            "jokers": 1,
            "joker_no_trump": "must_play",
            "directions": True,
            "no_trump": True,
            "boston": "quadruple",
            "sport_kitty": True,
            "downtown_beats_uptown": False,
            "target": 8,
        },
        {
            "jokers": 2,
            "directions": True,
            "no_trump": True,
            "no_trump_double": False,
            "joker_no_trump": "must_play",
            "target": 6,
        },
        {"sport_kitty": True, "jokers": 1, "target": 5},
    ],
}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bid_whist_at_random_option_combinations_keeps_the_contract_at_every_step(seed):
    """Bid Whist's house options drawn at random (test_bid_whist_random.random_options)."""
    from test_bid_whist_random import random_options

    Run("bid_whist", seed, 4, deep=True, options=random_options(random.Random(seed))).play()


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3, 15))
def test_bid_whist_at_more_random_option_combinations_keeps_the_contract(seed):
    from test_bid_whist_random import random_options

    Run("bid_whist", seed, 4, deep=seed % 3 == 0, options=random_options(random.Random(seed))).play()


@pytest.mark.parametrize(("name", "options"), [(name, mix) for name, mixes in OPTION_MIXES.items() for mix in mixes])
@pytest.mark.parametrize("seed", range(2))
def test_a_match_with_house_options_keeps_the_contract_at_every_step(name, options, seed):
    Run(name, seed, _players(name, seed), deep=True, options=options).play()


@pytest.mark.parametrize("name", game_names())
def test_every_game_says_which_view_keys_differ_between_seats(name):
    game = get_game(name)
    assert game.seat_keys and {"hand", "legal"} <= set(game.seat_keys)
    assert "log" not in game.seat_keys
