"""``python -m bench.run [--quick] [--only PART,...] [--write]``: every Felt benchmark, one line per figure.

Parts, in order: calibration, engines, micro (diff + encode), patches (patch size and the
in-process room path), storage (``bench/storage.py``, run as a subprocess), load (WebSocket
load against the bare baseline, memory, and the py-spy profile), capacity (seated players a
core of server CPU carries at one decision a table every 2 s, against bare), durable (the write-ahead
table log's cost at human pace: log on, log off, bare).

Every figure goes to ``latest.json`` (read-modify-write: the "storage" key written by
``bench/storage.py`` is kept) and ``quick.json`` or ``full.json``, and the mode's "Last
figures" table is rewritten from the last run of each mode. With ``--write`` these are the committed
``bench/results/*.json`` and ``bench/README.md``; without it, the same files under
``bench/results/local/``, which git ignores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time

from bench.common import (
    ROOT,
    add_write_flag,
    cpu_times,
    figure,
    fmt,
    line,
    merge_results,
    now_iso,
    read_results,
    readme_path,
    results_path,
    steal_share,
    write_json,
)

PARTS = ("calibration", "engines", "micro", "patches", "claims", "storage", "load", "capacity", "durable")
STORAGE_ARGS: list[str] | None = None


def log(msg: str) -> None:
    print(msg, flush=True)


def calibration() -> tuple[dict, list[dict]]:
    """A fixed pure-Python workload, to tell a slow or shared machine from a slow Felt."""
    c0, w0 = time.thread_time(), time.perf_counter()
    x = 0
    for i in range(2_000_000):
        x += i
    cpu, wall = time.thread_time() - c0, time.perf_counter() - w0
    load = os.getloadavg()
    raw = {
        "loop_ns_per_iter_cpu": cpu / 2e6 * 1e9,
        "loop_cpu_share": cpu / wall,
        "loadavg": load,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
    }
    figs = [
        figure(
            "calibration.python_loop_ns",
            raw["loop_ns_per_iter_cpu"],
            "ns/iter (CPU)",
            cpu_share=raw["loop_cpu_share"],
            loadavg_1m=load[0],
            note="reference: ~30-60 ns/iter on an idle core; higher means a contended machine",
        )
    ]
    return raw, figs


def _pin(core: int):
    try:
        before = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {core})
        return before
    except (AttributeError, OSError):
        return None


def run_storage(quick: bool, write: bool) -> tuple[dict, list[dict]]:
    path = ROOT / "bench" / "storage.py"
    if not path.exists():
        return {"error": "bench/storage.py does not exist"}, [
            figure(
                "storage.event_loop_max_stall_ms",
                None,
                "ms",
                target="<= 1 ms",
                passed=None,
                note="bench/storage.py is missing",
            )
        ]
    # Quick mode: SQLite only and fewer matches, so that the whole quick run stays under 3 minutes.
    # Full mode: its --quick (1,000 matches, SQLite and PostgreSQL): the default 10,000 take
    # longer than the whole ~15-minute budget on this machine. Override with --storage-args.
    extra = (
        STORAGE_ARGS
        if STORAGE_ARGS is not None
        else (["--quick", "--no-pg", "--matches", "300"] if quick else ["--quick"])
    )
    cmd = [sys.executable, "-m", "bench.storage", *extra, *(["--write"] if write else [])]
    timeout = 40 if quick else 420
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:  # subprocess.run kills the child on timeout
        rc, out, err = (
            "timeout",
            (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or ""),
            "",
        )
    raw = {
        "command": " ".join(cmd[1:]),
        "returncode": rc,
        "seconds": time.perf_counter() - t0,
        "stdout_tail": out[-3000:],
        "stderr_tail": err[-2000:],
    }
    for ln in out.splitlines():
        log(f"  storage| {ln}")
    data = read_results(write).get("storage")
    stall = _find_stall(data) if data is not None else None
    note = None if rc == 0 else f"bench/storage.py exited with {rc}: {err.strip()[-200:]}"
    if data is None:
        note = (note or "") + " (no 'storage' key in latest.json)"
    figs = [
        figure(
            "storage.event_loop_max_stall_ms",
            stall,
            "ms",
            target="<= 1 ms",
            passed=None if stall is None else stall <= 1.0,
            note=note,
        )
    ]
    return raw, figs


def _find_stall(data) -> float | None:
    """The longest the event loop was blocked by writing matches, over every backend (ms).

    ``bench/storage.py`` reports it per backend as ``event_loop_blocked_max_ms``: the larger of
    the loop's own CPU time in one ``submit`` and the stall its other threads can be blamed
    for. Its wall stalls (``wall_stall_*``, ``idle_wall_stall_*``) include the shared
    machine's own noise.
    """
    found: list[float] = []

    def walk(obj):
        if isinstance(obj, dict):
            for k, v in obj.items():
                if k == "event_loop_blocked_max_ms" and isinstance(v, (int, float)):
                    found.append(float(v))
                else:
                    walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)

    walk(data)
    return max(found) if found else None


MODES = ("full", "quick")
START, END = "<!-- results:start -->", "<!-- results:end -->"
LOST = ".lost_or_out_of_order"


def _cell(f: dict | None) -> str:
    """One figure of one mode: its value (and ratio to its baseline), then pass or FAIL."""
    if f is None:
        return "-"
    if f["value"] is None:
        return "not measured"
    text = f"{fmt(f['value'])} {f['unit']}".strip()
    against = f.get("target", "")
    if "ratio" in f and ("bare" in against or "'s" in against):  # the ratio the target is about
        text += f" ({fmt(f['ratio'])}x)"
    rooms = re.search(r"_(\d+)_rooms$", f["name"])
    if rooms:
        text += f" at {rooms[1]} rooms"
    if "target" in f:
        text += " " + {True: "pass", False: "**FAIL**", None: "n/a"}[f.get("pass")]
    return text


def _reported(figs: list[dict]) -> dict[str, dict]:
    """The figures the table shows, by row: every one with a target (the lost-frame checks of
    every load level folded into one; the durable part's level, which differs by mode, in the
    cell rather than the row), and the calibration loop."""
    shown: dict[str, dict] = {}
    lost = [f for f in figs if f["name"].endswith(LOST)]
    for f in figs:
        if f["name"].startswith("calibration") or ("target" in f and not f["name"].endswith(LOST)):
            shown[re.sub(r"_\d+_rooms$", "", f["name"])] = f
    if lost:
        passed = None if any(f.get("pass") is None for f in lost) else all(f["pass"] for f in lost)
        shown["load.*" + LOST] = figure(
            "load.*" + LOST, sum(f["value"] or 0 for f in lost), "frames", target="0", passed=passed
        )
    return shown


def _hot_path(raw: dict) -> str:
    from bench.capacity import PERIOD_S

    lines = ""
    for part, how in (("load", "closed loop"), ("capacity", f"a decision a table every {PERIOD_S:g} s")):
        prof = (raw.get(part) or {}).get("profile") or {}
        if not prof.get("top_self"):
            continue
        frames = ", ".join(f"`{r['frame'].split(' (')[0]}` {r['us_per_move']:.0f}" for r in prof["top_self"][:8])
        lines += (
            f"\n\nServer hot path (full run, py-spy, {how} at {prof['run']['rooms']} rooms, "
            f"{fmt(prof['run']['server_cpu_us_per_move'])} CPU us/move, {fmt(prof.get('python_us_per_move'))} "
            f"of it in named frames, {fmt(prof.get('unnamed_us_per_move'))} read only down to the loop's frame), "
            f"self time in us/move: {frames}."
        )
    return lines


def results_table(runs: dict[str, dict]) -> str:
    """The "Last figures" block: one row per figure, one column per mode's last run."""
    lines = []
    for mode, run in runs.items():
        meta = run["meta"]
        lines.append(
            f"- {mode}: `{meta['command']}`, finished {meta['finished']}, {meta['seconds']:.0f} s, "
            f"load average {meta['loadavg_start'][0]:.1f} at start, {meta['loadavg_end'][0]:.1f} at end"
            + (f", the host took {meta['steal']:.0%} of the CPU time (steal)" if meta.get("steal") is not None else "")
            + "".join(
                f"; {', '.join(src['parts'])} from `{src['command']}`, finished {src['finished']}"
                for src in meta.get("earlier", [])
            )
            + "."
        )
    shown = {mode: _reported(run["figures"]) for mode, run in runs.items()}
    names = list(dict.fromkeys(name for mode in MODES if mode in shown for name in shown[mode]))
    lines += ["", "| figure | target | " + " | ".join(MODES) + " |", "|---|---|" + "---|" * len(MODES)]
    for name in names:
        target = next((shown[m][name].get("target", "") for m in shown if name in shown[m]), "")
        lines.append(f"| `{name}` | {target} | " + " | ".join(_cell(shown.get(m, {}).get(name)) for m in MODES) + " |")
    hot = _hot_path(runs.get("full", {}).get("raw") or {})
    return START + "\n" + "\n".join(lines) + hot + "\n" + END


