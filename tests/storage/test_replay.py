"""Replays: a stored match rebuilds, state by state, into exactly the match that was played."""

from __future__ import annotations

import hashlib

import httpx
import jsonpatch
import pytest
from fastapi import FastAPI
from storage_helpers import GAMES, SHORT_OPTIONS, copy_record, make_record, play_random_match

from server.edges.api import matches
from server.edges.api.errors import install_error_handlers
from server.edges.api.matches import replay_builder
from server.edges.api.replays import BodyCache, Replays, ReplayWorkers
from server.rules.replay import ReplayError, replay
from server.storage import store

SEEDS = [7, 2**100 + 3, 424242]


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("seed", SEEDS)
def test_a_stored_random_match_replays_to_every_state_that_was_played(db, game_name, seed):
    game, dealer, actions, states = play_random_match(game_name, seed, SHORT_OPTIONS[game_name])
    record = make_record(game_name, seed)
    assert record["actions"] == actions and record["dealer"] == dealer
    with db.session() as session:
        store.save_match(session, record)
    with db.session() as session:
        back = store.get_match(session, record["id"])
    rebuilt = replay(back)
    assert len(rebuilt) == len(actions) + 1
    assert [game.full_view(s) for s in rebuilt] == [game.full_view(s) for s in states]


@pytest.mark.parametrize("game_name", GAMES)
def test_a_match_with_the_rules_default_options_replays_too(sqlite_db, game_name):
    record = make_record(game_name, 99, options={})
    with sqlite_db.session() as session:
        store.save_match(session, record)
    with sqlite_db.session() as session:
        back = store.get_match(session, record["id"])
    states = replay(back)
    assert len(states) == len(record["actions"]) + 1


def test_a_record_whose_scores_were_altered_does_not_replay(template_records):
    record = copy_record(template_records["oh_hell"])
    record["scores"] = [s + 1 for s in record["scores"]]
    with pytest.raises(ReplayError, match="scores"):
        replay(record)


def test_a_record_whose_seed_does_not_match_its_commitment_does_not_replay(template_records):
    record = copy_record(template_records["bid_whist"], seed="12345")
    with pytest.raises(ReplayError, match="commitment"):
        replay(record)


def test_a_record_with_a_different_seed_and_matching_commitment_does_not_replay(template_records):
    seed = str(int(template_records["tarbish"]["seed"]) + 1)
    record = copy_record(template_records["tarbish"], seed=seed, commitment=hashlib.sha256(seed.encode()).hexdigest())
    with pytest.raises(ReplayError):
        replay(record)


def test_a_truncated_action_log_does_not_replay(template_records):
    record = copy_record(template_records["ribs"])
    record["actions"] = record["actions"][:-1]
    with pytest.raises(ReplayError, match="ends before"):
        replay(record)


def test_a_record_of_an_unknown_game_does_not_replay(template_records):
    with pytest.raises(ReplayError):
        replay(copy_record(template_records["ribs"], game="poker"))


@pytest.fixture
def replay_workers(db):
    workers = ReplayWorkers(db.url.render_as_string(hide_password=False), 1)
    yield workers
    workers.close()


def _app(db, workers: ReplayWorkers) -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(matches.router, prefix="/api")
    app.state.db = db
    app.state.replays = Replays(replay_builder(workers), builds=1, queue=4, cache=BodyCache(4, 2**24))
    return app


@pytest.mark.parametrize("game_name", GAMES)
async def test_a_match_read_back_over_http_replays_to_the_final_position(db, replay_workers, game_name):
    game, _, actions, states = play_random_match(game_name, 31337, SHORT_OPTIONS[game_name])
    record = make_record(game_name, 31337)
    with db.session() as session:
        store.save_match(session, record)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=_app(db, replay_workers)), base_url="http://t"
    ) as client:
        got = (await client.get(f"/api/matches/{record['id']}")).json()
        answer = await client.get(f"/api/matches/{record['id']}/replay")
    assert got["actions"] == actions
    assert int(got["seed"]) == int(record["seed"])
    final = replay(got)[-1]
    assert game.full_view(final) == game.full_view(states[-1])
    assert answer.status_code == 200
    body = answer.json()
    assert body["id"] == record["id"] and body["game"] == game_name
    assert len(body["steps"]) == len(actions)
    last = body["first"]
    for step in body["steps"]:
        last = jsonpatch.apply_patch(last, step["ops"])
    assert last == game.full_view(states[-1])
