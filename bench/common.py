"""Shared helpers: percentiles, figures with targets, and the results file (read-modify-write)."""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "latest.json"


def pct(values: list[float], q: float) -> float | None:
    """The q-th percentile (0..100) by nearest rank on a sorted copy; None when empty."""
    if not values:
        return None
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(q / 100 * (len(s) - 1)))))
    return s[k]


def median(values: list[float]) -> float | None:
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


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


def read_results() -> dict:
    try:
        return json.loads(RESULTS.read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def merge_results(update: dict) -> dict:
    """Read the file, overwrite our keys, keep everyone else's (e.g. "storage"), write atomically."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    data = read_results()
    data.update(update)
    tmp = RESULTS.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
    os.replace(tmp, RESULTS)
    return data


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
