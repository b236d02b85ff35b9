"""Capacity: how many seated players one core of server CPU carries at a human pace.

``python -m bench.capacity [--quick]`` (or the ``capacity`` part of ``python -m bench.run``).
The servers and load clients of ``bench/load.py``: Felt (the table log on, SQLite) and the bare
broadcast server pinned to core 0, one load-client process for each on core 1. Tables of four
seated players each make one decision every 2 s, each turn moved by up to a quarter of a period
either way (open loop, ``load_client``'s ``period`` and ``jitter``). Rooms are added level by
level on both servers; at each level the bare server and Felt run back to back (order
alternating), until Felt's p99 act->patch passes 100 ms (over bare's in the same pair: the
machine's own delay taken out), its process is saturated (95% of its core, counting the time
its loop was ready but waited while other work held the core) or the time is up. A level over
a limit runs once more and is judged by its better run: other tenants only ever add to either.

The figure: seated players over the cores of server CPU they took (Felt: its process and the
writer's worker), at the largest level within both limits, and the same for bare in the same
run. At 500 and 1,000 rooms both servers also run at 1 move a second, for the latency Felt adds
over bare at a human pace. The load client must not be the limit: each run reports the client
process's CPU over its wall time, and a level whose client took more than ``CLIENT_LIMIT`` of
its core is flagged. Absolute figures need a quiet machine; the ratios to bare are what a
shared one can tell.

``python -m bench.capacity --cluster [--quick] [--no-single] [--write]`` (alone, not a part of
``bench.run``: it needs PostgreSQL, Redis and HAProxy): the same ramp on one and two Felt nodes
behind HAProxy (``bench.cluster``'s ``Setup``, each with a fresh database and Redis prefix) and
one Felt process on PostgreSQL for reference, each with its own load client connected to its
HAProxy, all against the same bare server. Every Felt process and writer worker runs on core 0,
HAProxy and the load clients on core 1: two nodes share one core, so the figure is CPU a seated
player costs when the tables are split over two nodes, and ``capacity.cluster.ratio_2_to_1`` what
that split costs against one node (a second machine buys about twice one node's players times it,
while the CPU is the limit). A mode leaves the ramp at its first level over a limit; the others go
on. HAProxy's CPU and the whole Redis server's are reported apart and not counted.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.common import (
    ROOT,
    add_write_flag,
    figure,
    fmt,
    line,
    median,
    now_iso,
    process_cpu,
    results_path,
    tree_cpu,
    write_json,
)
from bench.load import Client, Servers, _profile

PERIOD_S = 2.0  # one decision a table every 2 s
JITTER = 0.25  # of a period, either way
P99_LIMIT_MS = 100.0
SATURATED = 0.95  # of the server process's core
CLIENT_LIMIT = 0.8  # of the load client's core: above it, the client may be what limits
HUMAN_LEVELS = (500, 1000)  # rooms at 1 move a second: Felt's added latency over bare
GAMES = "oh_hell,bid_whist,tarbish,ribs"
PROFILE_LEVEL = 1000  # rooms: in the full ramp, py-spy on Felt at this level, at the ramp's pace


@dataclass
class Target:
    """A server under load: its load client, and its processes (one a node), whose CPU with their
    children's (the writer workers) is the server's; a cluster's HAProxy is measured apart."""

    name: str
    client: Client
    pids: list[int]
    proxy: int | None = None


def _sched(pid: int) -> tuple[float, float]:
    """Seconds the process's main thread (the event loop) has run, and waited runnable for a
    core (``/proc/PID/schedstat``; zeros where there is none)."""
    try:
        ran, waited, _ = Path(f"/proc/{pid}/schedstat").read_text().split()
    except (OSError, ValueError):
        return 0.0, 0.0
    return int(ran) / 1e9, int(waited) / 1e9


