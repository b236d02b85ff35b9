"""Every registered game through every layer that asks it for something.

A game is one folder (``server/games/<name>/``) and one line in ``server.games.GAMES``; the
layers above name no game and ask the game object instead. Each check here is parametrised
over ``all_games()``, so a new game that forgets a part fails here:

- engine: a random match plays to its end, and no seat's view shows another seat's hand;
- bots: the Easy and the Strong bot (a short search) choose legal actions, and the Strong
  bot's sampler really deals that game (a game without one is an error, never Easy play);
- ledger: the partnerships split the seats, and hands with a contract say who declared it;
- recap and push: the game's title, never its id;
- rules page: a section for every phase its views go through, and for every option;
- option words: every option in English and Portuguese, and the summary's order;
- ``GET /api/games``: partnerships, phases, words, order and folded, as docs/protocol.md says.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from live_server import LiveServer

from server.bots import get_bot
from server.edges.rules_pages import load_rules
from server.games import Game, all_games
from server.groups import ledger, recap
from server.notify.events import YourTurn
from server.notify.push import payload
from server.rules.sampling import HAND_KEYS, SamplingError, reader_of, sample_state
from server.rules.words import LANGUAGES

GAMES = all_games()
pytestmark = pytest.mark.parametrize("game", GAMES, ids=[g.name for g in GAMES])
MAX_MOVES = 20_000  # more than any match of random moves takes: a guard, not a limit reached
# Options a match of random moves needs to end: random Spades bids are set hand after hand, so
# without a losing score the match would never reach its target.
ENDING_OPTIONS: dict[str, dict[str, Any]] = {"spades": {"lose_at": -200}}


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("contract"))
    yield server
    server.stop()


def match_moves(game: Game, seed: int, stop: int = MAX_MOVES):
    """(state, seat, view) before each move of a match of random legal moves, to its end or ``stop``."""
    rng = random.Random(seed)
    state = game.new_game(players=game.default_players, options=ENDING_OPTIONS.get(game.name), seed=seed)
    for _ in range(stop):
        actors = game.to_act(state)
        if not actors:
            return
        seat = actors[0]
        view = game.view(state, seat)
        yield state, seat, view
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))


def finished_match(game: Game, seed: int) -> Any:
    rng = random.Random(seed)
    state = game.new_game(players=game.default_players, options=ENDING_OPTIONS.get(game.name), seed=seed)
    for _ in range(MAX_MOVES):
        actors = game.to_act(state)
        if not actors:
            return state
        state = game.apply(state, actors[0], rng.choice(game.legal_actions(state, actors[0])))
    raise AssertionError(f"{game.name}: no end after {MAX_MOVES} random moves")


def test_a_random_match_ends_and_no_view_shows_another_seats_hand(game):
    players = game.default_players
    phases: set[str] = set()
    state = None
    for state, _seat, _view in match_moves(game, seed=7):
        hands = game.full_view(state)["hands"]
        for seat in range(players):
            view = game.view(state, seat)
            phases.add(view["phase"])
            assert "hands" not in view
            shown = Counter(view["hand"] or [])
            assert not shown - Counter(hands[seat]), (game.name, seat)  # only its own cards
        assert "hands" not in game.view(state, None)
    assert state is not None
    over = finished_match(game, seed=7)
    assert game.outcome(over) is not None and game.view(over, None)["phase"] in game.phases
    assert phases <= set(game.phases), phases - set(game.phases)  # every phase has its section


def test_every_legal_action_survives_the_rooms_canonical_form(game):
    """A room stores ``game.canonical_action`` of what a player sent: an action type or field the
    game forgot to declare in ``action_fields`` would be dropped or stored wrong."""
    kinds: set[str] = set()
    for state, seat, _view in match_moves(game, seed=11):
        for action in game.legal_actions(state, seat):
            assert game.canonical_action({**action, "note": "extra"}) == action, (game.name, action)
            kinds.add(action["type"])
    assert kinds <= set(game.action_fields), kinds - set(game.action_fields)


def test_easy_and_strong_bots_choose_legal_actions(game):
    easy = get_bot(game.name, random.Random(1))
    strong = get_bot(game.name, random.Random(1), "strong", samples=2)
    asked = 0
    for i, (state, seat, view) in enumerate(match_moves(game, seed=3, stop=400)):
        assert game.why_illegal(state, seat, easy.choose(view, view["legal"])) is None
        if i % 13 == 0:
            assert game.why_illegal(state, seat, strong.choose(view, view["legal"])) is None
            asked += 1
    assert asked >= 5


def test_the_strong_bots_sampler_deals_this_game(game):
    checked = 0
    for _state, seat, view in match_moves(game, seed=5, stop=300):
        if not view["log"] or len(view["legal"]) < 2:
            continue
        sample = sample_state(game, {}, view, seat, random.Random(checked))
        seen = game.view(sample, seat)
        assert all(seen.get(key) == view.get(key) for key in HAND_KEYS), game.name
        checked += 1
    assert checked >= 5
    # without its sampler a game has no Strong bot: an error, never a search that plays as Easy
    bare = type(game)(words=game.words, bots=None, page=game.page)
    with pytest.raises(TypeError, match="no sampler"):
        reader_of(bare)
    view = next(v for _s, _seat, v in match_moves(game, seed=5, stop=50) if v["log"])
    with pytest.raises(TypeError):
        sample_state(bare, {}, view, view["to_act"][0], random.Random(0))
    assert not issubclass(TypeError, SamplingError)  # the Strong bot's fallback never catches it


def test_the_ledger_reads_partnerships_and_contracts(game):
    players = game.default_players
    teams = game.teams(players)
    sides = [ledger.side_of(game.name, seat, players) for seat in range(players)]
    if teams is None:
        assert sides == list(range(players))
        assert not ledger.has_pairs(game.name)
    else:
        assert sorted(seat for team in teams for seat in team) == list(range(players))
        assert all(sides[seat] == number for number, team in enumerate(teams) for seat in team)
        assert ledger.has_pairs(game.name)
    records = game.hand_records(finished_match(game, seed=11))
    contracts = [game.contract(record) for record in records]
    if game.declarer_key is None:
        assert contracts == [None] * len(records)
    else:
        declared = [(r, c) for r, c in zip(records, contracts, strict=True) if c is not None]
        assert declared, game.name  # a whole match has hands with a contract
        for record, (seat, made) in declared:
            assert record[game.declarer_key] == seat and 0 <= seat < players
            assert made == (record["scores"][seat] > 0)


def test_recap_and_push_say_the_games_name_not_its_id(game):
    over = finished_match(game, seed=13)
    outcome = game.outcome(over)
    seats = [
        {
            "seat": s,
            "player_id": f"p{s}",
            "name": f"P{s}",
            "bot": False,
            "score": score,
            "winner": s in outcome["winners"],
        }
        for s, score in enumerate(outcome["scores"])
    ]
    hands = [r["scores"] for r in game.hand_records(over) if r.get("scores")]
    match = {
        "id": "m1",
        "game": game.name,
        "seats": seats,
        "hands": hands,
        "finished_at": datetime(2026, 1, 1, tzinfo=UTC),
    }
    night = recap.recap([match], {seat["player_id"]: seat["name"] for seat in seats})
    text = recap.recap_text("Friday", night, recap.titles())
    assert game.title in text and not re.search(rf"\b{game.name}\b", text), text
    assert night["best_hand"] and night["best_hand"]["game"] == game.name
    event = YourTurn(
        table="ABCD",
        game=game.name,
        host_name="Bea",
        players=("p",),
        names=("Ana",),
        watching=frozenset(),
        deadline=None,
        clock_s=0,
        version=1,
    )
    for lang in LANGUAGES:
        said = payload(event, lang)
        assert game.short_title in said["title"] and game.name not in said["title"], said


def test_the_rules_page_has_a_section_for_every_phase_and_option(game):
    page = load_rules()[game.name]
    ids = set(re.findall(r'id="([^"]+)"', page.html))
    assert game.phases and set(game.phases.values()) <= ids
    options = set(game.parse_options({}).model_dump())
    for phase, keys in game.house_phases.items():
        assert phase in game.phases and set(keys) <= options
    for key, words in game.words.options.items():
        titles = [t["title"].lower() for t in page.toc]
        assert any(t == words.section.lower() or t.startswith(f"{words.section.lower()}:") for t in titles), key


def test_every_option_has_words_in_every_language(game):
    defaults = game.parse_options({}).model_dump()
    assert set(game.words.options) == set(defaults)
    for key, words in game.words.options.items():
        for lang in LANGUAGES:
            said = words.said(lang)
            assert said.label.strip(), (key, lang)
            assert set(said.values) == set(words.en.values), (key, lang)
            assert all(text.strip() for text in said.values.values())
        assert words.pt.label != words.en.label, key  # really translated
    assert sorted(game.words.order) == sorted(defaults)
    assert game.words.folded <= set(defaults)


async def test_the_games_api_describes_the_game(game, live_server):
    async with httpx.AsyncClient(base_url=live_server.base) as http:
        listed = (await http.get("/api/games")).json()
    item = next(i for i in listed if i["name"] == game.name)
    teams = game.teams(game.default_players)
    assert item["partnerships"] == ([list(t) for t in teams] if teams else None)
    assert item["phases"] == dict(game.phases)
    options = set(game.parse_options({}).model_dump())
    assert item["order"] == list(game.words.order) and set(item["folded"]) == set(game.words.folded)
    assert set(item["words"]) == set(LANGUAGES)
    page_ids = {entry["id"] for entry in load_rules()[game.name].toc}
    for lang, words in item["words"].items():
        assert set(words) == options
        for key, said in words.items():
            assert said["label"] == game.words.options[key].said(lang).label
            assert said["section"] in page_ids
            for value, text in game.words.options[key].said(lang).values.items():
                assert said["values"][json.dumps(value)] == text
            if isinstance(game.parse_options({}).model_dump()[key], bool):
                assert set(said["values"]) >= {"true", "false"}
