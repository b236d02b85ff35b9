"""Server under load, memory, and the hot-path profile (Felt against the bare baseline).

Two servers run side by side, both pinned to core 0: Felt (``python -m server``, SQLite in a
temporary folder, bots at 0 ms) and the bare broadcast server (``bench/bare_server.py``).
Two load-generator processes (``bench/load_client.py``, one per server, each with all of its
rooms' sockets) are pinned to core 1; only one of the four processes is driven at a time, and
each repeat runs the bare server and Felt back to back (order alternating) so that every
ratio compares two runs taken under the same machine conditions.

Rooms only grow (100, then 500, ...), so at each level exactly that many rooms are open.
A room whose match ends is replaced by a new room of the same game, as "Play again" would.
"""

from __future__ import annotations

import collections
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from bench.common import ROOT, figure, median

PY = sys.executable
KIB = 1024


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server on port {port} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not open in {timeout}s")


def _taskset(core: int) -> list[str]:
    return ["taskset", "-c", str(core)] if shutil.which("taskset") else []


class Client:
    """A load_client process, spoken to one JSON line at a time."""

    def __init__(self, target: str, port: int, log: Path, games: str) -> None:
        self.target = target
        self.err = open(log, "w")  # noqa: SIM115 (closed by stop(), with the client)
        self.proc = subprocess.Popen(
            [*_taskset(1), PY, "-m", "bench.load_client", "--target", target, "--port", str(port), "--games", games],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            text=True,
            bufsize=1,
        )

    def rpc(self, cmd: dict, timeout: float) -> dict:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            raise TimeoutError(f"{self.target} client: no answer to {cmd['cmd']} in {timeout}s")
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"{self.target} client exited ({self.proc.poll()})")
        out = json.loads(line)
        if not out.get("ok"):
            raise RuntimeError(f"{self.target} client: {out.get('error')}")
        return out

    def stop(self) -> None:
        try:
            if self.proc.poll() is None:
                self.rpc({"cmd": "quit"}, 20)
        except Exception:
            pass
        _kill(self.proc)
        self.err.close()


