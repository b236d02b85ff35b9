"""The replay endpoint on a 20,000-action match: the server's memory and its event loop.

``.venv/bin/python -m bench.replay`` starts a real server (``FELT_LOOP_MONITOR=1``), stores a
10-seat Ribs session of random legal actions (tests/edges/test_replay_live.py makes it), and
asks for its replay: cold (built), warm (cached) and four at once. It prints the body's size
per action, the peak resident memory's growth over the resident memory before the request,
and the loop's worst lag during the request beside its worst lag over as long idle (what
the shared machine itself adds). The bounds: +50 MB and 50 ms.
"""

from __future__ import annotations

import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "edges"))

from live_server import LiveServer
from test_replay_live import long_ribs_record, memory_kb

from server.storage import store
from server.storage.db import Database


def lag_ms(client: httpx.Client) -> float:
    return client.get("/healthz").json()["loop_block_max_ms"]


def measure(server: LiveServer, client: httpx.Client, paths: list[str]) -> dict:
    lag_ms(client)
    rss = memory_kb(server.proc.pid, "VmRSS")
    start = time.monotonic()
    with ThreadPoolExecutor(len(paths)) as pool:
        answers = list(pool.map(lambda p: httpx.get(server.base + p, timeout=300), paths))
    took = time.monotonic() - start
    during = lag_ms(client)
    time.sleep(took)
    idle = lag_ms(client)
    assert all(a.status_code == 200 for a in answers), [a.status_code for a in answers]
    grew = (memory_kb(server.proc.pid, "VmHWM") - rss) / 1024
    return {
        "seconds": took,
        "lag_ms": during,
        "idle_lag_ms": idle,
        "rss_growth_mb": grew,
        "bytes": len(answers[0].content),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp), FELT_LOOP_MONITOR="1")
        try:
            db = Database(f"sqlite:///{Path(tmp) / 'felt.db'}")
            records = []
            for seed in range(11, 40):  # a random session to 30 is usually, not always, 20,000 long
                if len(records) < 4:
                    try:
                        records.append(long_ribs_record(seed))
                    except AssertionError:
                        continue
            with db.session() as session:
                for record in records:
                    store.save_match(session, record)
            db.dispose()
            n = min(len(r["actions"]) for r in records)
            with httpx.Client(base_url=server.base, timeout=300) as client:
                for label, paths in (
                    ("cold", [f"/api/matches/{records[0]['id']}/replay"]),
                    ("cached", [f"/api/matches/{records[0]['id']}/replay"]),
                    ("four at once", [f"/api/matches/{r['id']}/replay" for r in records]),
                ):
                    m = measure(server, client, paths)
                    print(
                        f"replay {label:12} {n} actions: {m['bytes'] / n:.0f} B/action, {m['seconds']:.2f} s, "
                        f"peak RSS +{m['rss_growth_mb']:.1f} MB, worst loop lag {m['lag_ms']:.1f} ms "
                        f"(idle beside it: {m['idle_lag_ms']:.1f} ms)"
                    )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
