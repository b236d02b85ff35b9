"""``python -m bench.compare_diff OTHER_CHECKOUT``: diff + encode for four viewers, this checkout
against another one (say the commit before a change), on the same pairs of views.

The pairs come from ``bench/patches.py``'s random games (as ``bench/micro.py``'s do). For
every pair both checkouts' ``PatchFrames`` build the four frames (checked identical), timed
back to back in alternating order, eight repetitions each, five rounds; the figure is the
median of the per-pair ratios (this / other), which a shared machine's drifting load does not
move as it moves two separate runs.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import statistics
import sys
import time
import types
from pathlib import Path

from bench.patches import _play
from server.games import game_names
from server.rooms import fanout as ours

REPS = 8


def _other_fanout(checkout: str) -> types.ModuleType:
    """The other checkout's fanout module, bound to its own differ."""
    spec = importlib.util.spec_from_file_location("other_diff", f"{checkout}/server/rooms/diff.py")
    assert spec is not None and spec.loader is not None
    differ = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(differ)
    sys.modules["other_diff"] = differ
    source = Path(checkout, "server/rooms/fanout.py").read_text()
    module = types.ModuleType("other_fanout")
    exec(
        compile(source.replace("from server.rooms.diff import", "from other_diff import"), "other_fanout", "exec"),
        module.__dict__,
    )
    return module


def _time(
    module: types.ModuleType, olds: list, news: list, v: int, public: dict | None, seat_keys: tuple | None
) -> float:
    clock = time.thread_time_ns
    t0 = clock()
    for _ in range(REPS):
        frames = module.PatchFrames(v, public, seat_keys)
        for i in range(4):
            frames.frame(olds[i], news[i])
    return (clock() - t0) / REPS / 1000


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.compare_diff", description=__doc__.splitlines()[0])
    parser.add_argument("other", help="the other checkout's root folder")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    other = _other_fanout(args.other)
    every: dict[str, list[float]] = {"ours": [], "other": [], "ratio": []}
    for name in game_names():
        pairs = asyncio.run(_play(name, 200, seed=11, collect_every=1))["pairs"]
        got: dict[str, list[float]] = {"ours": [], "other": [], "ratio": []}
        for n in range(args.rounds):
            for olds, news, v, public, seat_keys, *_ in pairs:
                a, b = ours.PatchFrames(v, public, seat_keys), other.PatchFrames(v, public, seat_keys)
                assert all(a.frame(olds[i], news[i]) == b.frame(olds[i], news[i]) for i in range(4))
                order = (ours, other) if n % 2 == 0 else (other, ours)
                t = {m: _time(m, olds, news, v, public, seat_keys) for m in order}
                got["ours"].append(t[ours])
                got["other"].append(t[other])
                got["ratio"].append(t[ours] / t[other])
        for key in every:
            every[key] += got[key]
        print(
            f"{name}: {statistics.median(got['ours']):.1f} us against {statistics.median(got['other']):.1f} us, "
            f"median paired ratio {statistics.median(got['ratio']):.2f}",
            flush=True,
        )
    print(
        f"all: {statistics.median(every['ours']):.1f} us against {statistics.median(every['other']):.1f} us, "
        f"median paired ratio {statistics.median(every['ratio']):.2f}"
    )


if __name__ == "__main__":
    main()