def _kill(proc: subprocess.Popen | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def _cpu(p: psutil.Process) -> float:
    t = p.cpu_times()
    return t.user + t.system


def _rss(p: psutil.Process) -> int:
    return p.memory_info().rss


# A bench server's settings: no bot delay, and the limits that are a policy for people raised,
# since one load client's address opens thousands of players, rooms and sockets. The
# per-connection frame rate limit (20/s) is raised too: the closed loop at 100 rooms sends
# ~25 frames/s per socket. (Without the per-address bursts the load part stopped at its
# first level with "create player: 429".)
BENCH_SERVER_ENV = {
    "FELT_BOT_DELAY_MS": "0",
    "FELT_MAX_OPEN_ROOMS_PER_PLAYER": "1000000",
    "FELT_MAX_FRAMES_PER_SECOND": "100000",
    "FELT_FRAME_BURST": "100000",
    "FELT_RATE_PLAYERS_BURST": "1000000",
    "FELT_RATE_ROOMS_BURST": "1000000",
    "FELT_RATE_LOOKUPS_BURST": "1000000",
    "FELT_RATE_CONNECTS_BURST": "1000000",
    "FELT_RATE_TOKEN_CONNECTS_BURST": "1000000",
    "FELT_MAX_SOCKETS_PER_ADDRESS": "1000000",
    "FELT_MAX_CONNECTIONS": "100000",
}


class Servers:
    """Felt (``felt=False``: none) and the bare server on core 0, a load client for each on core 1."""

    def __init__(self, workdir: Path, games: str, felt: bool = True) -> None:
        self.workdir = workdir
        self.felt_port = _free_port()
        self.bare_port = _free_port()
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{workdir / 'bench.db'}", **BENCH_SERVER_ENV}
        self.felt_log = open(workdir / "felt-server.log", "w")  # noqa: SIM115 (closed by stop(), with the servers)
        self.bare_log = open(workdir / "bare-server.log", "w")  # noqa: SIM115 (closed by stop(), with the servers)
        self.felt: subprocess.Popen | None = None
        if felt:
            self.felt = subprocess.Popen(
                [*_taskset(0), PY, "-m", "server", "--port", str(self.felt_port), "--log-level", "warning"],
                cwd=ROOT,
                env=env,
                stdout=self.felt_log,
                stderr=subprocess.STDOUT,
            )
        self.bare = subprocess.Popen(
            [*_taskset(0), PY, "-m", "bench.bare_server", "--port", str(self.bare_port), "--log-level", "warning"],
            cwd=ROOT,
            stdout=self.bare_log,
            stderr=subprocess.STDOUT,
        )
        self.felt_client: Client | None = None
        self.bare_client: Client | None = None
        if self.felt is not None:
            _wait_port(self.felt_port, self.felt)
        _wait_port(self.bare_port, self.bare)
        # taskset runs exec, so the pid is the Python process itself.
        self.pb = psutil.Process(self.bare.pid)
        self.bare_client = Client("bare", self.bare_port, workdir / "bare-client.log", games)
        if self.felt is not None:
            self.pf = psutil.Process(self.felt.pid)
            self.felt_client = Client("felt", self.felt_port, workdir / "felt-client.log", games)

    def stop(self) -> None:
        for c in (self.felt_client, self.bare_client):
            if c is not None:
                c.stop()
        _kill(self.felt)
        _kill(self.bare)
        self.felt_log.close()
        self.bare_log.close()


def _run(
    client: Client,
    proc: psutil.Process,
    mode: str,
    rooms: int,
    seconds: float,
    warmup: float,
    seed: int,
    drain: float = 5.0,
) -> dict:
    c0 = _cpu(proc)
    out = client.rpc(
        {
            "cmd": "run",
            "mode": mode,
            "rooms": rooms,
            "seconds": seconds,
            "warmup": warmup,
            "seed": seed,
            "drain": drain,
        },
        timeout=seconds + warmup + 60,
    )
    cpu = _cpu(proc) - c0
    out["server_cpu_s"] = cpu
    out["server_cpu_us_per_move"] = cpu / out["actions_total"] * 1e6 if out["actions_total"] else None
    out["server_cpu_util"] = cpu / out["client_wall_s"] if out["client_wall_s"] else None
    return out


def _profile(srv: Servers, rooms: int, seconds: float, workdir: Path, load=None) -> dict:
    """py-spy on the Felt server while ``load()`` runs (default: the closed loop at ``rooms``);
    cProfile is the fallback (see micro)."""
    pyspy = Path(PY).with_name("py-spy")
    if not pyspy.exists():
        found = shutil.which("py-spy")
        if not found:
            return {"error": "py-spy is not installed"}
        pyspy = Path(found)
    out_file = workdir / "profile.txt"
    spy = subprocess.Popen(
        [
            *_taskset(1),
            str(pyspy),
            "record",
            "--pid",
            str(srv.felt.pid),
            "--duration",
            str(int(seconds + 1)),
            "--rate",
            "200",
            "--format",
            "raw",
            "--nonblocking",
            "--output",
            str(out_file),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(0.5)
    run = _run(srv.felt_client, srv.pf, "closed", rooms, seconds, 0.3, 99) if load is None else load()
    try:
        _, err = spy.communicate(timeout=seconds + 30)
    except subprocess.TimeoutExpired:
        _kill(spy)
        err = "py-spy timed out"
    if not out_file.exists():
        return {"error": f"py-spy produced no profile: {err.strip()[-300:]}"}
    return _summarise_profile(out_file.read_text(), run)


# A stack that py-spy read only down to the loop's own frame. Reading a running process without
# pausing it (``--nonblocking``), py-spy often misses the coroutine the loop is running: perf on
# the same server at a human pace puts 72% of its CPU in the interpreter, 16% in the kernel and
# 4% in uvloop, where py-spy put 70% of its samples on this frame. Those samples are CPU no
# frame can be named for, reported apart.
_LOOP_LEAF = "Runner.run (runners.py)"


def _summarise_profile(raw: str, run: dict) -> dict:
    """Self and inclusive time a move of the sampled frames, in µs of the server's CPU.

    py-spy leaves out the samples where the thread waits (the loop idle in epoll), so the
    samples are the process's CPU and a frame's share of them times the CPU a move is its
    time a move. Samples read only down to the loop's frame are reported apart
    (``unnamed_us_per_move``) and the named frames' shares are of all samples.
    """
    inclusive: collections.Counter = collections.Counter()
    selfc: collections.Counter = collections.Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = stack.split(";")
        seen = set()
        for fr in frames:
            # "function (path/to/file.py:line)" -> "function (file.py)"
            name = fr.split(" (")[0]
            loc = fr[fr.find("(") + 1 : fr.rfind(":")] if "(" in fr else ""
            key = f"{name} ({_short(loc)})"
            if key not in seen:
                seen.add(key)
                inclusive[key] += n
        leaf = frames[-1]
        loc = leaf[leaf.find("(") + 1 : leaf.rfind(":")] if "(" in leaf else ""
        selfc[f"{leaf.split(' (')[0]} ({_short(loc)})"] += n
    if not total:
        return {"error": "empty profile"}
    us_per_move = run["server_cpu_us_per_move"] or 0.0
    loop_leaf = selfc.pop(_LOOP_LEAF, 0)

    def top(counter: collections.Counter, k: int) -> list:
        rows = []
        for key, n in counter.most_common(k):
            rows.append({"frame": key, "share": n / total, "us_per_move": n / total * us_per_move})
        return rows

    interesting = collections.Counter({k: v for k, v in inclusive.items() if "server/" in k or "(rooms.py)" in k})
    return {
        "samples": total,
        "run": {k: run.get(k) for k in ("actions_per_s", "server_cpu_us_per_move", "server_cpu_util", "rooms")},
        "unnamed_us_per_move": loop_leaf / total * us_per_move,
        "python_us_per_move": (total - loop_leaf) / total * us_per_move,
        "top_self": top(selfc, 15),
        "top_inclusive_server": top(interesting, 15),
        "top_inclusive": top(inclusive, 25),
    }


def _short(path: str) -> str:
    for marker in ("/work/main/", "site-packages/", "lib/python3.11/"):
        if marker in path:
            return path.split(marker, 1)[1]
    return os.path.basename(path)


def run_load(
    quick: bool, log=print, games: str = "oh_hell,bid_whist,tarbish,ribs", deadline: float | None = None
) -> dict:
    """``deadline`` (time.monotonic) bounds the whole part: levels and repeats that would not
    fit are skipped and reported as such (quick mode must end in under 3 minutes)."""
    if quick:  # about 100 s on an idle machine
        plan = [(100, 1), (500, 2), (1000, 2)]
        open_s, closed_s, warmup, drain = 2.0, 1.5, 0.3, 3.0
        closed_levels = (500,)
    else:
        plan = [(100, 3), (500, 5), (1000, 5), (2500, 5)]
        open_s, closed_s, warmup, drain = 5.0, 3.0, 0.7, 5.0
        closed_levels = (100, 500, 1000)
    workdir = Path(tempfile.mkdtemp(prefix="felt-bench-"))
    result: dict = {
        "plan": {
            "levels": plan,
            "open_s": open_s,
            "closed_s": closed_s,
            "warmup_s": warmup,
            "closed_levels": closed_levels,
            "games": games,
        }
    }
    runs: list[dict] = []
    srv = None
    try:
        srv = Servers(workdir, games)
        result["ports"] = {"felt": srv.felt_port, "bare": srv.bare_port}
        prev = 0
        per_room_s = 0.05  # setup time per room (both servers), re-estimated as rooms open
        skipped: list[str] = []
        result["skipped"] = skipped
        for li, (n, reps) in enumerate(plan):
            t0 = time.monotonic()
            modes = ["open", "closed"] if n in closed_levels else ["open"]
            one_rep = sum((open_s if m == "open" else closed_s) + warmup + 1.0 for m in modes) * 2
            if deadline is not None and t0 + 1.5 * (n - prev) * per_room_s + one_rep > deadline:
                skipped.append(f"{n} rooms: no time left")
                log(f"  load: skipping {n} rooms (no time left before the deadline)")
                break
            if li == 1:
                result["memory"] = _memory_step(srv, n, prev, log)
            else:
                srv.bare_client.rpc({"cmd": "grow", "rooms": n}, timeout=600)
                srv.felt_client.rpc({"cmd": "grow", "rooms": n, "start": True}, timeout=900)
            log(f"  load: {n} rooms open on each server ({time.monotonic() - t0:.1f}s)")
            per_room_s = max(per_room_s, (time.monotonic() - t0) / max(1, n - prev))
            prev = n
            for rep in range(reps):
                if deadline is not None and rep > 0 and time.monotonic() + one_rep > deadline:
                    skipped.append(f"{n} rooms: repeats {rep}..{reps - 1}")
                    log(f"  load: {n} rooms: stopping after {rep} repeats (deadline)")
                    break
                for mode in modes:
                    order = ["bare", "felt"] if (rep + (mode == "closed")) % 2 == 0 else ["felt", "bare"]
                    pair = {}
                    for target in order:
                        client = srv.bare_client if target == "bare" else srv.felt_client
                        proc = srv.pb if target == "bare" else srv.pf
                        seconds = open_s if mode == "open" else closed_s
                        r = _run(client, proc, mode, n, seconds, warmup, seed=rep + 1, drain=drain)
                        r.update(target=target, rep=rep)
                        runs.append(r)
                        pair[target] = r
                    b, f = pair["bare"], pair["felt"]
                    log(
                        f"  load {mode:6s} {n:5d} rooms rep {rep}: felt {f['actions_per_s']:.0f} moves/s "
                        f"p50 {f['p50_ms'] or 0:.2f} p99 {f['p99_ms'] or 0:.2f} ms "
                        f"cpu {f['server_cpu_us_per_move'] or 0:.0f} us/move"
                        f" | bare {b['actions_per_s']:.0f} p50 {b['p50_ms'] or 0:.2f} p99 {b['p99_ms'] or 0:.2f} "
                        f"cpu {b['server_cpu_us_per_move'] or 0:.0f}"
                    )
            if n == 500 and (deadline is None or time.monotonic() + 8 < deadline):
                try:
                    result["profile"] = _profile(srv, n, 3.0 if quick else 8.0, workdir)
                except Exception as err:
                    result["profile"] = {"error": repr(err)}
        result["runs"] = runs
    except Exception as err:
        result["error"] = repr(err)
        result["runs"] = runs
        log(f"  load: FAILED {err!r}")
    finally:
        if srv is not None:
            srv.stop()
        if os.environ.get("BENCH_KEEP"):
            result["workdir"] = str(workdir)  # server and client logs, the database, the raw profile
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return result


def _memory_step(srv: Servers, n: int, prev: int, log) -> dict:
    """RSS deltas while growing from ``prev`` to ``n`` rooms: idle sockets, then playing rooms."""
    added = n - prev
    time.sleep(0.5)
    b0 = _rss(srv.pb)
    srv.bare_client.rpc({"cmd": "grow", "rooms": n}, timeout=600)
    time.sleep(0.5)
    b1 = _rss(srv.pb)
    f0 = _rss(srv.pf)
    srv.felt_client.rpc({"cmd": "grow", "rooms": n, "start": False}, timeout=900)
    time.sleep(0.5)
    f1 = _rss(srv.pf)
    srv.felt_client.rpc({"cmd": "start"}, timeout=600)
    # Let every room play a little (a short closed loop) so that its state and views are real.
    srv.felt_client.rpc({"cmd": "run", "mode": "closed", "rooms": n, "seconds": 1.0, "warmup": 0.0}, timeout=120)
    time.sleep(0.5)
    f2 = _rss(srv.pf)
    out = {
        "rooms_added": added,
        "connections_added": 4 * added,
        "bare_rss_before": b0,
        "bare_rss_after": b1,
        "felt_rss_before": f0,
        "felt_rss_idle": f1,
        "felt_rss_playing": f2,
        "bare_per_conn_kib": (b1 - b0) / (4 * added) / KIB,
        "felt_per_idle_conn_kib": (f1 - f0) / (4 * added) / KIB,
        "felt_per_idle_room_kib": (f1 - f0) / added / KIB,
        "felt_per_playing_room_extra_kib": (f2 - f1) / added / KIB,
        "felt_rss_total_mib": f2 / KIB / KIB,
    }
    log(
        f"  memory: bare {out['bare_per_conn_kib']:.1f} KiB/conn, "
        f"felt {out['felt_per_idle_conn_kib']:.1f} KiB/idle conn,"
        f" +{out['felt_per_playing_room_extra_kib']:.1f} KiB/playing room"
    )
    return out


def load_figures(res: dict, quick: bool) -> list[dict]:
    """Turn the runs into figures: medians of per-repeat ratios against the bare server."""
    figs: list[dict] = []
    runs = res.get("runs", [])
    if res.get("error"):
        figs.append(figure("load.error", None, "", note=res["error"]))
    by: dict = collections.defaultdict(dict)
    for r in runs:
        by[(r["mode"], r["rooms"], r["rep"])][r["target"]] = r
    levels = sorted({k[1] for k in by})
    for mode in ("open", "closed"):
        for n in levels:
            pairs = [v for (m, nn, _), v in sorted(by.items()) if m == mode and nn == n and "bare" in v and "felt" in v]
            if not pairs:
                continue
            f = lambda key, t, pairs=pairs: median([p[t][key] for p in pairs])  # noqa: E731
            ratio = lambda key, pairs=pairs: median(  # noqa: E731
                [p["felt"][key] / p["bare"][key] for p in pairs if p["felt"][key] and p["bare"][key]]
            )
            tag = f"load.{mode}.{n}"
            lost = sum(
                p["felt"]["lost"]
                + p["felt"]["out_of_order"]
                + p["felt"]["diverged_rooms"]
                + p["felt"]["patch_failures"]
                for p in pairs
            )
            lost_b = sum(p["bare"]["lost"] + p["bare"]["out_of_order"] for p in pairs)
            late = sum(p["felt"].get("late", 0) for p in pairs)
            late_b = sum(p["bare"].get("late", 0) for p in pairs)
            reps = len(pairs)
            figs.append(
                figure(
                    f"{tag}.felt.moves_per_s",
                    f("actions_per_s", "felt"),
                    "moves/s",
                    baseline=f("actions_per_s", "bare"),
                    ratio=ratio("actions_per_s"),
                    repeats=reps,
                )
            )
            figs.append(
                figure(
                    f"{tag}.felt.patches_per_s",
                    f("patches_per_s", "felt"),
                    "frames/s",
                    baseline=f("patches_per_s", "bare"),
                )
            )
            for q in ("p50_ms", "p99_ms", "max_ms"):
                fig_kw: dict = {}
                if mode == "open" and n in (500, 1000) and q in ("p50_ms", "p99_ms"):
                    lim = 2.5 if q == "p50_ms" else 4.0  # issue 36's targets
                    r_ = ratio(q)
                    fig_kw = {"target": f"<= {lim}x bare", "passed": (r_ is not None and r_ <= lim)}
                if mode == "open" and n == 2500 and q == "p99_ms":
                    r_ = ratio(q)
                    fig_kw = {"target": "<= 2x bare", "passed": (r_ is not None and r_ <= 2.0)}
                figs.append(
                    figure(f"{tag}.latency_{q}", f(q, "felt"), "ms", baseline=f(q, "bare"), ratio=ratio(q), **fig_kw)
                )
            if mode == "closed" and n == 500:
                r_ = ratio("actions_per_s")
                figs.append(
                    figure(
                        "capacity.closed.500.moves_per_s_ratio",
                        r_,
                        "x bare",
                        target=">= 0.45x bare",
                        passed=r_ is not None and r_ >= 0.45,
                        value_felt=f("actions_per_s", "felt"),
                        value_bare=f("actions_per_s", "bare"),
                        client_cpu_util_felt=f("client_cpu_util", "felt"),
                        server_cpu_util_felt=f("server_cpu_util", "felt"),
                    )
                )
                r_ = ratio("server_cpu_us_per_move")
                figs.append(
                    figure(
                        "capacity.closed.500.cpu_us_per_move",
                        f("server_cpu_us_per_move", "felt"),
                        "us/move",
                        baseline=f("server_cpu_us_per_move", "bare"),
                        ratio=r_,
                        target="<= 2.0x bare",
                        passed=r_ is not None and r_ <= 2.0,
                    )
                )
            else:
                figs.append(
                    figure(
                        f"{tag}.cpu_us_per_move",
                        f("server_cpu_us_per_move", "felt"),
                        "us/move",
                        baseline=f("server_cpu_us_per_move", "bare"),
                        ratio=ratio("server_cpu_us_per_move"),
                    )
                )
            figs.append(
                figure(
                    f"{tag}.lost_or_out_of_order",
                    lost,
                    "frames",
                    baseline=lost_b,
                    target="0",
                    passed=(lost == 0 and lost_b == 0),
                    late_actions=late,
                    late_actions_bare=late_b,
                    note=(
                        f"{late} Felt / {late_b} bare actions not fully delivered within the drain time"
                        if late or late_b
                        else None
                    ),
                )
            )
    have = {f["name"] for f in figs}
    why = "; ".join(res.get("skipped") or []) or "not run"
    for name, target in [
        ("load.open.500.latency_p50_ms", "<= 2.5x bare"),
        ("load.open.500.latency_p99_ms", "<= 4.0x bare"),
        ("load.open.1000.latency_p50_ms", "<= 2.5x bare"),
        ("load.open.1000.latency_p99_ms", "<= 4.0x bare"),
        ("capacity.closed.500.moves_per_s_ratio", ">= 0.45x bare"),
        ("capacity.closed.500.cpu_us_per_move", "<= 2.0x bare"),
    ]:
        if name not in have:
            figs.append(figure(name, None, "", target=target, passed=None, note=f"not measured: {why}"))
    if not quick and "load.open.2500.latency_p99_ms" not in have:
        figs.append(
            figure(
                "load.open.2500.latency_p99_ms",
                None,
                "ms",
                target="<= 2x bare",
                passed=None,
                note=f"not measured: {why}",
            )
        )
    if quick and not any(n == 2500 for n in levels):
        figs.append(
            figure(
                "load.open.2500.latency_p99_ms",
                None,
                "ms",
                target="<= 2x bare (full mode only)",
                note="not run in quick mode",
            )
        )
    mem = res.get("memory")
    if mem:
        r_ = mem["felt_per_idle_conn_kib"] / mem["bare_per_conn_kib"] if mem["bare_per_conn_kib"] > 0 else None
        figs.append(
            figure(
                "memory.per_idle_connection",
                mem["felt_per_idle_conn_kib"],
                "KiB",
                baseline=mem["bare_per_conn_kib"],
                ratio=r_,
                target="<= 1.2x bare",
                passed=r_ is not None and r_ <= 1.2,
                rooms=mem["rooms_added"],
            )
        )
        figs.append(figure("memory.per_idle_room", mem["felt_per_idle_room_kib"], "KiB", rooms=mem["rooms_added"]))
        figs.append(
            figure(
                "memory.per_playing_room_beyond_sockets",
                mem["felt_per_playing_room_extra_kib"],
                "KiB",
                target="<= 24 KiB",
                passed=mem["felt_per_playing_room_extra_kib"] <= 24,
                rooms=mem["rooms_added"],
            )
        )
    return figs
