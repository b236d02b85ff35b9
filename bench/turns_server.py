"""Felt's server on the standard asyncio loop, timing every loop turn (for ``bench/loop_turns.py``).

``python -m bench.turns_server --port P`` serves exactly as ``python -m server`` does, but on
asyncio's own event loop instead of uvloop, so that each turn of the loop (one
``_run_once``) and each callback it runs can be timed in the loop thread's CPU time. SIGUSR1
starts a measurement; SIGUSR2 writes to ``$FELT_TURNS_OUT`` the histogram of turns (0.1 ms
buckets) and the longest turns with what ran in them, grouped by coroutine or callback.
"""

from __future__ import annotations

import collections
import gc
import json
import os
import runpy
import signal
import sys
import time
from asyncio import Task, base_events, events

import uvicorn.config

_config_init = uvicorn.config.Config.__init__
_handle_run = events.Handle._run
_run_once = base_events.BaseEventLoop._run_once
clock = time.thread_time
ran: list[tuple[str, float]] = []  # the callbacks of the current turn: (name, CPU seconds)
turns: collections.Counter = collections.Counter()  # 0.1 ms buckets -> turns
longest: list[tuple[float, int, list]] = []
slowest: list[tuple[float, str]] = []  # the single callbacks over 0.5 ms of CPU: (CPU seconds, name)
spans: collections.defaultdict = collections.defaultdict(list)  # name -> every callback's CPU seconds
collections_cpu: collections.defaultdict = collections.defaultdict(list)  # generation -> each collection's CPU s
_gc_started = [0.0]


def _gc_timer(phase: str, info: dict) -> None:
    if phase == "start":
        _gc_started[0] = clock()
    else:
        collections_cpu[info["generation"]].append(clock() - _gc_started[0])


def _config(self, *args, **kwargs) -> None:
    kwargs["loop"] = "asyncio"
    _config_init(self, *args, **kwargs)


def _name(handle: events.Handle) -> str:
    callback = handle._callback  # type: ignore[attr-defined]
    owner = getattr(callback, "__self__", None)
    if isinstance(owner, Task):
        coro = owner.get_coro()
        return getattr(coro, "__qualname__", repr(coro))
    return getattr(callback, "__qualname__", repr(callback))


def _timed_handle(self: events.Handle) -> None:
    t0 = clock()
    _handle_run(self)
    spent = clock() - t0
    name = _name(self)
    ran.append((name, spent))
    spans[name].append(spent)
    if spent > 0.0005:
        slowest.append((spent, name))


def _timed_turn(self: base_events.BaseEventLoop) -> None:
    ran.clear()
    t0 = clock()
    _run_once(self)
    spent = clock() - t0
    turns[min(int(spent * 1e4), 100)] += 1
    if spent > 0.001:
        by: dict[str, list] = collections.defaultdict(lambda: [0, 0.0])
        for name, cpu in ran:
            by[name][0] += 1
            by[name][1] += cpu
        top = sorted(by.items(), key=lambda kv: -kv[1][1])[:5]
        longest.append((spent, len(ran), [(name, n, round(cpu * 1e3, 2)) for name, (n, cpu) in top]))


def _start(*_args) -> None:
    turns.clear()
    longest.clear()
    slowest.clear()
    spans.clear()
    collections_cpu.clear()


def _report(*_args) -> None:
    report = {
        "turns_by_0.1ms": sorted(turns.items()),
        "longest": [
            {"cpu_ms": round(spent * 1e3, 2), "callbacks": n, "top": top}
            for spent, n, top in sorted(longest, reverse=True)[:20]
        ],
        "callbacks_by_name": {
            name: {
                "n": len(cpu),
                "p50_ms": round(sorted(cpu)[len(cpu) // 2] * 1e3, 3),
                "p99_ms": round(sorted(cpu)[int(len(cpu) * 0.99)] * 1e3, 3),
                "max_ms": round(max(cpu) * 1e3, 3),
                "over_1ms": sum(c > 0.001 for c in cpu),
            }
            for name, cpu in sorted(spans.items(), key=lambda kv: -max(kv[1]))[:12]
        },
        "gc_by_generation": {
            gen: {"n": len(cpu), "max_ms": round(max(cpu) * 1e3, 3), "total_ms": round(sum(cpu) * 1e3, 2)}
            for gen, cpu in sorted(collections_cpu.items())
        },
        "callbacks_over_0.5ms": [[round(spent * 1e3, 2), name] for spent, name in sorted(slowest, reverse=True)[:40]],
    }
    with open(os.environ["FELT_TURNS_OUT"], "w") as out:
        json.dump(report, out)


if __name__ == "__main__":
    uvicorn.config.Config.__init__ = _config  # type: ignore[method-assign]
    events.Handle._run = _timed_handle  # type: ignore[method-assign]
    base_events.BaseEventLoop._run_once = _timed_turn  # type: ignore[method-assign]
    gc.callbacks.append(_gc_timer)
    signal.signal(signal.SIGUSR1, _start)
    signal.signal(signal.SIGUSR2, _report)
    sys.argv = ["server", *sys.argv[1:]]
    runpy.run_module("server", run_name="__main__", alter_sys=True)