def _redis_cpu() -> float:
    """CPU seconds of the whole Redis server (``INFO cpu``): every client's, not only the bench's."""
    import redis

    from bench.cluster import REDIS_URL

    with contextlib.closing(redis.Redis.from_url(REDIS_URL)) as r:
        info = r.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def _run(target: Target, rooms: int, seconds: float, period: float, seed: int) -> dict:
    trees0 = [tree_cpu([pid]) for pid in target.pids]
    s0 = [_sched(pid) for pid in target.pids]
    x0 = (process_cpu(target.proxy)[0], _redis_cpu()) if target.proxy else None
    cmd = {
        "cmd": "run",
        "mode": "open",
        "rooms": rooms,
        "seconds": seconds,
        "warmup": min(period, 1.0),
        "seed": seed,
        "drain": 3.0,
        "period": period,
        "jitter": JITTER,
    }
    out = target.client.rpc(cmd, timeout=seconds + 60)
    trees1 = [tree_cpu([pid]) for pid in target.pids]
    s1 = [_sched(pid) for pid in target.pids]
    wall = out["client_wall_s"] or 1.0
    ran = [b[0] - a[0] for a, b in zip(s0, s1, strict=True)]
    waited = [b[1] - a[1] for a, b in zip(s0, s1, strict=True)]
    # Saturated is wanting the whole core: the time a loop ran plus the time it was ready and
    # waited for the core (the shared machine's other work, or another node on it) over the wall.
    out["server_wait_share"] = max(waited) / wall
    out["server_demand"] = max(r + w for r, w in zip(ran, waited, strict=True)) / wall
    # The processes alone (the nodes share one core: their sum is that core's share): the
    # saturation check; with their workers: the figure's cores.
    out["server_cpu_util"] = sum(b[0] - a[0] for a, b in zip(trees0, trees1, strict=True)) / wall
    out["node_tree_cpu_util"] = [(sum(b) - sum(a)) / wall for a, b in zip(trees0, trees1, strict=True)]
    out["server_tree_cpu_util"] = sum(out["node_tree_cpu_util"])
    if x0 is not None and target.proxy is not None:
        out["proxy_cpu_util"] = (process_cpu(target.proxy)[0] - x0[0]) / wall
        out["redis_cpu_util"] = (_redis_cpu() - x0[1]) / wall
    out["lost_frames"] = out["lost"] + out["out_of_order"] + out["diverged_rooms"] + out["patch_failures"]
    return out


def _round(targets: list[Target], rooms: int, seconds: float, period: float, rep: int) -> dict[str, dict]:
    """One run of each target back to back, the order turned by one every repeat (two targets:
    bare first, then Felt first)."""
    k = rep % len(targets)
    return {t.name: _run(t, rooms, seconds, period, seed=rep + 1) for t in targets[k:] + targets[:k]}


def _judge(pairs: list[dict], name: str = "felt") -> tuple[float, float]:
    """A level's p99 and CPU demand (run plus wait for the core) for the limits: the best of its runs, since a shared
    machine's other work only ever adds to either. The p99 is Felt's over bare's in the same
    pair: on a quiet machine bare's is a few ms, so the limit is Felt's own 100 ms; on a busy
    one bare's p99 (tens of ms at load average 10 on 2 cores) is the machine's delay, not Felt's.
    A run that measured no move at all has no p99 within any limit."""
    p99 = min(
        (p[name]["p99_ms"] if p[name]["p99_ms"] is not None else float("inf")) - (p["bare"]["p99_ms"] or 0.0)
        for p in pairs
    )
    return p99, min(max(p[name]["server_cpu_util"], p[name]["server_demand"]) for p in pairs)


def _within(p99_over_bare: float, demand: float) -> bool:
    return p99_over_bare <= P99_LIMIT_MS and demand < SATURATED


def _per_core(run: dict) -> float | None:
    cores = run["server_tree_cpu_util"]
    return 4 * run["rooms"] / cores if cores > 0 else None