# Figures of results written before each figure named its part: the part by the name's prefix.
_PART_PREFIXES = (
    ("capacity.closed.", "load"),
    ("memory.", "load"),
    ("load.", "load"),
    ("capacity.", "capacity"),
    ("engine.", "engines"),
    ("patch.", "patches"),
    ("calibration.", "calibration"),
    ("claims.", "claims"),
    ("micro.", "micro"),
    ("storage.", "storage"),
    ("durable.", "durable"),
)


def _part_of(fig: dict) -> str | None:
    return fig.get("part") or next((part for prefix, part in _PART_PREFIXES if fig["name"].startswith(prefix)), None)


def _read(path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def with_earlier_parts(run: dict, earlier: dict | None, parts: list[str]) -> dict:
    """``run`` (its meta, figures and raw results) with the parts it did not run kept from
    ``earlier``, the mode's last recorded run, each with the command and time that measured
    it (``meta["earlier"]``); the summary counts every figure kept."""
    kept = [p for p in PARTS if p not in parts and earlier is not None and p in earlier.get("raw", {})]
    if kept and earlier is not None:
        run["figures"] = run["figures"] + [f for f in earlier["figures"] if _part_of(f) in kept]
        for p in kept:
            run["raw"][p] = earlier["raw"][p]
            if p + "_seconds" in earlier["raw"]:
                run["raw"][p + "_seconds"] = earlier["raw"][p + "_seconds"]
        before = earlier["meta"]
        sources = [{"command": before["command"], "finished": before["finished"], "parts": before.get("parts", PARTS)}]
        sources += before.get("earlier", [])
        run["meta"]["earlier"] = [
            {**src, "parts": [p for p in src["parts"] if p in kept]}
            for src in sources
            if any(p in kept for p in src["parts"])
        ]
    figs = run["figures"]
    run["summary"] = {
        "passed": sum(1 for f in figs if f.get("pass") is True),
        "failed": [f["name"] for f in figs if f.get("pass") is False],
        "not_measured": [f["name"] for f in figs if "target" in f and f.get("pass") is None],
    }
    return run


def write_readme(readme, write: bool) -> None:
    """Rewrite the "Last figures" block of ``readme`` from the last run of each mode."""
    runs = {}
    for mode in MODES:
        try:
            runs[mode] = json.loads(results_path(f"{mode}.json", write).read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            continue
    block = results_table(runs)
    text = readme.read_text() if readme.exists() else ""
    if START in text:
        text = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    else:
        text += "\n" + block + "\n"
    readme.parent.mkdir(parents=True, exist_ok=True)
    readme.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run")
    parser.add_argument("--quick", action="store_true", help="a short version (under 3 minutes)")
    parser.add_argument("--only", default=",".join(PARTS), help=f"comma-separated parts of: {', '.join(PARTS)}")
    parser.add_argument("--games", default="oh_hell,bid_whist,tarbish,ribs", help="games the load rooms play")
    parser.add_argument("--no-readme", action="store_true", help='do not rewrite the "Last figures" table')
    parser.add_argument("--storage-args", default=None, help="arguments for bench/storage.py (quoted, space-separated)")
    add_write_flag(parser)
    args = parser.parse_args(argv)
    global STORAGE_ARGS
    if args.storage_args is not None:
        STORAGE_ARGS = args.storage_args.split()
    parts = [p for p in args.only.split(",") if p]
    t0 = time.perf_counter()
    t_mono = time.monotonic()
    mode = "quick" if args.quick else "full"
    meta = {
        "mode": mode,
        "started": now_iso(),
        "loadavg_start": os.getloadavg(),
        "cpu_times_start": cpu_times(),
        "command": "python -m bench.run"
        + (" --quick" if args.quick else "")
        + (f" --only {','.join(parts)}" if set(parts) != set(PARTS) else ""),
        "parts": parts,
    }
    log(f"Felt benchmarks ({mode}); load average {meta['loadavg_start'][0]:.1f} on {os.cpu_count()} CPUs")
    raw: dict = {}
    figs: list[dict] = []

    def part(name, fn):
        if name not in parts:
            return
        log(f"[{name}]")
        ts = time.perf_counter()
        try:
            r, f = fn()
        except Exception as err:  # a broken part is reported, never hides the others
            import traceback

            traceback.print_exc()
            r, f = {"error": repr(err)}, [figure(f"{name}.error", None, "", note=repr(err))]
        raw[name] = r
        raw[name + "_seconds"] = time.perf_counter() - ts
        for fig in f:
            fig["part"] = name
            log("  " + line(fig))
        figs.extend(f)

    part("calibration", calibration)
    # In-process parts run pinned to core 1 (the load servers use core 0 later).
    before = _pin(1)
    from bench.claims import run_claims
    from bench.engines import run_engines
    from bench.micro import run_micro
    from bench.patches import run_patches

    part("engines", lambda: run_engines(args.quick, log))
    part("micro", lambda: run_micro(args.quick, log))
    part("patches", lambda: run_patches(args.quick, log))
    part("claims", lambda: run_claims(args.quick, log))
    if before is not None:
        os.sched_setaffinity(0, before)
    part("storage", lambda: run_storage(args.quick, args.write))

    def load():
        from bench.load import load_figures, run_load

        deadline = t_mono + 165 if args.quick else None
        res = run_load(args.quick, log, args.games, deadline)
        return res, load_figures(res, args.quick)

    part("load", load)

    def capacity():
        from bench.capacity import capacity_figures, run_capacity

        res = run_capacity(args.quick, log, time.monotonic() + (170 if args.quick else 480))
        return res, capacity_figures(res)

    part("capacity", capacity)

    def durable():
        from bench.durable import run as run_durable

        return run_durable(args.quick, log)

    part("durable", durable)
    meta["finished"] = now_iso()
    meta["seconds"] = time.perf_counter() - t0
    meta["loadavg_end"] = os.getloadavg()
    meta["steal"] = steal_share(meta.pop("cpu_times_start"), cpu_times())
    summary = {
        "passed": sum(1 for f in figs if f.get("pass") is True),
        "failed": [f["name"] for f in figs if f.get("pass") is False],
        "not_measured": [f["name"] for f in figs if "target" in f and f.get("pass") is None],
    }
    merge_results({"meta": meta, "summary": summary, "figures": figs, "raw": raw}, args.write)
    # The last run of each mode is kept too (latest.json holds whichever ran last); a run of
    # some parts keeps the mode's other parts from the runs that measured them.
    mode_path = results_path(f"{mode}.json", args.write)
    write_json(mode_path, with_earlier_parts({"meta": meta, "figures": figs, "raw": raw}, _read(mode_path), parts))
    if not args.no_readme:
        write_readme(readme_path(args.write), args.write)
    log(
        f"{summary['passed']} targets met, {len(summary['failed'])} missed, "
        f"{len(summary['not_measured'])} not measured;"
        f" {meta['seconds']:.0f} s; results in {results_path('latest.json', args.write).relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
