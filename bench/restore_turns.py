"""``python -m bench.restore_turns [--tables N] [--game G]``: how long restoring tables holds the loop.

A table that is not in memory (parked, or after a restart) is rebuilt from its log when it is
opened: every entry entered again through the engines, hundreds for a long match. This plays
N whole matches with bots in one process (an in-memory log), then opens each of them again in
a fresh ``RoomManager`` while a 1 ms ticker runs beside it (``server.app.LoopWatch``), and
prints the entries replayed, the wall time a table's restore took and the longest loop block
seen, bounded by the loop thread's CPU and in wall time (only the wall figure sees the loop
wait for the interpreter lock while a worker thread rebuilds; on a busy machine it also counts
the time other processes took the core). It also restores them all at once the way a starting
server does (``restore_all``). The collector is set as the server sets it.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time

from server.app import GC_THRESHOLDS, LoopWatch
from server.config import Settings
from server.rooms import Connection, RoomManager
from server.storage.writer import MemoryWriter


class _Source:
    """The tables of a finished run, served as a database's table source would."""

    def __init__(self, logs: dict[str, list]) -> None:
        self.logs = logs

    async def load(self, code: str):
        return ("playing", self.logs[code]) if code in self.logs else None

    async def open_codes(self) -> list[str]:
        return list(self.logs)

    async def waiting_codes(self) -> list[str]:
        return []

    async def purge(self, parked_before: float) -> int:
        return 0


async def _closer(code: int, reason: str) -> None:
    return None


async def _play(game: str, tables: int) -> dict[str, list]:
    """``tables`` whole matches of ``game``, bots in every seat: each table's log."""
    manager = RoomManager(Settings(bot_delay_ms=0, max_open_rooms_per_player=10_000), MemoryWriter)
    writer = manager.writer
    rooms = []
    for _ in range(tables):
        room = manager.create(game, {}, 4, False, "p0", "Ann")
        host = Connection("p0", "Ann", _closer, limit=100_000)
        await room.join(host)
        for seat in (1, 2, 3):
            await room.set_bot(host, seat, remove=False)
        room.seats[0].away = True  # a bot plays the host's seat too
        await room.start(host)
        rooms.append(room)
    while any(r.status == "playing" for r in rooms):
        await asyncio.sleep(0.01)
    return {r.code: writer.entries(r.code) for r in rooms}


async def _measure(logs: dict[str, list]) -> dict:
    # The collector as the server runs it (server.app): frozen heap, a young pass per 50,000.
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    settings = Settings(bot_delay_ms=0, max_open_rooms_per_player=10_000)
    watch = LoopWatch()
    ticker = asyncio.get_running_loop().create_task(watch.run())
    await asyncio.sleep(0.05)
    watch.take(), watch.take_wall()
    manager = RoomManager(settings, MemoryWriter, _Source(logs))
    manager.restored = True
    walls, blocks = [], []
    for code in logs:
        started = time.perf_counter()
        room = await manager.open(code)
        walls.append(time.perf_counter() - started)
        assert room is not None and room.version == logs[code][-1].version
        await asyncio.sleep(0.002)
        blocks.append((watch.take_wall(), watch.take()))
    everyone = RoomManager(settings, MemoryWriter, _Source(logs))
    started = time.perf_counter()
    restored = await everyone.restore_all()
    all_wall = time.perf_counter() - started
    await asyncio.sleep(0.002)
    all_block = (watch.take_wall(), watch.take())
    ticker.cancel()
    assert restored == len(logs)
    return {
        "entries_median": statistics.median(len(e) for e in logs.values()),
        "restore_ms_median": statistics.median(walls) * 1e3,
        "block_ms_longest": max(b[1] for b in blocks) * 1e3,
        "block_ms_median": statistics.median(b[1] for b in blocks) * 1e3,
        "wall_block_ms_longest": max(b[0] for b in blocks) * 1e3,
        "wall_block_ms_median": statistics.median(b[0] for b in blocks) * 1e3,
        "restore_all_ms": all_wall * 1e3,
        "restore_all_block_ms": all_block[1] * 1e3,
        "restore_all_wall_block_ms": all_block[0] * 1e3,
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.restore_turns", description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--game", default="oh_hell")
    args = parser.parse_args()
    logs = asyncio.run(_play(args.game, args.tables))
    result = asyncio.run(_measure(logs))
    print(
        f"{args.game}, {args.tables} tables of {result['entries_median']:.0f} log entries (median): "
        f"one table's restore {result['restore_ms_median']:.1f} ms (median); the loop's longest block "
        f"by CPU {result['block_ms_longest']:.2f} ms (median {result['block_ms_median']:.2f}), by wall "
        f"{result['wall_block_ms_longest']:.2f} ms (median {result['wall_block_ms_median']:.2f}); "
        f"restore_all {result['restore_all_ms']:.0f} ms, longest block by CPU "
        f"{result['restore_all_block_ms']:.2f} ms, by wall {result['restore_all_wall_block_ms']:.2f} ms"
    )


if __name__ == "__main__":
    main()
