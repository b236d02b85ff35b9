"""``/api/matches``: history pages, whole records and replays, on a tiny app and on the real one."""

from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
from datetime import UTC, datetime, timedelta

import httpx
import jsonpatch
import pytest
from storage_helpers import with_occupant

from server.config import Settings
from server.edges.api import matches
from server.games import get_game
from server.rules.replay import replay
from server.storage import store

GAMES = ["oh_hell", "bid_whist", "tarbish", "ribs"]
SHORT = {"oh_hell": {"max_cards": 3}, "bid_whist": {"target": 7}, "tarbish": {"target": 150}, "ribs": {"target": 2}}
T0 = datetime(2026, 6, 1, 18, 30, tzinfo=UTC)


def random_record(game_name: str, seed: int, finished_at: datetime, player_ids=None) -> dict:
    """A finished match of random legal moves, shaped as the rooms submit it."""
    game = get_game(game_name)
    rng = random.Random(seed)
    state = game.new_game(players=game.default_players, options=SHORT[game_name], seed=seed, dealer=1)
    actions = []
    while acting := game.to_act(state):
        action = rng.choice(game.legal_actions(state, acting[0]))
        state = game.apply(state, acting[0], action)
        actions.append({"seat": acting[0], "action": action})
    outcome = game.outcome(state)
    n = game.default_players
    player_ids = player_ids or [None] * n
    return {
        "id": secrets.token_hex(8),
        "game": game_name,
        "options": SHORT[game_name],
        "seed": str(seed),
        "commitment": hashlib.sha256(str(seed).encode()).hexdigest(),
        "dealer": 1,
        "room_code": "ABCDEF",
        "players": [
            with_occupant(
                {
                    "seat": s,
                    "name": f"P{s}",
                    "player_id": player_ids[s],
                    "bot": player_ids[s] is None,
                    "level": "easy" if player_ids[s] is None else None,
                }
            )
            for s in range(n)
        ],
        "hands": game.hand_records(state),
        "actions": actions,
        "scores": outcome["scores"],
        "winners": outcome["winners"],
        "started_at": finished_at - timedelta(minutes=9),
        "finished_at": finished_at,
    }


ROUTER = matches.router


def save(db, record):
    with db.session() as session:
        store.save_match(session, record)


async def test_an_empty_history_is_an_empty_page(client):
    answer = await client.get("/api/matches")
    assert answer.status_code == 200
    assert answer.json() == {"matches": [], "next": None}


async def test_history_lists_summaries_newest_first_with_iso_times(client, db):
    records = [random_record(GAMES[i], 10 + i, T0 + timedelta(minutes=i)) for i in range(4)]
    for record in records:
        save(db, record)
    body = (await client.get("/api/matches")).json()
    assert [m["id"] for m in body["matches"]] == [r["id"] for r in reversed(records)]
    first = body["matches"][0]
    assert {"id", "game", "players", "scores", "winners", "finished_at"} <= set(first)
    bot = {"name": "P0", "player_id": None, "bot": True, "level": "easy"}
    assert first["players"][0] == {"seat": 0, **bot, "occupants": [{"from": 0, **bot}]}
    assert first["scores"] == records[-1]["scores"]
    stamp = datetime.fromisoformat(first["finished_at"].replace("Z", "+00:00"))
    assert stamp == records[-1]["finished_at"] and stamp.tzinfo is not None


