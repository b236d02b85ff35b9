"""Micro-benchmark: diff + encode for the four viewers of one action, on real game states.

The pairs of views come from real ``Room`` objects playing random games (``bench/patches.py``):
for each sampled action, the four connections' composed views (room, seats, you, game, chat,
result) just before and just after it, exactly as the fan-out diffs them. Timed:
``server.rooms.fanout.PatchFrames`` for the four connections (what ``fan_out`` uses:
the operations shared by every connection are found and encoded once, each connection's own
ones apart, and spliced into its frame), in this thread's CPU time; the baseline diffs each
connection's whole view with ``jsonpatch.make_patch`` and encodes it with ``orjson.dumps``.
"""

from __future__ import annotations

import asyncio
import time

import orjson

from bench.common import figure, median, pct
from bench.patches import _play
from server.games import game_names
from server.rooms.fanout import PatchFrames


def _time_ours(pairs: list, reps: int) -> list[float]:
    out = []
    clock = time.thread_time_ns
    for olds, news, v, public, seat_keys, *_ in pairs:
        t0 = clock()
        for _ in range(reps):
            frames = PatchFrames(v, public, seat_keys)
            for i in range(4):
                frames.frame(olds[i], news[i])
        out.append((clock() - t0) / reps / 1000)
    return out


def _time_jsonpatch(pairs: list, reps: int) -> list[float]:
    import jsonpatch

    out = []
    dumps = orjson.dumps
    clock = time.thread_time_ns
    for _, _, v, _, _, olds, news in pairs:
        t0 = clock()
        for _ in range(reps):
            for i in range(4):
                dumps({"type": "patch", "v": v, "ops": jsonpatch.make_patch(olds[i], news[i]).patch})
        out.append((clock() - t0) / reps / 1000)
    return out


def run_micro(quick: bool, log=print) -> tuple[dict, list[dict]]:
    actions = 200 if quick else 1000
    reps = 8 if quick else 30
    raw: dict = {}
    figs: list[dict] = []
    all_ours: list[float] = []
    all_jp: list[float] = []
    for name in game_names():
        pairs = asyncio.run(_play(name, actions, seed=11, collect_every=1))["pairs"]
        ours = _time_ours(pairs, reps)
        jp = _time_jsonpatch(pairs[:: 5 if quick else 4], 1)
        all_ours += ours
        all_jp += jp
        raw[name] = {
            "pairs": len(pairs),
            "ours_us_median": median(ours),
            "ours_us_p99": pct(ours, 99),
            "ours_us_mean": sum(ours) / len(ours),
            "jsonpatch_us_median": median(jp),
            "jsonpatch_us_p99": pct(jp, 99),
        }
        r = raw[name]
        log(
            f"  micro {name}: diff+encode x4 {r['ours_us_median']:.1f} us (p99 {r['ours_us_p99']:.1f}), "
            f"jsonpatch {r['jsonpatch_us_median']:.0f} us"
        )
        figs.append(
            figure(
                f"micro.{name}.diff_encode_4_viewers_us",
                r["ours_us_median"],
                "CPU us/action",
                baseline=r["jsonpatch_us_median"],
                ratio=r["ours_us_median"] / r["jsonpatch_us_median"],
                target="<= 20 us",
                passed=r["ours_us_median"] <= 20,
                p99=r["ours_us_p99"],
                mean=r["ours_us_mean"],
            )
        )
    m, mj = median(all_ours), median(all_jp)
    raw["all"] = {"ours_us_median": m, "ours_us_p99": pct(all_ours, 99), "jsonpatch_us_median": mj}
    figs.insert(
        0,
        figure(
            "micro.diff_encode_4_viewers_us",
            m,
            "CPU us/action",
            baseline=mj,
            ratio=m / mj,
            target="<= 20 us",
            passed=m <= 20,
            p99=pct(all_ours, 99),
            note="baseline: jsonpatch.make_patch + orjson for the same four pairs",
        ),
    )
    return raw, figs
