"""LoopBudget: a long loop on the event loop hands it back every half millisecond."""

from __future__ import annotations

import asyncio
import collections
import time

from looping import TurnCounter  # tests/support/looping.py

from server.budget import LoopBudget


async def test_a_long_loop_yields_once_its_turn_is_spent_and_never_holds_the_loop_a_millisecond():
    per_turn: collections.Counter = collections.Counter()  # the loop's turn -> items done in it
    cost_s = 0.0001
    budget = LoopBudget()
    async with TurnCounter() as turns:
        for _ in range(100):  # at least 10 ms of work
            await budget.spend()
            started = time.perf_counter()
            per_turn[turns.count] += 1
            while time.perf_counter() - started < cost_s:
                pass
    # Each item takes at least cost_s: more than 1 ms / cost_s items in one turn held the loop
    # over a millisecond (the budget is wall time: a slow machine does fewer, never more).
    assert max(per_turn.values()) <= int(0.001 / cost_s)
    assert len(per_turn) >= 100 // int(0.001 / cost_s)


async def test_a_short_loop_does_not_yield():
    budget = LoopBudget(seconds=10.0)
    ran = []
    asyncio.get_running_loop().call_soon(ran.append, "other")
    for _ in range(100):
        await budget.spend()
    assert ran == []  # nothing else ran: spend() did not hand the loop back
