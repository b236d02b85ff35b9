"""Storage benchmark: how fast finished matches are written, and how fast a history page reads.

    .venv/bin/python bench/storage.py [--quick] [--matches N] [--pg URL | --no-pg] [--write]

For SQLite (a fresh file) and PostgreSQL (a fresh database it creates and drops) it writes
N finished matches (10,000; 1,000 with --quick) made from real random games of every engine
(a few hundred played, then copied under new ids, players and times):

- half through the real ``DatabaseWriter`` (matches queued while one batch commits go in the
  next batch, written from its worker process), while a ticker task on the event loop samples
  every 1 ms: matches/s and the loop's stalls. A stall is a tick that came late; the part of it
  the recorder can be blamed for is bounded by the CPU time this process's *other* threads (the
  recorder's and the executor's, the only ones that can hold the GIL the loop needs) used during
  that gap. The loop's own work for the recorder is timed by each piece's CPU time: one
  ``record`` call (``submit_cpu_max_ms``); the task that drives the worker process (it encodes
  each batch) shows in ``loop_busy_*``. The larger of these and of the other threads' bound is
  the figure (``event_loop_blocked_max_ms``). ``loop_busy_*`` bounds each late tick by the
  loop's own CPU time in it: that sums whatever ran in one gap (a submit and a writer step may
  share one), so it is reported beside the figure, not as it. On a shared machine a tick is also
  late whenever the OS runs something else, which the same ticker shows with nothing being
  written (``idle_wall_stall_max_ms``) and which no code of ours can cause or cure;
- half through ``store.save_match`` directly, batched 100 matches per transaction: matches/s;
- then the latency (p50/p99) of one player's history page, ``list_matches(player=..., limit=20)``.

Prints one line per figure and merges them into latest.json under "storage" (bench/results/
with ``--write``, else the ignored bench/results/local/).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import hashlib
import random
import secrets
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from bench.common import add_write_flag, merge_results  # noqa: E402
from server.app import GC_THRESHOLDS  # noqa: E402
from server.config import normalize_database_url  # noqa: E402
from server.games import game_names, get_game  # noqa: E402
from server.storage import store  # noqa: E402
from server.storage.db import Database  # noqa: E402
from server.storage.dbwriter import DatabaseWriter  # noqa: E402

DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PLAYERS = 300
BATCH = 100


def play(game_name: str, seed: int) -> dict:
    """One whole match of random legal moves with the rules' default options, as a record."""
    game = get_game(game_name)
    rng = random.Random(seed)
    players = game.default_players
    dealer = rng.randrange(players)
    state = game.new_game(players=players, options={}, seed=seed, dealer=dealer)
    actions = []
    while acting := game.to_act(state):
        action = rng.choice(game.legal_actions(state, acting[0]))
        state = game.apply(state, acting[0], action)
        actions.append({"seat": acting[0], "action": action})
    outcome = game.outcome(state)
    return {
        "game": game_name,
        "options": {},
        "seed": str(seed),
        "commitment": hashlib.sha256(str(seed).encode()).hexdigest(),
        "dealer": dealer,
        "hands": game.hand_records(state),
        "actions": actions,
        "scores": outcome["scores"],
        "winners": outcome["winners"],
        "player_count": players,
    }


def templates(count: int) -> list[dict]:
    rng = random.Random(2026)
    names = game_names()
    return [play(names[i % len(names)], rng.getrandbits(128)) for i in range(count)]


def make_records(n: int, pool: list[dict], player_ids: list[str], rng: random.Random) -> list[dict]:
    """``n`` distinct matches: a template under a new id, with 1-3 pool players, spread over a year."""
    start = datetime(2026, 1, 1, tzinfo=UTC)
    out = []
    for _ in range(n):
        t = rng.choice(pool)
        count = t["player_count"]
        humans = dict.fromkeys(rng.sample(range(count), rng.randint(1, min(3, count))))
        for seat in humans:
            humans[seat] = rng.choice(player_ids)
        finished = start + timedelta(seconds=rng.randrange(365 * 86400))
        out.append(
            {
                **{k: v for k, v in t.items() if k != "player_count"},
                "id": secrets.token_hex(8),
                "room_code": "BENCH1",
                "players": [
                    {"seat": s, "name": f"Player {s}", "player_id": humans.get(s), "bot": s not in humans}
                    for s in range(count)
                ],
                "started_at": finished - timedelta(minutes=rng.randint(5, 40)),
                "finished_at": finished,
            }
        )
    return out


