"""Shared helpers: percentiles, figures with targets, and the results files (read-modify-write)."""

from __future__ import annotations

import json
import os
import statistics
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
# The results kept in git (bench/results/*.json, the tables of bench/README.md) change only when
# a run is asked to record itself (--write); any other run writes to SCRATCH, which git ignores,
# so that trying a benchmark never leaves the working tree dirty.
RESULTS_DIR = ROOT / "bench" / "results"
SCRATCH = RESULTS_DIR / "local"
README = ROOT / "bench" / "README.md"


def results_path(name: str, write: bool) -> Path:
    """Where the results file ``name`` (``latest.json``, ``bots.json``, ...) goes for this run."""
    return (RESULTS_DIR if write else SCRATCH) / name


def readme_path(write: bool) -> Path:
    """The file whose "Last figures" tables a run rewrites: bench/README.md only with --write."""
    return README if write else SCRATCH / "README.md"


def add_write_flag(parser) -> None:
    """The one ``--write`` option of every bench that records results."""
    parser.add_argument(
        "--write",
        action="store_true",
        help=f"record the results in the committed files (bench/results/, bench/README.md);"
        f" without it they go to {SCRATCH.relative_to(ROOT)}/, which git ignores",
    )


def pct(values: list[float], q: float) -> float | None:
    """The q-th percentile (0..100) by nearest rank on a sorted copy; None when empty."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(q / 100 * (len(s) - 1))))
    return s[k]


def median(values: list[float]) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def process_cpu(pid: int) -> tuple[float, list[int]]:
    """A process's user + system CPU seconds and its children's pids; ``(0.0, [])`` once it
    is gone."""
    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            times = proc.cpu_times()
            return times.user + times.system, [child.pid for child in proc.children()]
    except psutil.Error:
        return 0.0, []


def tree_cpu(pids: Iterable[int], read: Callable[[int], tuple[float, list[int]]] = process_cpu) -> tuple[float, float]:
    """CPU seconds of the processes ``pids`` and, apart, of all their descendants still running
    (a server's writer worker), each process counted once: one listed under another is its own."""
    seen = set(pids)
    own, children = 0.0, 0.0
    todo: list[int] = []
    for pid in seen:
        cpu, kids = read(pid)
        own += cpu
        todo += kids
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        cpu, kids = read(pid)
        children += cpu
        todo += kids
    return own, children


def figure(
    name: str,
    value: float | None,
    unit: str,
    *,
    target: str | None = None,
    ratio: float | None = None,
    passed: bool | None = None,
    baseline: float | None = None,
    note: str | None = None,
    **extra: Any,
) -> dict:
    """One reported figure. ``passed`` is None when there is no target or it could not be measured."""
    out: dict[str, Any] = {"name": name, "value": value, "unit": unit}
    if baseline is not None:
        out["baseline"] = baseline
    if ratio is not None:
        out["ratio"] = ratio
    if target is not None:
        out["target"] = target
        out["pass"] = passed
    if note:
        out["note"] = note
    out.update(extra)
    return out


def fmt(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        if abs(v) >= 10:
            return f"{v:.1f}"
        return f"{v:.3g}"
    return str(v)


def line(f: dict) -> str:
    """One printed line per figure."""
    s = f"{f['name']}: {fmt(f['value'])} {f['unit']}"
    if "baseline" in f:
        s += f" (baseline {fmt(f['baseline'])})"
    if "ratio" in f:
        s += f" ratio {fmt(f['ratio'])}"
    if "target" in f:
        verdict = {True: "PASS", False: "FAIL", None: "n/a"}[f.get("pass")]
        s += f" [target {f['target']}: {verdict}]"
    if f.get("note"):
        s += f"  -- {f['note']}"
    return s


def read_results(write: bool, name: str = "latest.json") -> dict:
    try:
        return json.loads(results_path(name, write).read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def merge_results(update: dict, write: bool, name: str = "latest.json") -> dict:
    """Read the file, overwrite our keys, keep everyone else's (e.g. "storage"), write atomically.

    Read only now, at the end of a run: other benches may have written their keys meanwhile.
    """
    data = read_results(write, name)
    data.update(update)
    write_json(results_path(name, write), data)
    return data


def write_json(path: Path, data: Any) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file, then a rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
    os.replace(tmp, path)


def cpu_times() -> list[int]:
    """The machine's CPU time so far, in ticks, as ``/proc/stat`` counts it (user, nice, system,
    idle, iowait, irq, softirq, steal); empty where there is none."""
    try:
        with open("/proc/stat") as stat:
            return [int(x) for x in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return []


def steal_share(before: list[int], after: list[int]) -> float | None:
    """The share of the machine's CPU time between two ``cpu_times`` that its host gave to
    other guests (steal): a virtual machine's noise that its load average does not show."""
    if len(before) < 8 or len(after) < 8:
        return None
    spent = [b - a for a, b in zip(before, after, strict=True)]
    total = sum(spent)
    return spent[7] / total if total > 0 else None


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
