"""A group's standings with 5,000 matches: how long the ledger takes to answer.

    .venv/bin/python -m bench.groups [--matches 5000] [--pg URL] [--repeat 30]

Builds a fresh database (a SQLite file; with ``--pg`` a PostgreSQL database it creates and
drops) holding one group of eight members whose tables stored ``--matches`` finished Oh Hell
matches over three seasons (four seats: members and bots), plus as many matches of another
group and of no group, then times what ``GET /api/groups/{code}/standings`` does (the sums over
``ix_group_ledger_lines_group_game_player`` and its meetings twin) for the
current season and for ``all``: p50 and max in ms, after a new match is stored and unchanged.
The process keeps nothing between answers, so each one is a first answer: the database adds
up the ledger lines and meetings of every match. On PostgreSQL the tables are vacuumed and
analyzed after the fill, as autovacuum does to tables this size. The issue's target: under
50 ms.
"""

from __future__ import annotations

import argparse
import random
import secrets
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from server.groups import ledger  # noqa: E402
from server.storage import groups, store  # noqa: E402
from server.storage.db import Database  # noqa: E402

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _record(rng: random.Random, room: str, ids: list[str], i: int) -> dict:
    seated = rng.sample(ids, 3) + [None]
    scores = [rng.randrange(0, 60) for _ in range(4)]
    top = max(scores)
    record = {
        "id": secrets.token_hex(8),
        "game": "oh_hell",
        "options": {},
        "seed": str(i),
        "commitment": "0" * 64,
        "dealer": 0,
        "room_code": room,
        "scores": scores,
        "winners": [s for s in range(4) if scores[s] == top],
        "players": [
            {"seat": s, "name": "Bot" if p is None else "P", "player_id": p, "bot": p is None}
            for s, p in enumerate(seated)
        ],
        "started_at": T0 + timedelta(minutes=i),
        "finished_at": T0 + timedelta(minutes=i, seconds=30),
    }
    return {**record, "ledger": ledger.of_record(record)}  # as the rooms make it


def fill(db: Database, matches: int) -> str:
    """The group measured (and a second group and table-less matches as noise)."""
    rng = random.Random(7)
    codes = []
    with db.session() as session:
        ids = [store.create_player(session, f"P{i}")[0].id for i in range(8)]
        for _ in range(2):
            made = groups.create_group(session, ids[0], "Club")
            for pid in ids[1:]:
                groups.join_group(session, made["code"], made["invite"], pid)
            groups.link_table(session, made["code"], f"T{made['code'][:6].upper()}", "oh_hell")
            codes.append(made["code"])
    for batch in range(0, matches, 250):
        with db.session() as session:
            for i in range(batch, min(batch + 250, matches)):
                if i in (matches // 3, 2 * matches // 3):
                    groups.close_season(session, codes[0])
                for room in (f"T{codes[0][:6].upper()}", f"T{codes[1][:6].upper()}", "NOGROUP"):
                    store.save_match(session, _record(rng, room, ids, i))
    return codes[0]


def _answer(session, code: str, number: int | None) -> dict:
    """What ``GET /standings`` does for one game: the members, then their ledger's sums."""
    members = {m["player_id"]: m["name"] for m in groups.members_of(session, code)}
    return ledger.standings_of_totals("oh_hell", *groups.ledger_totals(session, code, "oh_hell", number), members)


def measure(db: Database, code: str, season: str, repeat: int, how: str) -> list[tuple[float, float]]:
    """``new match``: a match stored at the group's table before each answer (not timed);
    ``unchanged``: the same answer again. Each answer's wall-clock time and this thread's CPU
    time (on SQLite all of the work; the wall clock also counts waiting for a busy machine's
    cores)."""
    rng, times = random.Random(11), []
    room = f"T{code[:6].upper()}"
    with db.session() as session:
        ids = [m["player_id"] for m in groups.members_of(session, code)]
    for i in range(repeat):
        if how == "new match":
            with db.session() as session:
                store.save_match(session, _record(rng, room, ids, 100_000 + i))
        start, cpu = time.perf_counter(), time.thread_time()
        with db.session() as session:
            number = None if season == "all" else groups.current_season(session, code)["number"]
            _answer(session, code, number)
        times.append(((time.perf_counter() - start) * 1000, (time.thread_time() - cpu) * 1000))
    return times


def run(url: str, label: str, matches: int, repeat: int) -> None:
    db = Database(url)
    try:
        db.upgrade()
        code = fill(db, matches)
        if db.engine.dialect.name == "postgresql":
            with db.engine.connect() as conn:
                conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("VACUUM ANALYZE")
        for season in ("current", "all"):
            for how in ("new match", "unchanged"):
                wall, cpu = zip(*measure(db, code, season, repeat, how), strict=True)
                print(
                    f"{label} standings season={season} {how} matches={matches}:"
                    f" p50 {statistics.median(wall):.1f} ms, max {max(wall):.1f} ms,"
                    f" cpu p50 {statistics.median(cpu):.1f} ms"
                )
    finally:
        db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--pg", help="a PostgreSQL server URL (a database is created on it and dropped)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(f"sqlite:///{Path(tmp) / 'groups.db'}", "sqlite", args.matches, args.repeat)
    if args.pg:
        server = make_url(args.pg)
        admin = server.set(drivername="postgresql").render_as_string(hide_password=False)
        name = f"felt_bench_groups_{secrets.token_hex(4)}"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        try:
            run(
                server.set(database=name).render_as_string(hide_password=False), "postgresql", args.matches, args.repeat
            )
        finally:
            with psycopg.connect(admin, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