async def through_recorder(db: Database, records: list[dict]) -> dict:
    """Submit every record to a real MatchRecorder; time it and watch the loop's stalls.

    The collector is set as the server sets it (``server.app``: survivors frozen, young
    collections every 50,000 allocations), or its passes over the thousand records held
    here would be counted as the recorder's.
    """
    gc.collect()
    gc.freeze()
    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        return await _through_recorder(db, records)
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


async def _through_recorder(db: Database, records: list[dict]) -> dict:
    # As the server runs it: the writer's worker process, its spool in a scratch folder.
    spool = Path(tempfile.mkdtemp()) / "spool.jsonl"
    recorder = DatabaseWriter(db.url.render_as_string(hide_password=False), spool)
    await recorder.start()
    stalls: list[float] = []
    blamed: list[float] = []
    busy: list[float] = []
    stop = False
    me = threading.get_ident()

    def others_cpu() -> float:
        """CPU seconds used so far by this process's threads other than the loop's."""
        total = 0.0
        for t in threading.enumerate():
            if t.ident is not None and t.ident != me and t.is_alive():
                # the thread may end between enumerate and the clock read
                with contextlib.suppress(OSError, ProcessLookupError):
                    total += time.clock_gettime(time.pthread_getcpuclockid(t.ident))
        return total

    async def ticker() -> None:
        last = time.perf_counter()
        last_cpu = others_cpu()
        last_own = time.thread_time()
        while not stop:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            cpu = others_cpu()
            own = time.thread_time()
            late = now - last - 0.001  # beyond the 1 ms it asked to sleep
            stalls.append(late)
            blamed.append(max(0.0, min(late, cpu - last_cpu)))
            busy.append(max(0.0, min(late, own - last_own)))
            last, last_cpu, last_own = now, cpu, own

    tick = asyncio.create_task(ticker())
    # The machine's own noise first: the same ticker for 2 s with nothing being written.
    await asyncio.sleep(2.0)
    baseline = sorted(stalls)
    stalls.clear()
    blamed.clear()
    busy.clear()
    start = time.perf_counter()
    submit_max = submit_cpu_max = 0.0
    for record in records:
        t0, c0 = time.perf_counter(), time.thread_time()
        recorder.record(record)
        submit_cpu_max = max(submit_cpu_max, time.thread_time() - c0)
        submit_max = max(submit_max, time.perf_counter() - t0)
        # Rooms finish matches one at a time: a burst of submits in one loop turn would make
        # the ticker late by the burst itself and blame the writer thread's parallel work.
        await asyncio.sleep(0)
    await recorder.flush(timeout=3600)
    elapsed = time.perf_counter() - start
    stop = True
    await tick
    await recorder.close()
    stalls.sort()
    blamed.sort()
    busy.sort()
    return {
        "recorder_matches_per_s": len(records) / elapsed,
        # The loop's own steps for the writer are in loop_busy (it only exchanges bytes now).
        "event_loop_blocked_max_ms": max(blamed[-1], submit_cpu_max) * 1000,
        "loop_busy_max_ms": busy[-1] * 1000,
        "loop_busy_p99_ms": busy[int(len(busy) * 0.99)] * 1000,
        "submit_max_ms": submit_max * 1000,
        "submit_cpu_max_ms": submit_cpu_max * 1000,
        "recorder_loop_stall_max_ms": blamed[-1] * 1000,
        "recorder_loop_stall_p99_ms": blamed[int(len(blamed) * 0.99)] * 1000,
        "wall_stall_max_ms": stalls[-1] * 1000,
        "wall_stall_p999_ms": stalls[int(len(stalls) * 0.999)] * 1000,
        "wall_stall_p99_ms": stalls[int(len(stalls) * 0.99)] * 1000,
        "wall_stall_p50_ms": stalls[len(stalls) // 2] * 1000,
        "idle_wall_stall_max_ms": baseline[-1] * 1000,
        "idle_wall_stall_p999_ms": baseline[int(len(baseline) * 0.999)] * 1000,
        "idle_wall_stall_p99_ms": baseline[int(len(baseline) * 0.99)] * 1000,
        "switch_interval_ms": sys.getswitchinterval() * 1000,
    }


def batched(db: Database, records: list[dict]) -> dict:
    start = time.perf_counter()
    for i in range(0, len(records), BATCH):
        with db.session() as session:
            for record in records[i : i + BATCH]:
                store.save_match(session, record)
    elapsed = time.perf_counter() - start
    return {"batched_matches_per_s": len(records) / elapsed}


def history_latency(db: Database, player_ids: list[str], rng: random.Random, samples: int = 300) -> dict:
    first, second = [], []
    for _ in range(samples):
        player = rng.choice(player_ids)
        t0 = time.perf_counter()
        with db.session() as session:
            _page, cursor = store.list_matches(session, player=player, limit=20)
        first.append(time.perf_counter() - t0)
        if cursor:
            t0 = time.perf_counter()
            with db.session() as session:
                store.list_matches(session, player=player, limit=20, before=cursor)
            second.append(time.perf_counter() - t0)
    first.sort()
    second.sort() if second else None
    return {
        "history_page_p50_ms": first[len(first) // 2] * 1000,
        "history_page_p99_ms": first[int(len(first) * 0.99)] * 1000,
        "history_next_page_p50_ms": (second[len(second) // 2] * 1000) if second else None,
    }


def run_backend(label: str, url: str, n: int, pool: list[dict]) -> dict:
    db = Database(url)
    try:
        db.upgrade()
        with db.session() as session:
            player_ids = [store.create_player(session, f"Bencher {i}")[0].id for i in range(PLAYERS)]
        rng = random.Random(7)
        records = make_records(n, pool, player_ids, rng)
        half = n // 2
        figures = {"backend": db.describe(), "matches": n}
        figures.update(asyncio.run(through_recorder(db, records[:half])))
        figures.update(batched(db, records[half:]))
        with db.session() as session:
            stored = len(store.list_matches(session, limit=100)[0])
        assert stored == min(100, n)
        figures.update(history_latency(db, player_ids, rng))
        figures["actions_per_match"] = sum(len(r["actions"]) for r in records) / n
    finally:
        db.dispose()
    for key, value in figures.items():
        if isinstance(value, float):
            print(f"storage {label:8s} {key:28s} {value:12.2f}")
        else:
            print(f"storage {label:8s} {key:28s} {value!s:>12}")
    return figures


def fresh_pg_database(server_url: str) -> tuple[str, callable]:
    url = make_url(normalize_database_url(server_url))
    admin_dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    name = f"felt_bench_{secrets.token_hex(5)}"
    with psycopg.connect(admin_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(admin_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    return url.set(database=name).render_as_string(hide_password=False), drop


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1,000 matches instead of 10,000")
    parser.add_argument("--matches", type=int, default=None)
    parser.add_argument("--templates", type=int, default=None, help="real random games to play first")
    parser.add_argument("--pg", default=DEFAULT_PG, help="PostgreSQL server URL (a fresh database is made)")
    parser.add_argument("--no-pg", action="store_true")
    add_write_flag(parser)
    args = parser.parse_args(argv)
    n = args.matches or (1000 if args.quick else 10000)
    t0 = time.perf_counter()
    pool = templates(args.templates or (80 if args.quick else 240))
    print(f"storage played {len(pool)} template matches in {time.perf_counter() - t0:.1f} s")
    figures: dict = {"when": datetime.now(UTC).isoformat(timespec="seconds"), "matches": n}
    with tempfile.TemporaryDirectory() as tmp:
        figures["sqlite"] = run_backend("sqlite", f"sqlite:///{tmp}/bench.db", n, pool)
    if not args.no_pg:
        url, drop = fresh_pg_database(args.pg)
        try:
            figures["postgres"] = run_backend("postgres", url, n, pool)
        finally:
            drop()
    merge_results({"storage": figures}, args.write)
    return figures


if __name__ == "__main__":
    main()