def _ramp(
    result: dict,
    bare: Target,
    felts: list[Target],
    plan: list[int],
    seconds: float,
    reps: int,
    log: Callable[[str], None],
    deadline: float | None,
    each_level: Callable[[int, list[Target]], None] | None = None,
    after_runs: Callable[[int], None] | None = None,
) -> None:
    """Open rooms level by level on bare and every Felt target still in the ramp, and run them
    back to back at a decision a table every ``PERIOD_S``. A Felt target leaves the ramp at its
    first level over a limit (judged by the better of two rounds); the ramp ends when none is left,
    at the plan's end, or when the next level would not fit before ``deadline``."""
    live = list(felts)
    result["left"] = {}
    per_room_s = 0.06
    prev = 0
    for n in plan:
        running = [bare, *live]
        need = (n - prev) * per_room_s + reps * len(running) * (seconds + 5)
        if deadline is not None and time.monotonic() + need > deadline:
            result["stopped_by"] = f"time: {n} rooms would not fit"
            break
        t0 = time.monotonic()
        retried = {}
        for t in running:  # one at a time: all at once, core 0 kept HAProxy's checks unanswered
            grown = t.client.rpc({"cmd": "grow", "rooms": n, "start": True}, timeout=1800)
            retried[t.name] = grown.get("create_retries", 0)
        result.setdefault("create_retries", {})[str(n)] = retried  # rooms asked for again after a 503
        per_room_s = max(per_room_s, (time.monotonic() - t0) / max(1, n - prev))
        prev = n
        log(
            f"  capacity: {n} rooms ({4 * n} seated players) open on each server ({time.monotonic() - t0:.0f}s)"
            + (f"; rooms asked for again after a 503, so far: {retried}" if any(retried.values()) else "")
        )
        if each_level is not None:
            each_level(n, running)
        pairs = [_round(running, n, seconds, PERIOD_S, rep) for rep in range(reps)]
        if not all(_within(*_judge(pairs, t.name)) for t in live):  # once more: the other tenants only add to either
            pairs.append(_round(running, n, seconds, PERIOD_S, reps))
        level: dict = {"rooms": n, "players": 4 * n, "pairs": pairs}
        level["client_cpu_util"] = max(r["client_cpu_util"] for p in pairs for r in p.values())
        for t in live:
            runs = [p[t.name] for p in pairs]
            p99, util = _judge(pairs, t.name)
            level.update(
                {
                    f"{t.name}_p99_over_bare_ms": p99,
                    f"{t.name}_cpu_util": util,
                    f"{t.name}_p99_ms": min((r["p99_ms"] for r in runs if r["p99_ms"] is not None), default=None),
                    f"{t.name}_within": _within(p99, util),
                    f"{t.name}_lost_frames": sum(r["lost_frames"] for r in runs),
                    f"{t.name}_errors": sum((collections.Counter(r["errors"]) for r in runs), collections.Counter()),
                }
            )
            apart = ""
            if "proxy_cpu_util" in runs[0]:
                apart = (
                    f", HAProxy {median([r['proxy_cpu_util'] for r in runs]):.0%}, Redis (all of it) "
                    f"{median([r['redis_cpu_util'] for r in runs]):.0%}"
                )
            log(
                f"  capacity: {n} rooms every {PERIOD_S:g} s: {t.name} p99 {fmt(level[f'{t.name}_p99_ms'])} ms "
                f"(+{fmt(p99)} over bare), CPU {median([r['server_cpu_util'] for r in runs]):.0%} of its core, "
                f"waiting for it {median([r['server_wait_share'] for r in runs]):.0%}"
                f" ({median([r['server_tree_cpu_util'] for r in runs]):.0%} with the worker{apart}), "
                f"lost {level[f'{t.name}_lost_frames']}"
                + (f", errors {dict(level[f'{t.name}_errors'])}" if level[f"{t.name}_errors"] else "")
            )
            if not level[f"{t.name}_within"]:
                result["left"][t.name] = (
                    f"p99 {fmt(p99)} ms over bare > {P99_LIMIT_MS:g} ms"
                    if p99 > P99_LIMIT_MS
                    else f"CPU demand {util:.0%}"
                ) + f" at {n} rooms"
        log(
            f"  capacity: {n} rooms: bare CPU {median([p['bare']['server_cpu_util'] for p in pairs]):.0%}; "
            f"client CPU {level['client_cpu_util']:.0%}"
            + (" (the client may be the limit)" if level["client_cpu_util"] > CLIENT_LIMIT else "")
        )
        if after_runs is not None:
            after_runs(n)
        level["within"] = any(level[f"{t.name}_within"] for t in live)
        result["levels"].append(level)
        live = [t for t in live if level[f"{t.name}_within"]]
        if not live:
            result["stopped_by"] = "; ".join(f"{name}: {why}" for name, why in result["left"].items())
            if len(felts) == 1:
                result["stopped_by"] = result["left"][felts[0].name]
            break
    if deadline is not None and result["stopped_by"] == "the plan's last level":
        result["stopped_by"] = "the plan's last level, within both limits"


