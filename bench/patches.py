"""Patch size, measured with real ``Room`` objects in-process (no sockets).

Four connections join a room per game, sit, start, and play uniformly random legal actions.
After every action each connection's patch frame (exactly the text the server queues) is
compared with the snapshot frame that connection would get at the same version. A trick's
end is the action that lays the last card of a trick; a hand's end (the next hand is dealt
in the same patch) is counted apart. The same loop, under cProfile, gives an in-process
profile of the room's hot path (``Room.act`` -> apply, views, diff, encode, push).
"""

from __future__ import annotations

import asyncio
import cProfile
import pstats
import random
import time

import orjson

from bench.common import figure, median, pct
from server.config import Settings
from server.games import game_names
from server.rooms import Connection, RoomManager
from server.rooms.fanout import compose
from server.storage.writer import MemoryWriter

PLAY_TYPES = ("play", "ribs", "pair")


async def _closer(code: int, reason: str) -> None:
    pass


async def _play(
    game_name: str, max_actions: int, seed: int, profiler: cProfile.Profile | None = None, collect_every: int = 0
) -> dict:
    settings = Settings(
        bot_delay_ms=0, max_open_rooms_per_player=1_000_000, send_queue_limit=1_000_000, table_log=False
    )
    mgr = RoomManager(settings, MemoryWriter)
    rng = random.Random(seed)
    out = {"ratios": [], "bytes": [], "snap": [], "trick_end": [], "hand_end": [], "act_us": [], "pairs": []}
    actions = 0
    while actions < max_actions:
        room = mgr.create(game_name, {}, 4, False, "p0", "Player 0")
        conns = [Connection(f"p{i}", f"Player {i}", _closer, limit=1_000_000) for i in range(4)]
        for c in conns:
            await room.join(c)
        for i in (1, 2, 3):
            await room.sit(conns[i], i)
        await room.start(conns[0])
        for c in conns:
            while not c.queue.empty():
                c.queue.get_nowait()
        game = room.game
        while room.status == "playing" and actions < max_actions:
            seat = game.to_act(room.state)[0]
            legal = game.legal_actions(room.state, seat)
            action = rng.choice(legal)
            before = game.view(room.state, seat)
            trick_before = len(before.get("trick") or [])
            hands_before = len(before.get("history") or [])
            olds = [c.view for c in conns]
            old_wholes = [room.sent_view(c) for c in conns]
            if profiler is not None:
                profiler.enable()
                await room.act(conns[seat], action, room.version)
                profiler.disable()
            else:
                t0 = time.thread_time_ns()
                await room.act(conns[seat], action, room.version)
                out["act_us"].append((time.thread_time_ns() - t0) / 1000)
            actions += 1
            if collect_every and actions % collect_every == 0:
                # The views the room diffed: never mutated after they are built, safe to keep.
                # What each connection kept before and its whole view after (what PatchFrames
                # is given), the public view, and both whole views for the jsonpatch baseline.
                out["pairs"].append(
                    (
                        olds,
                        [compose(room.table, c, {}) for c in conns],
                        room.version,
                        room.table.public_view(),
                        room.table.seat_keys,
                        old_wholes,
                        [room.sent_view(c) for c in conns],
                    )
                )
            after = game.view(room.state, seat)
            hand_end = len(after.get("history") or []) > hands_before
            trick_end = action.get("type") in PLAY_TYPES and trick_before == 3 and not hand_end
            for c in conns:
                frame = c.queue.get_nowait()
                size = len(frame.encode())
                snap = len(orjson.dumps({"type": "snapshot", "v": room.version, "state": room.sent_view(c)}))
                ratio = size / snap
                out["ratios"].append(ratio)
                out["bytes"].append(size)
                out["snap"].append(snap)
                if trick_end:
                    out["trick_end"].append(ratio)
                if hand_end:
                    out["hand_end"].append(ratio)
        await room.close()
    out["actions"] = actions
    return out


def run_patches(quick: bool, log=print) -> tuple[dict, list[dict]]:
    per_game = 600 if quick else 5000
    raw: dict = {}
    figs: list[dict] = []
    profiler = cProfile.Profile()
    for name in game_names():
        r = asyncio.run(_play(name, per_game, seed=7))
        s = {
            "actions": r["actions"],
            "frames": len(r["ratios"]),
            "median_ratio": median(r["ratios"]),
            "p99_ratio": pct(r["ratios"], 99),
            "median_bytes": median(r["bytes"]),
            "p99_bytes": pct(r["bytes"], 99),
            "median_snapshot_bytes": median(r["snap"]),
            "trick_end_frames": len(r["trick_end"]),
            "trick_end_median_ratio": median(r["trick_end"]),
            "hand_end_median_ratio": median(r["hand_end"]),
            "room_act_us_median": median(r["act_us"]),
            "room_act_us_mean": sum(r["act_us"]) / len(r["act_us"]),
            "room_act_us_p99": pct(r["act_us"], 99),
        }
        raw[name] = s
        log(
            f"  patches {name}: median {s['median_bytes']:.0f} B = {s['median_ratio']:.1%} "
            f"of {s['median_snapshot_bytes']:.0f} B, p99 {s['p99_ratio']:.1%}, "
            f"trick end {s['trick_end_median_ratio'] or 0:.1%}; Room.act {s['room_act_us_median']:.0f} us"
        )
        figs.append(
            figure(
                f"patch.{name}.median_ratio",
                s["median_ratio"],
                "of snapshot",
                target="<= 0.10",
                passed=s["median_ratio"] <= 0.10,
                median_bytes=s["median_bytes"],
                snapshot_bytes=s["median_snapshot_bytes"],
            )
        )
        figs.append(figure(f"patch.{name}.p99_ratio", s["p99_ratio"], "of snapshot", p99_bytes=s["p99_bytes"]))
        te = s["trick_end_median_ratio"]
        figs.append(
            figure(
                f"patch.{name}.trick_end_median_ratio",
                te,
                "of snapshot",
                target="<= 0.25",
                passed=te is not None and te <= 0.25,
                frames=s["trick_end_frames"],
            )
        )
        figs.append(
            figure(
                f"patch.{name}.hand_end_median_ratio",
                s["hand_end_median_ratio"],
                "of snapshot",
                note="the next hand is dealt in the same patch",
            )
        )
        figs.append(
            figure(
                f"room.{name}.act_us_median",
                s["room_act_us_median"],
                "CPU us/action",
                mean=s["room_act_us_mean"],
                p99=s["room_act_us_p99"],
                note="in-process Room.act: validate, apply, 4 views, diffs, encode, queue (no sockets)",
            )
        )
    total_actions = 0
    for name in game_names():
        total_actions += asyncio.run(_play(name, per_game // 4, seed=8, profiler=profiler))["actions"]
    stats = pstats.Stats(profiler)
    rows = []
    for (file, lineno, func), (_, nc, tt, ct, _) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append((tt, ct, nc, f"{func} ({_short(file)}:{lineno})"))
    rows.sort(reverse=True)
    raw["cprofile_room_act"] = {
        "actions": total_actions,
        "top_tottime_us_per_action": [
            {
                "frame": name,
                "tottime_us": tt / total_actions * 1e6,
                "cumtime_us": ct / total_actions * 1e6,
                "calls_per_action": nc / total_actions,
            }
            for tt, ct, nc, name in rows[:20]
        ],
        "note": "cProfile inflates small calls; use the shares, not the absolute microseconds",
    }
    return raw, figs


def _short(path: str) -> str:
    for marker in ("/work/main/", "site-packages/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path.rsplit("/", 1)[-1]