async def test_history_pages_follow_the_next_cursor_without_gaps_or_repeats(client, db):
    ids = set()
    for i in range(9):
        record = random_record(GAMES[i % 4], 100 + i, T0 + timedelta(seconds=i // 3))  # ties in threes
        save(db, record)
        ids.add(record["id"])
    seen, cursor = [], None
    while True:
        params = {"limit": 2} | ({"before": cursor} if cursor else {})
        body = (await client.get("/api/matches", params=params)).json()
        seen += [m["id"] for m in body["matches"]]
        cursor = body["next"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 9 and set(seen) == ids


async def test_history_filters_by_player_and_game(client, db):
    with db.session() as session:
        ana = store.create_player(session, "Ana")[0].id
    mine = random_record("ribs", 5, T0, player_ids=[None, ana, None, None])
    save(db, mine)
    save(db, random_record("oh_hell", 6, T0 + timedelta(seconds=1)))
    body = (await client.get("/api/matches", params={"player": ana})).json()
    assert [m["id"] for m in body["matches"]] == [mine["id"]]
    body = (await client.get("/api/matches", params={"game": "oh_hell"})).json()
    assert [m["game"] for m in body["matches"]] == ["oh_hell"]
    body = (await client.get("/api/matches", params={"player": "nobody"})).json()
    assert body == {"matches": [], "next": None}


@pytest.mark.parametrize(
    "params, status, code",
    [
        ({"before": "not-a-cursor"}, 400, "bad_cursor"),
        ({"game": "poker"}, 400, "unknown_game"),
        ({"limit": 0}, 422, "invalid"),
        ({"limit": 101}, 422, "invalid"),
        ({"limit": "many"}, 422, "invalid"),
    ],
)
async def test_bad_history_queries_are_refused_in_the_error_shape(client, params, status, code):
    answer = await client.get("/api/matches", params=params)
    assert answer.status_code == status
    assert answer.json()["error"]["code"] == code


async def test_a_match_answers_with_its_whole_record(client, db):
    record = random_record("bid_whist", 77, T0)
    save(db, record)
    body = (await client.get(f"/api/matches/{record['id']}")).json()
    for key in ("id", "game", "options", "seed", "commitment", "dealer", "players", "actions", "scores", "winners"):
        assert body[key] == record[key], key
    assert [h["deal"] for h in body["hands"]] == [h["deal"] for h in record["hands"]]
    assert [h["scores"] for h in body["hands"]] == [h["scores"] for h in record["hands"]]
    assert all({"dealer", "deal", "scores"} <= set(h) for h in body["hands"])
    assert datetime.fromisoformat(body["started_at"].replace("Z", "+00:00")) == record["started_at"]
    assert isinstance(body["seed"], str)


@pytest.mark.parametrize("match_id", ["0123456789abcdef", "no such match", "x" * 300, "%00"])
async def test_an_unknown_or_malformed_match_id_is_a_json_404(client, match_id):
    for suffix in ("", "/replay"):
        answer = await client.get(f"/api/matches/{match_id}{suffix}")
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("game_name", GAMES)
async def test_the_replay_patches_from_the_deal_to_every_state_the_engine_computes(client, db, game_name):
    record = random_record(game_name, 2024, T0)
    save(db, record)
    body = (await client.get(f"/api/matches/{record['id']}/replay")).json()
    assert (body["id"], body["game"], body["seed"], body["dealer"]) == (record["id"], game_name, "2024", 1)
    assert body["count"] == len(body["steps"]) == len(record["actions"])
    assert [{"seat": s["seat"], "action": s["action"]} for s in body["steps"]] == record["actions"]
    game = get_game(game_name)
    views = [game.full_view(state) for state in replay(record)]
    assert body["first"] == views[0]
    doc = body["first"]
    for step, expected in zip(body["steps"], views[1:], strict=True):
        doc = jsonpatch.apply_patch(doc, step["ops"])  # the oracle: an independent RFC 6902 library
        assert doc == expected
    assert doc["phase"] == "over"


async def test_a_stored_match_that_no_longer_replays_is_a_clear_500(client, db):
    record = random_record("oh_hell", 3, T0)
    record["scores"] = [s + 5 for s in record["scores"]]
    save(db, record)
    answer = await client.get(f"/api/matches/{record['id']}/replay")
    assert answer.status_code == 500
    assert answer.json()["error"]["code"] == "replay_failed"


async def test_the_openapi_document_describes_every_matches_route(client):
    schema = client._transport.app.openapi()  # type: ignore[attr-defined]
    paths = schema["paths"]
    for path in ("/api/matches", "/api/matches/{match_id}", "/api/matches/{match_id}/replay"):
        ok = paths[path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert "$ref" in ok
    names = {p["name"] for p in paths["/api/matches"]["get"]["parameters"]}
    assert names == {"player", "game", "limit", "before"}
    record = schema["components"]["schemas"]["MatchRecord"]["properties"]
    assert {
        "id",
        "game",
        "options",
        "seed",
        "commitment",
        "dealer",
        "players",
        "hands",
        "actions",
        "scores",
        "winners",
        "started_at",
        "finished_at",
    } <= set(record)


# ---- the real application -------------------------------------------------------------------


async def _noop_close(code: int, reason: str) -> None:
    return None


async def test_a_bot_match_played_in_a_real_room_is_recorded_and_replays(tmp_path):
    from server.app import create_app
    from server.rooms import Connection

    settings = Settings(database_url=f"sqlite:///{tmp_path / 'app.db'}", bot_delay_ms=0)
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://felt") as client:
            assert (await client.get("/healthz")).json() == {"ok": True}
            host = (await client.post("/api/players", json={"name": "Host"})).json()
            created = await client.post(
                "/api/rooms",
                json={"game": "oh_hell", "options": {"max_cards": 2}, "seats": 4},
                headers={"Authorization": f"Bearer {host['token']}"},
            )
            assert created.status_code == 201, created.text
            room = app.state.rooms.get(created.json()["code"])
            conn = Connection(host["id"], "Host", _noop_close)
            await room.join(conn)
            await room.stand(conn)
            for seat in range(4):
                await room.set_bot(conn, seat, False)
            await room.start(conn)
            for _ in range(500):
                if room.status == "finished":
                    break
                await asyncio.sleep(0.01)
            assert room.status == "finished"
            await app.state.writer.flush()
            page = (await client.get("/api/matches", params={"game": "oh_hell"})).json()
            assert [m["id"] for m in page["matches"]] == [room.result["match_id"]]
            match_id = page["matches"][0]["id"]
            record = (await client.get(f"/api/matches/{match_id}")).json()
            assert record["room_code"] == room.code
            assert record["scores"] == room.result["scores"]
            assert hashlib.sha256(record["seed"].encode()).hexdigest() == record["commitment"]
            replayed = (await client.get(f"/api/matches/{match_id}/replay")).json()
            assert len(replayed["steps"]) == len(record["actions"])
            last = replayed["first"]
            for step in replayed["steps"]:
                last = jsonpatch.apply_patch(last, step["ops"])
            assert last["phase"] == "over"
            assert (await client.get("/api/matches/ffffffffffffffff")).status_code == 404
