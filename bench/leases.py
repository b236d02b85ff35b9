"""What renewing a node's table leases costs Redis: ``python -m bench.leases [--tables 1000 10000]``.

One node renews all of its leases in one script call per tick (server/cluster/leases.py, ``RENEW``):
one network round trip, and inside the script a GET and a PEXPIRE per table. For each count
of tables this claims that many leases under a fresh key prefix of the local Redis, renews
them ``--ticks`` times and prints, per tick: the round trips, the commands Redis ran (from
``INFO commandstats``, so other clients of the same Redis add to them: the figures are
upper bounds on a shared machine), the client's wall time and Redis's own time in the script
(``usec`` of ``evalsha``), the longest Redis is kept from other clients (one script call:
one chunk of ``RENEW_CHUNK`` leases), and the renewals one Redis core could serve a second.
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import time

import orjson
import redis

from server.cluster import Cluster
from server.config import Settings

REDIS_URL = "redis://127.0.0.1:6379/0"
COUNTED = ("evalsha", "get", "pexpire")


def _stats(client: redis.Redis) -> dict[str, tuple[int, int]]:
    """(calls, usec) per counted command, from Redis's own counters."""
    stats = client.info("commandstats")
    return {
        name: (stats.get(f"cmdstat_{name}", {}).get("calls", 0), stats.get(f"cmdstat_{name}", {}).get("usec", 0))
        for name in COUNTED
    }


async def measure(tables: int, ticks: int) -> dict:
    prefix = f"felt-bench-{secrets.token_hex(4)}:"
    node = Cluster(Settings(redis_url=REDIS_URL, redis_prefix=prefix, node_id="bench", lease_ms=60_000))
    plain = redis.Redis.from_url(REDIS_URL)
    try:
        token = secrets.token_hex(8)
        async with node.redis.pipeline(transaction=False) as pipe:
            for i in range(tables):
                pipe.set(node.leases.key(f"T{i:06d}"), node.leases.value(token), nx=True, px=node.leases.lease_ms)
            await pipe.execute()
        sent = time.monotonic()
        for i in range(tables):
            node.leases._hold(f"T{i:06d}", token, sent)
        await node.leases.renew()  # loads the script
        before, ops_before = _stats(plain), node.link.ops
        walls = []
        for _ in range(ticks):
            t = time.perf_counter()
            lost = await node.leases.renew()
            walls.append(time.perf_counter() - t)
            assert lost == []
        after = _stats(plain)
    finally:
        keys = list(plain.scan_iter(match=prefix + "*", count=10_000))
        for start in range(0, len(keys), 10_000):
            plain.delete(*keys[start : start + 10_000])
        plain.close()
        await node.redis.aclose()
    delta = {name: (after[name][0] - before[name][0], after[name][1] - before[name][1]) for name in COUNTED}
    script_usec = delta["evalsha"][1] / ticks
    return {
        "tables": tables,
        "round_trips_per_tick": (node.link.ops - ops_before) / ticks,
        "redis_commands_per_tick": sum(calls for calls, _ in delta.values()) / ticks,
        "wall_ms_per_tick_p50": round(statistics.median(walls) * 1000, 2),
        "redis_ms_per_tick": round(script_usec / 1000, 2),
        "script_calls_per_tick": delta["evalsha"][0] / ticks,
        "redis_ms_per_script_call": round(delta["evalsha"][1] / max(1, delta["evalsha"][0]) / 1000, 2),
        "redis_us_per_table": round(script_usec / tables, 3),
        "renewals_per_redis_core_second": round(tables / (script_usec / 1e6)) if script_usec else None,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.leases")
    parser.add_argument("--tables", type=int, nargs="+", default=[1000, 10_000])
    parser.add_argument("--ticks", type=int, default=20)
    args = parser.parse_args()
    for tables in args.tables:
        print(orjson.dumps(await measure(tables, args.ticks)).decode(), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