def _new_result(plan: list[int], seconds: float, reps: int, **parts: dict) -> dict:
    """A ramp's results before its first level: its plan, and ``parts`` to fill."""
    return {
        "plan": {"levels": plan, "seconds": seconds, "repeats": reps, "period_s": PERIOD_S, "jitter": JITTER},
        "levels": [],
        **parts,
        "stopped_by": "the plan's last level",
        "loadavg_start": os.getloadavg(),
    }


def run_capacity(quick: bool, log=print, deadline: float | None = None) -> dict:
    """Ramp until a limit or ``deadline`` (time.monotonic); every level's pairs in ``levels``."""
    if quick:
        plan, seconds, reps = [250, 500, 1000, 1500], 4.0, 1
    else:
        plan, seconds, reps = [500, 1000, 2000, 3000, 4500, 6000, 8000], 10.0, 2
    human_s = 3.0 if quick else 6.0
    workdir = Path(tempfile.mkdtemp(prefix="felt-capacity-"))
    result = _new_result(plan, seconds, reps, human={})
    srv = None
    try:
        srv = Servers(workdir, GAMES)
        assert srv.bare_client is not None and srv.felt_client is not None and srv.felt is not None
        bare = Target("bare", srv.bare_client, [srv.bare.pid])
        felt = Target("felt", srv.felt_client, [srv.felt.pid])

        def human(n: int, running: list[Target]) -> None:
            if n not in HUMAN_LEVELS:
                return
            pairs = [_round(running, n, human_s, 1.0, rep) for rep in range(reps)]
            result["human"][str(n)] = pairs
            for p in pairs:
                log(
                    f"  capacity: {n} rooms x 1 move/s: felt p50 {fmt(p['felt']['p50_ms'])} "
                    f"p99 {fmt(p['felt']['p99_ms'])} ms | bare p50 {fmt(p['bare']['p50_ms'])} "
                    f"p99 {fmt(p['bare']['p99_ms'])} ms"
                )

        def profile(n: int) -> None:
            if n == PROFILE_LEVEL and not quick:
                result["profile"] = _human_profile(srv, felt, n, seconds, workdir)

        _ramp(result, bare, [felt], plan, seconds, reps, log, deadline, human, profile)
    except Exception as err:
        result["error"] = repr(err)
        log(f"  capacity: FAILED {err!r}")
    finally:
        if srv is not None:
            srv.stop()
        if os.environ.get("BENCH_KEEP"):
            result["workdir"] = str(workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    result["loadavg_end"] = os.getloadavg()
    return result


def _human_profile(srv: Servers, felt: Target, rooms: int, seconds: float, workdir: Path) -> dict:
    """Where Felt's CPU goes at the ramp's pace: py-spy on its process during one more run."""

    def load() -> dict:
        run = _run(felt, rooms, seconds, PERIOD_S, seed=77)
        moves = run["actions_per_s"] or 0.0
        run["server_cpu_us_per_move"] = run["server_cpu_util"] / moves * 1e6 if moves else None
        return run

    try:
        return _profile(srv, rooms, seconds, workdir, load=load)
    except Exception as err:  # the profile is a reading, never the reason a ramp fails
        return {"error": repr(err)}


def _added(pairs: list[dict], key: str) -> float | None:
    diffs = [
        p["felt"][key] - p["bare"][key] for p in pairs if p["felt"][key] is not None and p["bare"][key] is not None
    ]
    return median(diffs) if diffs else None


def capacity_figures(res: dict) -> list[dict]:
    figs: list[dict] = []
    if res.get("error"):
        figs.append(figure("capacity.error", None, "", note=res["error"]))
    levels = res.get("levels", [])
    within = [lv for lv in levels if lv["within"]]
    quiet = "absolute figures need a quiet machine; the ratio to bare is the figure to read"
    if within:
        top = within[-1]
        felt = median([_per_core(p["felt"]) or 0.0 for p in top["pairs"]])
        bare = median([_per_core(p["bare"]) or 0.0 for p in top["pairs"]])
        ratio = felt / bare if bare else None
        cpu = median([p["felt"]["server_tree_cpu_util"] for p in top["pairs"]])
        figs.append(
            figure(
                "capacity.human.players_per_core",
                felt,
                "players/core",
                baseline=bare,
                ratio=ratio,
                target=">= 25,000 and >= 0.5x bare",
                passed=felt >= 25_000 and ratio is not None and ratio >= 0.5,
                players=top["players"],
                felt_cores=cpu,
                felt_wait_share=median([p["felt"].get("server_wait_share", 0.0) for p in top["pairs"]]),
                felt_p99_ms=top["felt_p99_ms"],
                stopped_by=res.get("stopped_by"),
                client_cpu_util=top["client_cpu_util"],
                note=f"{top['players']} seated players on {cpu:.2f} cores of Felt's CPU; stopped by "
                f"{res.get('stopped_by')}; {quiet}",
            )
        )
        figs.append(
            figure(
                "capacity.human.players_within_limits",
                top["players"],
                "players",
                note=f"the most seated players measured within p99 <= bare + {P99_LIMIT_MS:g} ms and CPU < "
                f"{SATURATED:.0%}; stopped by {res.get('stopped_by')}",
            )
        )
    else:
        figs.append(
            figure(
                "capacity.human.players_per_core",
                None,
                "players/core",
                target=">= 25,000 and >= 0.5x bare",
                passed=None,
                note=f"no level within the limits ({res.get('stopped_by')})",
            )
        )
    runs = [p[t] for lv in levels for p in lv["pairs"] for t in ("felt", "bare")]
    runs += [p[t] for pairs in res.get("human", {}).values() for p in pairs for t in ("felt", "bare")]
    if runs:
        lost = sum(r["lost_frames"] for r in runs)
        client = max(r["client_cpu_util"] for r in runs)
        figs.append(figure("capacity.human.lost_frames", lost, "frames", target="0", passed=lost == 0))
        figs.append(
            figure(
                "capacity.human.client_cpu_util_max",
                client,
                "of a core",
                target=f"< {CLIENT_LIMIT:g} (the load generator is not the limit)",
                passed=client < CLIENT_LIMIT,
            )
        )
    for n in HUMAN_LEVELS:
        pairs = res.get("human", {}).get(str(n))
        for q, lim in (("p50", 1.0), ("p99", 5.0)):
            name = f"capacity.human.{n}.{q}_added_ms"
            if not pairs:
                figs.append(figure(name, None, "ms", target=f"<= bare + {lim:g} ms", passed=None, note="not run"))
                continue
            added = _added(pairs, f"{q}_ms")
            figs.append(
                figure(
                    name,
                    added,
                    "ms over bare",
                    baseline=median([p["bare"][f"{q}_ms"] for p in pairs]),
                    target=f"<= bare + {lim:g} ms",
                    passed=added is not None and added <= lim,
                    felt_ms=median([p["felt"][f"{q}_ms"] for p in pairs]),
                )
            )
    return figs


# Cluster mode: each mode's name, its figures' tag, its nodes, and whether Redis and HAProxy run.
CLUSTER_MODES = (("single", "single", 1, False), ("cluster-1", "1", 1, True), ("cluster-2", "2", 2, True))


def run_cluster_capacity(quick: bool, log=print, deadline: float | None = None, single: bool = True) -> dict:
    """The ramp on one and two Felt nodes behind HAProxy (cluster mode: PostgreSQL, Redis), and
    on one Felt process on PostgreSQL without either (``single``), each with its own database,
    Redis prefix and load client, against bare: every mode holds its rooms at once and the
    modes run back to back at each level, so the ratio of two nodes to one is taken in one window."""
    from bench.cluster import Setup, fresh_database

    if quick:
        plan, seconds, reps = [500, 1000, 1500], 4.0, 1
    else:  # HAProxy holds two descriptors a socket: 2,000 rooms is near this machine's 20,000
        plan, seconds, reps = [500, 1000, 1500, 2000], 10.0, 2
    workdir = Path(tempfile.mkdtemp(prefix="felt-capacity-cluster-"))
    result = _new_result(plan, seconds, reps, spread={})
    try:
        with contextlib.ExitStack() as stack:
            srv = Servers(workdir, GAMES, felt=False)
            stack.callback(srv.stop)
            assert srv.bare_client is not None
            bare = Target("bare", srv.bare_client, [srv.bare.pid])
            felts: list[Target] = []
            setups: dict[str, Setup] = {}
            for name, _tag, nodes, cluster in CLUSTER_MODES:
                if name == "single" and not single:
                    continue
                url = stack.enter_context(fresh_database())
                folder = workdir / name
                folder.mkdir()
                setup = setups[name] = Setup(folder, url, nodes, cluster, maxconn=4 * max(plan) + 500)
                stack.callback(setup.stop)
                port = int(setup.start().rsplit(":", 1)[1])
                client = Client("felt", port, folder / "client.log", GAMES)
                stack.callback(client.stop)
                felts.append(Target(name, client, setup.node_pids, setup.haproxy.pid if setup.haproxy else None))

            def spread(n: int, running: list[Target]) -> None:
                """Where the tables are: the node each lease names."""
                held = {t.name: setups[t.name].owners() for t in running if t.proxy is not None}
                result["spread"][str(n)] = held
                log(f"  capacity: {n} rooms, tables per node: {held}")

            _ramp(result, bare, felts, plan, seconds, reps, log, deadline, spread)
    except Exception as err:
        result["error"] = repr(err)
        log(f"  capacity: FAILED {err!r}")
    finally:
        if os.environ.get("BENCH_KEEP"):
            result["workdir"] = str(workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    result["loadavg_end"] = os.getloadavg()
    return result


def cluster_figures(res: dict) -> list[dict]:
    """Seated players per core of each mode at its largest level within both limits; two nodes'
    over one node's at the largest level both were within; every level's p99 and lost frames."""
    figs: list[dict] = []
    if res.get("error"):
        figs.append(figure("capacity.cluster.error", None, "", note=res["error"]))
    levels = res.get("levels", [])
    left = res.get("left", {})
    for name, tag, _nodes, _cluster in CLUSTER_MODES:
        if not any(f"{name}_within" in lv for lv in levels):
            continue
        within = [lv for lv in levels if lv.get(f"{name}_within")]
        fig_name = f"capacity.cluster.{tag}.players_per_core"
        if not within:
            figs.append(figure(fig_name, None, "players/core", note=f"no level within the limits ({left.get(name)})"))
            continue
        top = within[-1]
        runs = [p[name] for p in top["pairs"]]
        cores = median([r["server_tree_cpu_util"] for r in runs])
        apart = {k: median([r[k] for r in runs]) for k in ("proxy_cpu_util", "redis_cpu_util") if k in runs[0]}
        figs.append(
            figure(
                fig_name,
                median([_per_core(r) or 0.0 for r in runs]),
                "players/core",
                baseline=median([_per_core(p["bare"]) or 0.0 for p in top["pairs"]]),
                players=top["players"],
                felt_cores=cores,
                p99_ms=top[f"{name}_p99_ms"],
                tables_per_node=res.get("spread", {}).get(str(top["rooms"]), {}).get(name),
                left_at=left.get(name, res.get("stopped_by")),
                **apart,
                note=f"{top['players']} seated players on {cores:.2f} cores of the Felt processes and their writer "
                f"workers"
                + (
                    f" (not counted: HAProxy {apart['proxy_cpu_util']:.2f}, the whole Redis server "
                    f"{apart['redis_cpu_util']:.2f})"
                    if apart
                    else ""
                )
                + f"; stopped by {left.get(name, res.get('stopped_by'))}",
            )
        )
    both = [lv for lv in levels if lv.get("cluster-1_within") and lv.get("cluster-2_within")]
    if both:
        top = both[-1]
        ratios = [(_per_core(p["cluster-2"]) or 0.0) / one for p in top["pairs"] if (one := _per_core(p["cluster-1"]))]
        figs.append(
            figure(
                "capacity.cluster.ratio_2_to_1",
                median(ratios),
                "x one node",
                players=top["players"],
                note=f"two nodes' seated players per core over one node's at {top['players']} players, the runs "
                "back to back: the figure to read (absolute figures need a quiet machine)",
            )
        )
    elif any("cluster-1_within" in lv for lv in levels):
        figs.append(figure("capacity.cluster.ratio_2_to_1", None, "x one node", note="no level within both's limits"))
    felt_runs = []
    for lv in levels:
        for name, tag, _nodes, _cluster in CLUSTER_MODES:
            if f"{name}_within" not in lv:
                continue
            runs = [p[name] for p in lv["pairs"]]
            felt_runs += runs
            figs.append(
                figure(
                    f"capacity.cluster.{tag}.{lv['rooms']}_rooms.p99_ms",
                    lv[f"{name}_p99_ms"],
                    "ms",
                    baseline=min(
                        (p["bare"]["p99_ms"] for p in lv["pairs"] if p["bare"]["p99_ms"] is not None), default=None
                    ),
                    over_bare_ms=lv[f"{name}_p99_over_bare_ms"],
                    cpu_demand=lv[f"{name}_cpu_util"],
                    within=lv[f"{name}_within"],
                    errors=dict(lv.get(f"{name}_errors", {})),
                    cores=median([r["server_tree_cpu_util"] for r in runs]),
                    node_cores=[median(list(c)) for c in zip(*(r["node_tree_cpu_util"] for r in runs), strict=True)],
                )
            )
            lost = lv[f"{name}_lost_frames"]
            figs.append(
                figure(
                    f"capacity.cluster.{tag}.{lv['rooms']}_rooms.lost_frames",
                    lost,
                    "frames",
                    target="0",
                    passed=lost == 0,
                )
            )
    if felt_runs:
        lost = sum(r["lost_frames"] for r in felt_runs)
        figs.append(figure("capacity.cluster.lost_frames", lost, "frames", target="0", passed=lost == 0))
        client = max(lv["client_cpu_util"] for lv in levels)
        figs.append(
            figure(
                "capacity.cluster.client_cpu_util_max",
                client,
                "of a core",
                target=f"< {CLIENT_LIMIT:g} (the load generator is not the limit)",
                passed=client < CLIENT_LIMIT,
            )
        )
    return figs


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.capacity")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument(
        "--cluster", action="store_true", help="one and two Felt nodes behind HAProxy (PostgreSQL, Redis) against bare"
    )
    parser.add_argument("--no-single", action="store_true", help="--cluster without the single process on PostgreSQL")
    add_write_flag(parser)
    args = parser.parse_args()

    def log(msg: str) -> None:
        print(msg, flush=True)

    t0 = time.monotonic()
    started = now_iso()
    if args.cluster:
        res = run_cluster_capacity(
            args.quick, log, deadline=t0 + (225 if args.quick else 900), single=not args.no_single
        )
        figs, name = cluster_figures(res), "capacity_cluster.json"
    else:
        res = run_capacity(args.quick, log)
        figs, name = capacity_figures(res), "capacity.json"
    for f in figs:
        print(line(f), flush=True)
    command = " ".join(["python -m bench.capacity", *sys.argv[1:]])
    meta = {"command": command, "started": started, "finished": now_iso(), "seconds": time.monotonic() - t0}
    path = results_path(name, args.write)
    write_json(path, {"meta": meta, "figures": figs, "raw": res})
    print(f"results in {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
