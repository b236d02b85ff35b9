"""Helpers shared by the storage tests: real random matches and their records."""

from __future__ import annotations

import hashlib
import random
import secrets
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa

from server.games import all_games, get_game
from server.groups import ledger
from server.storage.db import Database
from server.storage.models import Base

GAMES = ["oh_hell", "bid_whist", "tarbish", "ribs"]
# Short options keep random whole matches quick; the defaults get their own runs too.
SHORT_OPTIONS = {
    "oh_hell": {"max_cards": 3},
    "bid_whist": {"target": 7},
    "tarbish": {"target": 150},
    "ribs": {"target": 2},
}


# ---- matches -------------------------------------------------------------------------------


def play_random_match(game_name: str, seed: int, options: dict | None = None, players: int | None = None):
    """A whole match of random legal moves: (game, final state, action log, every state)."""
    game = get_game(game_name)
    rng = random.Random(seed)
    players = players or game.default_players
    dealer = rng.randrange(players)
    state = game.new_game(players=players, options=options or {}, seed=seed, dealer=dealer)
    states = [state]
    actions = []
    while True:
        acting = game.to_act(state)
        if not acting:
            break
        seat = acting[0]
        action = rng.choice(game.legal_actions(state, seat))
        state = game.apply(state, seat, action)
        actions.append({"seat": seat, "action": action})
        states.append(state)
    return game, dealer, actions, states


def make_record(
    game_name: str = "oh_hell",
    seed: int | None = None,
    *,
    options: dict | None = None,
    finished_at: datetime | None = None,
    player_ids: list[str | None] | None = None,
    match_id: str | None = None,
    players: int | None = None,
) -> dict:
    """A realistic finished-match record, exactly as the rooms hand it to the recorder
    (``players``: the seat count, the game's default when None)."""
    if seed is None:
        seed = random.Random().getrandbits(128)
    if options is None:
        options = SHORT_OPTIONS[game_name]
    game, dealer, actions, states = play_random_match(game_name, seed, options, players)
    final = states[-1]
    outcome = game.outcome(final)
    n = game.players(final)
    player_ids = player_ids or [None] * n
    finished_at = finished_at or datetime.now(UTC)
    seed_text = str(seed)
    seats = [
        {
            "seat": s,
            "name": f"Player {s}",
            "player_id": player_ids[s],
            "bot": player_ids[s] is None,
            # as a room records it: a bot seat's level, None for a person
            "level": ("strong" if s % 2 else "easy") if player_ids[s] is None else None,
        }
        for s in range(n)
    ]
    record = {
        "id": match_id or secrets.token_hex(8),
        "game": game_name,
        "options": dict(options),
        "seed": seed_text,
        "commitment": hashlib.sha256(seed_text.encode()).hexdigest(),
        "dealer": dealer,
        "room_code": "KQ7RMX",
        "players": [with_occupant(seat) for seat in seats],
        "hands": game.hand_records(final),
        "actions": actions,
        "scores": outcome["scores"],
        "winners": outcome["winners"],
        "started_at": finished_at - timedelta(minutes=7),
        "finished_at": finished_at,
    }
    return with_ledger(record)


def with_occupant(seat: dict) -> dict:
    """A seat as a room records it: with its one occupant, who made every decision from 0."""
    return {**seat, "occupants": [{"from": 0, **{k: seat[k] for k in ("name", "player_id", "bot", "level")}}]}


def with_ledger(record: dict) -> dict:
    """A hand-made record with its rows in a group's ledger, as the rooms make every record."""
    return {**record, "ledger": ledger.of_record(record)}


def copy_record(record: dict, **changes) -> dict:
    """The same match under a new id (and any other changes), its ledger rows made again (none
    for a game that does not exist: no room could have made its record)."""
    out = dict(record)
    out["id"] = secrets.token_hex(8)
    out["players"] = [dict(p) for p in record["players"]]
    out.update(changes)
    known = out["game"] in {game.name for game in all_games()}
    return with_ledger(out) if known else {**out, "ledger": None}


def table_counts(db: Database) -> dict[str, int]:
    with db.engine.connect() as conn:
        return {
            t.name: conn.execute(sa.select(sa.func.count()).select_from(t)).scalar_one()
            for t in Base.metadata.sorted_tables
        }


class Told:
    """A writer's reports (``WriterReports``), passed on to the test's own callables."""

    def __init__(self, durable=None, conflict=None) -> None:
        self._durable = durable or (lambda code, version: None)
        self._conflict = conflict or (lambda code: None)

    def durable(self, code: str, version: int) -> None:
        self._durable(code, version)

    def conflict(self, code: str) -> None:
        self._conflict(code)
