"""What a playing room holds beyond its sockets, by owner: tracemalloc in a real server process.

``python -m bench.room_memory [--rooms 200] [--seconds 1] [--depth 30] [--top 25]``

The load part's setup (``bench/load.py``: ``python -m server`` on SQLite in a temporary folder,
its bench settings, one ``bench.load_client`` with rooms of four seated players), but the
server runs under tracemalloc (``--depth`` frames a block) and dumps a snapshot when asked (a
SIGUSR1; the first one starts tracing, once the server is up). Snapshots are taken, after a
full collection, with the rooms open and their players seated but not started (idle), then
after every room was started and played ``--seconds`` of a closed loop (playing), as
``bench.load``'s memory step does. Printed: what tracemalloc counts grown a room, and that
growth grouped by owner: the innermost frame in ``server/`` (with ``--frames K``, that many
frames of ``server/`` code from there outwards), with the line that made the largest share.
``--keep DIR`` keeps the snapshots (``tracemalloc.Snapshot.load``) and the server's log.

``--mallocstats``: no tracing; at both points ``sys._debugmallocstats()`` (pymalloc's arenas,
pools and size classes: under tracemalloc pymalloc is wrapped and says nothing) and the RSS,
whose growth a room is what ``memory.per_playing_room_beyond_sockets`` counts. The gap
between the traced growth and the RSS growth is the C heap and pymalloc's partly used pools.
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import psutil

from bench.common import ROOT
from bench.load import BENCH_SERVER_ENV, KIB, PY, Client, _free_port, _kill, _rss, _wait_port

SERVER_DIR = str(ROOT / "server") + os.sep


# ---- the server side: ``python -m bench.room_memory --serve DIR --port P`` ------------------


def serve(snap_dir: Path, port: int, depth: int, mallocstats: bool) -> None:
    """Run the server; the first SIGUSR1 starts tracemalloc (tracing the imports took minutes),
    each next one writes ``snap-N.pickle`` (``mallocstats``: ``malloc-N.txt`` instead) after a
    full collection; each writes ``snap-N.done`` when done."""
    taken = [-1]

    def dump(signum, frame) -> None:
        taken[0] += 1
        n = taken[0]
        if n == 0:
            if not mallocstats:
                tracemalloc.start(depth)
            (snap_dir / "snap-0.done").touch()
            return
        gc.collect()
        if tracemalloc.is_tracing():
            tracemalloc.take_snapshot().dump(str(snap_dir / f"snap-{n}.pickle"))
        else:
            sys.stderr.flush()
            saved = os.dup(2)  # it writes to the C stderr, not to sys.stderr
            with open(snap_dir / f"malloc-{n}.txt", "w") as out:
                os.dup2(out.fileno(), 2)
                try:
                    sys._debugmallocstats()
                finally:
                    os.dup2(saved, 2)
                    os.close(saved)
        (snap_dir / f"snap-{n}.done").touch()

    signal.signal(signal.SIGUSR1, dump)
    from server.__main__ import main

    main(["--port", str(port), "--log-level", "warning"])


# ---- the driver -------------------------------------------------------------------------


def _signal(proc: subprocess.Popen, snap_dir: Path, n: int, timeout: float = 300.0) -> None:
    proc.send_signal(signal.SIGUSR1)
    done = snap_dir / f"snap-{n}.done"
    deadline = time.monotonic() + timeout
    while not done.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the server answered no signal {n}")
        time.sleep(0.1)


def _own(snapshot: tracemalloc.Snapshot) -> tracemalloc.Snapshot:
    return snapshot.filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen importlib._bootstrap*>")]
    )


def owner(tb: tracemalloc.Traceback, frames: int) -> tuple[str, ...]:
    """The innermost ``frames`` frames in server/ code (else the innermost frame)."""
    ours = [f for f in reversed(tb) if f.filename.startswith(SERVER_DIR)]  # innermost first
    if not ours:
        f = tb[-1] if len(tb) else None
        return (f"{f.filename}:{f.lineno}" if f else "?",)
    return tuple(f"{os.path.relpath(f.filename, ROOT)}:{f.lineno}" for f in ours[:frames])


def by_owner(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, frames: int) -> list[tuple]:
    """(owner, bytes grown, blocks grown, the innermost line of the largest share), largest first."""
    diffs = after.compare_to(before, "traceback")
    grown: dict = collections.defaultdict(lambda: [0, 0, collections.Counter()])
    for d in diffs:
        key = owner(d.traceback, frames)
        g = grown[key]
        g[0] += d.size_diff
        g[1] += d.count_diff
        inner = d.traceback[-1] if len(d.traceback) else None
        if inner is not None:
            g[2][f"{os.path.relpath(inner.filename, ROOT)}:{inner.lineno}"] += d.size_diff
    rows = [(k, s, c, lines.most_common(1)[0][0] if lines else "") for k, (s, c, lines) in grown.items()]
    return sorted(rows, key=lambda r: -r[1])


def measure(rooms: int, seconds: float, depth: int, frames: int, top: int, mallocstats: bool, keep: str | None) -> dict:
    workdir = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="felt-room-memory-"))
    workdir.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir / 'bench.db'}", **BENCH_SERVER_ENV}
    args = [PY, "-m", "bench.room_memory", "--serve", str(workdir), "--port", str(port), "--depth", str(depth)]
    server_log = open(workdir / "felt-server.log", "w")  # noqa: SIM115 (closed below, with the server)
    proc = subprocess.Popen(
        [*args, *(["--mallocstats"] if mallocstats else [])],
        cwd=ROOT,
        env=env,
        stdout=server_log,
        stderr=subprocess.STDOUT,
    )
    client = None
    try:
        _wait_port(port, proc, timeout=60)
        p = psutil.Process(proc.pid)
        client = Client("felt", port, workdir / "felt-client.log", "oh_hell,bid_whist,tarbish,ribs")
        _signal(proc, workdir, 0)  # traced from here: the rooms' growth, not the imports
        client.rpc({"cmd": "grow", "rooms": rooms, "start": False}, timeout=1800)
        time.sleep(0.5)
        _signal(proc, workdir, 1)
        rss_idle = _rss(p)
        client.rpc({"cmd": "start"}, timeout=900)
        client.rpc({"cmd": "run", "mode": "closed", "rooms": rooms, "seconds": seconds, "warmup": 0.0}, timeout=600)
        time.sleep(0.5)
        _signal(proc, workdir, 2)
        rss_playing = _rss(p)
    finally:
        if client is not None:
            client.stop()
        _kill(proc)
        server_log.close()
    print(f"room_memory: {rooms} rooms of four, {seconds:g} s of closed loop")
    out: dict = {"rss_kib": (rss_playing - rss_idle) / rooms / KIB}
    if mallocstats:
        print(f"  RSS growth a playing room: {out['rss_kib']:.1f} KiB")
        for n in (1, 2):
            lines = (workdir / f"malloc-{n}.txt").read_text().splitlines()
            totals = [x for x in lines if x.startswith(("# arenas", "# bytes in", "Total"))]
            print(f"  pymalloc, {'idle' if n == 1 else 'playing'}: " + "; ".join(" ".join(x.split()) for x in totals))
    else:
        idle = _own(tracemalloc.Snapshot.load(str(workdir / "snap-1.pickle")))
        playing = _own(tracemalloc.Snapshot.load(str(workdir / "snap-2.pickle")))
        out.update(_owners(idle, playing, rooms, frames, top))
    if keep is None:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        print(f"  kept: {workdir} (1: idle, 2: playing; the server's log)")
    return out


def _owners(idle: tracemalloc.Snapshot, playing: tracemalloc.Snapshot, rooms: int, frames: int, top: int) -> dict:
    traced = sum(s.size for s in playing.statistics("filename")) - sum(s.size for s in idle.statistics("filename"))
    rows = by_owner(idle, playing, frames)
    print(f"  traced growth a playing room: {traced / rooms / KIB:.1f} KiB (the Python heap, as tracemalloc sees it)")
    print(f"  {'KiB/room':>9} {'blocks/room':>11}  owner (innermost server/ frame first) | largest line")
    for key, size, count, line in rows[:top]:
        print(f"  {size / rooms / KIB:9.2f} {count / rooms:11.1f}  {' < '.join(key)} | {line}")
    rest = sum(r[1] for r in rows[top:])
    print(f"  {rest / rooms / KIB:9.2f} {'':11}  ({len(rows) - top} other owners)")
    return {"traced_kib": traced / rooms / KIB, "owners": rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.room_memory", description=__doc__.split("\n")[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=1.0, help="of closed loop after the start")
    parser.add_argument("--depth", type=int, default=30, help="tracemalloc's frames a block")
    parser.add_argument("--frames", type=int, default=1, help="server/ frames that name an owner")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--mallocstats", action="store_true", help="no tracing: pymalloc's statistics and the RSS")
    parser.add_argument("--keep", metavar="DIR", help="keep the snapshots and logs there")
    parser.add_argument("--serve", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(Path(args.serve), args.port, args.depth, args.mallocstats)
        return
    measure(args.rooms, args.seconds, args.depth, args.frames, args.top, args.mallocstats, args.keep)


if __name__ == "__main__":
    main()
